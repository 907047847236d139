"""The review page reads only the rows it shows (issue 39), on both backends: its queue and
figures equal those computed from every row of the evaluation, while the PASSes it does not
sample are never read as rows (at 100,000 judgments they were two thirds of the rows read)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from rejudge.store import EvaluatedTrace, RunRecord, Store

from rejudge.model import Case, Judgment, PreparedJudgment, QueueRow, ToolRegistry
from rejudge.services import evaluation_review_rows, label_judgment, review_page_state
from tests.store.store_factories import link_rows, make_rule_set, make_trace

# verdicts and anomalies, cycled over the traces: PASSes with and without anomalies, FAILs with
# and without, the verdicts review never queues by themselves
PLAN = [
    ("PASS", []),
    ("FAIL", []),
    ("PASS", ["zero_partial_score_all_calls_executed"]),
    ("PASS", []),
    ("SKIP", []),
    ("FAIL", ["tool_error_ignored"]),
    ("PASS", []),
    ("AGENT_ERROR", ["no_final_answer", "tool_error_ignored"]),
    ("PASS", []),
]


def _evaluation(
    store: Store, run: RunRecord, registry: ToolRegistry, cases: list[Case], case_pks: Any
) -> int:
    by_id = {c.id: c for c in cases}
    traces = [
        make_trace(c.id, rep, seed=10 * i + rep) for i, c in enumerate(cases) for rep in (0, 1, 2)
    ]
    store.traces.save_traces([(run.id, case_pks[t.case_id], t, None, None) for t in traces])
    rows = list(store.traces.iter_trace_rows(run.id))
    prepared = []
    for n, row in enumerate(rows):
        verdict, anomalies = PLAN[n % len(PLAN)]
        judgment = Judgment(
            verdict=verdict,  # type: ignore[arg-type]
            taxonomy=["TOOL_WRONG"] if verdict == "FAIL" else [],
            partial_score=1.0 if verdict == "PASS" else 0.25,
            anomalies=anomalies,
            tier="golden",
            trace_hash=row.hash,
            case_hash=by_id[row.case_key].hash,
            registry_hash=registry.hash,
            rule_set_hash=make_rule_set().hash,
            engine_version="0.1.0",
        )
        prepared.append(PreparedJudgment.of(judgment))
    evaluation_id = store.evaluations.create_evaluation(
        run_id=run.id,
        tier="golden",
        rule_set_id=store.rule_sets.save_rule_set(make_rule_set()),
        engine_version="0.1.0",
    )
    links = link_rows(prepared, rows, by_id)
    store.judgments.save_and_link_judgments(evaluation_id, prepared, links)
    return evaluation_id


def _from_every_row(store: Store, ev: int, sample: int, seed: int) -> tuple[Any, Any]:
    state = review_page_state(
        store, ev, sample_passes=sample, seed=seed, rows=evaluation_review_rows(store, ev)
    )
    return state.queue, state.figures


def test_the_review_page_reads_no_unsampled_pass_and_shows_the_same(
    store: Store,
    run: RunRecord,
    registry: ToolRegistry,
    cases: list[Case],
    case_pks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ev = _evaluation(store, run, registry, cases, case_pks)
    read: list[EvaluatedTrace | QueueRow] = []
    real = store.judgments.iter_evaluation_rows
    real_queue = store.reviews.queue_rows

    def counted(*args: Any, **kwargs: Any) -> Iterator[EvaluatedTrace]:
        for row in real(*args, **kwargs):
            read.append(row)
            yield row

    def counted_queue(*args: Any, **kwargs: Any) -> list[QueueRow]:
        rows = real_queue(*args, **kwargs)
        read.extend(rows)
        return rows

    monkeypatch.setattr(store.judgments, "iter_evaluation_rows", counted)
    monkeypatch.setattr(store.reviews, "queue_rows", counted_queue)
    every = len(evaluation_review_rows(store, ev))
    read.clear()
    state = review_page_state(store, ev, sample_passes=2, seed=5)
    plain_passes = [r for r in read if r.verdict == "PASS" and not r.anomalies]
    # the two sampled PASSes are all the plain PASSes read (the old page read all 8 of 18)
    assert len(plain_passes) == 2, (len(plain_passes), every)
    assert sorted(r.judgment_id for r in plain_passes) == sorted(
        i.judgment_id for i in state.queue if "sampled PASS" in i.reasons
    )
    assert (state.queue, state.figures) == _from_every_row(store, ev, 2, 5)

    # labels of every kind, a reviewer changing their mind, two reviewers disagreeing: the
    # figures (coverage, gaps, flagged) still equal those from every row
    queue = [i.judgment_id for i in state.queue]
    label_judgment(store, ev, queue[0], "judge_wrong", "ann", note="why")
    label_judgment(store, ev, queue[1], "golden_wrong", "ann")
    label_judgment(store, ev, queue[1], "confirmed", "bob")
    label_judgment(store, ev, queue[-1], "unclear", "bob")
    label_judgment(store, ev, queue[-1], "confirmed", "bob")
    for sample, seed in ((0, 0), (2, 5), (3, 1), (100, 2)):
        state = review_page_state(store, ev, sample_passes=sample, seed=seed)
        assert (state.queue, state.figures) == _from_every_row(store, ev, sample, seed)
    assert state.figures.figures.reviewed == 3 and state.figures.gaps > 0
    assert len(state.figures.flagged) == 2
