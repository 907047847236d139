"""The small statistics the pages show of one evaluation, computed from SQL counts (never from
judgment lists).

τ-bench's pass^k is the judge's own function (so the pages agree with ``rejudge report``); the
Wilson score interval is the model's (:func:`rejudge.model.wilson_interval`). A comparison of
two evaluations (its test, its verdict, its agreement) is never computed here: it is the judge's
(:func:`rejudge.judge.compare`), and the pages show it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rejudge.judge import pass_hat_k as judge_pass_hat_k
from rejudge.store import PassCell

from rejudge.model import wilson_interval

__all__ = [
    "wilson_interval",
    "pass_hat_k",
    "pass_curve",
]


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
