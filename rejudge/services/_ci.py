"""An evaluation as CI tests: the report, each failed judgment's reasons and diff (read from the
judgment bodies by the database, two fields, never the whole body), and under a baseline check
the verdict each case had in the baseline. The renderings (JUnit XML, a GitHub step summary,
annotations) are pure, in :mod:`rejudge.judge` (``junit_xml``, ``step_summary``)."""

from __future__ import annotations

from typing import Any

from rejudge.judge import BaselineCheck, CiResults, ci_results
from rejudge.store import Store

from ._judging import evaluation_report

__all__ = ["evaluation_ci_results"]

_NOT_PASSING = ("FAIL", "AGENT_ERROR", "SKIP")


def evaluation_ci_results(
    store: Store, evaluation_id: int | str, *, check: BaselineCheck | None = None
) -> CiResults:
    """The evaluation's cases as CI tests; with ``check`` (the result of
    :func:`rejudge.services.check_evaluation_baseline` for it) each case also carries its
    verdict in that baseline, so an accepted failure is told from a new one."""
    ev = store.evaluations.get_evaluation(evaluation_id)
    report = evaluation_report(store, ev.id)
    details: dict[tuple[str, int], dict[str, Any]] = {}
    rows = store.judgments.iter_evaluation_rows(
        ev.id, body_paths={"reasons": ["reasons"], "diff": ["diff"]}
    )
    for row in rows:
        if row.verdict in _NOT_PASSING:
            details[(str(row.case_key), int(row.repetition))] = {
                "reasons": row.paths.get("reasons") or [],
                "diff": row.paths.get("diff") or [],
            }
    baseline_cases: dict[tuple[str, int], str | None] | None = None
    if check is not None and check.baseline is not None:
        locked = store.baselines.get_baseline(check.baseline).report
        baseline_cases = {
            (str(c["case"]), int(c.get("repetition", 0))): c.get("verdict")
            for c in locked.get("cases", [])
        }
    return ci_results(report, details, check=check, baseline_cases=baseline_cases)
