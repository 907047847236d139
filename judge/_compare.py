"""Comparisons: two evaluations joined case by case and repetition by repetition.

Rows are plain dicts as in :mod:`judge.report`, plus the judgment's input hashes
(``trace_hash``, ``case_hash``, ``registry_hash``, ``rule_set_hash``, ``tier``,
``engine_version``) when known. A flip is a verdict change on the same (case, repetition); its
cause lists which inputs differ, in this order: trace changed, case changed (the case or its
golden), rules changed, tier changed, registry changed, engine changed.

``comparable`` is False (with reasons) when the two sides do not measure the same thing: different
case sets, a case whose content differs, different tool registries, or different harness modes
(oracle-assisted and production-parity results are never pooled). Different traces (two models),
rules or tiers are what a comparison is for and are listed under ``differences``.

A comparison knows its kind (:data:`rejudge.model.KEY_PARAMETERS` says which parameter is on
which side): the paired rows whose trace hashes differ make it an *evidence* comparison, rows
whose judge parameters (tier, rule set, registry/world, engine, and whatever the table adds)
differ a *judge* comparison, both a *mixed* one. The evaluations' own inputs (``meta_a`` /
``meta_b``) count too, so two evaluations with no row in common still know their kind.

Only an evidence comparison gets the paired test, the exact McNemar test: with b = PASS->FAIL
and c = FAIL->PASS discordant pairs, p = min(1, 2 * P(X <= min(b, c))) for X ~ Binomial(b + c,
1/2), and a verdict ("B better" / "B worse") only when it rejects at :data:`ALPHA`. A judge
comparison gets :class:`rejudge.model.JudgeAgreement` instead (who is stricter, the 2x2 table,
Cohen's kappa): two judges of the same traces are compared, not raced.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypedDict, Unpack

from rejudge.errors import InvalidInputError
from rejudge.model import (
    COMPARISON_FORMAT_VERSION,
    FLIP_CAUSES,
    FLIP_DIRECTIONS,
    KEY_PARAMETERS,
    SIGNIFICANCE_LEVEL,
    UNKNOWN_CAUSE,
    VERDICTS,
    Comparison,
    ComparisonKind,
    Flip,
    JudgeAgreement,
    VerdictCounts,
    VerdictSummary,
    comparability_reasons,
    flip_causes,
)

from ._pairing import Pairing, SideCounts, causes_of, pair_rows

__all__ = [
    "ALPHA",
    "mcnemar_exact",
    "plain_verdict",
    "comparison_kind",
    "compare",
    "compare_rows",
    "select_flips",
    "count_by_cause",
    "CAUSES",
    "compare_pairing",
]

#: the flip causes in order (rejudge.model defines them once; kept here under its old name)
CAUSES = FLIP_CAUSES
#: the level at which an evidence comparison's McNemar test may call a side better or worse
ALPHA = SIGNIFICANCE_LEVEL
_SCORED = ("PASS", "FAIL")


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for discordant counts b and c."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    # the same integer sum as sum(comb(n, i) for i in range(k + 1)), each binomial carried from
    # the one before (exact): math.comb from scratch per term took 53 s at n = 25,466 (the 100k
    # store's evidence comparison, bench/README.md "Issue 39 ... night"), this a fraction of one
    total = term = 1
    for i in range(k):
        term = term * (n - i) // (i + 1)
        total += term
    tail = total / (1 << n)  # 2**n, typed as an int
    return round(min(1.0, 2 * tail), 12)


def plain_verdict(
    p_value: float, pass_to_fail: int, fail_to_pass: int, alpha: float = ALPHA
) -> str:
    """ "B better" / "B worse" only when McNemar rejects at ``alpha``; the direction is the one
    the test looked at (more FAIL->PASS than PASS->FAIL means B is better). For evidence
    comparisons only: between two judges nothing is better."""
    if p_value >= alpha or pass_to_fail == fail_to_pass:
        return "no significant difference"
    return "B better" if fail_to_pass > pass_to_fail else "B worse"


def comparison_kind(differs: Mapping[str, Iterable[str]]) -> ComparisonKind:
    """``evidence``, ``judge``, ``mixed`` or ``same`` from the causes on each side."""
    evidence, judge = bool(list(differs.get("evidence", ()))), bool(list(differs.get("judge", ())))
    if evidence and judge:
        return "mixed"
    if evidence:
        return "evidence"
    return "judge" if judge else "same"


def _differing(
    paired: set[str], both_hashed: bool, meta_a: Mapping[str, Any], meta_b: Mapping[str, Any]
) -> dict[str, list[str]]:
    """The causes on each side (evidence, judge) that some paired rows (``paired``: the union of
    their :func:`flip_causes`), or the two evaluations' own inputs, differ in; in
    :data:`KEY_PARAMETERS` order. ``both_hashed``: some paired rows both carry a trace hash."""
    found = paired | set(flip_causes(meta_a, meta_b, [(p.field, p.cause) for p in KEY_PARAMETERS]))
    out: dict[str, list[str]] = {"evidence": [], "judge": []}
    for p in KEY_PARAMETERS:
        if p.cause in found and p.side in out:
            out[p.side].append(p.cause)
    # two runs whose rows carry no trace hash still hold other evidence
    if not out["evidence"] and not both_hashed:
        run_a, run_b = meta_a.get("run_id"), meta_b.get("run_id")
        if run_a is not None and run_b is not None and run_a != run_b:
            out["evidence"].append("run changed")
    return out


def count_by_cause(flips: Iterable[Flip]) -> dict[str, int]:
    """Flips per first cause, in the order causes are listed (unknown last)."""
    return _by_cause(flip.cause for flip in flips)


def _by_cause(causes: Iterable[str]) -> dict[str, int]:
    by_cause: dict[str, int] = {}
    for cause in causes:
        by_cause[cause] = by_cause.get(cause, 0) + 1
    order = [label for _field, label in FLIP_CAUSES]
    return dict(
        sorted(
            by_cause.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)
        )
    )


def select_flips(
    flips: Iterable[Flip],
    *,
    direction: str | None = None,
    case_contains: str | None = None,
    dimensions: Sequence[str] | None = None,
    causes: Sequence[str] | None = None,
) -> list[Flip]:
    """The flips a view asks for: a direction of :data:`rejudge.model.FLIP_DIRECTIONS`, a
    substring of the case id, dimensions, first causes (None: any)."""
    if direction is not None and direction not in FLIP_DIRECTIONS:
        raise InvalidInputError(f"flip direction is one of {', '.join(FLIP_DIRECTIONS)}")
    out = []
    for f in flips:
        pair = (f.from_verdict, f.to_verdict)
        if direction == "PASS→FAIL" and pair != ("PASS", "FAIL"):
            continue
        if direction == "FAIL→PASS" and pair != ("FAIL", "PASS"):
            continue
        if direction == "other" and pair in (("PASS", "FAIL"), ("FAIL", "PASS")):
            continue
        if case_contains and case_contains not in f.case:
            continue
        if dimensions and f.dimension not in dimensions:
            continue
        if causes and f.cause not in causes:
            continue
        out.append(f)
    return out


class SidesMeta(TypedDict, total=False):
    """The two sides' run metadata, as :func:`compare` takes them (its defaults)."""

    meta_a: Mapping[str, Any] | None
    meta_b: Mapping[str, Any] | None


def compare_rows(
    rows_a: Iterable[Mapping[str, Any]],
    rows_b: Iterable[Mapping[str, Any]],
    **meta: Unpack[SidesMeta],
) -> dict[str, Any]:
    """:func:`compare` as JSON, without the two sides' ``meta_a`` / ``meta_b``."""
    out = compare(rows_a, rows_b, **meta).to_json()
    del out["meta_a"], out["meta_b"]
    return out


def compare(
    rows_a: Iterable[Mapping[str, Any]],
    rows_b: Iterable[Mapping[str, Any]],
    *,
    meta_a: Mapping[str, Any] | None = None,
    meta_b: Mapping[str, Any] | None = None,
) -> Comparison:
    """Join, list flips with causes, per-dimension deltas, McNemar p and comparability."""
    # the key parameters as read now (a parameter added is counted)
    order = [(p.field, p.cause) for p in KEY_PARAMETERS]
    return compare_pairing(pair_rows(rows_a, rows_b, order), meta_a=meta_a, meta_b=meta_b)


def _side_summary(side: SideCounts, dimension: str | None = None) -> VerdictSummary:
    rows = [counts for dim, counts in side.items() if dimension is None or dim == dimension]
    n = sum(sum(c.values()) for c in rows)
    return VerdictSummary.of(
        n, VerdictCounts(**{v: sum(c.get(v, 0) for c in rows) for v in VERDICTS})
    )


def compare_pairing(
    pairing: Pairing,
    *,
    meta_a: Mapping[str, Any] | None = None,
    meta_b: Mapping[str, Any] | None = None,
) -> Comparison:
    """The comparison of a :class:`Pairing` (from rows in memory, or the store's SQL join):
    counts, flips by cause, kind, comparability, per-dimension deltas, McNemar p. Its ``flips``
    are the pairing's (empty when the pairing was read without them; every count stays)."""
    meta_a = dict(meta_a or {})
    meta_b = dict(meta_b or {})
    pass_fail = fail_pass = both_pass = both_fail = not_scored = 0
    # what the paired rows differ in (the comparison's kind), and the flips' first causes
    paired_causes: set[str] = set()
    first_causes: list[str] = []
    for (va, vb, same), n in pairing.pairs.items():
        if va == "PASS" and vb == "FAIL":
            pass_fail += n
        elif va == "FAIL" and vb == "PASS":
            fail_pass += n
        elif va == vb == "PASS":
            both_pass += n
        elif va == vb == "FAIL":
            both_fail += n
        elif va not in _SCORED or vb not in _SCORED:
            not_scored += n
        causes = causes_of(same, pairing.order)
        paired_causes.update(causes)
        if va != vb:
            first_causes.extend([causes[0] if causes else UNKNOWN_CAUSE] * n)
    only_a, only_b = pairing.only_a, pairing.only_b
    flips = list(pairing.flips or [])

    reasons = comparability_reasons(
        only_a=len(only_a),
        only_b=len(only_b),
        changed_cases=pairing.changed_cases,
        registries_differ="registry changed" in paired_causes
        or bool(
            meta_a.get("registry_hash")
            and meta_b.get("registry_hash")
            and meta_a["registry_hash"] != meta_b["registry_hash"]
        ),
        harness_a=meta_a.get("harness_mode"),
        harness_b=meta_b.get("harness_mode"),
    )

    differences = []
    for field in ("tier", "rules", "rule_set_hash", "model", "run", "engine_version"):
        if meta_a.get(field) is not None and meta_a.get(field) != meta_b.get(field):
            differences.append({"field": field, "a": meta_a.get(field), "b": meta_b.get(field)})

    counts_a = _side_summary(pairing.side_a).verdict_counts
    counts_b = _side_summary(pairing.side_b).verdict_counts
    dims = sorted({d for d in [*pairing.side_a, *pairing.side_b] if d})
    dimension_deltas = {}
    for dim in dims:
        da = _side_summary(pairing.side_a, dim)
        db = _side_summary(pairing.side_b, dim)
        delta = (
            round(db.accuracy - da.accuracy, 6)
            if da.accuracy is not None and db.accuracy is not None
            else None
        )
        dimension_deltas[dim] = {
            "accuracy_a": da.accuracy,
            "accuracy_b": db.accuracy,
            "delta": delta,
            "scored_a": da.scored_count,
            "scored_b": db.scored_count,
            # each accuracy's count beside it (PASS of scored), as every rate is shown
            "passed_a": da.verdict_counts.PASS,
            "passed_b": db.verdict_counts.PASS,
        }
    acc_a, acc_b = counts_a.accuracy, counts_b.accuracy
    differs = _differing(paired_causes, pairing.both_hashed, meta_a, meta_b)
    kind = comparison_kind(differs)
    mcnemar_p = mcnemar_exact(pass_fail, fail_pass) if kind == "evidence" else None
    return Comparison(
        format_version=COMPARISON_FORMAT_VERSION,
        kind=kind,
        differs=differs,
        a=meta_a.get("id"),
        b=meta_b.get("id"),
        accuracy_a=acc_a,
        accuracy_b=acc_b,
        accuracy_delta=round(acc_b - acc_a, 6) if acc_a is not None and acc_b is not None else None,
        verdict_counts_a=counts_a,
        verdict_counts_b=counts_b,
        paired=sum(pairing.pairs.values()),
        discordant={"pass_to_fail": pass_fail, "fail_to_pass": fail_pass},
        concordant={"pass": both_pass, "fail": both_fail},
        mcnemar_p=mcnemar_p,
        verdict=(
            plain_verdict(mcnemar_p, pass_fail, fail_pass)
            if mcnemar_p is not None and not reasons
            else None
        ),
        judges=(
            JudgeAgreement(
                pass_pass=both_pass,
                pass_fail=pass_fail,
                fail_pass=fail_pass,
                fail_fail=both_fail,
                not_scored=not_scored,
            )
            if kind == "judge"
            else None
        ),
        comparable=not reasons,
        reasons=reasons,
        differences=differences,
        only_a=[{"case": c, "repetition": r} for c, r in only_a],
        only_b=[{"case": c, "repetition": r} for c, r in only_b],
        dimensions=dimension_deltas,
        flips_by_cause=_by_cause(first_causes),
        flips=flips,
        meta_a=meta_a,
        meta_b=meta_b,
    )
