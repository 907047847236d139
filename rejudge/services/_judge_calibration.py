"""A model-graded evaluation's calibration, read from the store: what ``report`` shows with a
model judge's verdicts (text and ``--json``), the demo prints and the dashboard draws next to
them.

For the evaluation's traces it gathers every reference there is and hands them to the pure
computation (:func:`rejudge.judge.judge_calibration`):

- the review labels on the evaluation's own judgments (each item's agreed label);
- the rule and world tiers of the same run: per tier, its latest finished evaluation
  (``state`` and ``golden`` first, then the others by name);
- every external source on the run's traces (τ-bench's reward, τ²'s), whole-trace;
- per assertion, a source's own model judge where its record has one (τ²'s ``met``), when
  the judge gave per-assertion results (an NL-assertions rubric).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from rejudge.judge import (
    AssertionReference,
    CalibrationReference,
    item_label,
    judge_calibration,
    latest_labels,
    review_reference,
)
from rejudge.judge.tiers import MODEL_GRADED
from rejudge.model import JudgeCalibration
from rejudge.store import Store, StoredExternalVerdict

__all__ = ["MODEL_GRADED_TIER", "evaluation_judge_calibration", "source_label"]

#: the tier whose judge is calibrated (the judge's own name for it)
MODEL_GRADED_TIER = MODEL_GRADED
#: the rule and world tiers shown first, in this order
_FIRST_TIERS = ("state", "golden")
_SOURCE_NAMES = {"tau-bench": "τ-bench reward", "tau2-bench": "τ²-bench reward"}
_JUDGE_NAMES = {"tau2-bench": "τ²-bench's judge"}

Key = tuple[str, int]


def source_label(source: str) -> str:
    """How a reader names an external source's whole-trace verdict."""
    return _SOURCE_NAMES.get(source, f"{source} verdict")


def _judge_label(judge: Any) -> str | None:
    if not isinstance(judge, dict):
        return None
    rubric, model = judge.get("rubric"), judge.get("model")
    if rubric and model:
        return f"{rubric} by {model}"
    return str(rubric or model) if (rubric or model) else None


def _assertion_results(given: Any) -> list[bool | None]:
    """The judge's per-assertion results by 0-based position (the tier numbers them from 1)."""
    if not isinstance(given, list):
        return []
    out: dict[int, bool] = {}
    for item in given:
        if isinstance(item, dict) and isinstance(item.get("met"), bool):
            index = item.get("index")
            if isinstance(index, int) and index >= 1:
                out[index - 1] = item["met"]
    return [out.get(i) for i in range(max(out, default=-1) + 1)]


_PATHS = {"assertions": ["details", "assertions"], "judge": ["details", "judge"]}


def evaluation_judge_calibration(store: Store, evaluation_id: int | str) -> JudgeCalibration:
    """The calibration of evaluation ``evaluation_id`` (any tier: a rule tier's works the same
    way, though it is shown only for a model judge's).

    Streamed: every side is read in trace id order and merged with the judge's rows, counts
    only, so nothing per trace is held (the evaluation is read once per reference). Only the
    few reviewed items and the external sources' verdicts (the store hands those over whole)
    are held."""
    ev = store.evaluations.get_evaluation(evaluation_id)

    def rows() -> Iterator[tuple[int, str, list[bool | None]]]:
        for row in store.judgments.iter_evaluation_rows(ev.id, body_paths=_PATHS, by_trace=True):
            yield int(row.trace_id), str(row.verdict), _assertion_results(row.paths["assertions"])

    judge: str | None = None
    any_assertions = False
    # one pass for what the calibration names and whether the judge gave per-assertion results
    for row in store.judgments.iter_evaluation_rows(ev.id, body_paths=_PATHS, by_trace=True):
        judge = judge or _judge_label(row.paths.get("judge"))
        any_assertions = any_assertions or bool(_assertion_results(row.paths.get("assertions")))
        if judge is not None and any_assertions:
            break

    references: list[CalibrationReference] = []
    reviewed = latest_labels(store.reviews.list_reviews(evaluation_id=ev.id))
    if reviewed:
        labels = {
            jid: label
            for jid, by_reviewer in reviewed.items()
            if (label := item_label(by_reviewer)) is not None
        }
        # the reviewed items' verdicts, by trace: as few as there are reviews
        verdicts: dict[int, str] = {}
        by_trace: dict[int, str] = {}
        for row in store.judgments.iter_evaluation_rows(ev.id, by_trace=True):
            label = labels.get(int(row.judgment_id))
            if label is not None:
                verdicts[int(row.trace_id)] = str(row.verdict)
                by_trace[int(row.trace_id)] = label
        if by_trace:
            references.append(
                CalibrationReference("review", "human review", review_reference(verdicts, by_trace))
            )

    latest: dict[str, int] = {}
    for other in store.evaluations.list_evaluations(ev.run_id):
        if other.status == "finished" and other.tier != MODEL_GRADED_TIER and other.id != ev.id:
            latest[other.tier] = other.id  # ascending ids: the latest wins
    first = [t for t in _FIRST_TIERS if t in latest]
    for tier in first + sorted(set(latest) - set(first)):
        references.append(
            CalibrationReference(
                "tier", tier, _tier_passed(store, latest[tier]), evaluation=latest[tier]
            )
        )

    assertion_references: list[AssertionReference] = []
    for source in store.external.external_sources(ev.run_id):
        stored = sorted(store.external.external_verdicts(ev.run_id, source), key=_trace_id)
        references.append(
            CalibrationReference(
                "external",
                source_label(source),
                {v.trace_id: v.verdict.passed for v in stored},
                source=source,
            )
        )
        met = {
            v.trace_id: {a.index: a.met for a in v.verdict.assertions}
            for v in stored
            if v.verdict.assertions
        }
        if met and any_assertions:
            assertion_references.append(
                AssertionReference(_JUDGE_NAMES.get(source, f"{source}'s judge"), met, source)
            )
    return judge_calibration(
        ev.id,
        ev.tier,
        rows,
        judge=judge,
        references=references,
        assertion_references=assertion_references,
    )


def _trace_id(verdict: StoredExternalVerdict) -> int:
    return verdict.trace_id


def _tier_passed(store: Store, evaluation: int) -> Callable[[], Iterator[tuple[int, bool]]]:
    """A tier's scored verdicts, streamed in trace id order, afresh on every call."""

    def passed() -> Iterator[tuple[int, bool]]:
        for r in store.judgments.iter_evaluation_rows(evaluation, by_trace=True):
            if r.verdict in ("PASS", "FAIL"):
                yield int(r.trace_id), r.verdict == "PASS"

    return passed
