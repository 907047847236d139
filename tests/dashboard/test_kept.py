"""Results kept while a SQLite store is unchanged (dashboard/kept.py): on a real store file, a
second process's read comes from disk, a write to the store computes again, and a folder that
others may write is never read."""

from __future__ import annotations

import gc
import os
import pickle
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from rejudge.dashboard.kept import kept, store_state

from tests.dashboard.factory import Built, build_store


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    return tmp_path / f"rejudge-dashboard-{os.getuid()}"


def _db(path: Path) -> Path:
    # closed here, not left to the collector: `with` only commits, and Python 3.11's connection
    # sits in a reference cycle (its statement cache wraps it), so it closed at some later
    # collection, checkpointing its log into the file and deleting it. That moved the store's
    # state between two reads of an unchanged store (the flake under load).
    c = sqlite3.connect(path)
    try:
        with c:
            c.execute("PRAGMA journal_mode=WAL")
            c.execute("CREATE TABLE t (x INTEGER)")
    finally:
        c.close()
    return path


def test_a_result_is_read_back_until_the_store_changes(tmp_path: Path, private_tmp: Path) -> None:
    db = _db(tmp_path / "s.db")
    calls: list[int] = []

    def compute() -> dict[str, int]:
        calls.append(1)
        return {"flips": len(calls)}

    state = store_state(db)
    assert state is not None
    assert kept(db, ("compare", 1, 2), state, compute) == {"flips": 1}
    gc.collect()  # no connection left for the collector to close (and checkpoint) meanwhile
    # another process (nothing in memory) on the unchanged store: read from disk
    assert kept(db, ("compare", 1, 2), store_state(db), compute) == {"flips": 1}  # type: ignore[arg-type]
    assert len(calls) == 1
    assert kept(db, ("compare", 1, 3), state, compute) == {"flips": 2}  # other arguments
    # a write moves the state (the log grows), and the result is computed again
    c = sqlite3.connect(db)
    try:
        c.execute("PRAGMA journal_mode=WAL")
        c.execute("INSERT INTO t VALUES (1)")
        c.commit()
        moved = store_state(db)
        assert moved is not None and moved != state
        assert kept(db, ("compare", 1, 2), moved, compute) == {"flips": 3}
    finally:
        c.close()
    assert oct(private_tmp.stat().st_mode & 0o777) == oct(0o700)


def test_a_file_that_does_not_load_is_computed_again(tmp_path: Path, private_tmp: Path) -> None:
    db = _db(tmp_path / "s.db")
    state = store_state(db)
    assert state is not None
    kept(db, ("report", 1), state, lambda: [1, 2, 3])
    [file] = list(private_tmp.glob("*.pickle"))
    file.write_bytes(b"not a pickle")
    assert kept(db, ("report", 1), state, lambda: [4]) == [4]


def test_a_load_leaves_the_collector_as_it_found_it(tmp_path: Path, private_tmp: Path) -> None:
    """A kept result loads with the garbage collector paused (dashboard/kept.py: at 100k the
    review queue's load was mostly collections): on again after a load, a failed one too, and
    left off when the caller had turned it off."""
    db = _db(tmp_path / "s.db")
    state = store_state(db)
    assert state is not None
    queue = [{"judgment_id": i, "reasons": ["FAIL"]} for i in range(2000)]
    kept(db, ("review", 1), state, lambda: queue)
    assert kept(db, ("review", 1), state, lambda: []) == queue and gc.isenabled()
    [file] = list(private_tmp.glob("*.pickle"))
    file.write_bytes(b"not a pickle")
    assert kept(db, ("review", 1), state, lambda: [4]) == [4] and gc.isenabled()
    gc.disable()
    try:
        assert kept(db, ("review", 1), state, lambda: []) == [4]
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_result_is_computed_with_the_collector_paused(tmp_path: Path, private_tmp: Path) -> None:
    """A result is computed with the garbage collector paused too (dashboard/kept.py: at 100k
    the review queue's computing was about half collections), and it is on again after, when
    the computing fails as well."""
    db = _db(tmp_path / "s.db")
    state = store_state(db)
    assert state is not None
    seen: list[bool] = []

    def compute() -> list[int]:
        seen.append(gc.isenabled())
        return [1]

    assert kept(db, ("review", 1), state, compute) == [1] and gc.isenabled()

    def failing() -> list[int]:
        seen.append(gc.isenabled())
        raise ValueError("no rows")

    with pytest.raises(ValueError, match="no rows"):
        kept(db, ("review", 2), state, failing)
    assert seen == [False, False] and gc.isenabled()


def test_a_folder_others_can_write_is_not_used(tmp_path: Path, private_tmp: Path) -> None:
    private_tmp.mkdir(mode=0o700)
    private_tmp.chmod(0o777)
    db = _db(tmp_path / "s.db")
    state = store_state(db)
    assert state is not None
    calls: list[int] = []
    for _ in range(2):
        kept(db, ("report", 1), state, lambda: calls.append(1))
    assert len(calls) == 2 and not list(private_tmp.glob("*"))


def test_no_file_no_state(tmp_path: Path) -> None:
    assert store_state(None) is None
    assert store_state(tmp_path / "missing.db") is None


# ---- the dashboard's reads (dashboard/data.py): kept under the store's state, so a new server
# (nothing in memory) on an unchanged store reads them back, and a write reads the store again


@pytest.fixture
def small_store(tmp_path: Path, private_tmp: Path) -> Iterator[Built]:
    import streamlit as st

    built = build_store(f"sqlite:///{tmp_path / 'rejudge.db'}", cases=4, repeat=2)
    st.cache_data.clear()
    st.cache_resource.clear()
    yield built
    st.cache_data.clear()
    st.cache_resource.clear()


def _new_server() -> None:
    """What a fresh ``rejudge dashboard`` has in memory: nothing."""
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()


def _counting(monkeypatch: pytest.MonkeyPatch, cls: type, name: str) -> list[int]:
    calls: list[int] = []
    real = getattr(cls, name)

    def counted(self: object, *args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(cls, name, counted)
    return calls


def test_a_new_server_reads_an_unchanged_stores_reads_back(
    small_store: Built, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rejudge.dashboard import data

    from rejudge.services import lock_evaluation_baseline

    url = small_store.url
    calls = _counting(monkeypatch, type(data.store(url).catalog), "evaluation_summaries")
    first = data.evaluations(url)
    assert len(calls) == 1 and len(first) == 3
    _new_server()
    assert data.evaluations(url) == first
    assert len(calls) == 1  # read back from disk: no SQL
    # a write moves the store's state: the next read is the store's, with the write in it
    assert data.baselines(url) == []
    lock_evaluation_baseline(data.store(url), small_store.evaluations["a1"], "kept-test")
    _new_server()
    assert data.evaluations(url) == first  # the same evaluations, read again
    assert len(calls) == 2
    assert [b.name for b in data.baselines(url)] == ["kept-test"]


def test_the_review_queue_is_read_back_by_a_new_server(
    small_store: Built, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rejudge.dashboard import data
    from rejudge.judge import QueueItem

    import rejudge.services._review_page as review_page
    from rejudge.services import review_stamp

    url = small_store.url
    ev = small_store.evaluations["a1"]
    calls = _counting_function(monkeypatch, review_page, "review_page_state", data)
    judgments = data.evaluations_by_id(url, (ev,))[ev].judgments
    stamp = review_stamp(data.store(url), ev)
    first = data.review_state(url, ev, 2, 0, judgments, stamp)
    assert len(calls) == 1 and first.queue
    _new_server()
    again = data.review_state(url, ev, 2, 0, judgments, stamp)
    assert (again.queue, again.figures) == (first.queue, first.figures)
    # read back as the page's typed items (kept as columns of plain tuples: ReviewPageState)
    assert all(type(item) is QueueItem for item in again.queue)
    assert len(calls) == 1


def _counting_function(
    monkeypatch: pytest.MonkeyPatch, module: object, name: str, user: object
) -> list[int]:
    """Count calls of ``module.name`` as ``user`` (a module that imported it) makes them."""
    calls: list[int] = []
    real = getattr(module, name)

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(user, name, counted)
    return calls


def test_the_kept_grid_and_pass_curve_are_the_computed_ones(small_store: Built) -> None:
    from rejudge.dashboard import data
    from rejudge.dashboard.grid import GridColumn, build_grid
    from rejudge.dashboard.stats import pass_curve

    from rejudge.services import evaluation_report

    url = small_store.url
    evs = small_store.evaluations
    columns = ((evs["a1"], "run-a"), (evs["b1"], "run-b"))
    store = data.store(url)
    expected = build_grid(
        [GridColumn(ev, label, evaluation_report(store, ev).cases) for ev, label in columns]
    )
    curve = pass_curve(store.evaluations.pass_histogram(evs["a1"]))
    for _ in range(2):  # computed, then read back by a new server
        assert data.case_grid(url, columns) == expected
        assert data.pass_curve(url, evs["a1"]) == curve
        _new_server()


def judge_report_summary(url: str, ev: int) -> object:
    from rejudge.store import Store

    from rejudge.services import evaluation_report

    store = Store.open(url, migrate=False)
    try:
        return evaluation_report(store, ev).summary
    finally:
        store.close()


def _kept_values(folder: Path) -> list[object]:
    return [pickle.loads(p.read_bytes()) for p in folder.glob("*.pickle")]


def test_the_report_pages_first_screen_keeps_no_whole_report_on_disk(
    small_store: Built, private_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Report page's first screen is its summary counted in the database and its listed
    rows read a verdict at a time, kept, and not the report's every row (streaming and
    pickling 50,000 rows was most of its first open at 100k); a new server reads that screen
    back, and a download or the JSON builds and keeps the whole report."""
    from rejudge.dashboard import data

    from rejudge.model import EvaluationReport

    url = small_store.url
    ev = small_store.evaluations["a1"]
    calls = _counting(monkeypatch, type(data.store(url).evaluations), "report_values")
    options = data.report_options(url, ev)
    rows = data.report_rows(url, ev, (), (), "")
    assert rows.listed and options.cases == rows.matching
    assert calls == []  # counted in the database, listed a verdict at a time: no row stream
    assert options.summary == judge_report_summary(url, ev)
    calls.clear()
    first = _kept_values(private_tmp)
    assert first and not any(isinstance(v, EvaluationReport) for v in first)
    _new_server()
    assert data.report_options(url, ev) == options
    assert data.report_rows(url, ev, (), (), "") == rows
    assert calls == []  # read back: no report built
    report = data.evaluation_report(url, ev)  # what the JSON and the downloads read
    assert report.summary == options.summary and len(calls) == 1
    assert any(isinstance(v, EvaluationReport) for v in _kept_values(private_tmp))


def test_the_code_key_is_the_modules_contents_not_their_times(
    tmp_path: Path, private_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkout that rewrites a module unchanged (a rebase, a reinstall) keeps what was
    computed; an edit computes again."""
    from rejudge.dashboard import kept as kept_module

    package = tmp_path / "computing_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    module = package / "rules.py"
    module.write_text("LIMIT = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(kept_module, "_COMPUTING", ("computing_pkg",))
    db = _db(tmp_path / "s.db")
    state = store_state(db)
    assert state is not None
    calls: list[int] = []

    def new_process() -> None:
        kept_module.code_version.cache_clear()

    def read() -> int:
        new_process()
        return kept(db, ("report", 1), state, lambda: calls.append(1) or len(calls))

    assert read() == 1
    later = module.stat().st_mtime_ns + 5_000_000_000
    os.utime(module, ns=(later, later))  # touched, not changed
    assert read() == 1 and len(calls) == 1
    module.write_text("LIMIT = 2\n")
    assert read() == 2
    kept_module.code_version.cache_clear()
