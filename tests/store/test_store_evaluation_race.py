"""Shards of one re-judge started at the same instant converge on one evaluation.

``find_or_create_evaluation`` looks up and creates under a lock on (run, tier, rule set, engine
version): writers released together by a barrier, threads or separate processes, on SQLite and
on PostgreSQL, all get the same evaluation id and exactly one is created.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

from rejudge.judge import load_rule_set
from rejudge.store import RunRecord, Store
from rejudge.store._tables import EvaluationRow

from tests.store.store_factories import count_rows, race

ROOT = Path(__file__).resolve().parents[2]


def test_racing_threads_make_one_evaluation(store: Store, run: RunRecord) -> None:
    rule_set_id = store.rule_sets.save_rule_set(load_rule_set("standard@2"), builtin=True)
    writers = 8
    results: list[tuple[int, bool]] = []
    for round_ in range(3):  # a few rounds: one lucky interleaving proves little
        tier = f"tier-{round_}"
        results = race(
            writers,
            lambda tier=tier: store.evaluations.find_or_create_evaluation(
                run_id=run.id, tier=tier, rule_set_id=rule_set_id, engine_version="9"
            ),
        )
        assert len({ev for ev, _created in results}) == 1, results
        assert sorted(created for _ev, created in results) == [False] * (writers - 1) + [True]
    assert count_rows(store, EvaluationRow) == 3
    # another tuple is another evaluation; the same tuple again is found, not created
    other, created = store.evaluations.find_or_create_evaluation(
        run_id=run.id, tier="tier-0", rule_set_id=rule_set_id, engine_version="10"
    )
    assert created and other not in {ev for ev, _ in results}
    again = store.evaluations.find_or_create_evaluation(
        run_id=run.id, tier="tier-0", rule_set_id=rule_set_id, engine_version="10"
    )
    assert again == (other, False)


ROUNDS = 40
CHILD = f"ROUNDS = {ROUNDS}\n" + textwrap.dedent(
    """
    import sys
    import time
    from rejudge.store import Store

    url, run_id, rule_set_id, start = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    store = Store.open(url)
    store.runs.list_runs()  # connect and migrate-check before the start line
    while time.time() < start:  # a barrier across processes: one agreed instant
        pass
    for i in range(ROUNDS):  # many tuples: some calls of different processes do overlap
        ev, created = store.evaluations.find_or_create_evaluation(
            run_id=run_id, tier=f"shard-race-{i}", rule_set_id=rule_set_id, engine_version="9"
        )
        print(i, ev, int(created))
    """
)


def test_racing_processes_make_one_evaluation(store: Store, run: RunRecord, db_url: str) -> None:
    rule_set_id = store.rule_sets.save_rule_set(load_rule_set("standard@2"), builtin=True)
    start = time.time() + 3.0
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, db_url, str(run.id), str(rule_set_id), str(start)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _out, err in outs]
    by_tuple: dict[int, list[tuple[int, int]]] = {}
    for out, _err in outs:
        for line in out.split("\n"):
            if line.strip():
                i, ev, created = (int(x) for x in line.split())
                by_tuple.setdefault(i, []).append((ev, created))
    assert sorted(by_tuple) == list(range(ROUNDS))
    for answers in by_tuple.values():
        assert len({ev for ev, _ in answers}) == 1, answers
        assert sorted(created for _ev, created in answers) == [0, 0, 0, 1]
    assert count_rows(store, EvaluationRow) == ROUNDS
