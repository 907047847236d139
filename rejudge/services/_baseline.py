"""Baselines in the store: lock an evaluation's report (with its review figures) to its inputs,
and check a later evaluation against a locked one. The locking and the regression rules
themselves are pure (:mod:`rejudge.judge._baseline`); this module reads and writes the store."""

from __future__ import annotations

from rejudge.errors import InvalidInputError
from rejudge.judge import (
    BaselineCheck,
    BaselineLock,
    ReviewRequiredError,
    check_baseline,
    lock_baseline,
)
from rejudge.store import Store

from ._compare import evaluation_inputs
from ._judging import evaluation_report
from ._reviews import calibration_summary, review_gaps

__all__ = ["lock_evaluation_baseline", "check_evaluation_baseline"]

#: the review figures a lock reports back (the whole block is in the locked report)
_LOCK_FIGURES = ("reviewed", "fails", "misjudgment_rate", "golden_errors", "unclear", "gaps")


def lock_evaluation_baseline(
    store: Store,
    evaluation_id: int | str,
    name: str,
    *,
    note: str | None = None,
    require_review: bool = False,
) -> BaselineLock:
    """Lock an evaluation as a baseline whose report carries its calibration figures, bound to
    its input hashes and the sha256 of the report's canonical JSON.

    With ``require_review`` the lock is refused (:class:`ReviewRequiredError`, listing every gap)
    until every FAIL is reviewed and no ``judge_wrong`` label is unresolved.
    """
    ev = store.evaluations.get_evaluation(evaluation_id)
    if require_review:
        gaps = review_gaps(store, ev.id)
        if gaps:
            shown = "; ".join(gaps[:20]) + (
                f"; ... and {len(gaps) - 20} more" if len(gaps) > 20 else ""
            )
            raise ReviewRequiredError(
                f"evaluation {ev.id} is not fully reviewed ({len(gaps)} gap(s)): {shown}; "
                "review them (export the evaluation for review, or the dashboard's Review page) "
                "or lock without requiring review",
                gaps,
                field="require_review",
            )
    calibration = calibration_summary(store, ev.id).to_json()
    # the canonical report (hashed below): summary keys, then cases, then calibration
    report = {**evaluation_report(store, ev.id).flat(), "calibration": calibration}
    locked = lock_baseline(name, report, evaluation_inputs(store, ev.id))
    record = store.baselines.save_baseline(
        name=name,
        evaluation_id=ev.id,
        report_hash=locked["report_sha256"],
        input_hashes=locked["inputs"],
        report=locked["report"],
        note=note,
    )
    return BaselineLock(
        baseline=record.name,
        evaluation=ev.id,
        report_sha256=record.report_hash,
        inputs=record.input_hashes,
        accuracy=record.report.get("accuracy"),
        verdict_counts=record.report.get("verdict_counts"),
        reviewed=require_review,
        calibration={k: calibration[k] for k in _LOCK_FIGURES},
    )


def check_evaluation_baseline(
    store: Store,
    evaluation_id: int | str,
    against: str,
    *,
    max_drop: float = 0.0,
    fail_on_flip: bool = True,
    allow_mismatch: bool = False,
) -> BaselineCheck:
    """Check an evaluation against a locked baseline (raises on mismatched inputs unless
    ``allow_mismatch``); ``regression`` in the result decides the exit code."""
    if max_drop < 0:
        raise InvalidInputError(
            "the allowed accuracy drop must be >= 0 (an absolute drop, e.g. 0.02)", field="max_drop"
        )
    ev = store.evaluations.get_evaluation(evaluation_id)
    record = store.baselines.get_baseline(against)
    baseline = {
        "name": record.name,
        "inputs": record.input_hashes,
        "report": record.report,
        "report_sha256": record.report_hash,
    }
    result = check_baseline(
        baseline,
        evaluation_report(store, ev.id).flat(),
        evaluation_inputs(store, ev.id),
        fail_on_flip=fail_on_flip,
        max_accuracy_drop=max_drop,
        allow_mismatch=allow_mismatch,
    )
    return BaselineCheck(**result, evaluation=ev.id, baseline_evaluation=record.evaluation_id)
