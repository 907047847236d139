"""The typed agreement of rejudge's verdicts with an external verdict (τ-bench's reward, an
Inspect score): what ``rejudge report EVAL --against external`` returns and prints, the demo
shows and the dashboard's agreement page renders.

Per tier, the traces both sides scored form a 2x2 table

=================  ===============  ===============
                   external 1       external 0
=================  ===============  ===============
rejudge PASS       ``pass_1``       ``pass_0``
rejudge FAIL       ``fail_1``       ``fail_0``
=================  ===============  ===============

with the raw agreement and Cohen's kappa (agreement beyond what the two sides' own pass rates
give by chance). The computation from judgment rows is the judge's
(:func:`rejudge.judge.tier_agreement`); these are the results, and ``to_json`` is what
``--json`` prints (computed figures included, so a script reads them without redoing them).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rejudge.model._report import PassHatK

__all__ = [
    "AgreementTable",
    "Disagreement",
    "TierAgreement",
    "Agreement",
    "cohens_kappa",
    "kappa_of",
]


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def kappa_of(counts: Mapping[tuple[Hashable, Hashable], int]) -> float | None:
    """Cohen's kappa of two raters from how many items got each (first's label, second's
    label) pair, any number of categories: (p_o - p_e) / (1 - p_e), rounded to 6 places.

    The one kappa of rejudge (2x2 tables of verdicts, reviewers' labels). None on no item, and
    None when chance agreement is certain (p_e = 1: both raters gave one and the same label to
    every item): Cohen's formula is 0/0 there, and full agreement on a single class says
    nothing beyond chance, so it is *undefined*, never 1.0 (docs/calibration.md). Where it is
    undefined the raw agreement is shown instead."""
    n = sum(counts.values())
    if n == 0:
        return None
    first: Counter[Hashable] = Counter()
    second: Counter[Hashable] = Counter()
    agreeing = 0
    for (a, b), count in counts.items():
        first[a] += count
        second[b] += count
        agreeing += count if a == b else 0
    p_o = agreeing / n
    p_e = sum(first[c] * second[c] for c in first) / (n * n)
    if p_e >= 1.0:
        return None
    return _round((p_o - p_e) / (1 - p_e))


def cohens_kappa(pass_1: int, pass_0: int, fail_1: int, fail_0: int) -> float | None:
    """:func:`kappa_of` a 2x2 table (rows one side's PASS/FAIL, columns the other's 1/0)."""
    return kappa_of(
        {(True, True): pass_1, (True, False): pass_0, (False, True): fail_1, (False, False): fail_0}
    )


@dataclass(frozen=True)
class AgreementTable:
    """One tier's 2x2 table: rows rejudge's PASS/FAIL, columns the external 1/0."""

    pass_1: int = 0
    pass_0: int = 0
    fail_1: int = 0
    fail_0: int = 0

    @classmethod
    def of(cls, cells: Iterable[tuple[bool, bool]]) -> AgreementTable:
        """The table of (rejudge passed, the other side passed) pairs, one per item both
        scored: the one count every 2x2 table here is made by (agreement, calibration)."""
        counts = [0, 0, 0, 0]  # pass_1, pass_0, fail_1, fail_0
        for mine, theirs in cells:
            counts[(0 if mine else 2) + (0 if theirs else 1)] += 1
        return cls(*counts)

    @property
    def total(self) -> int:
        return self.pass_1 + self.pass_0 + self.fail_1 + self.fail_0

    @property
    def agreement(self) -> float | None:
        return _round((self.pass_1 + self.fail_0) / self.total) if self.total else None

    @property
    def kappa(self) -> float | None:
        return cohens_kappa(self.pass_1, self.pass_0, self.fail_1, self.fail_0)

    def to_json(self) -> dict[str, Any]:
        return {
            "pass_1": self.pass_1,
            "pass_0": self.pass_0,
            "fail_1": self.fail_1,
            "fail_0": self.fail_0,
            "total": self.total,
            "agreement": self.agreement,
            "kappa": self.kappa,
        }


@dataclass(frozen=True)
class Disagreement:
    """A trace the two sides scored differently, with what rejudge said of it."""

    case: str
    repetition: int
    verdict: str  # rejudge's
    external: float
    # rejudge's causes (its taxonomy codes) and its first reasons, as the judgment states them
    causes: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return "rejudge FAIL, external 1" if self.verdict == "FAIL" else "rejudge PASS, external 0"

    def to_json(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "repetition": self.repetition,
            "verdict": self.verdict,
            "external": self.external,
            "kind": self.kind,
            "causes": list(self.causes),
            "reasons": list(self.reasons),
        }


@dataclass(frozen=True)
class TierAgreement:
    """One tier's evaluation against the external verdict."""

    tier: str
    evaluation: int | None
    rules: str | None
    table: AgreementTable
    # traces left out of the table: rejudge did not score them, or the source did not
    not_scored: int
    no_external: int
    disagreements: list[Disagreement]
    # cause -> how many rejudge-FAIL/external-1 traces name it (what rejudge saw that τ-bench
    # did not count)
    causes: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "tier": self.tier,
            "evaluation": self.evaluation,
            "rules": self.rules,
            "table": self.table.to_json(),
            "not_scored": self.not_scored,
            "no_external": self.no_external,
            "causes": dict(self.causes),
            "disagreements": [d.to_json() for d in self.disagreements],
        }


@dataclass(frozen=True)
class Agreement:
    """A run's tiers against one source's external verdicts, with that source's own pass
    rate and pass^k (rejudge's estimator)."""

    run: str
    source: str
    traces: int
    external_pass_rate: float | None
    external_pass_hat_k: PassHatK
    tiers: list[TierAgreement]
    # the rule set the tiers were taken under and why that one (by default the one that
    # follows the source's reward at the version that gave its verdicts); None: not said
    rules: str | None = None
    rules_reason: str | None = None
    # the versions of the source that gave the verdicts (None: not recorded)
    external_versions: list[str | None] = field(default_factory=list)
    # how many of the ``traces`` the source passed: the count beside its pass rate
    external_passed: int | None = None

    def external_success(self) -> str:
        """The source's pass rate with its count, ``42.0% (84 of 200)`` (``n/a`` with none)."""
        if self.external_pass_rate is None:
            return "n/a"
        rate = f"{100 * self.external_pass_rate:.1f}%"
        return (
            rate
            if self.external_passed is None
            else f"{rate} ({self.external_passed} of {self.traces})"
        )

    def tier(self, name: str) -> TierAgreement | None:
        """The agreement of tier ``name``, None when the run was not judged under it."""
        return next((t for t in self.tiers if t.tier == name), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "source": self.source,
            "traces": self.traces,
            "external_pass_rate": self.external_pass_rate,
            "external_pass_hat_k": self.external_pass_hat_k.to_json(),
            "tiers": [t.to_json() for t in self.tiers],
            "rules": self.rules,
            "rules_reason": self.rules_reason,
            "external_versions": list(self.external_versions),
            "external_passed": self.external_passed,
        }
