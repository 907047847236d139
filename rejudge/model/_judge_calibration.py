"""How far a model judge can be trusted, measured: its agreement with every other verdict
on the same traces (DESIGN §7, ``model-graded``).

A model-graded evaluation is set against

- **people**: the review labels on its own judgments (``confirmed`` says the judge was right,
  ``judge_wrong`` that the other verdict was; ``golden_wrong`` and ``unclear`` say neither);
- **the rule and world tiers** on the same traces (``state``, ``golden``): their verdicts;
- **external verdicts**: a benchmark's reward on the trace (τ-bench's, τ²'s), and an outside
  model judge's verdict per NL assertion (τ²'s ``met``), assertion by assertion.

Each is one :class:`CalibrationAgainst`: the 2x2 table of the items both sides scored (rows the
judge's PASS/FAIL, or met/not met per assertion; columns the reference's), Cohen's kappa, and
what was left out on each side. The computation is the judge's
(:func:`rejudge.judge.judge_calibration`); the figures here are derived from the table only.

A judge is **weak** against a reference when the kappa on the items both scored is below
:data:`WEAK_KAPPA` (0.4, where Landis and Koch's "moderate" agreement begins). It then says so in words, with the numbers:
``weak judge: kappa 0.05 vs τ-bench reward on 200 traces``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from rejudge.model._agreement import AgreementTable

__all__ = [
    "WEAK_KAPPA",
    "CalibrationKind",
    "CalibrationAgainst",
    "JudgeCalibration",
]

#: below this kappa a judge is called weak against a reference
WEAK_KAPPA = 0.4

CalibrationKind = Literal["review", "tier", "external", "assertions"]


@dataclass(frozen=True)
class CalibrationAgainst:
    """The judge against one reference, on the items both scored."""

    kind: CalibrationKind
    # who the reference is, as a reader says it: "human review", "state", "τ-bench reward",
    # "τ²-bench's judge"
    name: str
    # the table: pass_1 the judge PASS (met) and the reference pass (met), and so on
    table: AgreementTable
    # what an item is: "traces" or "assertions"
    unit: str = "traces"
    # the reference's evaluation (a tier) or source (external), for a reader to look it up
    evaluation: int | None = None
    source: str | None = None
    # items the judge did not score (JUDGE_OUTPUT_INVALID, SKIP, AGENT_ERROR, no per-assertion
    # result) that the reference did, and items the judge scored that the reference did not
    judge_unscored: int = 0
    reference_missing: int = 0

    @property
    def items(self) -> int:
        return self.table.total

    @property
    def kappa(self) -> float | None:
        return self.table.kappa

    @property
    def weak(self) -> bool:
        kappa = self.table.kappa
        # None on no item, or when both sides gave the same one answer on every item (full
        # agreement): neither is weak
        return kappa is not None and kappa < WEAK_KAPPA

    @property
    def stricter(self) -> str | None:
        """Who passes fewer of the items both scored: ``"judge"``, ``"reference"`` or None
        (as many passes each)."""
        judge_only = self.table.pass_0  # the judge passed what the reference failed
        reference_only = self.table.fail_1
        if judge_only == reference_only:
            return None
        return "judge" if judge_only < reference_only else "reference"

    def phrase(self) -> str:
        """``kappa 0.05 vs τ-bench reward on 200 traces`` (agreement with it when the kappa is
        undefined)."""
        kappa = self.table.kappa
        if kappa is None:
            agreement = self.table.agreement
            what = "kappa undefined" + (
                f" (agreement {agreement:.2f})" if agreement is not None else ""
            )
        else:
            what = f"kappa {kappa:.2f}"
        return f"{what} vs {self.name} on {self.items} {self.unit}"

    def row(self, agreement: str) -> list[str | int]:
        """This reference's row of a calibration table, as the CLI and the dashboard show it:
        name, unit, items both scored, the four cells (the judge's PASS/FAIL against the
        reference's 1/0), ``agreement`` (as the renderer writes a rate), kappa, who is stricter,
        and the items the judge left unscored."""
        t = self.table
        kappa = "n/a" if self.kappa is None else f"{self.kappa:.2f}"
        return [
            self.name,
            self.unit,
            self.items,
            t.pass_1,
            t.pass_0,
            t.fail_1,
            t.fail_0,
            agreement,
            kappa,
            self.stricter or "neither",
            self.judge_unscored,
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "unit": self.unit,
            "evaluation": self.evaluation,
            "source": self.source,
            "table": self.table.to_json(),
            "judge_unscored": self.judge_unscored,
            "reference_missing": self.reference_missing,
            "stricter": self.stricter,
            "weak": self.weak,
            "phrase": self.phrase(),
        }


@dataclass(frozen=True)
class JudgeCalibration:
    """A model-graded evaluation against every reference there is on its traces."""

    evaluation: int
    tier: str
    # the judge, as its evaluation names it (rubric and judge model), when known
    judge: str | None = None
    against: list[CalibrationAgainst] = field(default_factory=list)

    def get(self, kind: CalibrationKind, name: str | None = None) -> CalibrationAgainst | None:
        return next(
            (a for a in self.against if a.kind == kind and (name is None or a.name == name)),
            None,
        )

    @property
    def weak(self) -> list[CalibrationAgainst]:
        return [a for a in self.against if a.weak]

    @property
    def warning(self) -> str | None:
        """``weak judge: kappa 0.05 vs τ-bench reward on 200 traces; ...``, or None when the
        judge is weak against no reference."""
        weak = self.weak
        if not weak:
            return None
        return "weak judge: " + "; ".join(a.phrase() for a in weak)

    @property
    def headline(self) -> str:
        """One line for wherever the judge's verdicts are shown: the warning, or how it agrees
        (``judge agreement: kappa 0.72 vs state on 50 traces``), or that nothing measures it."""
        if self.warning is not None:
            return self.warning
        if not self.against:
            return "judge not calibrated: no review, tier or external verdict on these traces"
        return "judge agreement: " + "; ".join(a.phrase() for a in self.against)

    def to_json(self) -> dict[str, Any]:
        return {
            "evaluation": self.evaluation,
            "tier": self.tier,
            "judge": self.judge,
            "weak": bool(self.weak),
            "warning": self.warning,
            "headline": self.headline,
            "against": [a.to_json() for a in self.against],
        }
