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

from collections import defaultdict
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
from rejudge.store import Store

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


def evaluation_judge_calibration(store: Store, evaluation_id: int | str) -> JudgeCalibration:
    """The calibration of evaluation ``evaluation_id`` (any tier: a rule tier's works the same
    way, though it is shown only for a model judge's)."""
    ev = store.evaluations.get_evaluation(evaluation_id)
    verdicts: dict[Key, str] = {}
    assertions: dict[Key, list[bool | None]] = {}
    by_judgment: dict[int, Key] = {}
    judge: str | None = None
    for row in store.judgments.iter_evaluation_rows(
        ev.id, body_paths={"assertions": ["details", "assertions"], "judge": ["details", "judge"]}
    ):
        key = (str(row["case_key"]), int(row["repetition"] or 0))
        verdicts[key] = str(row["verdict"])
        by_judgment[int(row["judgment_id"])] = key
        results = _assertion_results(row.get("assertions"))
        if results:
            assertions[key] = results
        judge = judge or _judge_label(row.get("judge"))

    references: list[CalibrationReference] = []
    labels = {
        by_judgment[jid]: label
        for jid, by_reviewer in latest_labels(
            r.as_dict() for r in store.reviews.list_reviews(evaluation_id=ev.id)
        ).items()
        if jid in by_judgment and (label := item_label(by_reviewer)) is not None
    }
    if labels:
        references.append(
            CalibrationReference("review", "human review", review_reference(verdicts, labels))
        )

    latest: dict[str, int] = {}
    for other in store.evaluations.list_evaluations(ev.run_id):
        if other.status == "finished" and other.tier != MODEL_GRADED_TIER and other.id != ev.id:
            latest[other.tier] = other.id  # ascending ids: the latest wins
    first = [t for t in _FIRST_TIERS if t in latest]
    for tier in first + sorted(set(latest) - set(first)):
        passed = {
            (str(r["case_key"]), int(r["repetition"] or 0)): r["verdict"] == "PASS"
            for r in store.judgments.iter_evaluation_rows(latest[tier])
            if r["verdict"] in ("PASS", "FAIL")
        }
        references.append(CalibrationReference("tier", tier, passed, evaluation=latest[tier]))

    assertion_references: list[AssertionReference] = []
    for source in store.external.external_sources(ev.run_id):
        stored = store.external.external_verdicts(ev.run_id, source)
        references.append(
            CalibrationReference(
                "external",
                source_label(source),
                {(v.case_key, v.repetition): v.verdict.passed for v in stored},
                source=source,
            )
        )
        met: dict[Key, dict[int, bool]] = defaultdict(dict)
        for v in stored:
            for a in v.verdict.assertions:
                met[(v.case_key, v.repetition)][a.index] = a.met
        if met and assertions:
            assertion_references.append(
                AssertionReference(_JUDGE_NAMES.get(source, f"{source}'s judge"), met, source)
            )
    return judge_calibration(
        ev.id,
        ev.tier,
        verdicts,
        judge=judge,
        references=references,
        assertions=assertions,
        assertion_references=assertion_references,
    )
