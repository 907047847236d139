"""The demo's model judge: the shipped judge cassettes replayed, with no network and no server.

The local SmolLM2 judged τ-bench's 200 GPT-4o airline trajectories (``task-success-brief@1``,
the default rubric) and τ²'s 50 ToolOrchestra airline simulations (``nl-assertions-brief@1``,
each NL assertion met or not), its replies constrained to the rubric's JSON schema by
llama-server; every exchange is a cassette under ``cassettes/<run>/judge/``. The demo
replays them (``--judge-record none``), then shows each model-graded evaluation next to the
state and golden tiers of the same run, its calibration (against τ-bench's reward, τ²'s reward
and τ²'s own model judge per assertion, the rule and world tiers) and one judge-vs-judge
comparison: the state tier against the model judge on τ-bench's run, through the compare
service (agreement, kappa, who is stricter; never "better").

A judge cassette that is missing (a checkout without them) is a line in ``skipped``, never an
error: the rest of the demo stands on its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rejudge.errors import NotFoundError, RejudgeError
from rejudge.model import Comparison, JudgeCalibration, ReportSummary
from rejudge.store import Store

__all__ = ["DEMO_JUDGED", "DemoJudged", "DemoModelGraded", "demo_model_graded"]

#: (run, rubric) the shipped judge cassettes were recorded for
DEMO_JUDGED = (
    ("tau-bench-gpt-4o-airline", "task-success-brief@1"),
    ("tau2-airline/toolorchestra/gpt-4.1-mini-2025-04-14", "nl-assertions-brief@1"),
)
_BESIDE = ("state", "golden")


@dataclass(frozen=True)
class DemoJudged:
    """One model-graded evaluation, the rule and world tiers of its run beside it."""

    run: str
    evaluation: int
    rubric: str
    judge_model: str
    summary: ReportSummary
    # replies the rubric's schema rejected (JUDGE_OUTPUT_INVALID)
    invalid: int
    calibration: JudgeCalibration
    # tier -> (evaluation, its summary) of the same run
    beside: dict[str, tuple[int, ReportSummary]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "evaluation": self.evaluation,
            "rubric": self.rubric,
            "judge_model": self.judge_model,
            "summary": self.summary.to_json(),
            "judge_output_invalid": self.invalid,
            "calibration": self.calibration.to_json(),
            "beside": {
                tier: {"evaluation": ev, "summary": s.to_json()}
                for tier, (ev, s) in self.beside.items()
            },
        }


@dataclass(frozen=True)
class DemoModelGraded:
    """The demo's model judge: its evaluations, and one comparison of two judges."""

    judged: list[DemoJudged]
    # (judge A, judge B, the compare service's result) on the same traces
    judge_vs_judge: tuple[str, str, Comparison] | None = None
    skipped: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        pair = self.judge_vs_judge
        return {
            "judged": [j.to_json() for j in self.judged],
            "judge_vs_judge": None
            if pair is None
            else {"a": pair[0], "b": pair[1], "comparison": pair[2].to_json()},
            "skipped": list(self.skipped),
        }


def _root_for(run: str, roots: list[Path]) -> Path | None:
    """The first cassette root holding judge cassettes of ``run``."""
    from rejudge.recorder._judge_calls import judge_run_dir

    return next((r for r in roots if judge_run_dir(r, run).is_dir()), None)


def _latest(store: Store, run_id: int, tier: str) -> int | None:
    found = None
    for ev in store.evaluations.list_evaluations(run_id):
        if ev.tier == tier and ev.status == "finished":
            found = ev.id
    return found


def demo_model_graded(
    store: Store, roots: list[Path], say: Callable[[str], None]
) -> DemoModelGraded:
    """Replay the shipped judge cassettes of :data:`DEMO_JUDGED` (runs the demo stored)."""
    from rejudge.judge import load_rubric
    from rejudge.judge.tiers import JUDGE_OUTPUT_INVALID
    from rejudge.model import JudgeModel
    from rejudge.services._compare import compare_evaluations
    from rejudge.services._judging import evaluation_report
    from rejudge.services._model_graded import ModelGradedOptions, judge_run_model_graded

    judged: list[DemoJudged] = []
    skipped: list[str] = []
    pair: tuple[str, str, Comparison] | None = None
    for run_name, rubric_ref in DEMO_JUDGED:
        try:
            run = store.runs.get_run(run_name)
        except NotFoundError:
            continue
        root = _root_for(run_name, roots)
        if root is None:
            skipped.append(f"{run_name}: no judge cassettes shipped here")
            continue
        rubric = load_rubric(rubric_ref)
        judge = JudgeModel()
        ev_id = _reused(store, run.id, rubric.ref, judge.model)
        if ev_id is None:
            say(f"replaying the judge's cassettes for {run_name} ({rubric.ref})")
            options = ModelGradedOptions(rubric=rubric, judge=judge, cassettes=root)
            try:
                ev_id = judge_run_model_graded(store, run.id, options).evaluation
            except RejudgeError as exc:
                skipped.append(f"{run_name}: {exc}")
                continue
        report = evaluation_report(store, ev_id, with_calibration=True)
        assert report.judge_calibration is not None  # a model-graded evaluation has one
        beside: dict[str, tuple[int, ReportSummary]] = {}
        for tier in _BESIDE:
            other = _latest(store, run.id, tier)
            if other is not None:
                beside[tier] = (other, evaluation_report(store, other).summary)
        judged.append(
            DemoJudged(
                run=run_name,
                evaluation=ev_id,
                rubric=rubric.ref,
                judge_model=judge.model,
                summary=report.summary,
                invalid=sum(1 for r in report.cases if JUDGE_OUTPUT_INVALID in r.taxonomy),
                calibration=report.judge_calibration,
                beside=beside,
            )
        )
        if pair is None and "state" in beside:
            comparison = compare_evaluations(store, beside["state"][0], ev_id)
            pair = ("state", f"{rubric.ref} by {judge.model}", comparison)
    return DemoModelGraded(judged=judged, judge_vs_judge=pair, skipped=skipped)


def _reused(store: Store, run_id: int, rubric: str, model: str) -> int | None:
    """The run's current model-graded evaluation (of its traces as they are now, under this
    engine: found as the demo finds the rule tiers') when this rubric and judge made it, read as
    its report names its judge: a repeated demo is a lookup."""
    from rejudge.judge import DEFAULT_RULE_SET, load_rule_set
    from rejudge.judge.tiers import MODEL_GRADED
    from rejudge.services._judge_steps import judged_by
    from rejudge.services._judging import find_current_evaluation

    ev = find_current_evaluation(store, run_id, MODEL_GRADED, load_rule_set(DEFAULT_RULE_SET))
    return ev if ev is not None and judged_by(store, ev) == f"{rubric} by {model}" else None
