"""The small statistics the pages show, computed from SQL counts (never from judgment lists).

The exact McNemar test and τ-bench's pass^k are the judge's own functions (so the pages agree
with ``rejudge compare`` / ``rejudge report``); the Wilson score interval is the model's
(:func:`rejudge.model.wilson_interval`); this module adds the plain-words verdict that respects the test.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rejudge.judge import mcnemar_exact
from rejudge.judge import pass_hat_k as judge_pass_hat_k
from rejudge.store import PassCell

from rejudge.model import wilson_interval

__all__ = [
    "ALPHA",
    "wilson_interval",
    "mcnemar_exact",
    "pass_hat_k",
    "pass_curve",
    "plain_verdict",
]

ALPHA = 0.05


def pass_hat_k(histogram: Iterable[PassCell], k: int) -> float | None:
    """The judge's pass^k over a histogram of (n, c, cases) cells (one per (n, c))."""
    outcomes: dict[tuple[int, int, int], tuple[int, int]] = {}
    for row in histogram:
        n, c = row.n, row.c
        for i in range(row.cases):
            outcomes[(n, c, i)] = (n, c)
    return judge_pass_hat_k(outcomes, k)


def pass_curve(histogram: Sequence[PassCell]) -> list[dict[str, Any]]:
    """pass^k for k = 1..max repetitions, with how many cases each point averages over."""
    max_n = max((r.n for r in histogram if r.cases > 0), default=0)
    out = []
    for k in range(1, max_n + 1):
        cases = sum(r.cases for r in histogram if r.n >= k)
        out.append({"k": k, "pass^k": pass_hat_k(histogram, k), "cases": cases})
    return out


def plain_verdict(
    p_value: float, pass_to_fail: int, fail_to_pass: int, alpha: float = ALPHA
) -> str:
    """ "B better" / "B worse" only when McNemar rejects at ``alpha``; the direction is the one
    the test looked at (more FAIL→PASS than PASS→FAIL means B is better)."""
    if p_value >= alpha or pass_to_fail == fail_to_pass:
        return "no significant difference"
    return "B better" if fail_to_pass > pass_to_fail else "B worse"
