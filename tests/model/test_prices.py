"""Price tables (rejudge-prices@1): strict parsing, which key prices a model, exact Decimal
costs that add up, and the run totals built from them."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import rejudge
from rejudge.errors import InvalidInputError
from rejudge.model import (
    NO_USAGE,
    NOT_PRICED,
    Cost,
    NoCost,
    PriceTable,
    PriceTableError,
    RunCost,
    TraceCost,
    format_amount,
)


def table(prices: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {"format": "rejudge-prices@1", "currency": "USD", "prices": prices, **top}


def entry(i: str, o: str) -> dict[str, str]:
    return {"input_per_mtok": i, "output_per_mtok": o}


TABLE = PriceTable.from_json(
    table(
        {
            "gpt-4o": entry("2.50", "10.00"),
            "gpt-4o-*": entry("2.00", "8.00"),
            "gpt-4o-mini-*": entry("0.15", "0.60"),
            "gpt-*": entry("1", "1"),
            "local": entry("0", "0"),
        }
    )
)


def test_the_error_is_in_the_tree() -> None:
    assert issubclass(PriceTableError, InvalidInputError)
    assert rejudge.PriceTableError is PriceTableError
    assert "PriceTableError" in (rejudge.errors.__doc__ or "")


def test_a_table_parses_from_text_and_from_its_mapping_alike() -> None:
    body = table({"m": entry("1.5", "3")}, as_of="2026-12-03", source="the provider's page")
    from_text = PriceTable.from_json(json.dumps(body))
    assert from_text == PriceTable.from_json(body)
    assert from_text.currency == "USD" and from_text.as_of == "2026-12-03"
    [price] = from_text.prices
    assert (price.key, price.input_per_mtok, price.output_per_mtok) == (
        "m",
        Decimal("1.5"),
        Decimal("3"),
    )


def test_exact_key_beats_any_glob() -> None:
    price = TABLE.price_of("gpt-4o")
    assert price is not None and price.key == "gpt-4o"


@pytest.mark.parametrize(
    ("model", "key"),
    [
        ("gpt-4o-2024-08-06", "gpt-4o-*"),
        ("gpt-4o-mini-2024-07-18", "gpt-4o-mini-*"),  # longer of the two matching globs
        ("gpt-5", "gpt-*"),
        ("local", "local"),
    ],
)
def test_the_longest_matching_glob_prices_a_model(model: str, key: str) -> None:
    price = TABLE.price_of(model)
    assert price is not None and price.key == key


def test_equally_long_globs_pick_the_same_one_in_any_key_order() -> None:
    a = {"gpt-?o": entry("1", "1"), "gpt-4*": entry("2", "2")}
    forward = PriceTable.from_json(table(a)).price_of("gpt-4o")
    backward = PriceTable.from_json(table(dict(reversed(a.items())))).price_of("gpt-4o")
    assert forward is not None and backward is not None
    assert forward.key == backward.key == "gpt-4*"  # key order breaks the tie


def test_matching_is_case_sensitive_and_a_key_without_glob_is_exact_only() -> None:
    assert TABLE.price_of("GPT-4O") is None
    assert TABLE.price_of("local-2") is None


def test_cost_is_exact_per_million_tokens() -> None:
    cost = TABLE.cost("gpt-4o", 1234, 56)
    assert cost == Cost(Decimal("0.003645"), "USD", "gpt-4o")
    assert TABLE.cost("local", 10**9, 10**9) == Cost(Decimal(0), "USD", "local")


def test_no_cost_says_why() -> None:
    assert TABLE.cost("claude", 10, 10) == NoCost(NOT_PRICED)
    assert TABLE.cost("claude", None, None) == NoCost(NOT_PRICED)  # the table is mendable
    assert TABLE.cost("gpt-4o", None, None) == NoCost(NO_USAGE)
    # input recorded, output missing: no output tokens produced
    assert TABLE.cost("gpt-4o", 1_000_000, None) == Cost(Decimal("2.50"), "USD", "gpt-4o")


def test_negative_token_counts_are_refused() -> None:
    with pytest.raises(InvalidInputError, match="negative"):
        TABLE.cost("gpt-4o", -1, 0)


TOKENS = st.integers(min_value=0, max_value=10**12)
PRICES = st.decimals(min_value=0, max_value=1000, places=4, allow_nan=False, allow_infinity=False)


@given(PRICES, PRICES, st.lists(st.tuples(TOKENS, TOKENS), min_size=1, max_size=20))
def test_cost_is_additive(p_in: Decimal, p_out: Decimal, usages: list[tuple[int, int]]) -> None:
    """The run's total is the cost of its summed tokens, to the last digit."""
    prices = PriceTable.from_json(table({"m": entry(str(p_in), str(p_out))}))
    traces = [
        TraceCost(i, f"c{i}", 0, "m", a, b, prices.cost("m", a, b))
        for i, (a, b) in enumerate(usages)
    ]
    run = RunCost.of("r", prices, traces)
    whole = prices.cost("m", sum(a for a, _ in usages), sum(b for _, b in usages))
    assert isinstance(whole, Cost)
    assert run.total == whole.amount
    [model] = run.models
    assert model.amount == run.total and model.priced == len(usages) == run.priced


# (model, tokens in or None): priced, priced by a glob, not priced, usage not recorded
KINDS = {"exact": ("gpt-4o", 1000), "glob": ("gpt-4o-x", 1000), "unpriced": ("claude", 1000)}
KINDS["no usage"] = ("gpt-4o", None)


@given(st.lists(st.sampled_from(sorted(KINDS)), max_size=30))
def test_a_run_counts_priced_and_unpriced_traces(kinds: list[str]) -> None:
    traces = []
    for i, kind in enumerate(kinds):
        model, tokens = KINDS[kind]
        traces.append(TraceCost(i, f"c{i}", 0, model, tokens, 10, TABLE.cost(model, tokens, 10)))
    run = RunCost.of("r", TABLE, traces)
    assert run.priced == kinds.count("exact") + kinds.count("glob")
    assert run.priced + run.unpriced == len(kinds)
    reasons = dict(run.unpriced_reasons)
    assert reasons.get(NOT_PRICED, 0) == kinds.count("unpriced")
    assert reasons.get(NO_USAGE, 0) == kinds.count("no usage")
    assert [m.model for m in run.models] == sorted({KINDS[k][0] for k in kinds})
    assert sum(m.priced + m.unpriced for m in run.models) == len(kinds)
    assert run.total == sum((m.amount for m in run.models), Decimal(0))


def test_the_json_holds_amounts_as_decimal_strings() -> None:
    traces = [TraceCost(1, "c", 0, "gpt-4o", 1234, 56, TABLE.cost("gpt-4o", 1234, 56))]
    body = RunCost.of("r", TABLE, traces).to_json(per_trace=True)
    assert body["total"] == "0.003645" and body["currency"] == "USD"
    assert body["traces"][0]["amount"] == "0.003645"
    assert "traces" not in RunCost.of("r", TABLE, traces).to_json()


@pytest.mark.parametrize(
    ("amount", "shown"),
    [
        ("12.5", "12.50 USD"),
        ("0", "0.00 USD"),
        ("0.003645", "0.003645 USD"),
        ("0.0000001", "< 0.000001 USD"),
        ("1234.1", "1234.10 USD"),
    ],
)
def test_format_amount(amount: str, shown: str) -> None:
    assert format_amount(Decimal(amount), "USD") == shown


OK = entry("1", "2")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("{", "not valid JSON"),
        ("[]", "a JSON object"),
        (json.dumps({"currency": "USD", "prices": {"m": OK}}), 'no "format"'),
        (json.dumps(table({"m": OK}, format="rejudge-prices@2")), "newer than this rejudge"),
        (json.dumps(table({"m": OK}, format="litellm")), "unknown price table format"),
        (json.dumps(table({"m": OK}, currency="usd")), "three-letter"),
        (json.dumps(table({"m": OK}, extra=1)), "unknown key"),
        (json.dumps(table({})), "one entry at least"),
        (json.dumps(table({"m": {"input_per_mtok": "1"}})), "missing output_per_mtok"),
        (json.dumps(table({"m": {**OK, "cached_per_mtok": "1"}})), "unknown cached_per_mtok"),
        (json.dumps(table({"m": entry("2.5x", "1")})), "not a number"),
        (json.dumps(table({"m": entry("-1", "1")})), "cannot be negative"),
        (json.dumps(table({"m": entry("NaN", "1")})), "finite"),
        (json.dumps(table({"m": entry("1", "Infinity")})), "finite"),
        (json.dumps(table({"m": {"input_per_mtok": 2.5, "output_per_mtok": "1"}})), "string"),
        (json.dumps(table({"m": entry("1." + "1" * 30, "1")})), "digits"),
        (json.dumps(table({"": OK})), "cannot be empty"),
        (
            '{"format": "rejudge-prices@1", "currency": "USD", "prices": {"m": {}, "m": {}}}',
            "twice",
        ),
    ],
)
def test_a_bad_table_is_refused_with_what_is_wrong(data: str, message: str) -> None:
    with pytest.raises(PriceTableError, match=message) as caught:
        PriceTable.from_json(data, file="prices.json")
    assert str(caught.value).startswith("prices.json: ")
    assert caught.value.file == "prices.json"


def test_the_shipped_example_parses() -> None:
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "docs" / "prices" / "example-prices.json"
    prices = PriceTable.from_json(example.read_text(encoding="utf-8"))
    assert prices.as_of is not None
    assert "EXAMPLE" in (prices.source or "")


def test_json_amounts_are_fixed_point_however_small() -> None:
    prices = PriceTable.from_json(table({"m": entry("0.00", "0.10")}))
    tiny = [TraceCost(1, "c", 0, "m", 100, 1, prices.cost("m", 100, 1))]
    body = RunCost.of("r", prices, tiny).to_json(per_trace=True)
    assert body["total"] == body["traces"][0]["amount"] == "0.0000001"
    assert Decimal(body["total"]) == Decimal("1E-7")
