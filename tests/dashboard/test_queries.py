"""The dashboard's SQL aggregates equal what the judge's report and compare functions compute
from the same evaluations' rows (on SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
from rejudge.dashboard import queries
from rejudge.dashboard.stats import pass_curve, plain_verdict, wilson_interval
from rejudge.dashboard.summary import compare_summary
from rejudge.store import Store

from tests.dashboard.conftest import judge_compare, judge_report
from tests.dashboard.factory import Built


@pytest.fixture
def engine(built: Built):
    store = Store.open(built.url)
    yield store.engine
    store.close()


def test_evaluation_numbers_match_the_judge_report(built: Built, engine) -> None:
    rows = {r["id"]: r for r in queries.list_evaluations(engine)}
    assert set(rows) == set(built.evaluations.values())
    for ev in built.evaluations.values():
        report = judge_report(built.url, ev)
        row = rows[ev]
        assert {v: row[v] for v in report["verdict_counts"]} == report["verdict_counts"]
        assert row["scored"] == report["scored_count"]
        assert row["accuracy"] == report["accuracy"]
        assert row["avg_partial"] == pytest.approx(report["average_partial_score"], abs=1e-6)
        for by, key in (("dimension", "dimensions"), ("category", "categories")):
            groups = queries.group_counts(engine, ev, by)
            assert set(groups) == set(report[key])
            for name, summary in report[key].items():
                assert groups[name]["accuracy"] == summary["accuracy"]
                assert groups[name]["scored"] == summary["scored_count"]
        assert queries.taxonomy_counts(engine, ev) == report["taxonomy_counts"]
        curve = pass_curve(queries.pass_histogram(engine, ev))
        assert {str(p["k"]): round(p["pass^k"], 6) for p in curve} == report["pass_at_k"]


@pytest.mark.parametrize("pair", [("a1", "a2"), ("a1", "b1"), ("b1", "a2"), ("a1", "c1")])
def test_compare_numbers_match_the_judge_compare(built: Built, engine, pair) -> None:
    a, b = (built.evaluations[k] for k in pair)
    expected = judge_compare(built.url, a, b)
    got = compare_summary(engine, a, b)
    assert got is not None
    for key in ("a", "b", "accuracy_a", "accuracy_b", "mcnemar_p", "comparable", "reasons"):
        assert got[key] == expected[key], key
    assert got["delta"] == expected["accuracy_delta"]
    assert got["pass_to_fail"] == expected["discordant"]["pass_to_fail"]
    assert got["fail_to_pass"] == expected["discordant"]["fail_to_pass"]
    assert got["flip_count"] == len(expected["flips"])
    flips = queries.flips(engine, a, b, limit=None)
    assert [(f["case"], f["repetition"], f["from"], f["to"], f["cause"]) for f in flips] == [
        (f["case"], f["repetition"], f["from"], f["to"], f["cause"]) for f in expected["flips"]
    ]
    counts = queries.flip_count(engine, a, b)
    assert counts["total"] == len(expected["flips"])


def test_flips_have_the_rule_change_as_cause_and_filters_narrow_them(built: Built, engine):
    a, b = built.evaluations["a1"], built.evaluations["a2"]
    flips = queries.flips(engine, a, b, limit=None)
    assert flips, "the factory flips about a tenth of the verdicts"
    assert {f["cause"] for f in flips} == {"rules changed"}
    down = queries.flips(engine, a, b, direction="PASS→FAIL", limit=None)
    up = queries.flips(engine, a, b, direction="FAIL→PASS", limit=None)
    other = queries.flips(engine, a, b, direction="other", limit=None)
    assert len(down) + len(up) + len(other) == len(flips)
    assert all(f["from"] == "PASS" and f["to"] == "FAIL" for f in down)
    one = flips[0]["case"]
    assert {f["case"] for f in queries.flips(engine, a, b, case_contains=one)} == {one}
    assert queries.flips(engine, a, b, causes=["trace changed"]) == []
    assert len(queries.flips(engine, a, b, limit=1)) == 1
    # two models on the same suite: the traces differ
    models = queries.flips(engine, a, built.evaluations["b1"], limit=None)
    assert models and {f["cause"] for f in models} == {"trace changed"}


def test_not_comparable_names_its_reasons(built: Built, engine) -> None:
    s = compare_summary(engine, built.evaluations["a1"], built.evaluations["c1"])
    assert s is not None and s["comparable"] is False
    assert any(r.startswith("case sets differ") for r in s["reasons"])
    assert any(r.startswith("harness modes differ") for r in s["reasons"])
    same = compare_summary(engine, built.evaluations["a1"], built.evaluations["a2"])
    assert same is not None and same["comparable"] is True and same["reasons"] == []


def test_overview_runs_and_filters(built: Built, engine) -> None:
    runs = {r["run"]: r for r in queries.list_runs(engine)}
    assert set(runs) == {"run-a", "run-b", "run-c"}
    assert runs["run-a"]["status"] == "running" and runs["run-b"]["status"] == "finished"
    assert runs["run-a"]["traces"] == runs["run-a"]["expected_traces"] == 36
    assert runs["run-c"]["harness_mode"] == "oracle-assisted"
    assert runs["run-a"]["repetitions"] == 3
    only_b = queries.list_runs(engine, {"model": ["model-b"]})
    assert [r["run"] for r in only_b] == ["run-b"]
    rules2 = queries.list_evaluations(engine, {"rule_set": ["t@2"]})
    assert [r["id"] for r in rules2] == [built.evaluations["a2"]]
    opts = queries.filter_options(engine)
    assert opts["rule_set"] == ["t@1", "t@2"] and opts["tier"] == ["golden"]


def test_live_progress_and_badges(built: Built, engine) -> None:
    run_id = built.runs["run-a"]
    progress = queries.run_progress(engine, run_id)
    assert progress is not None
    assert progress["traces"] == 36 and progress["statuses"] == {"completed": 36}
    total_calls = progress["calls_ok"] + progress["calls_failed"] + progress["calls_unexecuted"]
    assert total_calls > 0 and progress["calls_failed"] > 0
    assert queries.pending_cases(engine, run_id) == []  # every (case, repetition) recorded
    partial = queries.pending_cases(engine, built.runs["run-c"])
    assert partial and partial[0]["case"] == "c00006" and partial[0]["done"] == 0
    recent = queries.recent_traces(engine, run_id, limit=5)
    assert len(recent) == 5 and recent[0]["id"] > recent[-1]["id"]
    for trace in recent:
        assert len(trace["rounds"]) == trace["round_count"]


def test_trend_points_and_partial_histogram(built: Built, engine) -> None:
    points = queries.trend_points(engine)
    assert len(points) == len(built.evaluations)
    hist = queries.partial_histogram(engine, {"rule_set": ["t@1"]})
    total = sum(h["n"] for h in hist)
    t1 = [e for e in queries.list_evaluations(engine) if e["rule_set"] == "t@1"]
    expected = sum(e["PASS"] + e["FAIL"] for e in t1)  # SKIP/AGENT_ERROR carry no score
    assert total == expected
    assert all(0 <= h["bucket"] < 10 for h in hist)
    passes = sum(h["n"] for h in hist if h["verdict"] == "PASS")
    assert passes == sum(h["n"] for h in hist if h["bucket"] == 9 and h["verdict"] == "PASS")


def test_stats_helpers() -> None:
    low, high = wilson_interval(72, 100)
    assert 0.62 < low < 0.72 < high < 0.80
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert plain_verdict(0.01, 2, 12) == "B better"
    assert plain_verdict(0.01, 12, 2) == "B worse"
    assert plain_verdict(0.2, 2, 5) == "no significant difference"
