"""Every page through Streamlit's AppTest on a store the test builds: no exception, and the
numbers shown are the judge's (report / compare) for the same evaluations."""

from __future__ import annotations

import json
import random

import pytest
from rejudge.dashboard.common import parse_args
from rejudge.store import Store

from tests.dashboard.conftest import (
    app_on,
    evidence,
    html_bars,
    html_tables,
    judge_compare,
    judge_report,
    metrics,
)
from tests.dashboard.factory import Built

SQLITE_ONLY = pytest.mark.parametrize("built", ["sqlite"], indirect=True)


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


@SQLITE_ONLY
def test_overview_lists_runs_evaluations_and_filters(built: Built) -> None:
    at = app_on(built)
    shown = metrics(at)
    assert shown["Runs"] == "3"
    assert shown["Evaluations"] == "4"
    assert shown["Judgments"] == str(built.judgments)
    runs = at.dataframe[0].value
    assert sorted(runs["run"]) == ["run-a", "run-b", "run-c"]
    assert set(runs.columns) >= {"model", "provider", "suite", "harness_mode", "repetitions"}
    evals = at.dataframe[1].value
    for ev in built.evaluations.values():
        report = judge_report(built.url, ev)
        row = evals[evals["id"] == ev].iloc[0]
        assert row["accuracy"] == _pct(report["accuracy"])
        assert row["PASS"] == report["verdict_counts"]["PASS"]
    # filter by rule set: only run-a's second evaluation is left
    at.multiselect(key="filter_rule_set").set_value(["t@2"]).run()
    assert metrics(at)["Evaluations"] == "1"
    assert list(at.dataframe[1].value["id"]) == [built.evaluations["a2"]]
    at.multiselect(key="filter_model").set_value(["model-b"]).run()
    assert list(at.dataframe[0].value["run"]) == ["run-b"]


@pytest.mark.parametrize("pair", [("a1", "a2"), ("a1", "b1")])
def test_compare_shows_the_judge_compare_numbers(built: Built, pair) -> None:
    a, b = (built.evaluations[k] for k in pair)
    expected = judge_compare(built.url, a, b)
    at = app_on(built, "compare", a=str(a), b=str(b))
    shown = metrics(at)
    assert shown["Accuracy A"] == _pct(expected["accuracy_a"])
    assert shown["Accuracy B"] == _pct(expected["accuracy_b"])
    assert shown["Flips"] == str(len(expected["flips"]))
    as_json = json.loads(evidence(at, "json")[0])
    assert as_json == {k: v for k, v in expected.items() if k not in ("flips", "meta_a", "meta_b")}
    notes = [*at.info, *at.success, *at.warning]
    if expected["kind"] == "evidence":
        p = expected["mcnemar_p"]
        assert shown["McNemar p (exact)"] == ("< 0.0001" if p < 0.0001 else f"{p:.4f}")
        verdict = next(m.value for m in notes if "Verdict" in m.value)
        assert expected["verdict"] in verdict
    else:
        # two rule sets on one run: a comparison of judges, no test and no "better" anywhere
        assert expected["kind"] == "judge"
        assert "McNemar p (exact)" not in shown
        kappa = expected["judges"]["kappa"]
        assert shown["Cohen's kappa"] == ("n/a" if kappa is None else f"{kappa:.3f}")
        assert any("A is stricter on" in m.value for m in notes)
        assert not any("Verdict" in m.value or "better" in m.value for m in notes)
    assert not any("comparable: false" in e.value for e in at.error)
    table = at.dataframe[0].value
    assert len(table) == len(expected["flips"])
    assert set(table["cause"]) == {f["cause"] for f in expected["flips"]}
    # filters narrow the flips table
    at.selectbox(key="flip_dir").set_value("PASS→FAIL").run()
    narrowed = at.dataframe[0].value if len(at.dataframe) and expected["flips"] else None
    down = [f for f in expected["flips"] if f["from"] == "PASS" and f["to"] == "FAIL"]
    if down:
        assert narrowed is not None and len(narrowed) == len(down)


def test_compare_bars_are_the_two_reports_numbers(built: Built) -> None:
    a, b = built.evaluations["a1"], built.evaluations["b1"]
    report = {"A": judge_report(built.url, a), "B": judge_report(built.url, b)}
    at = app_on(built, "compare", a=str(a), b=str(b))
    dimensions, categories, taxonomy = html_bars(at)
    for chart, key in ((dimensions, "dimensions"), (categories, "categories")):
        expected = {
            (name, side): f"{100 * g['accuracy']:.1f}% (n={g['scored_count']})"
            for side, r in report.items()
            for name, g in r[key].items()
        }
        assert {(label, side): text for label, side, _w, text in chart} == expected
        for label, side, width, _t in chart:  # on a 0-100 scale
            assert width == pytest.approx(100 * report[side][key][label]["accuracy"], abs=0.01)
    counts = {side: r["taxonomy_counts"] for side, r in report.items()}
    shown = {(label, side): int(text.split()[0]) for label, side, _w, text in taxonomy}
    codes = set(counts["A"]) | set(counts["B"])
    assert shown == {(c, s): counts[s].get(c, 0) for c in codes for s in ("A", "B")}


@SQLITE_ONLY
def test_compare_flags_non_comparable_loudly(built: Built) -> None:
    a, c = built.evaluations["a1"], built.evaluations["c1"]
    at = app_on(built, "compare", a=str(a), b=str(c))
    errors = [e.value for e in at.error]
    assert any("comparable: false" in e and "case sets differ" in e for e in errors)
    assert any("harness modes differ" in e for e in errors)


@SQLITE_ONLY
def test_rule_impact_shows_flips_and_the_rule_diff(built: Built) -> None:
    a, b = built.evaluations["a1"], built.evaluations["a2"]
    expected = judge_compare(built.url, a, b)
    at = app_on(built, "rule_impact", run=str(built.runs["run-a"]), ra=str(a), rb=str(b))
    shown = metrics(at)
    assert shown["Flips"] == str(len(expected["flips"]))
    assert shown["Accuracy under t@1"] == _pct(expected["accuracy_a"])
    frames = [d.value for d in at.dataframe]
    flips = next(f for f in frames if "codes before" in f.columns)
    assert len(flips) == len(expected["flips"])
    # the settings that changed, their two values and the flips each explains, in one table
    why = next(t for t in html_tables(at) if "setting" in t[0])
    assert [row["setting"] for row in why] == ["settings.free_text_rule", "(none of them)"]
    assert why[0]["A · t@1"] != why[0]["B · t@2"]
    # free_text_rule governs PARAM_WRONG_VALUE: flips where that code moved are its own
    moved = sum(
        ("PARAM_WRONG_VALUE" in f["taxonomy_from"]) != ("PARAM_WRONG_VALUE" in f["taxonomy_to"])
        or ("PARAM_WRONG_FORMAT" in f["taxonomy_from"])
        != ("PARAM_WRONG_FORMAT" in f["taxonomy_to"])
        for f in expected["flips"]
    )
    assert int(why[0]["flips it likely explains"]) == moved
    assert int(why[1]["flips it likely explains"]) == len(expected["flips"]) - moved


@SQLITE_ONLY
def test_trace_viewer_cards_badges_diff_and_cassette(built: Built) -> None:
    at = app_on(built, "trace_viewer", run=str(built.runs["run-a"]))
    markdown = "\n".join(m.value for m in at.markdown)
    # counted from 0, as `rejudge traces` prints rounds and the judge counts calls ("call #0")
    assert "**Round 0**" in markdown and "**Round 1**" not in markdown.split("**Round 0**")[0]
    assert ":green-badge[" in markdown or ":red-badge[" in markdown
    shown = metrics(at)
    assert shown["Verdict"] in ("PASS", "FAIL", "SKIP", "AGENT_ERROR")
    assert "Partial score" in shown
    tables = html_tables(at)
    calls = next(t for t in tables if "golden tool" in t[0])
    assert [row["golden tool"] for row in calls] == ["get_order", "cancel_order"]
    arguments = next(t for t in tables if "argument" in t[0])
    assert {row["argument"] for row in arguments} == {"order_id"} and len(arguments) == 2
    assert any("exchange(s) from" in c.value for c in at.caption)
    assert any("chat/completions" in e.label for e in at.expander)
    assert not at.warning or all("cassette" not in w.value for w in at.warning)


@SQLITE_ONLY
def test_trace_viewer_badges_follow_each_call(built: Built) -> None:
    """Per round: one green badge per successful call, red per failed one, yellow when none."""
    store = Store.open(built.url)
    try:
        checked = 0
        at = app_on(built, "trace_viewer", run=str(built.runs["run-b"]))
        traces = store.traces.run_traces(built.runs["run-b"])
        for trace_id in [t.id for t in traces[:6]]:
            at.selectbox(key="tv_trace").set_value(trace_id).run()
            assert not at.exception
            detail = store.traces.trace_detail(trace_id)
            assert detail is not None and detail.body is not None
            body = detail.body
            cards = [m.value for m in at.markdown if m.value.startswith("**Round ")]
            assert len(cards) == len(body["rounds"])
            last = len(body["rounds"]) - 1
            for position, (card, rnd) in enumerate(zip(cards, body["rounds"], strict=True)):
                calls = rnd["calls"]
                assert card.count(":green-badge[") == sum(c["ok"] is True for c in calls)
                assert card.count(":red-badge[") == sum(c["ok"] is False for c in calls)
                # a completed trace's closing reply is its answer, not a missing call
                answer = not calls and position == last and body["status"] == "completed"
                assert (":blue-badge[answer]" in card) == answer
                assert (":yellow-badge[" in card) == (not calls and not answer)
                checked += 1
        assert checked >= 6
    finally:
        store.close()


@SQLITE_ONLY
def test_pass_k_curve_matches_the_judge(built: Built) -> None:
    ev = built.evaluations["b1"]
    report = judge_report(built.url, ev)
    at = app_on(built, "pass_k", ev=str(ev))
    shown = metrics(at)
    for k, value in report["pass_at_k"].items():
        assert shown[f"pass^{k}"] == _pct(value)
    assert shown["Repetitions (max)"] == "3"
    assert len(at.get("vega_lite_chart")) == 1  # the curve (test_states checks its absence)
    per_case = next(d.value for d in at.dataframe if "passed" in d.value.columns)
    assert len(per_case) == 12


@SQLITE_ONLY
def test_live_monitor_follows_the_running_run(built: Built) -> None:
    at = app_on(built, "live")
    shown = metrics(at)
    assert shown["Traces"] == "36 / 36"  # run-a is the running one
    assert shown["Completed"] == "36"
    markdown = "\n".join(m.value for m in at.markdown)
    assert "c00011 r2" in markdown  # the newest finished trace, with its round badges
    assert "badge[" in markdown
    assert any("Refreshes every" in c.value for c in at.caption)


@SQLITE_ONLY
def test_trends_one_point_per_evaluation(built: Built) -> None:
    at = app_on(built, "trends")
    # it opens on the newest evaluation's tier and rules; "all" shows every evaluation
    assert at.selectbox(key="tr_rules").value == "t@1"
    at.selectbox(key="tr_rules").set_value("all").run()
    assert metrics(at)["Evaluations"] == str(len(built.evaluations))
    table = next(t for t in html_tables(at) if t and "accuracy %" in t[0])
    assert len(table) == len(built.evaluations)
    reports = {ev: judge_report(built.url, ev) for ev in built.evaluations.values()}
    for row in table:
        accuracy = reports[int(row["evaluation"])]["accuracy"]
        assert float(row["accuracy %"]) == pytest.approx(100 * accuracy, abs=0.05)
    at.multiselect(key="filter_model").set_value(["model-b"]).run()
    assert metrics(at)["Evaluations"] == "1"


def test_app_without_a_database_says_how_to_start_it(tmp_path) -> None:
    from streamlit.testing.v1 import AppTest

    from tests.dashboard.conftest import APP

    at = AppTest.from_file(str(APP), default_timeout=30)
    at.run()
    assert any("rejudge dashboard" in e.value for e in at.error)


def test_parse_args() -> None:
    ctx = parse_args(["--db", "sqlite:///x.db", "--cassettes", "/tmp/c"], {})
    assert ctx is not None and ctx.db_url == "sqlite:///x.db" and str(ctx.cassettes_dir) == "/tmp/c"
    assert parse_args([], {}) is None
    secret = parse_args(["--db", "postgresql+psycopg://u:hunter2@h/db"], {})
    assert secret is not None and "hunter2" not in secret.shown_url


def test_store_from_the_environment_and_the_command_line_wins() -> None:
    env = {"REJUDGE_DASHBOARD_DB": "sqlite:///env.db", "REJUDGE_DASHBOARD_CASSETTES": "/tmp/e"}
    ctx = parse_args([], env)
    assert ctx is not None and ctx.db_url == "sqlite:///env.db"
    assert str(ctx.cassettes_dir) == "/tmp/e"
    explicit = parse_args(["--db", "sqlite:///cli.db"], env)
    assert explicit is not None and explicit.db_url == "sqlite:///cli.db"
    assert explicit.cassettes_dir is None  # not mixed with the environment's folder


def test_live_monitor_follows_new_traces_as_they_land(fresh_built: Built) -> None:
    """A run being recorded: the page shows the case in progress and, on its next refresh,
    the traces written since (no action from the person watching beyond the rerun)."""
    import streamlit as st

    from rejudge.model import RunConfig
    from tests.dashboard.factory import make_case, make_trace

    store = Store.open(fresh_built.url)
    try:
        suite = store.suites.get_suite("retail-test")
        pks = store.suites.get_case_pks(suite.id)
        run = store.runs.create_run(
            name="run-live", suite=suite, config=RunConfig(model="model-live", repeat=1)
        )
        rng = random.Random(1)

        def record(indexes: range) -> None:
            store.traces.save_traces(
                (run.id, pks[f"c{i:05d}"], make_trace(make_case(i), 0, rng, "live"), None, None)
                for i in indexes
            )

        record(range(0, 4))
        at = app_on(fresh_built, "live", run=str(run.id))
        assert metrics(at)["Traces"] == "4 / 12"
        assert any("In progress: **c00004**" in i.value for i in at.info)
        assert metrics(at)["Time left"].startswith("about ")
        record(range(4, 9))
        st.cache_data.clear()  # the page's TTL is 1 s; don't make the test wait for it
        at.run()
        assert metrics(at)["Traces"] == "9 / 12"
        assert any("In progress: **c00009**" in i.value for i in at.info)
        # a recording of a subset (record --case x3) expects only those
        store.runs.plan_run(run.id, ["c00000", "c00001", "c00010"])
        st.cache_data.clear()
        at.run()
        assert metrics(at)["Traces"] == "2 / 3"  # c00000 and c00001 of the three
        assert any("In progress: **c00010**" in i.value for i in at.info)
        store.runs.finish_run(run.id)
        st.cache_data.clear()
        at.run()
        assert metrics(at)["Time left"] == "done"
    finally:
        store.close()


def test_unreachable_store_is_one_clear_error() -> None:
    from streamlit.testing.v1 import AppTest

    from tests.dashboard.conftest import APP

    at = AppTest.from_file(str(APP), default_timeout=30)
    at.session_state["db_url"] = "postgresql+psycopg://nobody:secret@127.0.0.1:1/none"
    at.run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert errors and "Cannot open the store" in errors[0] and "secret" not in errors[0]


@SQLITE_ONLY
def test_compare_page_equals_the_cli_compare_json(built: Built, monkeypatch) -> None:
    """Literally `rejudge --json compare A B` against the page's numbers."""
    from click.testing import CliRunner

    from rejudge.cli import cli
    from rejudge.cli.judge import compare

    monkeypatch.setitem(cli.commands, "compare", compare)
    a, b = built.evaluations["a1"], built.evaluations["a2"]
    result = CliRunner().invoke(cli, ["--db", built.url, "--json", "compare", str(a), str(b)])
    assert result.exit_code == 0, result.output
    cli_json = json.loads(result.output)
    at = app_on(built, "compare", a=str(a), b=str(b))
    page_json = json.loads(evidence(at, "json")[0])
    assert page_json == {
        k: v for k, v in cli_json.items() if k not in ("flips", "meta_a", "meta_b")
    }
    assert metrics(at)["Flips"] == str(len(cli_json["flips"]))


def test_diff_tables_read_the_call_matching_shape_and_others() -> None:
    from rejudge.dashboard.diffview import diff_tables

    diff = [
        {
            "kind": "expected",
            "tool": "cancel_order",
            "actual_tool": "cancel_order",
            "round": 1,
            "ok": False,
            "status": "mismatch",
            "codes": ["PARAM_WRONG_VALUE", "EXECUTION_FAILED"],
            "params": [
                {
                    "name": "order_id",
                    "rule": "exact",
                    "golden": "#W1",
                    "actual": "#W2",
                    "status": "mismatch",
                    "code": "PARAM_WRONG_VALUE",
                },
                {
                    "name": "reason",
                    "rule": "normalized_str",
                    "golden": "x",
                    "status": "missing",
                    "code": "PARAM_MISSING",
                },
            ],
        },
        {"kind": "expected", "tool": "refund", "status": "missing", "codes": ["TOOL_MISSING"]},
        {
            "kind": "extra",
            "actual_tool": "get_user",
            "round": 0,
            "status": "tolerated",
            "codes": [],
            "arguments": {"user_id": "u1"},
        },
        {"step": 3, "failure": "UNKNOWN_VALUE", "args": {"x": 1}},  # another tier's shape
    ]
    calls, arguments = diff_tables(diff)
    assert [c.get("golden tool") for c in calls[:3]] == ["cancel_order", "refund", "—"]
    assert calls[0]["round"] == 1 and calls[0]["codes"] == "PARAM_WRONG_VALUE, EXECUTION_FAILED"
    assert calls[1]["actual tool"] == "—" and calls[1]["round"] == "—"
    assert calls[3] == {"step": 3, "failure": "UNKNOWN_VALUE", "args": '{"x": 1}'}
    assert [(a["argument"], a["actual"], a["code"]) for a in arguments] == [
        ("order_id", "#W2", "PARAM_WRONG_VALUE"),
        ("reason", "(absent)", "PARAM_MISSING"),
        ("user_id", "u1", ""),
    ]


@SQLITE_ONLY
def test_rounds_are_numbered_as_the_cli_numbers_them(built: Built) -> None:
    """The trace viewer's round cards carry the numbers `rejudge traces RUN --case C` prints in
    its round column, and the judge's reasons count calls from 0 the same way."""
    import re

    from click.testing import CliRunner

    from rejudge.cli import cli

    run = built.runs["run-a"]
    at = app_on(built, "trace_viewer", run=str(run))
    case = str(at.selectbox(key="tv_trace").format_func(at.selectbox(key="tv_trace").value))
    case = case.split(" · ")[0]
    shown = [
        int(n) for n in re.findall(r"\*\*Round (\d+)\*\*", "\n".join(m.value for m in at.markdown))
    ]
    result = CliRunner().invoke(
        cli, ["--db", built.url, "traces", "run-a", "--case", case], terminal_width=200
    )
    assert result.exit_code == 0, result.output
    printed = [
        int(m) for m in re.findall(rf"│ {re.escape(case)}\s*│ 0\s*│ (\d+)\s*│", result.output)
    ]
    assert shown and shown == printed
