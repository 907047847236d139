"""``replay`` for the model judge: every stored model-graded judgment of a run is judged again
from its judge cassettes, offline, and must give the same judgment hash, as every agent trace
must re-derive the same trace hash.

The rubric comes from the registry when its hash is a known one's, else from the ``rubric.json``
the recording wrote beside the cassettes (checked against the hash too); the judge model and its
parameters from the judgment itself. A judgment whose rubric is nowhere at hand, or that an
older version of the tier judged (``details.judge.tier_version``), is *not checked* (and says
why), never passed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, NamedTuple

from rejudge.errors import RejudgeError
from rejudge.judge import builtin_rubrics
from rejudge.judge.tiers import MODEL_GRADED, MODEL_GRADED_VERSION
from rejudge.model import JudgeModel, Rubric
from rejudge.store import EvaluatedTrace, RunRecord, Store

from ._judge_steps import _chunked, load_inputs
from ._model_graded import ModelGradedOptions, _Planner, judge_item, rubric_file

__all__ = ["JudgeCheck", "check_judge_cassettes"]

SAME, DIVERGED, NOT_CHECKED = "same", "diverged", "not checked"
_PAGE = 500


@dataclass
class JudgeCheck:
    """One model-graded judgment's check against its judge cassettes."""

    case: str
    repetition: int
    evaluation: int
    outcome: str = SAME
    message: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _rubric(root: Path, run: str, ref: str, wanted: str) -> Rubric | None:
    known: list[Rubric] = builtin_rubrics()
    for rubric in known:
        if rubric.hash == wanted:
            return rubric
    path = rubric_file(root, run, wanted)
    try:
        rubric = Rubric.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None
    return rubric if rubric.hash == wanted and rubric.ref == ref else None


class _JudgedTrace(NamedTuple):
    """A judgment's trace as the planner reads it (``TraceToJudge``)."""

    case_key: str
    repetition: int
    hash: str
    body: str


def _rows_with_traces(store: Store, evaluation_id: int) -> Iterator[tuple[EvaluatedTrace, str]]:
    """An evaluation's rows (with their judgment bodies) and their traces' stored bodies, a page
    at a time: an evaluation's bodies are never all held at once."""
    for page in _chunked(
        store.judgments.iter_evaluation_rows(evaluation_id, with_body=True), _PAGE
    ):
        bodies = store.traces.trace_bodies([r.trace_id for r in page])
        for row in page:
            yield row, bodies[row.trace_id]


def check_judge_cassettes(store: Store, run: RunRecord, cassettes: Path) -> list[JudgeCheck]:
    """Re-judge every model-graded judgment of ``run`` from its cassettes (network unused)."""
    out: list[JudgeCheck] = []
    seen: set[str] = set()
    # (ref, hash) -> the rubric or None: looked up (and a user's rubric.json read) once, not
    # once per judgment
    rubrics: dict[tuple[str, str], Rubric | None] = {}
    for ev in store.evaluations.list_evaluations(run.id):
        if ev.tier != MODEL_GRADED:
            continue
        rule_set = store.rule_sets.get_rule_set(ev.rule_set_id)
        inputs = load_inputs(
            store,
            run,
            MODEL_GRADED,
            rule_set,
            ev.rule_set_id,
            run.suite_id,
            run.suite_hash,
            run.registry_id,
        )
        planners: dict[tuple[str, str], _Planner] = {}
        for row, trace_body in _rows_with_traces(store, ev.id):
            if row.judgment_key in seen:
                continue
            seen.add(row.judgment_key)
            body = row.body or {}
            judge_info = (body.get("details") or {}).get("judge")
            check = JudgeCheck(case=row.case_key, repetition=row.repetition, evaluation=ev.id)
            out.append(check)
            if not judge_info or not (body.get("details") or {}).get("samples"):
                check.outcome, check.message = SAME, ("no judge call (skipped before the judge)")
                continue
            version = judge_info.get("tier_version", 1)  # version 1 did not record it
            if version != MODEL_GRADED_VERSION:
                check.outcome, check.message = (
                    NOT_CHECKED,
                    (
                        f"judged by version {version} of the model-graded tier, this is "
                        f"version {MODEL_GRADED_VERSION}: judge the run again to check it"
                    ),
                )
                continue
            named = (judge_info["rubric"], judge_info["rubric_hash"])
            if named not in rubrics:
                rubrics[named] = _rubric(cassettes, run.name, *named)
            rubric = rubrics[named]
            if rubric is None:
                check.outcome, check.message = (
                    NOT_CHECKED,
                    (
                        f"rubric {judge_info['rubric']} is not at hand (neither built in "
                        "nor beside the judge cassettes)"
                    ),
                )
                continue
            judge = JudgeModel(
                provider=judge_info["provider"], model=judge_info["model"], **judge_info["params"]
            )
            key = (rubric.hash, judge.hash)
            planner = planners.get(key)
            if planner is None:
                options = ModelGradedOptions(rubric=rubric, judge=judge, cassettes=cassettes)
                planner = planners[key] = _Planner(inputs, options)
            trace_row = _JudgedTrace(
                case_key=row.case_key,
                repetition=row.repetition,
                hash=row.trace_hash,
                body=trace_body,
            )
            try:
                item = planner.item(trace_row)
                again = judge_item(planner, item)
            except RejudgeError as exc:
                check.outcome, check.message = DIVERGED, (str(exc))
                continue
            if again.hash == row.judgment_hash:
                check.outcome, check.message = SAME, (None)
            else:
                check.outcome, check.message = (
                    DIVERGED,
                    (
                        f"the judge cassettes replay to another judgment ({again.verdict}, "
                        f"stored {body.get('verdict')})"
                    ),
                )
    return out
