"""A big file's import is stored a batch per transaction into a staged run, visible only once
whole (issue 38 item 7): nothing half-imported is listed or found by name, a failure rolls the
staged rows back, an interrupted import resumes to the rows an uninterrupted one stores, and a
process killed with SIGKILL half-way leaves nothing visible and resumes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rejudge.store import NotFoundError, Store, TraceAnomalies
from rejudge.store._tables import CaseRow, RunRow, SuiteRow, TraceAnomalyRow, TraceRow

from rejudge.errors import ConflictError, InvalidInputError
from rejudge.importers import import_chat_jsonl, import_otel
from rejudge.importers._adhoc import adhoc_config
from rejudge.model import Case, Golden, Trace
from rejudge.services import StagedItem, ingest_staged, staged_run_name
from tests.importers.conftest import ANY_AGENT, PLAIN_LINE, TOOL_LINE, otlp_export, spans_of
from tests.store.store_factories import count_rows

REPO = Path(__file__).resolve().parents[2]


def _items(count: int, *, fail_at: int | None = None) -> Iterator[StagedItem]:
    for n in range(count):
        if n == fail_at:
            raise InvalidInputError("line 7: the file stops making sense")
        case = Case(
            id=f"c{n:03d}",
            dimension="imported",
            category="imported",
            instruction=f"question {n}",
            golden=Golden(calls=[]),
        )
        trace = Trace(case_id=case.id, final_text=f"answer {n}")
        odd = [f"line {n}: odd"] if n % 2 == 0 else []  # every other trace has an anomaly
        yield StagedItem(case, trace, [], weight=10, anomalies=odd)


def _ingest(store: Store, items: Any, *, name: str = "streamed", **kw: Any) -> Any:
    source = Path("conversations.jsonl")
    provisional = adhoc_config(
        source_tag="test",
        source=source,
        file_hash=kw.pop("file_hash", "sha256:" + "ab" * 32),
        models=[],
        providers=[],
    )
    return ingest_staged(
        store,
        items,
        run_name=name,
        suite_name="streamed-suite",
        domain="imported",
        suite_meta={"adhoc": True},
        file_hash=provisional.extra["file_hash"],
        config=lambda: provisional,
        provisional=provisional,
        batch=2,
        **kw,
    )


def _visible(store: Store) -> tuple[list[str], list[str]]:
    return [r.name for r in store.runs.list_runs()], [s.name for s in store.suites.list_suites()]


def test_nothing_is_visible_until_the_last_batch_is_in(store: Store) -> None:
    seen: list[tuple[Any, ...]] = []

    def after_batch(weight: int) -> None:  # called once each batch is committed
        staged = store.staging.staged_run(staged_run_name("streamed"))
        assert staged is not None
        with pytest.raises(NotFoundError):
            store.runs.get_run("streamed")
        stored = store.traces.count_traces(staged.id)
        anomalous = store.anomalies.first(staged.id, 100).traces
        seen.append(
            (
                weight,
                _visible(store),
                stored,
                [r.name for r in store.catalog.run_summaries()],
                anomalous,
            )
        )

    done = _ingest(store, _items(5), progress=after_batch)
    assert [s[0] for s in seen] == [20, 20, 10]
    assert all(s[1] == ([], []) and s[3] == [] for s in seen)  # listed nowhere while staged
    assert [s[2] for s in seen] == [2, 4, 5]  # yet each batch was committed as it came
    assert [s[4] for s in seen] == [1, 2, 3]  # each batch's anomalies with it, not at the seal
    assert (done.run.name, done.run.status, done.inserted, done.skipped) == (
        "streamed",
        "finished",
        5,
        0,
    )
    assert _visible(store) == (["streamed"], ["streamed-suite"])
    assert store.staging.staged_run(staged_run_name("streamed")) is None
    assert not done.suite.hash.startswith("importing:") and done.suite.case_count == 5


def test_a_failure_half_way_rolls_the_staged_rows_back(store: Store) -> None:
    with pytest.raises(InvalidInputError):
        _ingest(store, _items(5, fail_at=3))
    tables = (SuiteRow, CaseRow, RunRow, TraceRow, TraceAnomalyRow)
    assert [count_rows(store, t) for t in tables] == [0, 0, 0, 0, 0]


def test_an_interrupted_import_resumes_to_what_an_uninterrupted_one_stores(store: Store) -> None:
    def interrupted() -> Iterator[StagedItem]:
        for n, item in enumerate(_items(5)):
            if n == 3:
                raise KeyboardInterrupt  # Ctrl-C: the staged rows stay, to resume
            yield item

    with pytest.raises(KeyboardInterrupt):
        _ingest(store, interrupted())
    assert _visible(store) == ([], [])
    resumed = _ingest(store, _items(5))
    assert (resumed.inserted, resumed.skipped) == (3, 2)  # the first batch was in already
    clean = _ingest(store, _items(5), name="uninterrupted")
    # the same suite snapshot (the second run's traces moved to it, its staged suite gone)
    assert clean.suite.id == resumed.suite.id and count_rows(store, SuiteRow) == 1
    assert count_rows(store, CaseRow) == 5
    hashes = {
        run: [(t.case_key, t.hash) for t in store.traces.iter_traces(run)]
        for run in (resumed.run.id, clean.run.id)
    }
    assert hashes[resumed.run.id] == hashes[clean.run.id] and len(hashes[clean.run.id]) == 5
    assert resumed.run.config_hash == clean.run.config_hash
    both = [store.anomalies.first(r.id, 100) for r in (resumed.run, clean.run)]
    odd = {f"c{n:03d}": [f"line {n}: odd"] for n in (0, 2, 4)}
    assert both[0] == both[1] == TraceAnomalies(3, odd)


def test_the_same_file_again_is_a_lookup_and_another_file_is_refused(store: Store) -> None:
    first = _ingest(store, _items(3))
    again = _ingest(store, _items(3))
    assert (again.run.id, again.inserted, again.skipped) == (first.run.id, 0, 3)
    with pytest.raises(ConflictError, match="imported from another file"):
        _ingest(store, _items(3), file_hash="sha256:" + "cd" * 32)


def test_a_staged_import_of_another_file_is_rolled_back_first(store: Store) -> None:
    def interrupted() -> Iterator[StagedItem]:
        yield from list(_items(2))
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _ingest(store, interrupted(), file_hash="sha256:" + "cd" * 32)
    done = _ingest(store, _items(3))
    assert (done.inserted, done.skipped) == (3, 0)
    assert [count_rows(store, t) for t in (SuiteRow, CaseRow, RunRow, TraceRow)] == [1, 3, 1, 3]


def test_a_chat_jsonl_import_streams_to_the_same_rows(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "chats.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in [TOOL_LINE, PLAIN_LINE] * 3) + "\n")
    done = import_chat_jsonl(path, store)
    assert (done.traces, done.inserted, done.calls) == (6, 6, 3)
    assert _visible(store)[0] == [done.run]


# --------------------------------------------------------------------------- kill -9


def _span_file(path: Path, traces: int, files: list[Path] = ANY_AGENT) -> Path:
    """``traces`` traces of the real any-agent spans (of ``files``, in turn) with fresh ids, a
    trace per line."""
    sources = [spans_of(p) for p in files]
    with path.open("w", encoding="utf-8") as fh:
        for n in range(1, traces + 1):
            spans = []
            for s in sources[n % len(sources)]:
                s = json.loads(json.dumps(s))
                s["context"]["trace_id"] = n
                s["context"]["span_id"] = (n << 20) + (s["context"]["span_id"] & 0xFFFFF)
                if s.get("parent") and s["parent"].get("span_id"):
                    s["parent"]["span_id"] = (n << 20) + (s["parent"]["span_id"] & 0xFFFFF)
                spans.append(s)
            fh.write(json.dumps(otlp_export(spans)) + "\n")
    return path


_CHILD = """
import sys
from rejudge.services import _ingest_staged
from rejudge.importers import import_otel
from rejudge.store import Store
_ingest_staged.STAGED_BATCH = 10
import_otel(sys.argv[2], Store.open(sys.argv[1]), run_name="spans")
"""


@pytest.mark.slow
def test_kill_9_half_way_leaves_nothing_visible_and_the_import_resumes(
    store: Store, db_url: str, tmp_path: Path
) -> None:
    path = _span_file(tmp_path / "spans.jsonl", 600)  # ~4 MB, 60 batches of 10
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, db_url, str(path)],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    staged_name = staged_run_name("spans")
    committed = 0
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and child.poll() is None:
            staged = store.staging.staged_run(staged_name)
            if staged is not None:
                committed = store.traces.count_traces(staged.id)
                if committed >= 50:
                    break
            time.sleep(0.02)
        assert child.poll() is None, child.stderr.read() if child.stderr else ""
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait()
    assert child.returncode == -signal.SIGKILL
    staged = store.staging.staged_run(staged_name)
    assert staged is not None
    left = store.traces.count_traces(staged.id)
    assert 50 <= left < 600  # killed half-way, whole batches committed
    assert left % 10 == 0
    # nothing half-imported is visible
    assert _visible(store) == ([], [])
    with pytest.raises(NotFoundError):
        store.runs.get_run("spans")
    # the same import again resumes: the committed traces are not written again
    resumed = import_otel(path, store, run_name="spans")
    assert (resumed.traces, resumed.inserted, resumed.skipped) == (600, 600 - left, left)
    assert store.staging.staged_run(staged_name) is None
    # and stores what an uninterrupted import stores, in a store of its own
    clean_store = Store.open(f"sqlite:///{tmp_path / 'clean.db'}")
    try:
        clean = import_otel(path, clean_store, run_name="spans")
        assert (clean.inserted, clean.anomalies) == (600, resumed.anomalies)
        # the killed batches' anomalies were kept with their traces, the rest added on resume
        assert clean.anomalous_traces == resumed.anomalous_traces > 0

        def rows(s: Store) -> tuple[Any, ...]:
            run = s.runs.get_run("spans")
            suite = s.suites.get_suite_by_id(run.suite_id)
            hashes = [(t.case_key, t.hash) for t in s.traces.iter_traces(run.id)]
            found = s.anomalies.first(run.id, 1000)
            shape = (run.config_hash, run.status, suite.hash, suite.case_count, sorted(hashes))
            return (*shape, found)

        assert rows(store) == rows(clean_store)
    finally:
        clean_store.close()
