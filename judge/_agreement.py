"""Agreement of rejudge's verdicts with an external verdict (τ-bench's reward, an Inspect score).

Pure: rows in, a typed result out (:class:`rejudge.model.TierAgreement`: per tier, the 2x2
table of the traces both sides scored, rejudge's PASS/FAIL against the external 1/0, with the
raw agreement and Cohen's kappa). A trace rejudge did not score (SKIP, AGENT_ERROR) or the
source did not score is counted apart, never in the table. Every disagreeing trace is listed
with rejudge's causes: a FAIL the source rewarded says what rejudge saw wrong; a PASS the
source did not reward says rejudge found nothing, which is where a reader looks at the
source's own record (kept as the verdict's detail).

pass^k of the external verdict uses the same estimator as rejudge's reports
(:func:`rejudge.judge._report.pass_hat_k_all`): τ-bench's C(c, k) / C(n, k) per case, averaged.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from rejudge.model import AgreementTable, Disagreement, PassHatK, TierAgreement

from ._report import pass_hat_k_all

__all__ = ["tier_agreement", "external_pass_hat_k"]


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
    cells: list[tuple[bool, bool]] = []
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
        cells.append((verdict == "PASS", passed))
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
        table=AgreementTable.of(cells),
        not_scored=not_scored,
        no_external=no_external,
        disagreements=sorted(disagreements, key=lambda d: (d.verdict, d.case, d.repetition)),
        causes=dict(sorted(causes.items(), key=lambda kv: (-kv[1], kv[0]))),
    )


def external_pass_hat_k(
    external: Mapping[tuple[str, int], tuple[float, bool]],
) -> PassHatK:
    """pass^k of the external verdict, k = 1..the most repetitions of a case (rejudge's
    estimator, the same floats its reports give)."""
    outcomes: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for (case, _rep), (_value, passed) in external.items():
        outcomes[case][0] += 1
        outcomes[case][1] += int(passed)
    tuples = {case: (n, c) for case, (n, c) in outcomes.items()}
    max_n = max((n for n, _c in tuples.values()), default=0)
    return pass_hat_k_all(tuples, max_n)  # none for no verdict (max_n 0)
