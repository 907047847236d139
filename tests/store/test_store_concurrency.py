"""Two writers saving the same trace (threads, then separate processes) leave exactly one row."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from rejudge.store import RunRecord, Store
from rejudge.store._tables import CallRow, TraceRow
from sqlalchemy import func, select

from tests.store.store_factories import count_rows, make_trace, race


def test_threads_saving_the_same_trace_make_one_row(
    store: Store, run: RunRecord, case_pks: dict[str, int]
) -> None:
    writers = 6
    trace = make_trace("case-001", seed=4)
    results = race(writers, lambda: store.traces.save_trace(run.id, case_pks["case-001"], trace))
    assert sorted(results) == [False] * (writers - 1) + [True]
    assert count_rows(store, TraceRow) == 1
    assert count_rows(store, CallRow) == len(trace.calls)


ROOT = Path(__file__).resolve().parents[2]
CHILD = textwrap.dedent(
    """
    import sys
    from rejudge.store import Store
    from tests.store.store_factories import make_trace

    url, run_id, case_pk = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    store = Store.open(url)
    inserted = 0
    for rep in range(20):  # the same 20 traces in both processes, racing
        inserted += store.traces.save_trace(run_id, case_pk, make_trace("case-002", rep, seed=rep))
    store.close()
    print(inserted)
    """
)


def test_processes_saving_the_same_traces_make_one_row_each(
    store: Store, db_url: str, run: RunRecord, case_pks: dict[str, int]
) -> None:
    args = [sys.executable, "-c", CHILD, db_url, str(run.id), str(case_pks["case-002"])]
    children = [
        subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = [child.communicate(timeout=120) for child in children]
    for child, (_out, err) in zip(children, outputs, strict=True):
        assert child.returncode == 0, err
    inserted = [int(out.strip()) for out, _err in outputs]
    assert sum(inserted) == 20  # every trace written by exactly one of them
    assert count_rows(store, TraceRow) == 20
    expected_calls = sum(len(make_trace("case-002", r, seed=r).calls) for r in range(20))
    assert count_rows(store, CallRow) == expected_calls


def test_threads_saving_the_same_new_suite_make_one_snapshot(store: Store) -> None:
    from rejudge.store import SuiteRecord
    from rejudge.store._tables import CaseRow, SuiteRow

    from tests.store.store_factories import make_case, make_registry, suite_hash

    cases = [make_case(i) for i in range(40)]
    registry = make_registry(version="race")
    writers = 4
    records: list[SuiteRecord] = race(
        writers,
        lambda: store.suites.save_suite(
            name="race",
            domain="retail",
            suite_hash=suite_hash(cases, registry),
            registry=registry,
            cases=cases,
        ),
    )
    assert len({r.id for r in records}) == 1 and len(records) == writers
    assert count_rows(store, SuiteRow) == 1
    assert count_rows(store, CaseRow) == len(cases)


KILLED_CHILD = textwrap.dedent(
    """
    import sys
    from rejudge.store import Store
    from tests.store.store_factories import make_trace

    url, run_id, case_pk = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    store = Store.open(url)
    for rep in range(100_000):  # far more than it gets to write before it is killed
        store.traces.save_trace(run_id, case_pk, make_trace("case-003", rep, rounds=2 + rep % 3, seed=rep))
    """
)


def test_kill_9_while_writing_leaves_only_complete_traces(
    store: Store, db_url: str, run: RunRecord, case_pks: dict[str, int]
) -> None:
    import signal
    import time

    args = [sys.executable, "-c", KILLED_CHILD, db_url, str(run.id), str(case_pks["case-003"])]
    child = subprocess.Popen(args, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while store.traces.count_traces(run.id) < 30:
            assert child.poll() is None, child.stderr.read() if child.stderr else ""
            assert time.monotonic() < deadline, "the writer never got going"
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(timeout=30)
        if child.stderr:
            child.stderr.close()
    written = store.traces.count_traces(run.id)
    assert written >= 30
    reopened = Store.open(db_url)
    try:
        with reopened.engine.connect() as c:
            per_trace = dict(
                c.execute(
                    select(TraceRow.id, TraceRow.call_count).where(TraceRow.run_id == run.id)
                ).all()
            )
            calls = dict(
                c.execute(select(CallRow.trace_id, func.count()).group_by(CallRow.trace_id)).all()
            )
        # every stored trace has all its call rows: complete traces or none
        assert {tid: calls.get(tid, 0) for tid in per_trace} == per_trace
        for stored in reopened.traces.iter_traces(run.id):
            assert stored.trace == make_trace(
                "case-003",
                stored.repetition,
                rounds=2 + stored.repetition % 3,
                seed=stored.repetition,
            )
        # resuming skips what is there and fills the rest
        keys = reopened.traces.trace_keys(run.id)
        assert len(keys) == written
        assert reopened.traces.save_trace(
            run.id, case_pks["case-003"], make_trace("case-003", written + 1000)
        )
    finally:
        reopened.close()
