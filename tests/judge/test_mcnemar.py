"""The exact McNemar p-value is the binomial tail's formula, however it is summed."""

from __future__ import annotations

from math import comb

from hypothesis import given, settings
from hypothesis import strategies as st
from rejudge.judge import mcnemar_exact


def _by_formula(b: int, c: int) -> float:
    # p = min(1, 2 * P(X <= min(b, c))), X ~ Binomial(b + c, 1/2), each binomial from math.comb
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(min(b, c) + 1)) / (1 << n)
    return round(min(1.0, 2 * tail), 12)


@settings(max_examples=200, deadline=None)
@given(b=st.integers(0, 1500), c=st.integers(0, 1500))
def test_the_p_value_is_the_formulas(b: int, c: int) -> None:
    assert mcnemar_exact(b, c) == _by_formula(b, c)


def test_known_values() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    # 0 of 6 discordant pairs one way: 2 * (1/2)**6
    assert mcnemar_exact(0, 6) == 0.03125
    assert mcnemar_exact(3, 3) == 1.0
