"""``Store.atomic()``: the writes and reads of a block share one transaction; an error anywhere
in it leaves the store as it was (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
from rejudge.store import Store, SuiteRecord
from rejudge.store._tables import RunRow, SuiteRow, TraceRow

from tests.store.store_factories import count_rows, make_config


class Boom(Exception):
    pass


def test_an_error_in_the_block_stores_nothing(store: Store, suite: SuiteRecord) -> None:
    runs_before = count_rows(store, RunRow)
    with pytest.raises(Boom):
        with store.atomic():
            run = store.runs.create_run(name="half", suite=suite, config=make_config())
            # a read inside the block sees the block's own write
            assert store.runs.get_run(run.id).name == "half"
            raise Boom
    assert count_rows(store, RunRow) == runs_before
    with pytest.raises(Exception, match="half"):
        store.runs.get_run("half")


def test_a_block_that_ends_commits_everything(store: Store, suite: SuiteRecord) -> None:
    with store.atomic():
        run = store.runs.create_run(name="whole", suite=suite, config=make_config())
        store.runs.finish_run(run.id, "finished")
    assert store.runs.get_run("whole").status == "finished"


def test_blocks_nest_into_the_outer_transaction(store: Store, suite: SuiteRecord) -> None:
    suites_before = count_rows(store, SuiteRow)
    with pytest.raises(Boom):
        with store.atomic():
            store.runs.create_run(name="outer", suite=suite, config=make_config())
            with store.atomic():
                store.runs.create_run(name="inner", suite=suite, config=make_config())
            # the inner block's end commits nothing of its own
            raise Boom
    assert count_rows(store, RunRow) == 0
    assert count_rows(store, SuiteRow) == suites_before
    assert count_rows(store, TraceRow) == 0


def test_judgment_and_review_writes_join_the_block(store: Store) -> None:
    # every Store method joins an open block: the judgments mixin (evaluation, judgments, links)
    # and the reviews mixin write on the block's connection, and its reads see those writes
    from rejudge.store._tables import (
        EvaluationJudgmentRow,
        EvaluationRow,
        JudgmentBodyRow,
        JudgmentRow,
        ReviewRow,
    )

    from tests.store.store_factories import make_judged

    tables = (EvaluationRow, JudgmentRow, JudgmentBodyRow, EvaluationJudgmentRow, ReviewRow)
    with pytest.raises(Boom):
        with store.atomic():
            judged = make_judged(store)
            jid, evaluation = judged["ids"][1], judged["evaluation"]
            store.reviews.add_review(jid, "judge_wrong", "ana", evaluation_id=evaluation)
            # reads of the read models, inside the block, see its uncommitted writes
            assert [r.label for r in store.reviews.review_history(jid)] == ["judge_wrong"]
            assert store.evaluations.get_evaluation(evaluation).id == evaluation
            assert len(list(store.judgments.iter_evaluation_rows(evaluation))) == 3
            raise Boom
    assert [count_rows(store, t) for t in tables] == [0, 0, 0, 0, 0]
    assert count_rows(store, RunRow) == 0
    # and the same writes outside a block land as before
    judged = make_judged(store)
    store.reviews.add_review(judged["ids"][0], "confirmed", "ben")
    assert [count_rows(store, t) for t in (JudgmentRow, ReviewRow)] == [3, 1]


def test_the_run_read_models_see_the_blocks_writes(store: Store, suite: SuiteRecord) -> None:
    # the dashboard's run reads (usage, listing, tools) join an open block like every other
    # Store method: inside it they see the traces it wrote, and nothing is left after it fails
    from tests.store.store_factories import make_trace

    with pytest.raises(Boom):
        with store.atomic():
            run = store.runs.create_run(name="reads", suite=suite, config=make_config())
            pks = store.suites.get_case_pks(suite.id)
            store.traces.save_trace(run.id, pks["case-000"], make_trace("case-000", seed=1))
            store.traces.save_trace(run.id, pks["case-001"], make_trace("case-001", seed=2))
            assert store.runs.run_usage(run.id).traces == 2
            assert len(store.runs.trace_rows(run.id)) == 2
            assert store.runs.run_tools(run.id) != []
            raise Boom
    assert count_rows(store, TraceRow) == 0
