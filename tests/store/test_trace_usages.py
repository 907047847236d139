"""``store.runs.trace_usages``: every trace of a run with the token usage its body records (what a
run's cost is computed from), on SQLite and PostgreSQL, and the same sums as ``run_usage``."""

from __future__ import annotations

from rejudge.store import RunRecord, Store, TraceUsage

from tests.store.store_factories import make_trace

# (case index, repetition, usage as the recorder stores it)
USAGES = [
    (2, 0, {"input_tokens": 1200, "output_tokens": 80, "total_tokens": 1280}),
    (0, 1, {"input_tokens": 900}),  # no output tokens recorded
    (0, 0, {"input_tokens": 10**9, "output_tokens": 3}),  # beyond 32 bits
    (1, 0, {}),  # an imported trace that records no usage
]


def test_trace_usages_read_each_traces_recorded_tokens(
    store: Store, run: RunRecord, case_pks: dict[str, int]
) -> None:
    traces = [
        make_trace(f"case-{i:03d}", rep).model_copy(update={"usage": usage})
        for i, rep, usage in USAGES
    ]
    store.traces.save_traces([(run.id, case_pks[t.case_id], t, None, None) for t in traces])
    other = store.runs.create_run(
        name="run-2", suite=store.suites.get_suite_by_id(run.suite_id), config=run.config
    )
    store.traces.save_traces([(other.id, case_pks["case-005"], make_trace("case-005"), None, None)])

    usages = store.runs.trace_usages(run.id)
    assert all(isinstance(u, TraceUsage) for u in usages)
    ids = {(r.case_key, r.repetition): r.id for r in store.traces.iter_trace_rows(run.id)}
    assert [(u.case_key, u.repetition, u.input_tokens, u.output_tokens) for u in usages] == [
        ("case-000", 0, 10**9, 3),
        ("case-000", 1, 900, None),
        ("case-001", 0, None, None),
        ("case-002", 0, 1200, 80),
    ]
    assert [u.id for u in usages] == [ids[(u.case_key, u.repetition)] for u in usages]
    totals = store.runs.run_usage(run.id)
    recorded = [u for u in usages if u.input_tokens is not None]
    assert totals.with_usage == len(recorded)
    assert totals.input_tokens == sum(u.input_tokens or 0 for u in recorded)
    assert totals.output_tokens == sum(u.output_tokens or 0 for u in recorded)


def test_a_run_without_traces_has_no_usages(store: Store, run: RunRecord) -> None:
    assert store.runs.trace_usages(run.id) == []
