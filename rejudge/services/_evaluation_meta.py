"""What an evaluation measured: its tier, rules and input hashes, and its run's (a comparison's
sides, a baseline's inputs)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from rejudge.errors import NotFoundError
from rejudge.judge.tiers import MODEL_GRADED
from rejudge.store import Store

__all__ = ["EvaluationMeta", "EvaluationRunMeta", "evaluation_meta"]


@dataclass(frozen=True)
class EvaluationMeta:
    """What an evaluation measured (:func:`evaluation_meta`). ``rules`` is its rule set's
    reference, or for a model-graded one what judged it; ``run`` is None when its run is gone."""

    id: int
    tier: str
    rules: str
    rule_set_hash: str
    engine_version: str
    inputs_hash: str | None
    status: str
    run: EvaluationRunMeta | None = None

    def to_json(self) -> dict[str, Any]:
        """A comparison's ``meta_a`` / ``meta_b`` (and the judge's reading of them): the keys in
        the order they always had, a gone run's left out (never null), so that JSON is as
        before."""
        # the fields' names and order are the keys'
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "run"}
        return out if self.run is None else out | asdict(self.run)


@dataclass(frozen=True)
class EvaluationRunMeta:
    """The run an evaluation judged: its name and id, model and input hashes."""

    run: str
    run_id: int
    model: str
    suite_hash: str
    registry_hash: str
    harness_mode: str


def evaluation_meta(store: Store, evaluation_id: int | str) -> EvaluationMeta:
    """What an evaluation measured: run, model, tier, rules and every input hash."""
    ev = store.evaluations.get_evaluation(evaluation_id)
    rule_set = store.rule_sets.get_rule_set(ev.rule_set_id)
    rules = rule_set.ref
    if ev.tier == MODEL_GRADED:
        from rejudge.services._judge_steps import judged_by

        # its rule set decides nothing: the rubric and the judge model do
        rules = judged_by(store, ev.id) or rules
    try:
        run = store.runs.get_run(ev.run_id)
    except NotFoundError:
        run_meta = None
    else:
        # in its fields' order: run, run_id, model, suite_hash, registry_hash, harness_mode
        run_meta = EvaluationRunMeta(
            run.name, run.id, run.model, run.suite_hash, run.registry_hash, run.harness_mode
        )
    return EvaluationMeta(
        ev.id, ev.tier, rules, rule_set.hash, ev.engine_version, ev.inputs_hash, ev.status, run_meta
    )
