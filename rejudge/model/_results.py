"""Typed results of the judge's use cases: what `judge`, `rejudge`, `report`, `compare` and
`baseline lock|check` return, and what their ``--json`` prints.

Each is a frozen dataclass whose fields, in order, are the keys of its JSON (DESIGN §11's
contract and the tests rely on the names and the order: ``to_json`` is the fields in order, so the JSON a
script reads is the dump of the very object a caller gets). A report's ``summary`` is the
:class:`~rejudge.model.ReportSummary` :func:`rejudge.judge.build_report` builds; it is stored
(an evaluation's summary, a baseline's report) and hashed as its ``to_json``. Renderers for
people live in the CLI and the dashboard; nothing here prints. The typed parts of a result
(:class:`~rejudge.model.VerdictCounts`, :class:`~rejudge.model.Flip`, the report's parts) dump
to the very dicts they replaced, so ``--json`` is the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from rejudge.model._comparison import ComparisonKind, Flip, JudgeAgreement
from rejudge.model._judge_calibration import JudgeCalibration
from rejudge.model._report import Report, ReportRow, ReportSummary
from rejudge.model._verdicts import VerdictCounts

__all__ = [
    "Result",
    "JudgeRunResult",
    "JudgeSummary",
    "RejudgedEvaluation",
    "RejudgeResult",
    "EvaluationReport",
    "Comparison",
    "BaselineLock",
    "BaselineCheck",
]


@dataclass(frozen=True)
class Result:
    """A typed result whose JSON form is its fields, in declaration order."""

    def to_json(self) -> dict[str, Any]:
        # shallow, unlike ``asdict``: a report's thousands of case rows are not deep-copied
        return {f.name: _dump(getattr(self, f.name)) for f in fields(self)}


def _dump(value: Any) -> Any:
    # a typed part dumps itself (its ``to_json``), a list of them each; plain data is as is
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, list) and value and hasattr(value[0], "to_json"):
        return [v.to_json() for v in value]
    return value


@dataclass(frozen=True)
class JudgeRunResult(Result):
    """One run judged (or one shard of it) into an evaluation."""

    evaluation_id: int
    run_id: int
    tier: str
    rules: str
    judged: int
    written: int
    summary: ReportSummary


@dataclass(frozen=True)
class JudgeSummary(Result):
    """``rejudge judge RUN --json``; a model-graded evaluation's carries its judge's
    calibration (the key is absent for the rule and world tiers, whose JSON is unchanged)."""

    evaluation: int
    run: str
    tier: str
    rules: str
    summary: ReportSummary
    judged: int
    written: int
    judge_calibration: JudgeCalibration | None = None

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        if self.judge_calibration is None:
            del out["judge_calibration"]
        return out


@dataclass(frozen=True)
class RejudgedEvaluation(Result):
    """One (run, tier) of a re-judge."""

    evaluation: int
    run: str
    tier: str
    rules: str
    judged: int
    written: int
    summary: ReportSummary


@dataclass(frozen=True)
class RejudgeResult(Result):
    """``rejudge rejudge ... --json``: every evaluation written, runs skipped, totals."""

    rules: str
    evaluations: list[RejudgedEvaluation]
    skipped: list[dict[str, Any]]
    judged: int
    written: int


@dataclass(frozen=True)
class EvaluationReport(Result):
    """``rejudge report EVAL --json``: the summary, every case, and (when asked) the review
    figures (:func:`rejudge.services._reviews.calibration_summary`)."""

    evaluation: int
    run: str | int  # the run's id when the run is gone
    tier: str
    rules: str
    summary: ReportSummary
    cases: list[ReportRow]
    calibration: dict[str, Any] | None = None
    # a model judge's agreement with reviews, the other tiers and external verdicts
    # (model-graded evaluations only: shown wherever the judge's verdicts are)
    judge_calibration: JudgeCalibration | None = None

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out["summary"] = self.summary.to_json(with_count=False)  # the rows are beside it
        if self.calibration is None:  # the plain report has no calibration key
            del out["calibration"]
        if self.judge_calibration is None:  # nor a rule tier's report a judge's calibration
            del out["judge_calibration"]
        return out

    def flat(self) -> dict[str, Any]:
        """The summary with its rows: the report a baseline locks and hashes."""
        return Report(self.summary, self.cases).to_json()


@dataclass(frozen=True)
class Comparison(Result):
    """``rejudge compare A B --json`` (format :data:`~rejudge.model.COMPARISON_FORMAT_VERSION`):
    what :func:`rejudge.judge.compare` joins (the keys of :func:`rejudge.judge.compare_rows`),
    then what each side measured (:func:`rejudge.services.evaluation_meta`).

    ``kind`` says what A and B differ in (``differs``: the causes on each side); ``mcnemar_p``
    and ``verdict`` are given for an evidence comparison only, ``judges`` for a judge
    comparison only (who is stricter, the 2x2 agreement and Cohen's kappa)."""

    format_version: int
    kind: ComparisonKind
    differs: dict[str, list[str]]
    a: Any
    b: Any
    accuracy_a: float | None
    accuracy_b: float | None
    accuracy_delta: float | None
    verdict_counts_a: VerdictCounts
    verdict_counts_b: VerdictCounts
    paired: int
    discordant: dict[str, int]
    concordant: dict[str, int]
    mcnemar_p: float | None
    # "B better" / "B worse" / "no significant difference": an evidence comparison that lines
    # up only (None otherwise)
    verdict: str | None
    judges: JudgeAgreement | None
    comparable: bool
    reasons: list[str]
    differences: list[dict[str, Any]]
    only_a: list[dict[str, Any]]
    only_b: list[dict[str, Any]]
    dimensions: dict[str, dict[str, Any]]
    # flips per first cause, in the order causes are listed
    flips_by_cause: dict[str, int]
    flips: list[Flip]
    meta_a: dict[str, Any] = field(default_factory=dict)
    meta_b: dict[str, Any] = field(default_factory=dict)
    # a model-graded side's judge calibration (how far its verdicts can be trusted: a weak
    # judge says so beside any comparison of them); the keys are absent for a rule tier's side
    judge_calibration_a: JudgeCalibration | None = None
    judge_calibration_b: JudgeCalibration | None = None

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        for side in ("judge_calibration_a", "judge_calibration_b"):
            if out[side] is None:
                del out[side]
        return out

    def reading(self) -> str:
        """What the comparison says, in plain words, for people (the CLI and the dashboard
        print this one sentence, so they cannot word a comparison differently)."""
        judge = ", ".join(self.differs.get("judge", [])) or "nothing"
        evidence = ", ".join(self.differs.get("evidence", [])) or "nothing"
        if self.kind == "mixed":
            return (
                f"MIXED comparison: both the evidence ({evidence}) and the judge ({judge}) "
                "differ, so no change can be credited to the model or to the judge; no verdict "
                "and no significance test are given. Compare one change at a time."
            )
        if self.kind == "judge":
            j = self.judges
            kappa = "n/a" if j is None or j.kappa is None else f"{j.kappa:.3f}"
            agreement = (
                "n/a"
                if j is None or j.agreement is None
                # with its count: the pairs both judges scored and agreed on
                else f"{100 * j.agreement:.1f}% ({j.pass_pass + j.fail_fail} of {j.total})"
            )
            stricter = "" if j is None else f"{j.sentence()}; "
            return (
                f"Judge comparison (the same traces, another judge: {judge}): {stricter}"
                f"agreement {agreement}, Cohen's kappa {kappa}. This compares two judges, not "
                "two agents: a laxer judge is no progress."
            )
        if self.kind == "same":
            return "Same inputs on both sides: the same traces under the same judge."
        if not self.comparable:
            return (
                f"Evidence comparison ({evidence}), but A and B do not line up: no verdict "
                "is given."
            )
        p = "n/a" if self.mcnemar_p is None else f"{self.mcnemar_p:.4g}"
        return f"Evidence comparison ({evidence}): {self.verdict} (exact McNemar p = {p})."

    def judge_headlines(self) -> list[tuple[str, bool]]:
        """``(line, weak)`` per model-graded side, the line ``A's judge: weak judge: kappa
        0.05 vs τ-bench reward on 200 traces``: what a renderer prints beside the comparison
        (the same words in the CLI and the dashboard), loudly when ``weak``."""
        return [
            (f"{side}'s judge: {cal.headline}", cal.warning is not None)
            for side, cal in (("A", self.judge_calibration_a), ("B", self.judge_calibration_b))
            if cal is not None
        ]


@dataclass(frozen=True)
class BaselineLock(Result):
    """``rejudge baseline lock EVAL --json``."""

    baseline: str
    evaluation: int
    report_sha256: str
    inputs: dict[str, Any]
    accuracy: float | None
    verdict_counts: dict[str, int] | None
    reviewed: bool
    calibration: dict[str, Any]


@dataclass(frozen=True)
class BaselineCheck(Result):
    """``rejudge baseline check EVAL --json``: the keys of
    :func:`rejudge.judge._baseline.check_baseline`, then the two evaluations; ``regression``
    decides the exit code."""

    baseline: str | None
    regression: bool
    reasons: list[str]
    accuracy_baseline: float | None
    accuracy_current: float | None
    accuracy_drop: float | None
    # the counts each accuracy is a rate of (PASS of PASS + FAIL); None where the locked report
    # does not hold them
    passed_baseline: int | None
    scored_baseline: int | None
    passed_current: int | None
    scored_current: int | None
    flips: list[dict[str, Any]]
    missing_cases: list[dict[str, Any]]
    input_mismatches: list[dict[str, Any]]
    # the judge parameters among the mismatches (allowed with --allow-mismatch): the verdicts
    # moved with the judge, so no accuracy change here is the model's
    judge_changed: list[str]
    evaluation: int
    baseline_evaluation: int | None
