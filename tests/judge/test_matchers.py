"""The five parameter rules, one behaviour per row."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rejudge.judge import (
    RULE_ERROR,
    WRONG_FORMAT,
    WRONG_VALUE,
    MatchOptions,
    get_matcher,
    match_value,
    register_matcher,
)

OK = None  # expected code for a match

CASES = [
    # rule, golden, actual, expected code (None = match), why
    ("exact", "W441", "W441", OK, "same string"),
    ("exact", "W441", "w441", WRONG_VALUE, "exact is case-sensitive"),
    ("exact", 1, 1.0, OK, "1 == 1.0"),
    ("exact", 2.5, 2.5, OK, "same float"),
    ("exact", 1, "1", WRONG_VALUE, "type-aware: a string is not a number"),
    ("exact", True, 1, WRONG_VALUE, "booleans are not numbers"),
    ("exact", 1, True, WRONG_VALUE, "numbers are not booleans"),
    ("exact", False, 0.0, WRONG_VALUE, "False is not 0.0"),
    ("exact", True, True, OK, "same boolean"),
    ("exact", None, None, OK, "null equals null"),
    ("exact", None, "", WRONG_VALUE, "null is not empty string"),
    ("exact", ["a", "b"], ["b", "a"], OK, "lists are sets: order-insensitive"),
    ("exact", ["a", "b"], ["a", "b", "b", "a"], OK, "lists are sets: duplicate-insensitive"),
    ("exact", ["a", "b"], ["a"], WRONG_VALUE, "missing element"),
    ("exact", ["a"], ["a", "c"], WRONG_VALUE, "extra element"),
    ("exact", [1, 2], [2.0, 1.0], OK, "numeric equality inside lists"),
    ("exact", {"a": {"b": [1, 2]}}, {"a": {"b": [2, 1]}}, OK, "objects recursive"),
    ("exact", {"a": 1}, {"a": 1, "b": 2}, WRONG_VALUE, "object with extra key"),
    ("exact", {"a": 1}, {}, WRONG_VALUE, "object missing key"),
    ("exact", {"a": 1}, [1], WRONG_VALUE, "object vs list"),
    ("exact", "x", ["x"], WRONG_VALUE, "scalar vs list"),
    ("normalized_str", "Blue Shirt", "  blue shirt ", OK, "trim + lowercase"),
    ("normalized_str", "ÄRGER", "ärger", OK, "Unicode lowercase, kept as Unicode"),
    ("normalized_str", "a  b", "a b", WRONG_VALUE, "internal whitespace significant"),
    ("normalized_str", "a.b", "ab", WRONG_VALUE, "punctuation significant"),
    ("normalized_str", ["Red", "BLUE"], ["blue", "red "], OK, "normalization inside sets"),
    ("normalized_str", 3, 3.0, OK, "non-strings compare exactly"),
    ("normalized_str", "3", 3, WRONG_VALUE, "string vs number"),
    ("normalized_date", "2024-05-01", "2024-05-01", OK, "same date"),
    ("normalized_date", "2024-05-01", "2024-05-02", WRONG_VALUE, "other date"),
    ("normalized_date", "2024-05-01", "2024-05-01T00:00:00", WRONG_FORMAT, "date vs datetime"),
    ("normalized_date", "2024-05-01T00:00:00", "2024-05-01", WRONG_FORMAT, "datetime vs date"),
    ("normalized_date", "2024-05-01T10:00:00+02:00", "2024-05-01T08:00:00Z", OK, "aware -> UTC"),
    (
        "normalized_date",
        "2024-05-01T10:00:00+02:00",
        "2024-05-01T10:00:00Z",
        WRONG_VALUE,
        "UTC differs",
    ),
    (
        "normalized_date",
        "2024-05-01T10:00:00",
        "2024-05-01T10:00:00Z",
        WRONG_FORMAT,
        "naive vs aware",
    ),
    (
        "normalized_date",
        "2024-05-01T10:00:00Z",
        "2024-05-01T10:00:00",
        WRONG_FORMAT,
        "aware vs naive",
    ),
    ("normalized_date", "2024-05-01T10:00:00", "2024-05-01 10:00:00", OK, "naive vs naive, space"),
    ("normalized_date", "2024-05-01", "tomorrow", WRONG_FORMAT, "no natural language"),
    ("normalized_date", "2024-05-01", "May 1, 2024", WRONG_FORMAT, "no natural language"),
    ("normalized_date", "2024-05-01", 20240501, WRONG_FORMAT, "a number is not a date"),
    (
        "normalized_date",
        "next week",
        "2024-05-01",
        RULE_ERROR,
        "golden not ISO: rule cannot evaluate",
    ),
    ("contains", "refund", "please refund order W441", OK, "substring"),
    ("contains", "Refund", "please refund", WRONG_VALUE, "contains is case-sensitive"),
    ("contains", "x", 5, WRONG_VALUE, "not a string"),
    ("any", None, "act_1", OK, "present, non-empty"),
    ("any", "whatever", 0, OK, "zero is a value"),
    ("any", "whatever", False, OK, "False is a value"),
    ("any", "x", "", WRONG_VALUE, "empty string"),
    ("any", "x", "   ", WRONG_VALUE, "blank string"),
    ("any", "x", None, WRONG_VALUE, "null"),
    ("any", "x", [], WRONG_VALUE, "empty list"),
    ("any", "x", {}, WRONG_VALUE, "empty object"),
    ("nope", 1, 1, RULE_ERROR, "unknown rule is recorded, not raised"),
]


@pytest.mark.parametrize(("rule", "golden", "actual", "code", "why"), CASES)
def test_rule_table(rule, golden, actual, code, why):
    result = match_value(rule, golden, actual)
    if code is None:
        assert result.ok, f"{why}: {result.detail}"
    else:
        assert not result.ok, why
        assert result.code == code, f"{why}: {result}"


def test_string_switches():
    opts = MatchOptions(collapse_whitespace=True, unicode_form="NFKC")
    assert match_value("normalized_str", "a  b", "a b", opts).ok
    assert match_value("normalized_str", "ｆｕｌｌ", "full", opts).ok
    assert not match_value("normalized_str", "ｆｕｌｌ", "full").ok
    assert not match_value("normalized_str", " A", "a", MatchOptions(trim=False)).ok


def test_registry_by_name():
    def starts(golden, actual, options):
        from rejudge.judge import MatchResult

        ok = isinstance(actual, str) and actual.startswith(golden)
        return MatchResult(ok, None if ok else WRONG_VALUE, "")

    register_matcher("test_prefix", starts, replace=True)
    assert get_matcher("test_prefix") is starts
    assert match_value("test_prefix", "ab", "abc").ok
    assert not match_value("test_prefix", "ab", "xab").ok
    with pytest.raises(ValueError):
        register_matcher("exact", starts)


def test_broken_user_matcher_is_recorded():
    def boom(golden, actual, options):
        raise KeyError("x")

    register_matcher("test_boom", boom, replace=True)
    result = match_value("test_boom", 1, 1)
    assert not result.ok and result.code == RULE_ERROR and "KeyError" in result.detail


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3)
    ),
    max_leaves=10,
)


@given(json_values)
def test_exact_is_reflexive(value):
    assert match_value("exact", value, value).ok


@given(json_values, json_values)
def test_matchers_never_raise(golden, actual):
    for rule in ("exact", "normalized_str", "normalized_date", "contains", "any"):
        result = match_value(rule, golden, actual)
        assert isinstance(result.ok, bool)
