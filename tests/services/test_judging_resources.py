"""What a first judging holds on to: no read of the run's rows stays open across the chunks'
commits (so SQLite's WAL is checkpointed and restarted instead of growing with every chunk),
and nothing of the run's cases stays alive in this process after ``judge_run`` returns."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from rejudge.judge import _batch, _context, load_rule_set
from rejudge.store import Store

from rejudge.model import RunConfig
from rejudge.services import _judging, evaluation_rows, judge_run
from tests.judge.conftest import REGISTRY, call, case, gcall, trace

N_TRACES = 3000
CHUNK = 100

CASES = [
    case(gcall("get_order", order_id="W441"), id="a"),
    case(gcall("request_cancel", order_id="W441", reason="Changed my mind"), id="b"),
]


def _fill(store: Store, n: int = N_TRACES) -> None:
    suite = store.suites.save_suite(
        name="t", domain="retail", suite_hash="sha256:t", registry=REGISTRY, cases=CASES
    )
    run = store.runs.create_run(name="r1", suite=suite, config=RunConfig(model="m"))
    pks = store.suites.get_case_pks(suite.id)
    rows = []
    for i in range(n):
        # every trace its own behaviour (a value of its own), so every chunk writes judgments
        if i % 2:
            t = trace(call("get_order", order_id=f"X{i}"), case_id="a", repetition=i)
        else:
            t = trace(
                call("request_cancel", order_id="W441", reason=f"r{i}"), case_id="b", repetition=i
            )
        rows.append((run.id, pks[t.case_id], t, None, None))
    store.traces.save_traces(rows)


@pytest.fixture()
def sqlite_store(tmp_path: Path):
    path = tmp_path / "r.db"
    st = Store.open(f"sqlite:///{path}")
    _fill(st)
    with sqlite3.connect(path) as c:  # start the judging on an empty WAL
        assert c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 0
    yield st, path
    st.close()


def test_no_read_stays_open_across_chunk_commits(sqlite_store):
    """After every chunk (its judgments committed) a checkpoint can take the whole WAL: no
    read transaction of the judging pins an older snapshot."""
    st, path = sqlite_store
    pinned: list[tuple[int, int]] = []

    def check(_n: int) -> None:
        with sqlite3.connect(path) as c:
            _busy, log, done = c.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        if done != log:
            pinned.append((log, done))

    result = judge_run(
        st, "r1", "golden", load_rule_set("standard@1"), chunk_size=CHUNK, progress=check
    )
    assert result.written == N_TRACES
    assert pinned == []


def test_wal_stays_bounded_during_a_first_judging(sqlite_store):
    st, path = sqlite_store
    wal = Path(f"{path}-wal")
    peak = 0

    def sample(_n: int) -> None:
        nonlocal peak
        peak = max(peak, os.path.getsize(wal) if wal.exists() else 0)

    result = judge_run(
        st, "r1", "golden", load_rule_set("standard@1"), chunk_size=CHUNK, progress=sample
    )
    assert result.written == N_TRACES
    print(f"WAL peak {peak / 1e6:.1f} MB")
    # one streaming read for the whole judging let every chunk append (13 MB here, linear in
    # the traces); read in pages, the autocheckpoint restarts the WAL once it passes 1,000
    # pages (~4 MB) and the file stays at that mark plus a chunk (~5 MB)
    assert peak < 8_000_000


def _verdicts(store: Store, evaluation_id: int) -> list[tuple[object, ...]]:
    fields = ("case", "repetition", "verdict", "taxonomy", "partial_score", "anomalies")
    return sorted(tuple(repr(r[f]) for f in fields) for r in evaluation_rows(store, evaluation_id))


def test_judgments_do_not_depend_on_the_row_pages(store: Store, tmp_path: Path, monkeypatch):
    """On both backends: the same judgments with pages smaller than a chunk and not dividing
    it (every trace judged once) as with one page, on another store."""
    rules = load_rule_set("standard@1")
    _fill(store, 300)
    monkeypatch.setattr(_judging, "ROW_PAGE", 7)
    paged = judge_run(store, "r1", "golden", rules, chunk_size=50)
    assert (paged.judged, paged.written) == (300, 300)
    assert paged.summary.verdict_counts.PASS == 0  # every value its own: all fail
    monkeypatch.setattr(_judging, "ROW_PAGE", 10**6)
    other = Store.open(f"sqlite:///{tmp_path / 'one-page.db'}")
    try:
        _fill(other, 300)
        whole = judge_run(other, "r1", "golden", rules, chunk_size=50)
        assert whole.summary == paged.summary
        assert _verdicts(other, whole.evaluation_id) == _verdicts(store, paged.evaluation_id)
    finally:
        other.close()


def test_cases_not_kept_after_judge_run(sqlite_store):
    st, _path = sqlite_store
    judge_run(st, "r1", "golden", load_rule_set("standard@1"), chunk_size=CHUNK)
    assert _batch._W == {}
    assert _context._CASE_CACHE == {}
    assert _context._CASE_VIEWS == {}
