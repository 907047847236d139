"""Batch judging over a real (SQLite) store: evaluations, idempotent writes, workers, shards,
and no network."""

from __future__ import annotations

import socket

import pytest
from rejudge.judge import compare_rows, load_rule_set
from rejudge.store import Store

from rejudge.services import evaluation_report, evaluation_rows, judge_run

from .conftest import REGISTRY, call, case, gcall, saved_run, trace

CASES = [
    case(gcall("get_order", order_id="W441"), id="a", dimension="D1"),
    case(
        gcall("request_cancel", order_id="W441", reason="Changed my mind"), id="b", dimension="D2"
    ),
    case(id="n", negative=True, allowed_extra=[], dimension="D3"),
]
TRACES = [
    trace(call("get_order", order_id="W441"), case_id="a"),
    trace(call("request_cancel", order_id="W441", reason="changed my mind"), case_id="b"),
    trace(case_id="n"),
    trace(call("get_order", order_id="W999"), case_id="a", repetition=1),
]


@pytest.fixture()
def store(tmp_path, monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("the judge opened a network connection")

    st = Store.open(f"sqlite:///{tmp_path / 'r.db'}")
    saved_run(st, CASES, TRACES)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    yield st
    st.close()


def test_judge_run_and_rejudge(store):
    seen = []
    r1 = judge_run(store, "r1", "golden", load_rule_set("standard@1"), progress=seen.append)
    assert (r1.judged, r1.written, sum(seen)) == (4, 4, 4)
    assert r1.summary.verdict_counts.to_json() == {
        "PASS": 2,
        "FAIL": 2,
        "SKIP": 0,
        "AGENT_ERROR": 0,
    }
    again = judge_run(store, "r1", "golden", load_rule_set("standard@1"))
    assert again.written == 0  # same inputs: lookups, no new judgment rows
    r2 = judge_run(store, "r1", "golden", load_rule_set("standard@2"), workers=2)
    assert r2.written == 4 and r2.summary.verdict_counts.PASS == 3
    cmp = compare_rows(
        evaluation_rows(store, r1.evaluation_id), evaluation_rows(store, r2.evaluation_id)
    )
    assert [(f["case"], f["from"], f["to"], f["cause"]) for f in cmp["flips"]] == [
        ("b", "FAIL", "PASS", "rules changed")
    ]
    assert cmp["comparable"] is True
    report = evaluation_report(store, r1.evaluation_id)
    assert report.rules == "standard@1" and len(report.cases) == 4
    assert report.summary.pass_at_k is not None and report.summary.pass_at_k[1] == pytest.approx(
        (0.5 + 0 + 1) / 3, abs=1e-6
    )


def test_shards_split_without_overlap(store):
    rules = load_rule_set("standard@1")
    a = judge_run(store, "r1", "contract", rules, shard=(0, 2))
    b = judge_run(store, "r1", "contract", rules, shard=(1, 2))
    assert a.evaluation_id == b.evaluation_id
    assert a.judged + b.judged == 4
    assert len(evaluation_rows(store, a.evaluation_id)) == 4
    judge_run(store, "r1", "contract", rules, shard=(1, 2))  # repeated slice is harmless
    assert len(evaluation_rows(store, a.evaluation_id)) == 4


def test_a_batch_forgets_its_cases_when_it_ends(store):
    """In-process judging keeps its inputs in ``_W`` and per-case caches only while the batch
    runs; a batch still open when another one of the process ends keeps judging."""
    from rejudge.judge import BatchJudge, _batch, _context

    rules = load_rule_set("standard@1")
    cases = {c.id: c for c in CASES}
    rows = [("a", "sha256:x", TRACES[0].model_dump_json(), "k")]
    with BatchJudge(REGISTRY, cases, rules, "golden") as outer:
        first = outer.judge_now(rows)
        with BatchJudge(REGISTRY, dict(cases), rules, "golden") as inner:
            assert inner.judge_now(rows)[0][0].body_json == first[0][0].body_json
        assert _context._CASE_CACHE == {}  # the inner batch's end cleared the caches
        again = outer.judge_now(rows)  # its inputs are set again
        assert again[0][0].body_json == first[0][0].body_json
        assert _batch._W["cases"] is cases
    assert _batch._W == {}
    assert _context._CASE_CACHE == {} and _context._CASE_VIEWS == {}


@pytest.mark.parametrize("workers", [1, 2])
def test_judge_run_leaves_no_cases_behind(store, workers):
    from rejudge.judge import _batch, _context

    r = judge_run(store, "r1", "golden", load_rule_set("standard@1"), workers=workers)
    assert r.written == 4
    assert _batch._W == {}
    assert _context._CASE_CACHE == {} and _context._CASE_VIEWS == {}


def test_judging_collects_the_young_generation_less_often_then_restores_it():
    """While a batch judges, the collector's young generation waits for 50,000 allocations
    (a chunk's rows would otherwise be walked by hundreds of collections); the thresholds are
    the process's own again afterwards."""
    import gc

    from rejudge.judge import long_lived_frozen

    before = gc.get_threshold()
    with long_lived_frozen():
        inside = gc.get_threshold()
    assert inside == (max(before[0], 50_000), *before[1:])
    assert gc.get_threshold() == before


def test_two_judgings_in_threads_restore_the_collector_when_the_last_one_leaves():
    """Two judgings in threads of one process, the first to enter leaving first: the second
    still judges with the raised threshold and its objects frozen, and the process's own
    thresholds come back when the second leaves (not the first one's raised ones)."""
    import gc
    import threading

    from rejudge.judge import long_lived_frozen

    before = gc.get_threshold()
    raised = (max(before[0], 50_000), *before[1:])
    b_entered, a_left = threading.Event(), threading.Event()
    seen: dict[str, object] = {}

    def first() -> None:
        with long_lived_frozen():
            b_entered.wait(10)
        a_left.set()

    def second() -> None:
        with long_lived_frozen():
            b_entered.set()
            a_left.wait(10)
            seen["threshold"], seen["frozen"] = gc.get_threshold(), gc.get_freeze_count() > 0
        seen["after"] = gc.get_threshold()

    a = threading.Thread(target=first)
    a.start()
    while gc.get_threshold() != raised:  # a is inside
        threading.Event().wait(0.001)
    b = threading.Thread(target=second)
    b.start()
    a.join(10)
    b.join(10)
    try:
        assert seen == {"threshold": raised, "frozen": True, "after": before}
        assert gc.get_freeze_count() == 0
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


def test_progress_counts_only_judgments_another_connection_can_read(store, tmp_path):
    """judge_run commits every CHUNKS_PER_COMMIT chunks; the progress it reports is what those
    commits hold, so a reader in another process (the Live page) never sees progress ahead of
    the rows it can read."""
    import sqlite3

    from rejudge.services._judging import CHUNKS_PER_COMMIT

    assert CHUNKS_PER_COMMIT > 1  # else every chunk is its own commit and this cannot fail
    reader = sqlite3.connect(tmp_path / "r.db")
    seen: list[tuple[int, int]] = []

    def progress(n: int) -> None:
        (links,) = reader.execute("SELECT count(*) FROM evaluation_judgments").fetchone()
        seen.append(((seen[-1][0] if seen else 0) + n, links))

    r = judge_run(
        store, "r1", "golden", load_rule_set("standard@1"), chunk_size=1, progress=progress
    )
    reader.close()
    assert r.judged == len(TRACES) and seen[-1][0] == len(TRACES)
    assert all(reported <= readable for reported, readable in seen), seen


def test_unchanged_rejudge_reads_the_judgments_through_the_previous_evaluations_links(store):
    """A re-judge of unchanged inputs finds every judgment among those the previous evaluation
    of the same inputs links to the chunk's traces, and probes the judgment key index for none
    (a random page per key at 1M); the answers are the same as by key, and inputs that changed
    (other rules) still find theirs by key."""
    from sqlalchemy import event

    rules = load_rule_set("standard@1")
    first = judge_run(store, "r1", "golden", rules, chunk_size=2)
    statements: list[str] = []

    def remember(conn, cursor, statement, *args):
        statements.append(statement)

    event.listen(store.engine, "before_cursor_execute", remember)
    try:
        again = judge_run(store, "r1", "golden", rules, chunk_size=2)
    finally:
        event.remove(store.engine, "before_cursor_execute", remember)
    assert again.written == 0
    assert not [s for s in statements if 'WHERE "key" IN' in s or "WHERE judgments.key IN" in s]

    def rows(evaluation_id: int) -> list:
        return sorted(store.judgments.iter_evaluation_rows(evaluation_id), key=lambda r: r.trace_id)

    by_key = rows(first.evaluation_id)
    assert rows(again.evaluation_id) == by_key  # the same judgments linked, the same values
    ids = [r.trace_id for r in by_key]
    wanted = [r.judgment_key for r in by_key][1:] + ["sha256:nope"]  # one linked key not asked
    for first_id, last_id in ((ids[0], ids[-1]), (ids[0], ids[0]), (ids[1], ids[2])):
        assert store.judgments.lookup_judgments(
            wanted, linked=(first.evaluation_id, first_id, last_id)
        ) == store.judgments.lookup_judgments(wanted)

    other = judge_run(store, "r1", "golden", load_rule_set("standard@2"), chunk_size=2)
    assert other.written == len(TRACES)
