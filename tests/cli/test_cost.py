"""``rejudge cost RUN --prices FILE`` on a real store (SQLite and PostgreSQL): the total is the
exact Decimal sum of the traces' costs, ``--json`` holds it as a decimal string, ``--per-trace``
lists every trace, and a missing file, a bad table or an unknown run is one ``Error:`` line."""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import Result
from rejudge.store import Store

from tests.store.store_factories import (
    make_case,
    make_config,
    make_registry,
    make_trace,
    suite_hash,
)

# (case index, repetition, input tokens, output tokens); None: usage not recorded
USAGE = [(0, 0, 1234, 56), (1, 0, 2_000_000, 1_000), (2, 0, None, None), (0, 1, 10, None)]
PRICES = {
    "format": "rejudge-prices@1",
    "currency": "EUR",
    "as_of": "2026-12-03",
    "prices": {
        "acme-large": {"input_per_mtok": "3.00", "output_per_mtok": "15.00"},
        "acme-*": {"input_per_mtok": "0.10", "output_per_mtok": "0.40"},
    },
}


def _fill(url: str) -> None:
    """Run ``priced`` (model acme-large-2026: the glob prices it), ``unpriced`` (a model the
    table does not name) and ``mixed`` (imported cassettes of several models)."""
    store = Store.open(url)
    try:
        registry, cases = make_registry(), [make_case(i) for i in range(3)]
        suite = store.suites.save_suite(
            name="retail",
            domain="retail",
            suite_hash=suite_hash(cases, registry),
            registry=registry,
            cases=cases,
        )
        pks = store.suites.get_case_pks(suite.id)
        for name, model in (
            ("priced", "acme-large-2026"),
            ("unpriced", "other-model"),
            ("mixed", "mixed:acme-large,acme-small"),
        ):
            run = store.runs.create_run(name=name, suite=suite, config=make_config(model))
            traces = []
            for i, rep, tokens_in, tokens_out in USAGE:
                usage = {} if tokens_in is None else {"input_tokens": tokens_in}
                if tokens_out is not None:
                    usage["output_tokens"] = tokens_out
                trace = make_trace(f"case-{i:03d}", rep).model_copy(update={"usage": usage})
                traces.append((run.id, pks[trace.case_id], trace, None, None))
            store.traces.save_traces(traces)
    finally:
        store.close()


@pytest.fixture
def filled(db_url: str, tmp_path: Path) -> tuple[str, Path]:
    _fill(db_url)
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps(PRICES), encoding="utf-8")
    return db_url, prices


def _expected(tokens_in: int, tokens_out: int | None) -> Decimal:
    # acme-large-2026 is priced by the glob acme-* (0.10 / 0.40 per million)
    return (Decimal(tokens_in) * Decimal("0.10") + Decimal(tokens_out or 0) * Decimal("0.40")) / (
        Decimal(1_000_000)
    )


def test_cost_totals_the_priced_traces_exactly(
    run_cli: Callable[..., Result], filled: tuple[str, Path]
) -> None:
    url, prices = filled
    result = run_cli("cost", "priced", "--prices", str(prices), "--json", db=url)
    assert result.exit_code == 0, result.output
    body = json.loads(result.output)
    recorded = [(i, o) for _, _, i, o in USAGE if i is not None]
    assert Decimal(body["total"]) == sum(_expected(i, o) for i, o in recorded)
    assert body["currency"] == "EUR" and body["prices_as_of"] == "2026-12-03"
    assert (body["priced_traces"], body["unpriced_traces"]) == (3, 1)
    assert body["unpriced_reasons"] == {"usage not recorded": 1}
    [model] = body["models"]
    assert model["model"] == "acme-large-2026" and model["priced_as"] == "acme-*"
    assert model["input_tokens"] == sum(i for i, _ in recorded)
    assert "traces" not in body


def test_per_trace_lists_every_trace_with_its_cost_or_why_not(
    run_cli: Callable[..., Result], filled: tuple[str, Path]
) -> None:
    url, prices = filled
    result = run_cli("cost", "priced", "--prices", str(prices), "--per-trace", "--json", db=url)
    assert result.exit_code == 0, result.output
    traces = json.loads(result.output)["traces"]
    by_key = {(t["case"], t["repetition"]): t for t in traces}
    assert len(traces) == len(USAGE)
    for i, rep, tokens_in, tokens_out in USAGE:
        shown = by_key[(f"case-{i:03d}", rep)]
        if tokens_in is None:
            assert shown["amount"] is None and shown["reason"] == "usage not recorded"
        else:
            assert Decimal(shown["amount"]) == _expected(tokens_in, tokens_out)


def test_the_human_output_names_the_total_and_the_unpriced(
    run_cli: Callable[..., Result], filled: tuple[str, Path]
) -> None:
    url, prices = filled
    result = run_cli("cost", "unpriced", "--prices", str(prices), "--per-trace", db=url)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    # an unpriced model is the reason even where usage is missing too: the table is mendable
    assert "Total 0.00 EUR over 0 priced trace(s); 4 unpriced (4 model not priced)" in text
    assert "Per trace" in text and text.count("model not priced") == 1 + len(USAGE)


def test_a_run_of_several_models_is_left_unpriced(
    run_cli: Callable[..., Result], filled: tuple[str, Path]
) -> None:
    url, prices = filled
    result = run_cli("cost", "mixed", "--prices", str(prices), "--json", db=url)
    assert result.exit_code == 0, result.output
    body = json.loads(result.output)
    assert body["total"] == "0" and body["priced_traces"] == 0
    assert body["unpriced_reasons"] == {"model not recorded per trace": len(USAGE)}


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("missing file", "cannot read the price table"),
        ("bad table", "newer than this rejudge reads"),
        ("not json", "not valid JSON"),
        ("unknown run", "no run 'nope' in the store"),
    ],
)
def test_errors_are_one_line(
    run_cli: Callable[..., Result], filled: tuple[str, Path], case: str, message: str
) -> None:
    url, prices = filled
    run = "nope" if case == "unknown run" else "priced"
    if case == "missing file":
        prices = prices.with_name("absent.json")
    elif case == "bad table":
        prices.write_text(json.dumps({**PRICES, "format": "rejudge-prices@2"}), encoding="utf-8")
    elif case == "not json":
        prices.write_text("{'format': ", encoding="utf-8")
    result = run_cli("cost", run, "--prices", str(prices), db=url)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0], lines
