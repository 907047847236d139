"""``Store.atomic()``: the writes and reads of a block share one transaction; an error anywhere
in it leaves the store as it was (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
from rejudge.store import RunRow, Store, SuiteRecord, SuiteRow, TraceRow

from tests.store.store_factories import count_rows, make_config


class Boom(Exception):
    pass


def test_an_error_in_the_block_stores_nothing(store: Store, suite: SuiteRecord) -> None:
    runs_before = count_rows(store, RunRow)
    with pytest.raises(Boom):
        with store.atomic():
            run = store.create_run(name="half", suite=suite, config=make_config())
            # a read inside the block sees the block's own write
            assert store.get_run(run.id).name == "half"
            raise Boom
    assert count_rows(store, RunRow) == runs_before
    with pytest.raises(Exception, match="half"):
        store.get_run("half")


def test_a_block_that_ends_commits_everything(store: Store, suite: SuiteRecord) -> None:
    with store.atomic():
        run = store.create_run(name="whole", suite=suite, config=make_config())
        store.finish_run(run.id, "finished")
    assert store.get_run("whole").status == "finished"


def test_blocks_nest_into_the_outer_transaction(store: Store, suite: SuiteRecord) -> None:
    suites_before = count_rows(store, SuiteRow)
    with pytest.raises(Boom):
        with store.atomic():
            store.create_run(name="outer", suite=suite, config=make_config())
            with store.atomic():
                store.create_run(name="inner", suite=suite, config=make_config())
            # the inner block's end commits nothing of its own
            raise Boom
    assert count_rows(store, RunRow) == 0
    assert count_rows(store, SuiteRow) == suites_before
    assert count_rows(store, TraceRow) == 0
