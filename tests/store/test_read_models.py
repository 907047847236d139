"""The store's read models (catalog, evaluation and trace reads) give the numbers the judge's
report computes from the same evaluations' rows, on SQLite and PostgreSQL (the ``built`` fixture
is parametrized over both backends). A comparison has no read model: the judge computes it
(tests/dashboard/test_summary.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from rejudge.dashboard.stats import pass_curve
from rejudge.store import Store

from tests.dashboard.conftest import built, judge_report  # noqa: F401
from tests.dashboard.factory import Built


@pytest.fixture
def store(built: Built) -> Iterator[Store]:  # noqa: F811
    opened = Store.open(built.url)
    yield opened
    opened.close()


def test_evaluation_numbers_match_the_judge_report(built: Built, store: Store) -> None:  # noqa: F811
    rows = {r.id: r for r in store.catalog.evaluation_summaries()}
    assert set(rows) == set(built.evaluations.values())
    for ev in built.evaluations.values():
        report = judge_report(built.url, ev)
        row = rows[ev]
        assert {v: row.verdict_counts[v] for v in report["verdict_counts"]} == report[
            "verdict_counts"
        ]
        assert store.evaluations.verdict_counts(ev) == row.verdict_counts
        assert row.scored == report["scored_count"]
        assert row.accuracy == report["accuracy"]
        assert row.avg_partial == pytest.approx(report["average_partial_score"], abs=1e-6)
        assert row.judgments == sum(row.verdict_counts.values())
        pair = store.evaluations.pair_group_counts(ev, ev)
        for groups, key in ((pair.dimension_a, "dimensions"), (pair.category_a, "categories")):
            assert set(groups) == set(report[key])
            for name, summary in report[key].items():
                assert groups[name].accuracy == summary["accuracy"]
                assert groups[name].scored == summary["scored_count"]
        assert store.evaluations.taxonomy_counts(ev) == report["taxonomy_counts"]
        curve = pass_curve(store.evaluations.pass_histogram(ev))
        assert {str(p["k"]): round(p["pass^k"], 6) for p in curve} == report["pass_at_k"]
        info = store.catalog.evaluation_info(ev)
        assert info is not None and (info.id, info.verdict_counts) == (row.id, row.verdict_counts)
    assert store.catalog.evaluation_info(10**9) is None


def test_per_case_passes_put_inconsistent_cases_first(built: Built, store: Store) -> None:  # noqa: F811
    ev = built.evaluations["a1"]
    rows = store.evaluations.per_case_passes(ev)
    cells = store.evaluations.pass_histogram(ev)
    assert len(rows) == sum(c.cases for c in cells)
    mixed = [0 < r.passed < r.scored for r in rows]
    assert mixed == sorted(mixed, reverse=True), "inconsistent cases come first"
    only = store.evaluations.per_case_passes(ev, only_inconsistent=True)
    assert [r.case for r in only] == [r.case for r, m in zip(rows, mixed, strict=True) if m]
    assert all(r.repetitions == 3 for r in rows)
    assert len(store.evaluations.per_case_passes(ev, limit=2)) == 2


def test_catalog_runs_filters_and_baselines(built: Built, store: Store) -> None:  # noqa: F811
    runs = {r.run: r for r in store.catalog.run_summaries()}
    assert set(runs) == {"run-a", "run-b", "run-c"}
    assert runs["run-a"].status == "running" and runs["run-b"].status == "finished"
    assert runs["run-a"].traces == runs["run-a"].expected_traces == 36
    assert runs["run-c"].harness_mode == "oracle-assisted"
    assert runs["run-a"].repetitions == 3
    assert runs["run-a"].started_at is not None and runs["run-a"].started_at.tzinfo is not None
    only_b = store.catalog.run_summaries({"model": ["model-b"]})
    assert [r.run for r in only_b] == ["run-b"]
    rules2 = store.catalog.evaluation_summaries({"rule_set": ["t@2"]})
    assert [r.id for r in rules2] == [built.evaluations["a2"]]
    opts = store.catalog.filter_options()
    assert opts.rule_set == ["t@1", "t@2"] and opts.tier == ["golden"]
    assert (
        "model-b" in opts.values("model")
        and opts.values("model") == opts.model
        and opts.values("nope") == []
    )
    baselines = store.catalog.baseline_summaries()
    assert all(b.evaluation_id in built.evaluations.values() for b in baselines)


def test_live_progress_and_badges(built: Built, store: Store) -> None:  # noqa: F811
    run_id = built.runs["run-a"]
    progress = store.traces.run_progress(run_id)
    assert progress is not None
    assert progress.run.traces == 36 and progress.statuses == {"completed": 36}
    total_calls = progress.calls_ok + progress.calls_failed + progress.calls_unexecuted
    assert total_calls > 0 and progress.calls_failed > 0
    assert progress.last_trace_at is not None
    assert store.traces.run_progress(10**9) is None
    assert store.traces.pending_cases(run_id) == []  # every (case, repetition) recorded
    partial = store.traces.pending_cases(built.runs["run-c"])
    assert partial and partial[0].case == "c00006" and partial[0].done == 0
    assert store.traces.pending_cases(10**9) == []
    recent = store.traces.recent_traces(run_id, limit=5)
    # the run's five newest traces, newest first (read by id, then their columns)
    newest = sorted((t.id for t in store.traces.run_traces(run_id)), reverse=True)[:5]
    assert [t.id for t in recent] == newest
    for trace in recent:
        assert len(trace.rounds) == trace.round_count
    assert store.traces.round_badges([]) == {}


def test_trace_list_detail_and_judgment(built: Built, store: Store) -> None:  # noqa: F811
    run_id = built.runs["run-b"]
    traces = store.traces.run_traces(run_id)
    assert len(traces) == 36
    assert [(t.case_key, t.repetition) for t in traces] == sorted(
        (t.case_key, t.repetition) for t in traces
    )
    one = traces[0]
    assert {t.case_key for t in store.traces.run_traces(run_id, case_contains=one.case_key)} == {
        one.case_key
    }
    detail = store.traces.trace_detail(one.id)
    assert detail is not None and detail.run_id == run_id and detail.case_key == one.case_key
    assert detail.body is not None and len(detail.body["rounds"]) == one.round_count
    assert detail.case_body is not None
    assert store.traces.trace_detail(10**9) is None
    body = store.judgments.judgment_body(built.evaluations["b1"], one.id)
    assert body is not None and body["verdict"] in ("PASS", "FAIL", "SKIP", "AGENT_ERROR")
    assert store.judgments.judgment_body(built.evaluations["a1"], one.id) is None


def test_trend_points_and_partial_histogram(built: Built, store: Store) -> None:  # noqa: F811
    points = store.catalog.trend_points()
    assert len(points) == len(built.evaluations)
    hist = store.catalog.partial_histogram({"rule_set": ["t@1"]})
    total = sum(h.n for h in hist)
    t1 = [e for e in store.catalog.evaluation_summaries() if e.rule_set == "t@1"]
    expected = sum(e.PASS + e.FAIL for e in t1)  # SKIP/AGENT_ERROR carry no score
    assert total == expected
    assert all(0 <= h.bucket < 10 for h in hist)
    passes = sum(h.n for h in hist if h.verdict == "PASS")
    assert passes == sum(h.n for h in hist if h.bucket == 9 and h.verdict == "PASS")
    assert all(h.low == h.bucket / 10 and h.high == (h.bucket + 1) / 10 for h in hist)
