"""What the static HTML reports show, each in one call (``rejudge report EVAL --html``,
``rejudge compare A B --html``).

The figures are those of the ``--json`` outputs, from the same services
(:func:`evaluation_report` with its calibration, :func:`compare_evaluations`), so the page and
the JSON never disagree; added to them are the timelines of the traces worth reading (every
FAIL and AGENT_ERROR of a report; the flipped traces of a comparison) and, for a report, the
run's tiers against each external source's verdicts when the run has any.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rejudge.errors import NotFoundError
from rejudge.model import Agreement, Comparison, EvaluationReport, Timeline
from rejudge.services._agreement import evaluation_agreement
from rejudge.services._compare import compare_evaluations
from rejudge.services._judging import evaluation_report
from rejudge.services._timeline import failing_timelines, flip_timelines
from rejudge.store import Store

__all__ = ["ReportPageData", "ComparePageData", "report_page_data", "compare_page_data"]


@dataclass(frozen=True)
class ReportPageData:
    """An evaluation's report, its run's agreement with each external source (none when the
    run has no external verdicts) and the timelines of its failing traces."""

    report: EvaluationReport
    agreements: list[Agreement]
    timelines: list[Timeline]


@dataclass(frozen=True)
class ComparePageData:
    """A comparison and the timelines of its flipped traces (B's side)."""

    comparison: Comparison
    timelines: list[Timeline]


def report_page_data(
    store: Store, evaluation: int | str, cassettes_dir: Path | None = None
) -> ReportPageData:
    """The report ``rejudge report EVAL --json`` prints, with what the page adds."""
    report = evaluation_report(store, evaluation, with_calibration=True)
    run_id = store.evaluations.get_evaluation(report.evaluation).run_id
    agreements = []
    for source in store.external.external_sources(run_id):
        try:
            agreements.append(evaluation_agreement(store, report.evaluation, source=source))
        except NotFoundError:  # a source whose rule set the run was never judged under
            continue
    timelines = list(failing_timelines(store, report.evaluation, cassettes_dir))
    return ReportPageData(report, agreements, timelines)


def compare_page_data(
    store: Store, a: int | str, b: int | str, cassettes_dir: Path | None = None
) -> ComparePageData:
    """The comparison ``rejudge compare A B --json`` prints, with the flipped traces."""
    comparison = compare_evaluations(store, a, b)
    return ComparePageData(comparison, list(flip_timelines(store, comparison, cassettes_dir)))
