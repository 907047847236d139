"""What ``rejudge demo`` returns: :class:`DemoResult` and the typed parts it is made of.

The CLI renders these objects for people (their attributes) and ``--json`` dumps them: each
``to_json`` is exactly the dict the demo printed before it was typed (the same keys, in the same
order, a key some entries lack still absent), so ``rejudge demo --json`` keeps its bytes. The
parts that are results of other use cases stay their own types: a report is the
:class:`~rejudge.model.EvaluationReport` ``rejudge report`` returns, a comparison the
:class:`~rejudge.model.Comparison` of ``rejudge compare``, the agreement the
:class:`~rejudge.model.Agreement` of ``report --against external``. A report's ``summary`` is
its :class:`~rejudge.model.ReportSummary` and a headline quotes its typed parts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rejudge.model import (
    Agreement,
    AgreementTable,
    Comparison,
    EvaluationReport,
    PassHatK,
    ReportSummary,
    Result,
    TopFailure,
    VerdictCounts,
    wilson_interval,
)
from rejudge.services._demo_judge import DemoModelGraded

__all__ = [
    "DemoSuite",
    "DemoRun",
    "DemoSkipped",
    "DemoEvaluation",
    "DemoComparison",
    "DemoTierComparison",
    "DemoHeadline",
    "PassRate",
    "Tau2Run",
    "Tau2PairedRewards",
    "Tau2Pair",
    "ModelVsModel",
    "DemoResult",
]


@dataclass(frozen=True)
class DemoSuite(Result):
    """A built-in suite the demo loaded."""

    name: str
    cases: int
    hash: str


@dataclass(frozen=True)
class DemoRun(Result):
    """A run the demo stored: a folder of shipped cassettes, or imported evidence."""

    run: str
    run_id: int
    suite: str
    model: str
    harness_mode: str
    traces: int
    inserted: int
    # how the recordings ended: "completed" or the AGENT_ERROR kind (round_budget...), most first
    outcomes: dict[str, int]
    # imported evidence only: where it comes from, and whether τ-bench rewarded it (then it is
    # judged under τ-bench's reading of a conversation too)
    source: str | None = None
    tau_rules: bool = False

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        if self.source is None:  # a run of the shipped cassettes names no source
            del out["source"]
        if not self.tau_rules:  # only the runs τ-bench rewarded carry the flag
            del out["tau_rules"]
        return out


@dataclass(frozen=True)
class DemoSkipped(Result):
    """A cassette folder the demo could not store, and why."""

    folder: str
    reason: str


@dataclass(frozen=True)
class DemoEvaluation(Result):
    """One (run, tier, rule set) judged, or found already judged (``reused``)."""

    evaluation: int
    run: str
    tier: str
    rules: str
    reused: bool
    summary: ReportSummary

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out["summary"] = self.summary.to_json(with_count=False)  # as `rejudge report` prints it
        return out


@dataclass(frozen=True)
class DemoComparison:
    """A run's tier under two rule-set versions, compared (``rejudge compare``)."""

    run: str
    tier: str
    comparison: Comparison

    def to_json(self) -> dict[str, Any]:
        return {"run": self.run, "tier": self.tier, **self.comparison.to_json()}


@dataclass(frozen=True)
class DemoTierComparison:
    """A run's golden tier compared with another of its tiers, under the newest rules."""

    run: str
    tier_a: str
    tier_b: str
    comparison: Comparison

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "tier_a": self.tier_a,
            "tier_b": self.tier_b,
            **self.comparison.to_json(),
        }


@dataclass(frozen=True)
class DemoHeadline:
    """A run's headline: its golden report under the newest rules, or (``nothing_to_score``)
    why no evaluation of it scored a trace."""

    run: str
    model: str
    evaluation: int | None
    tier: str | None = None
    rules: str | None = None
    verdict_counts: VerdictCounts = field(default_factory=VerdictCounts)
    accuracy: float | None = None
    # only where a case was repeated: pass^1 alone is the accuracy again
    pass_at_k: PassHatK | None = None
    top_failures: list[TopFailure] = field(default_factory=list)
    nothing_to_score: str | None = None

    def to_json(self) -> dict[str, Any]:
        if self.nothing_to_score is not None:  # no report to quote: the run and why
            return {
                "run": self.run,
                "model": self.model,
                "evaluation": self.evaluation,
                "nothing_to_score": self.nothing_to_score,
            }
        return {
            "run": self.run,
            "model": self.model,
            "evaluation": self.evaluation,
            "tier": self.tier,
            "rules": self.rules,
            "verdict_counts": self.verdict_counts.to_json(),
            "accuracy": self.accuracy,
            "pass_at_k": self.pass_at_k.to_json() if self.pass_at_k is not None else None,
            "top_failures": [t.to_json() for t in self.top_failures],
            "nothing_to_score": None,
        }


# --------------------------------------------------------------------------- τ²: model vs model


@dataclass(frozen=True)
class PassRate:
    """``passed`` of ``n`` with its 95% Wilson interval (rejudge.model's, every surface's), to
    4 places; no rate and no interval for no trace."""

    passed: int
    n: int

    @property
    def rate(self) -> float | None:
        return round(self.passed / self.n, 4) if self.n else None

    @property
    def ci95(self) -> tuple[float, float] | None:
        if not self.n:
            return None
        low, high = wilson_interval(self.passed, self.n)
        return round(low, 4), round(high, 4)

    def to_json(self) -> dict[str, Any]:
        ci95 = self.ci95
        return {
            "passed": self.passed,
            "n": self.n,
            "rate": self.rate,
            "ci95": list(ci95) if ci95 is not None else None,
        }


@dataclass(frozen=True)
class Tau2Run:
    """One shipped τ² leaderboard run: τ²'s own pass rate and rejudge's, per tier, and where the
    suite has a world, the state tier's agreement with τ²'s reward."""

    run: str
    model: str
    suite: str
    evaluation: int  # its golden evaluation
    traces: int
    relabelled: int
    tau2_reward: PassRate
    rejudge_golden: PassRate
    # the state tier, where the suite's registry names a world (else all three None)
    rejudge_state: PassRate | None = None
    state_evaluation: int | None = None
    state_agreement: AgreementTable | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "run": self.run,
            "model": self.model,
            "suite": self.suite,
            "evaluation": self.evaluation,
            "traces": self.traces,
            "relabelled": self.relabelled,
            "tau2_reward": self.tau2_reward.to_json(),
            "rejudge_golden": self.rejudge_golden.to_json(),
        }
        if self.rejudge_state is not None:
            out["rejudge_state"] = self.rejudge_state.to_json()
        if self.state_evaluation is not None:
            out["state_evaluation"] = self.state_evaluation
        if self.state_agreement is not None:
            table = self.state_agreement.to_json()
            # the table's cells and figures, not its total (the cells add up to it)
            out["state_agreement"] = {
                k: table[k] for k in ("pass_1", "pass_0", "fail_1", "fail_0", "agreement", "kappa")
            }
        return out


@dataclass(frozen=True)
class Tau2PairedRewards(Result):
    """The paired test of a pair of runs on τ²'s own rewards (1.0 = pass)."""

    cases: int
    pass_to_fail: int
    fail_to_pass: int
    mcnemar_p: float


@dataclass(frozen=True)
class Tau2Pair(Result):
    """Two τ² runs compared case by case: rejudge's ``compare``, and τ²'s rewards alike."""

    a: str
    b: str
    compare: Comparison
    tau2_reward: Tau2PairedRewards


@dataclass(frozen=True)
class ModelVsModel(Result):
    """τ²-bench's leaderboard runs, model against model on the same tasks."""

    rules: str
    tier: str
    runs: list[Tau2Run]
    pair: Tau2Pair


# --------------------------------------------------------------------------- the demo's result


@dataclass
class DemoResult:
    """Everything the demo did, filled as it goes (so not frozen); its parts are."""

    cassettes_dir: str
    suites: list[DemoSuite] = field(default_factory=list)
    runs: list[DemoRun] = field(default_factory=list)
    skipped: list[DemoSkipped] = field(default_factory=list)
    evaluations: list[DemoEvaluation] = field(default_factory=list)
    reports: list[EvaluationReport] = field(default_factory=list)
    comparisons: list[DemoComparison] = field(default_factory=list)
    # per run: its golden report's headline under the newest rules, or why nothing was scored
    headlines: list[DemoHeadline] = field(default_factory=list)
    # per run: every other tier compared with the golden tier, under the newest rules
    tier_comparisons: list[DemoTierComparison] = field(default_factory=list)
    # τ-bench's reward against every tier of the imported run (report --against external)
    agreement: Agreement | None = None
    # τ²-bench's leaderboard runs, model against model
    model_vs_model: ModelVsModel | None = None
    # the model judge replayed from its shipped cassettes, calibrated
    model_graded: DemoModelGraded | None = None
    elapsed_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "cassettes": self.cassettes_dir,
            "suites": [s.to_json() for s in self.suites],
            "runs": [r.to_json() for r in self.runs],
            "skipped": [s.to_json() for s in self.skipped],
            "evaluations": [e.to_json() for e in self.evaluations],
            "reports": [r.to_json() for r in self.reports],
            "comparisons": [c.to_json() for c in self.comparisons],
            "headlines": [h.to_json() for h in self.headlines],
            "tier_comparisons": [c.to_json() for c in self.tier_comparisons],
            "agreement": self.agreement.to_json() if self.agreement is not None else None,
            "model_vs_model": (
                self.model_vs_model.to_json() if self.model_vs_model is not None else None
            ),
            "model_graded": (
                self.model_graded.to_json() if self.model_graded is not None else None
            ),
            "elapsed_s": self.elapsed_s,
        }
