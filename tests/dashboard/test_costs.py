"""Costs in the dashboard (no browser): ``rejudge dashboard --prices`` hands the app the table
in its environment, the display helpers word a run's and a trace's cost, and (AppTest, SQLite)
the Report page and the trace viewer show them, model names inert; without a table nothing
changes."""

from __future__ import annotations

import html
import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner
from rejudge.dashboard import PRICES_ENV
from rejudge.dashboard.common import parse_args
from rejudge.dashboard.costs import (
    NO_PRICES_NOTE,
    TOKENS_HELP,
    run_cost_caption,
    tokens_metric,
    trace_cost_shown,
)
from rejudge.dashboard.figures_html import figure_html
from streamlit.testing.v1 import AppTest

from rejudge.cli import cli
from rejudge.cli.dashboard import dashboard
from rejudge.model import NO_USAGE, NOT_PRICED, Cost, NoCost, PriceTable, RunCost, TraceCost
from tests.dashboard.conftest import app_on, metrics
from tests.dashboard.factory import Built, build_store

EVIL = "https://evil.example/m www.evil.example mail@evil.example"
LINKABLE = re.compile(r"(https?|ftp)://|www\.|[\w.+-]+@[\w-]+\.\w")
# every run of the factory records 100 input and 10 output tokens per trace
PRICES = {
    "format": "rejudge-prices@1",
    "currency": "USD",
    "as_of": "2026-12-03",
    "prices": {
        "model-a": {"input_per_mtok": "2.50", "output_per_mtok": "10.00"},
        "*evil*": {"input_per_mtok": "1.00", "output_per_mtok": "1.00"},
    },
}
TABLE = PriceTable.from_json(PRICES)


def _decoded(text: str) -> str:
    return text.replace("\\", "")  # the escapes decoded, as the renderer does


def test_the_cli_passes_the_table_in_the_environment_and_refuses_a_bad_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(cli.commands, "dashboard", dashboard)
    url = f"sqlite:///{tmp_path / 'r.db'}"
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps(PRICES), encoding="utf-8")
    ok = CliRunner().invoke(cli, ["--db", url, "dashboard", "--prices", str(prices), "--dry-run"])
    assert ok.exit_code == 0, ok.output
    assert f"{PRICES_ENV}={prices.resolve()}" in ok.output
    assert str(prices) not in ok.output.split(f"{PRICES_ENV}=", 1)[1].split(" ", 1)[1]  # not argv
    plain = CliRunner().invoke(cli, ["--db", url, "dashboard", "--dry-run"])
    assert plain.exit_code == 0 and PRICES_ENV not in plain.output
    prices.write_text(json.dumps({**PRICES, "currency": "dollars"}), encoding="utf-8")
    bad = CliRunner().invoke(cli, ["--db", url, "dashboard", "--prices", str(prices), "--dry-run"])
    assert bad.exit_code == 1
    assert bad.output.startswith("Error: ") and "three-letter" in bad.output
    assert len(bad.output.strip().splitlines()) == 1


def test_the_app_reads_the_table_from_its_environment_or_command_line(tmp_path: Path) -> None:
    env = {"REJUDGE_DASHBOARD_DB": "sqlite:///x.db", PRICES_ENV: "/t/p.json"}
    assert parse_args([], env).prices_file == Path("/t/p.json")
    assert parse_args(["--db", "sqlite:///y.db", "--prices", "q.json"], env).prices_file == Path(
        "q.json"
    )
    assert parse_args([], {"REJUDGE_DASHBOARD_DB": "sqlite:///x.db"}).prices_file is None


def test_run_cost_caption_gives_total_counts_and_reasons() -> None:
    traces = [
        TraceCost(1, "c1", 0, "model-a", 1_000_000, 0, TABLE.cost("model-a", 1_000_000, 0)),
        TraceCost(2, "c2", 0, "model-a", None, None, TABLE.cost("model-a", None, None)),
        TraceCost(3, "c3", 0, "other", 10, 10, TABLE.cost("other", 10, 10)),
    ]
    caption = _decoded(run_cost_caption(RunCost.of("r", TABLE, traces)))
    assert caption.startswith("Cost over the run: 2.50 USD over 1 priced trace(s) · 2 unpriced")
    assert f"1 {NOT_PRICED}" in caption and f"1 {NO_USAGE}" in caption
    assert "model-a as model-a" in caption and "as of 2026-12-03" in caption


def test_a_model_name_in_the_cost_caption_is_inert() -> None:
    cost = TABLE.cost(EVIL, 100, 10)
    caption = run_cost_caption(RunCost.of("r", TABLE, [TraceCost(1, "c", 0, EVIL, 100, 10, cost)]))
    assert not LINKABLE.search(_decoded(caption))
    assert "*evil*" not in caption  # the glob's stars are escaped, not emphasis
    _value, note = tokens_metric({"input_tokens": 100}, cost)
    shown = figure_html("Tokens in / out", "100 / 0", note=note)
    # the note is plain text in an escaped attribute (no Markdown to escape, no link)
    assert "*evil*" in note and "<a" not in shown and f'title="{html.escape(note)}"' in shown


def test_tokens_metric_and_trace_cell() -> None:
    usage = {"input_tokens": 1234, "output_tokens": 56}
    assert tokens_metric(usage, None) == ("1,234 / 56", TOKENS_HELP)  # no table: as before
    priced = TABLE.cost("model-a", 1234, 56)
    assert isinstance(priced, Cost) and priced.amount == Decimal("0.003645")
    assert tokens_metric(usage, priced)[0] == "1,234 / 56 · 0.003645 USD"
    value, help_text = tokens_metric({}, NoCost(NO_USAGE))
    assert value == "—" and NO_USAGE in help_text
    assert trace_cost_shown(priced) == "0.003645 USD"
    assert trace_cost_shown(NoCost(NOT_PRICED)) == f"— ({NOT_PRICED})"


@pytest.fixture
def priced(tmp_path: Path) -> tuple[Built, Path]:
    built = build_store(
        f"sqlite:///{tmp_path / 'r.db'}", cases=4, repeat=2, models=("model-a", EVIL, "model-c")
    )
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps(PRICES), encoding="utf-8")
    return built, prices


def _with_prices(built: Built, prices: Path | None, page: str, **query: str) -> AppTest:
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py"))
    at.session_state["db_url"] = built.url
    at.session_state["cassettes_dir"] = ""
    at.session_state["prices_file"] = str(prices or "")
    for key, value in query.items():
        at.query_params[key] = value
    at.run(timeout=60)
    at.switch_page(f"views/{page}.py")
    at.run(timeout=60)
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_report_page_shows_the_runs_cost(priced: tuple[Built, Path]) -> None:
    built, prices = priced
    at = _with_prices(built, prices, "report", ev=str(built.evaluations["a1"]))
    [cost] = [_decoded(c.value) for c in at.caption if c.value.startswith("Cost over the run")]
    # run-a: 4 cases x 2 repetitions, each 100 in / 10 out at 2.50 / 10.00 per million
    assert cost.startswith("Cost over the run: 0.0028 USD over 8 priced trace(s) · 0 unpriced")
    assert NO_PRICES_NOTE not in [c.value for c in at.caption]
    evil = _with_prices(built, prices, "report", ev=str(built.evaluations["b1"]))
    texts = [_decoded(c.value) for c in evil.caption]
    assert any(t.startswith("Cost over the run: 0.00088 USD over 8") for t in texts)
    assert not any(LINKABLE.search(t) for t in texts)


def test_without_a_table_the_report_page_says_so_in_view(priced: tuple[Built, Path]) -> None:
    built, _prices = priced
    at = app_on(built, "report", ev=str(built.evaluations["a1"]))
    assert not any(c.value.startswith("Cost over the run") for c in at.caption)
    # written on the page (a caption), not only in a hover note
    assert NO_PRICES_NOTE in [c.value for c in at.caption]


def test_the_trace_viewer_shows_the_traces_cost(priced: tuple[Built, Path]) -> None:
    built, prices = priced
    at = _with_prices(built, prices, "trace_viewer", run=str(built.runs["run-a"]))
    assert metrics(at)["Tokens in / out"] == "100 / 10 · 0.00035 USD"
    assert not at.dataframe  # the list is drawn when opened
    at.session_state["tv_list_open"] = True  # as a click on the closed list sets it
    at.run()
    listing = next(d.value for d in at.dataframe if "cost" in d.value.columns)
    assert set(listing["cost"]) == {"0.00035 USD"}
    plain = app_on(built, "trace_viewer", run=str(built.runs["run-a"]))
    assert metrics(plain)["Tokens in / out"] == "100 / 10"
    assert NO_PRICES_NOTE in [c.value for c in plain.caption]
    assert NO_PRICES_NOTE not in [c.value for c in at.caption]
    assert not any("cost" in d.value.columns for d in plain.dataframe)
