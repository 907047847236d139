"""Page-level numbers assembled from SQL aggregates (no Streamlit here, so tests call it too).

:func:`compare_summary` carries the keys of ``rejudge compare --json`` (``a``, ``b``,
``accuracy_a``, ``accuracy_b``, ``mcnemar_p``, ``comparable``) plus what the page shows beside
them (intervals, delta, verdict, reasons, flip counts), without the flips list itself.
"""

from __future__ import annotations

from typing import Any

from rejudge.dashboard import queries
from rejudge.dashboard.stats import ALPHA, mcnemar_exact, plain_verdict, wilson_interval
from sqlalchemy import Engine

__all__ = ["comparability", "compare_summary"]


def comparability(
    info_a: dict[str, Any], info_b: dict[str, Any], cover: dict[str, int]
) -> list[str]:
    """Why A and B do not measure the same thing (empty when they do), by the judge's rules:
    different case sets, cases whose content differs, different registries or harness modes."""
    reasons: list[str] = []
    only_a = cover["a"] - cover["paired"]
    only_b = cover["b"] - cover["paired"]
    if only_a or only_b:
        reasons.append(f"case sets differ: {only_a} only in A, {only_b} only in B")
    if cover.get("changed_cases"):
        reasons.append(
            f"{cover['changed_cases']} case(s) differ in content (golden or case changed)"
        )
    if cover.get("registry_changed_rows") or info_a["registry_hash"] != info_b["registry_hash"]:
        reasons.append("tool registries differ")
    if info_a["harness_mode"] != info_b["harness_mode"]:
        reasons.append(
            f"harness modes differ ({info_a['harness_mode']} vs {info_b['harness_mode']}); "
            "results are never pooled"
        )
    return reasons


def differences(info_a: dict[str, Any], info_b: dict[str, Any]) -> list[dict[str, Any]]:
    """What a comparison is for: the inputs that differ between A and B."""
    out = []
    for field in ("tier", "rule_set", "model", "run", "engine_version"):
        if info_a.get(field) != info_b.get(field):
            out.append({"field": field, "a": info_a.get(field), "b": info_b.get(field)})
    return out


def compare_summary(engine: Engine, a: int, b: int) -> dict[str, Any] | None:
    infos = {r["id"]: r for r in queries.list_evaluations(engine, ids=[a, b])}
    if a not in infos or b not in infos:
        return None
    info_a, info_b = infos[a], infos[b]
    pairs = queries.pair_counts(engine, a, b)
    cover = queries.coverage(engine, a, b, pairs)
    pass_to_fail = pairs.get(("PASS", "FAIL"), 0)
    fail_to_pass = pairs.get(("FAIL", "PASS"), 0)
    other_flips = sum(
        n
        for (va, vb), n in pairs.items()
        if va is not None and vb is not None and va != vb and {va, vb} != {"PASS", "FAIL"}
    )
    p_value = mcnemar_exact(pass_to_fail, fail_to_pass)
    reasons = comparability(info_a, info_b, cover)
    acc_a, acc_b = info_a["accuracy"], info_b["accuracy"]
    return {
        "a": a,
        "b": b,
        "accuracy_a": acc_a,
        "accuracy_b": acc_b,
        "ci_a": wilson_interval(int(info_a["PASS"]), int(info_a["scored"])),
        "ci_b": wilson_interval(int(info_b["PASS"]), int(info_b["scored"])),
        "delta": round(acc_b - acc_a, 6) if acc_a is not None and acc_b is not None else None,
        "mcnemar_p": p_value,
        "alpha": ALPHA,
        "verdict": plain_verdict(p_value, pass_to_fail, fail_to_pass),
        "comparable": not reasons,
        "reasons": reasons,
        "differences": differences(info_a, info_b),
        "same_evaluation": a == b,
        "pass_to_fail": pass_to_fail,
        "fail_to_pass": fail_to_pass,
        "other_flips": other_flips,
        "flip_count": pass_to_fail + fail_to_pass + other_flips,
        "coverage": cover,
        "scored_a": int(info_a["scored"]),
        "scored_b": int(info_b["scored"]),
    }
