"""Traces: idempotent single and bulk saves, call rows, replace, streaming reads with shards."""

from __future__ import annotations

import json

import pytest
from rejudge.store import RunRecord, Store, SuiteRecord
from rejudge.store import _traces as traces_module
from rejudge.store._tables import CallRow, TraceRow
from sqlalchemy import event, select

from rejudge.model import Trace
from tests.store.store_factories import count_rows, make_config, make_trace


def call_rows(store: Store, trace_id: int) -> list[tuple[int, int, str, bool | None, bool]]:
    with store.engine.connect() as c:
        rows = c.execute(
            select(
                CallRow.round_index,
                CallRow.call_index,
                CallRow.name,
                CallRow.ok,
                CallRow.parse_error,
            )
            .where(CallRow.trace_id == trace_id)
            .order_by(CallRow.round_index, CallRow.call_index)
        ).all()
    return [tuple(r) for r in rows]  # type: ignore[misc]


def expected_call_rows(trace: Trace) -> list[tuple[int, int, str, bool | None, bool]]:
    return [
        (rnd.index, k, call.name, call.ok, call.parse_error is not None)
        for rnd in trace.rounds
        for k, call in enumerate(rnd.calls)
    ]


def test_save_trace_once_and_read_it_back(
    store: Store, run: RunRecord, case_pks: dict[str, int]
) -> None:
    trace = make_trace("case-003", seed=3)  # seed 3 adds a call whose arguments did not parse
    assert store.traces.save_trace(
        run.id,
        case_pks["case-003"],
        trace,
        cassette_path="run-1/case-003.yaml",
        cassette_hash="sha256:abc",
    )
    (stored,) = list(store.traces.iter_traces(run.id))
    assert stored.trace == trace
    assert stored.hash == trace.hash
    assert stored.case_key == "case-003"
    assert stored.case_pk == case_pks["case-003"]
    assert stored.run_id == run.id
    assert stored.repetition == 0
    assert stored.cassette_path == "run-1/case-003.yaml"
    assert stored.cassette_hash == "sha256:abc"
    rows = call_rows(store, stored.id)
    assert rows == expected_call_rows(trace)
    assert any(parse_error for *_rest, parse_error in rows)


def test_saving_the_same_trace_again_writes_nothing(
    store: Store, run: RunRecord, case_pks: dict[str, int]
) -> None:
    trace = make_trace("case-000")
    assert store.traces.save_trace(run.id, case_pks["case-000"], trace) is True
    calls = count_rows(store, CallRow)
    # a resumed recorder may produce a different trace for the same slot: the first one stays
    assert (
        store.traces.save_trace(run.id, case_pks["case-000"], make_trace("case-000", seed=9))
        is False
    )
    assert count_rows(store, TraceRow) == 1
    assert count_rows(store, CallRow) == calls
    (stored,) = list(store.traces.iter_traces(run.id))
    assert stored.trace == trace
    # another repetition is another trace
    assert store.traces.save_trace(run.id, case_pks["case-000"], make_trace("case-000", 1)) is True
    assert store.traces.trace_keys(run.id) == {("case-000", 0), ("case-000", 1)}


def test_bulk_save_spans_batches_and_is_idempotent(
    store: Store, run: RunRecord, case_pks: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(traces_module, "BATCH", 100)  # small batches: same code, fewer rows
    keys = sorted(case_pks)
    items = [
        (run.id, case_pks[key], make_trace(key, rep, rounds=2 + rep % 3, seed=rep), None, None)
        for rep in range(42)
        for key in keys
    ]  # 252 traces: more than two write batches, the last one partial
    assert store.traces.save_traces(items) == len(items)
    assert store.traces.count_traces(run.id) == len(items)
    assert count_rows(store, CallRow) == sum(len(item[2].calls) for item in items)
    # all again, plus 6 new ones: only the new ones are written
    extra = [(run.id, case_pks[key], make_trace(key, 999), None, None) for key in keys]
    assert store.traces.save_traces(items + extra) == len(extra)
    assert store.traces.count_traces(run.id) == len(items) + len(extra)
    assert store.traces.count_traces() == len(items) + len(extra)
    # duplicates inside one call are written once
    dup = (run.id, case_pks[keys[0]], make_trace(keys[0], 5000), None, None)
    assert store.traces.save_traces([dup, dup]) == 1


def test_call_rows_follow_each_trace_in_a_bulk_save(
    store: Store, run: RunRecord, case_pks: dict[str, int]
) -> None:
    traces = {key: make_trace(key, seed=i) for i, key in enumerate(sorted(case_pks))}
    store.traces.save_traces((run.id, case_pks[k], t, None, None) for k, t in traces.items())
    for stored in store.traces.iter_traces(run.id):
        assert call_rows(store, stored.id) == expected_call_rows(traces[stored.case_key])


def test_iter_traces_streams_in_id_order_with_small_batches(
    store: Store, run: RunRecord, case_pks: dict[str, int]
) -> None:
    items = [
        (run.id, case_pks[key], make_trace(key, rep, seed=rep), None, None)
        for rep in range(10)
        for key in sorted(case_pks)
    ]
    store.traces.save_traces(items)
    streamed = list(store.traces.iter_traces(run.id, yield_per=7))
    assert len(streamed) == len(items)
    ids = [s.id for s in streamed]
    assert ids == sorted(ids)
    assert {(s.case_key, s.repetition): s.trace for s in streamed} == {
        (t.case_id, t.repetition): t for _r, _c, t, _p, _h in items
    }
    rows = list(store.traces.iter_trace_rows(run.id, yield_per=3))
    assert [r.id for r in rows] == ids
    assert rows[0].body is not None
    assert json.loads(rows[0].body) == streamed[0].trace.model_dump(mode="json")
    only = list(store.traces.iter_traces(run.id, case_key="case-004"))
    assert len(only) == 10 and {s.case_key for s in only} == {"case-004"}


def test_trace_rows_in_keyset_pages_are_the_streamed_rows(
    store: Store, run: RunRecord, case_pks: dict[str, int]
) -> None:
    items = [
        (run.id, case_pks[key], make_trace(key, rep, seed=rep), None, None)
        for rep in range(4)
        for key in sorted(case_pks)
    ]
    store.traces.save_traces(items)
    ids = [r.id for r in store.traces.iter_trace_rows(run.id)]
    lo, hi = ids[3], ids[-4]
    for options in (
        {},
        {"with_body": False},
        {"shard": (1, 3)},
        {"id_range": (lo, hi)},
        {"case_key": "case-002"},
    ):
        streamed = list(store.traces.iter_trace_rows(run.id, **options))  # type: ignore[arg-type]
        assert streamed
        # page sizes that divide the rows, do not, and exceed them
        for size in (1, 4, 7, len(ids), len(ids) + 1):
            paged = list(store.traces.iter_trace_rows(run.id, page_size=size, **options))  # type: ignore[arg-type]
            assert paged == streamed, (options, size)


def test_a_runs_pages_among_other_runs_and_a_trace_it_gains_meanwhile(
    store: Store, suite: SuiteRecord, run: RunRecord, case_pks: dict[str, int]
) -> None:
    # the runs' traces interleave by id: SQLite's pages walk the table by id between the
    # run's lowest and highest, skipping the other run's rows; a trace the run gains after
    # the first page, past its highest id then, is read as the pages always read it
    other = store.runs.create_run(name="run-2", suite=suite, config=make_config("other"))
    keys = sorted(case_pks)
    for block, r in enumerate((other, run, other, other, run, other)):
        items = [(r.id, case_pks[k], make_trace(k, block), None, None) for k in keys]
        store.traces.save_traces(items)
    streamed = list(store.traces.iter_trace_rows(run.id, with_body=False))
    assert {r.run_id for r in store.traces.iter_traces(run.id)} == {run.id}
    for late, size in enumerate((1, 4, 7, len(streamed), len(streamed) + 1), start=100):
        pages = store.traces.iter_trace_rows(run.id, with_body=False, page_size=size)
        first = next(pages)
        assert store.traces.save_trace(run.id, case_pks[keys[0]], make_trace(keys[0], late))
        rest = list(pages)
        (gained,) = [r for r in rest if r.repetition == late]
        assert [first, *rest] == [*streamed, gained], size
        streamed.append(gained)


def test_sqlite_pages_of_a_run_read_no_more_than_the_page(
    store: Store, run: RunRecord, case_pks: dict[str, int]
) -> None:
    # with the (run, case, repetition) index, each page read all of the run's index entries
    # past it and sorted them (a temporary B-tree): O(run) a page, 7.5 against 1.0 µs a row at
    # 100,000 traces (bench/README.md, "judge40"). Fails on the code before.
    if store.backend != "sqlite":
        pytest.skip("the plan of SQLite's page query")
    store.traces.save_traces(
        [
            (run.id, case_pks[k], make_trace(k, rep), None, None)
            for rep in range(3)
            for k in case_pks
        ]
    )
    seen: list[tuple[str, tuple[object, ...]]] = []

    def remember(_conn: object, _cur: object, statement: str, params: object, *_a: object) -> None:
        if statement.lstrip().upper().startswith("SELECT") and "LIMIT" in statement:
            seen.append((statement, tuple(params)))  # type: ignore[arg-type]

    event.listen(store.engine, "before_cursor_execute", remember)
    try:
        rows = list(store.traces.iter_trace_rows(run.id, with_body=False, page_size=4))
    finally:
        event.remove(store.engine, "before_cursor_execute", remember)
    assert len(rows) == 3 * len(case_pks)
    assert seen
    with store.engine.connect() as c:
        for statement, params in seen[:-1]:  # the last: past the run's highest id, once
            plan = " ".join(
                str(step[-1])
                for step in c.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, params)
            )
            assert "TEMP B-TREE" not in plan and "PRIMARY KEY" in plan, plan


def test_shards_partition_the_traces(
    store: Store, run: RunRecord, case_pks: dict[str, int]
) -> None:
    items = [
        (run.id, case_pks[key], make_trace(key, rep), None, None)
        for rep in range(5)
        for key in sorted(case_pks)
    ]
    store.traces.save_traces(items)
    every = {s.id for s in store.traces.iter_traces(run.id)}
    shards = [
        {s.id for s in store.traces.iter_traces(run.id, shard=(i, 4), yield_per=4)}
        for i in range(4)
    ]
    assert set().union(*shards) == every
    assert sum(len(s) for s in shards) == len(every)
    assert all(shards)  # 30 consecutive ids spread over every shard


def test_iter_traces_filters_by_run(
    store: Store, suite: SuiteRecord, run: RunRecord, case_pks: dict[str, int]
) -> None:
    other = store.runs.create_run(name="run-2", suite=suite, config=make_config("other"))
    store.traces.save_trace(run.id, case_pks["case-000"], make_trace("case-000"))
    store.traces.save_trace(other.id, case_pks["case-000"], make_trace("case-000"))
    store.traces.save_trace(other.id, case_pks["case-001"], make_trace("case-001"))
    assert [s.run_id for s in store.traces.iter_traces(run.id)] == [run.id]
    assert len(list(store.traces.iter_traces(other.id))) == 2
    assert len(list(store.traces.iter_traces())) == 3
    assert store.traces.trace_keys(other.id) == {("case-000", 0), ("case-001", 0)}
    assert store.traces.count_traces(other.id) == 2


def test_trace_statuses_count_each_run_s_traces_by_status(
    store: Store, suite: SuiteRecord, run: RunRecord, case_pks: dict[str, int]
) -> None:
    """One grouped read on each backend: per run, its traces by status, most first; a run
    without traces is absent (the demo, ``rejudge runs`` and the dashboard read it)."""
    other = store.runs.create_run(name="run-2", suite=suite, config=make_config("other"))
    store.runs.create_run(name="run-3", suite=suite, config=make_config("empty"))
    statuses = ["completed", "step_limit", "completed", "agent_error", "completed"]
    rows = [
        (
            run.id,
            case_pks[f"case-00{i}"],
            make_trace(f"case-00{i}", seed=i).model_copy(update={"status": status}),
            None,
            None,
        )
        for i, status in enumerate(statuses)
    ]
    rows.append((other.id, case_pks["case-000"], make_trace("case-000"), None, None))
    store.traces.save_traces(rows)
    counted = store.catalog.trace_statuses()
    assert set(counted) == {run.id, other.id}
    assert counted[run.id].counts == (("completed", 3), ("agent_error", 1), ("step_limit", 1))
    assert counted[run.id].describe() == "5 (completed 3, agent_error 1, step_limit 1)"
    assert counted[other.id].as_dict() == {"completed": 1}


def test_replace_trace_rewrites_body_hash_and_call_rows(
    store: Store, run: RunRecord, case_pks: dict[str, int]
) -> None:
    store.traces.save_trace(
        run.id, case_pks["case-002"], make_trace("case-002", seed=1), cassette_hash="sha256:old"
    )
    (before,) = list(store.traces.iter_traces(run.id))
    renormalized = make_trace("case-002", rounds=4, seed=3).model_copy(
        update={"normalizer_version": "2"}
    )
    store.traces.replace_trace(before.id, renormalized, cassette_hash="sha256:new")
    (after,) = list(store.traces.iter_traces(run.id))
    assert after.id == before.id
    assert after.trace == renormalized
    assert after.hash == renormalized.hash != before.hash
    assert after.cassette_hash == "sha256:new"
    assert call_rows(store, after.id) == expected_call_rows(renormalized)
    with store.engine.connect() as c:
        row = c.execute(
            select(TraceRow.round_count, TraceRow.call_count, TraceRow.normalizer_version).where(
                TraceRow.id == after.id
            )
        ).one()
    assert tuple(row) == (4, len(renormalized.calls), "2")
    # without a cassette hash the old one is kept
    store.traces.replace_trace(after.id, make_trace("case-002"))
    (kept,) = list(store.traces.iter_traces(run.id))
    assert kept.cassette_hash == "sha256:new"


def test_deleting_a_run_cascades_to_traces_and_calls(
    store: Store, run: RunRecord, case_pks: dict[str, int]
) -> None:
    store.traces.save_trace(run.id, case_pks["case-001"], make_trace("case-001"))
    assert count_rows(store, CallRow) > 0
    from rejudge.store._tables import RunRow

    with store.engine.begin() as c:
        c.execute(RunRow.__table__.delete().where(RunRow.id == run.id))  # type: ignore[attr-defined]
    assert count_rows(store, TraceRow) == 0
    assert count_rows(store, CallRow) == 0
