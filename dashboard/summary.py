"""The compare page's numbers, assembled from the store's comparison read model and the judge's
statistics (no Streamlit here, so tests call it too).

:class:`CompareSummary` carries the keys of ``rejudge compare --json`` (``a``, ``b``,
``accuracy_a``, ``accuracy_b``, ``mcnemar_p``, ``comparable``) plus what the page shows beside
them (intervals, delta, verdict, reasons, flip counts), without the flips list itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rejudge.dashboard.stats import ALPHA, mcnemar_exact, plain_verdict, wilson_interval
from rejudge.store import Coverage, EvaluationSummary, Store

from rejudge.model import comparability_reasons

__all__ = ["Difference", "CompareSummary", "comparability", "differences", "compare_summary"]

# the inputs a comparison is usually about, in the order the page names them
COMPARED_FIELDS = ("tier", "rule_set", "model", "run", "engine_version")


@dataclass(frozen=True)
class Difference:
    field: str
    a: Any
    b: Any


@dataclass(frozen=True)
class CompareSummary:
    a: int
    b: int
    accuracy_a: float | None
    accuracy_b: float | None
    ci_a: tuple[float, float]
    ci_b: tuple[float, float]
    delta: float | None
    mcnemar_p: float
    alpha: float
    verdict: str
    comparable: bool
    reasons: list[str]
    differences: list[Difference]
    same_evaluation: bool
    pass_to_fail: int
    fail_to_pass: int
    other_flips: int
    flip_count: int
    coverage: Coverage
    scored_a: int
    scored_b: int


def comparability(
    info_a: EvaluationSummary, info_b: EvaluationSummary, cover: Coverage
) -> list[str]:
    """Why A and B do not measure the same thing (empty when they do): the one rule of
    :func:`rejudge.model.comparability_reasons`, fed with SQL counts."""
    return comparability_reasons(
        only_a=cover.a - cover.paired,
        only_b=cover.b - cover.paired,
        changed_cases=cover.changed_cases,
        registries_differ=bool(cover.registry_changed_rows)
        or info_a.registry_hash != info_b.registry_hash,
        harness_a=info_a.harness_mode,
        harness_b=info_b.harness_mode,
    )


def differences(info_a: EvaluationSummary, info_b: EvaluationSummary) -> list[Difference]:
    """What a comparison is for: the inputs that differ between A and B."""
    return [
        Difference(name, getattr(info_a, name), getattr(info_b, name))
        for name in COMPARED_FIELDS
        if getattr(info_a, name) != getattr(info_b, name)
    ]


def compare_summary(store: Store, a: int, b: int) -> CompareSummary | None:
    infos = {r.id: r for r in store.evaluation_summaries(ids=[a, b])}
    if a not in infos or b not in infos:
        return None
    info_a, info_b = infos[a], infos[b]
    pairs = store.pair_counts(a, b)
    cover = store.coverage(a, b, pairs)
    pass_to_fail = pairs.get(("PASS", "FAIL"), 0)
    fail_to_pass = pairs.get(("FAIL", "PASS"), 0)
    other_flips = sum(
        n
        for (va, vb), n in pairs.items()
        if va is not None and vb is not None and va != vb and {va, vb} != {"PASS", "FAIL"}
    )
    p_value = mcnemar_exact(pass_to_fail, fail_to_pass)
    reasons = comparability(info_a, info_b, cover)
    acc_a, acc_b = info_a.accuracy, info_b.accuracy
    return CompareSummary(
        a=a,
        b=b,
        accuracy_a=acc_a,
        accuracy_b=acc_b,
        ci_a=wilson_interval(info_a.PASS, info_a.scored),
        ci_b=wilson_interval(info_b.PASS, info_b.scored),
        delta=round(acc_b - acc_a, 6) if acc_a is not None and acc_b is not None else None,
        mcnemar_p=p_value,
        alpha=ALPHA,
        verdict=plain_verdict(p_value, pass_to_fail, fail_to_pass),
        comparable=not reasons,
        reasons=reasons,
        differences=differences(info_a, info_b),
        same_evaluation=a == b,
        pass_to_fail=pass_to_fail,
        fail_to_pass=fail_to_pass,
        other_flips=other_flips,
        flip_count=pass_to_fail + fail_to_pass + other_flips,
        coverage=cover,
        scored_a=info_a.scored,
        scored_b=info_b.scored,
    )
