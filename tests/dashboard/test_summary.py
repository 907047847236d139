"""The compare page's summary equals what the judge's compare function computes from the same
evaluations (on SQLite and PostgreSQL); the small statistics helpers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from rejudge.dashboard.stats import plain_verdict, wilson_interval
from rejudge.dashboard.summary import compare_summary
from rejudge.store import Store

from tests.dashboard.conftest import judge_compare
from tests.dashboard.factory import Built


@pytest.fixture
def store(built: Built) -> Iterator[Store]:
    opened = Store.open(built.url)
    yield opened
    opened.close()


@pytest.mark.parametrize("pair", [("a1", "a2"), ("a1", "b1"), ("b1", "a2"), ("a1", "c1")])
def test_compare_numbers_match_the_judge_compare(built: Built, store: Store, pair) -> None:
    a, b = (built.evaluations[k] for k in pair)
    expected = judge_compare(built.url, a, b)
    got = compare_summary(store, a, b)
    assert got is not None
    for key in ("a", "b", "accuracy_a", "accuracy_b", "mcnemar_p", "comparable", "reasons"):
        assert getattr(got, key) == expected[key], key
    assert got.delta == expected["accuracy_delta"]
    assert got.pass_to_fail == expected["discordant"]["pass_to_fail"]
    assert got.fail_to_pass == expected["discordant"]["fail_to_pass"]
    assert got.flip_count == len(expected["flips"])


def test_not_comparable_names_its_reasons(built: Built, store: Store) -> None:
    s = compare_summary(store, built.evaluations["a1"], built.evaluations["c1"])
    assert s is not None and s.comparable is False
    assert any(r.startswith("case sets differ") for r in s.reasons)
    assert any(r.startswith("harness modes differ") for r in s.reasons)
    same = compare_summary(store, built.evaluations["a1"], built.evaluations["a2"])
    assert same is not None and same.comparable is True and same.reasons == []
    assert [d.field for d in same.differences] == ["rule_set"]
    assert compare_summary(store, built.evaluations["a1"], 10**9) is None


def test_stats_helpers() -> None:
    low, high = wilson_interval(72, 100)
    assert 0.62 < low < 0.72 < high < 0.80
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert plain_verdict(0.01, 2, 12) == "B better"
    assert plain_verdict(0.01, 12, 2) == "B worse"
    assert plain_verdict(0.2, 2, 5) == "no significant difference"
