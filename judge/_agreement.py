"""Agreement of rejudge's verdicts with an external verdict (τ-bench's reward, an Inspect score).

Pure: rows in, a typed result out. Per tier, the traces both sides scored form a 2x2 table

=================  ===============  ===============
                   external 1       external 0
=================  ===============  ===============
rejudge PASS       ``pass_1``       ``pass_0``
rejudge FAIL       ``fail_1``       ``fail_0``
=================  ===============  ===============

with the raw agreement and Cohen's kappa (agreement beyond what the two sides' own pass rates
give by chance). A trace rejudge did not score (SKIP, AGENT_ERROR) or the source did not score is
counted apart, never in the table. Every disagreeing trace is listed with rejudge's causes: a
FAIL the source rewarded says what rejudge saw wrong; a PASS the source did not reward says
rejudge found nothing, which is where a reader looks at the source's own record (kept as the
verdict's detail).

pass^k of the external verdict uses the same estimator as rejudge's reports
(:func:`rejudge.judge._report.pass_hat_k_all`): τ-bench's C(c, k) / C(n, k) per case, averaged.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ._report import pass_hat_k_all

__all__ = [
    "AgreementTable",
    "Disagreement",
    "TierAgreement",
    "Agreement",
    "cohens_kappa",
    "tier_agreement",
    "external_pass_hat_k",
]


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


@dataclass(frozen=True)
class AgreementTable:
    pass_1: int = 0
    pass_0: int = 0
    fail_1: int = 0
    fail_0: int = 0

    @property
    def total(self) -> int:
        return self.pass_1 + self.pass_0 + self.fail_1 + self.fail_0

    @property
    def agreement(self) -> float | None:
        return _round((self.pass_1 + self.fail_0) / self.total) if self.total else None

    @property
    def kappa(self) -> float | None:
        return cohens_kappa(self.pass_1, self.pass_0, self.fail_1, self.fail_0)

    def as_dict(self) -> dict[str, Any]:
        return {
            "pass_1": self.pass_1,
            "pass_0": self.pass_0,
            "fail_1": self.fail_1,
            "fail_0": self.fail_0,
            "total": self.total,
            "agreement": self.agreement,
            "kappa": self.kappa,
        }


def cohens_kappa(pass_1: int, pass_0: int, fail_1: int, fail_0: int) -> float | None:
    """Cohen's kappa of a 2x2 table: (p_o - p_e) / (1 - p_e). None on an empty table; when
    both sides give one answer only (p_e = 1) the kappa is undefined: 1.0 if they agree on
    every trace, else None."""
    n = pass_1 + pass_0 + fail_1 + fail_0
    if n == 0:
        return None
    observed = (pass_1 + fail_0) / n
    rejudge_pass = (pass_1 + pass_0) / n
    external_pass = (pass_1 + fail_1) / n
    expected = rejudge_pass * external_pass + (1 - rejudge_pass) * (1 - external_pass)
    if expected >= 1.0:
        return 1.0 if observed == 1.0 else None
    return _round((observed - expected) / (1 - expected))


@dataclass(frozen=True)
class Disagreement:
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

    def as_dict(self) -> dict[str, Any]:
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

    def as_dict(self) -> dict[str, Any]:
        return {
            "tier": self.tier,
            "evaluation": self.evaluation,
            "rules": self.rules,
            "table": self.table.as_dict(),
            "not_scored": self.not_scored,
            "no_external": self.no_external,
            "causes": dict(self.causes),
            "disagreements": [d.as_dict() for d in self.disagreements],
        }


@dataclass(frozen=True)
class Agreement:
    run: str
    source: str
    traces: int
    external_pass_rate: float | None
    external_pass_hat_k: dict[str, float | None]
    tiers: list[TierAgreement]

    def as_dict(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "source": self.source,
            "traces": self.traces,
            "external_pass_rate": self.external_pass_rate,
            "external_pass_hat_k": dict(self.external_pass_hat_k),
            "tiers": [t.as_dict() for t in self.tiers],
        }

    def to_json(self) -> dict[str, Any]:
        return self.as_dict()


def tier_agreement(
    rows: Iterable[Mapping[str, Any]],
    external: Mapping[tuple[str, int], tuple[float, bool]],
    *,
    tier: str,
    evaluation: int | None = None,
    rules: str | None = None,
    max_reasons: int | None = None,
) -> TierAgreement:
    """One tier's agreement: ``rows`` are an evaluation's rows (``case``, ``repetition``,
    ``verdict``, ``taxonomy``, optional ``reasons``); ``external`` maps (case, repetition) to
    (value, passed)."""
    counts = Counter[str]()
    not_scored = no_external = 0
    disagreements: list[Disagreement] = []
    causes = Counter[str]()
    for row in rows:
        key = (str(row["case"]), int(row.get("repetition") or 0))
        verdict = row["verdict"]
        if verdict not in ("PASS", "FAIL"):
            not_scored += 1
            continue
        ext = external.get(key)
        if ext is None:
            no_external += 1
            continue
        value, passed = ext
        cell = ("pass_" if verdict == "PASS" else "fail_") + ("1" if passed else "0")
        counts[cell] += 1
        if (verdict == "PASS") != passed:
            taxonomy = list(row.get("taxonomy") or [])
            if verdict == "FAIL":
                causes.update(dict.fromkeys(taxonomy, 1))
            disagreements.append(
                Disagreement(
                    case=key[0],
                    repetition=key[1],
                    verdict=verdict,
                    external=float(value),
                    causes=taxonomy,
                    reasons=[str(r) for r in list(row.get("reasons") or [])[:max_reasons]],
                )
            )
    return TierAgreement(
        tier=tier,
        evaluation=evaluation,
        rules=rules,
        table=AgreementTable(**{k: counts[k] for k in ("pass_1", "pass_0", "fail_1", "fail_0")}),
        not_scored=not_scored,
        no_external=no_external,
        disagreements=sorted(disagreements, key=lambda d: (d.verdict, d.case, d.repetition)),
        causes=dict(sorted(causes.items(), key=lambda kv: (-kv[1], kv[0]))),
    )


def external_pass_hat_k(
    external: Mapping[tuple[str, int], tuple[float, bool]],
) -> dict[str, float | None]:
    """pass^k of the external verdict, k = 1..the most repetitions of a case (rejudge's
    estimator, the same floats its reports give)."""
    outcomes: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for (case, _rep), (_value, passed) in external.items():
        outcomes[case][0] += 1
        outcomes[case][1] += int(passed)
    tuples = {case: (n, c) for case, (n, c) in outcomes.items()}
    max_n = max((n for n, _c in tuples.values()), default=0)
    return pass_hat_k_all(tuples, max_n) if max_n else {}
