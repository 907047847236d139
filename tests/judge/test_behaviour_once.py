"""Identical behaviour judged once: a trace equal to one judged before but for its repetition
and timings gets that judgment with its own trace hash, byte for byte what judging it gives."""

from __future__ import annotations

import json
import random
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rejudge.judge import BatchJudge, judge, judge_body, load_rule_set
from rejudge.store import Store
from rejudge.suites import load_suite

from rejudge.model import PreparedJudgment, RunConfig, Trace, behaviour_hash, canonical_json
from rejudge.services import judge_run

from .conftest import REGISTRY
from .test_batch_fastpath import _trace
from .test_properties import RULES, TIERS, arbitrary_cases, traces

timings = st.dictionaries(
    st.sampled_from(["started", "wall_s", "rounds"]),
    st.floats(allow_nan=False, allow_infinity=False) | st.integers(0, 10**6),
    max_size=3,
)


@settings(max_examples=150, deadline=None)
@given(
    traces(),
    arbitrary_cases(),
    st.sampled_from(TIERS),
    st.sampled_from(RULES),
    st.integers(0, 10**6),
    timings,
)
def test_the_judge_reads_neither_repetition_nor_timings(trace, case, tier, rules, rep, times):
    """What makes two traces one behaviour never changes a judgment but for its trace hash."""
    other = trace.model_copy(update={"repetition": rep, "timings": times})
    a = judge_body(trace, case, REGISTRY, tier, rules, trace_hash="sha256:a")
    b = judge_body(other, case, REGISTRY, tier, rules, trace_hash="sha256:b")
    assert {**a, "trace_hash": "sha256:b"} == b


class _Row(NamedTuple):
    """A stored trace's row as the engine reads it (rejudge.judge.TraceRowLike)."""

    id: int
    case_key: str
    hash: str
    behaviour_hash: str | None


@settings(max_examples=60, deadline=None)
@given(
    traces(),
    arbitrary_cases(),
    st.sampled_from(TIERS),
    st.lists(st.tuples(st.integers(0, 50), timings), min_size=1, max_size=4),
    st.integers(1, 3),
)
def test_rows_judged_once_are_the_rows_judged_each(trace, case, tier, copies, chunk):
    """Copies of one behaviour planned and completed a chunk at a time: the representative is
    judged, the others copied (in its chunk, or from the batch's memory in later chunks), and
    every prepared judgment equals judging that copy alone (same key, hash, text, columns)."""
    rules = RULES[-1]
    rows, bodies = [], {}
    for i, (rep, times) in enumerate(copies):
        t = trace.model_copy(update={"repetition": rep, "timings": times})
        body = t.model_dump(mode="json")
        bodies[i] = json.dumps(body)  # as the store's JSON column writes it
        rows.append(_Row(i, case.id, f"sha256:{i:064x}", behaviour_hash(body)))
    judge_ = BatchJudge(REGISTRY, {case.id: case}, rules, tier)
    together = []
    judged_in_full = 0
    for start in range(0, len(rows), chunk):
        part = rows[start : start + chunk]
        keys = [f"key{r.id}" for r in part]
        plan = judge_.plan(part, keys, {})
        judged_in_full += len(plan.reps)
        made = judge_.judge_now(plan.judge_rows(bodies))
        together.extend(judge_.complete(plan, made, lambda ids: {i: bodies[i] for i in ids}))
    assert len({r.behaviour_hash for r in rows}) == 1
    assert judged_in_full == 1 or any(p.offset < 0 for p, *_ in together)
    assert sorted(p.key for p, *_ in together) == sorted(f"key{r.id}" for r in rows)
    for prepared, *_rest in together:
        i = int(prepared.key[3:])
        body = judge_body(
            Trace.model_validate_json(bodies[i]),
            case,
            REGISTRY,
            tier,
            rules,
            trace_hash=rows[i].hash,
        )
        assert prepared == PreparedJudgment.from_body(body, prepared.key)
        assert prepared.body_json == canonical_json(body)


@pytest.mark.parametrize("tier", TIERS)
def test_repeated_trials_in_a_store_keep_judge_s_hashes(tmp_path, tier, monkeypatch):
    """Repeated trials (same behaviour, other repetition and timings) stored and judged by
    ``judge_run``: every stored judgment is ``judge()``'s, and fewer were judged than stored."""
    source = load_suite("retail")
    read_only = sorted(t.name for t in source.registry.tools if t.read_only)
    store = Store.open(f"sqlite:///{tmp_path / 'r.db'}")
    suite = store.suites.save_suite(
        name="retail",
        domain="retail",
        suite_hash="sha256:retail",
        registry=source.registry,
        cases=list(source.cases),
    )
    run = store.runs.create_run(name="r", suite=suite, config=RunConfig(model="m"))
    pks = store.suites.get_case_pks(suite.id)
    rng = random.Random(3)
    rows = []
    for rep in range(4):
        for n, c in enumerate(source.cases):
            t = _trace(c, n % 6, rep, read_only)
            t = t.model_copy(update={"timings": {"wall_s": rng.random()}})
            rows.append((run.id, pks[c.id], t, None, None))
    store.traces.save_traces(rows)
    rules = load_rule_set("standard@2")
    judged_in_full = []
    real = BatchJudge.judge_now

    def counting(self, rows_):
        judged_in_full.extend(rows_)
        return real(self, rows_)

    monkeypatch.setattr(BatchJudge, "judge_now", counting)
    result = judge_run(store, "r", tier, rules, chunk_size=40)
    assert result.written == len(rows)
    # the behaviours judged in full (kinds 0, 2, 4 and 5 repeat across repetitions)
    assert 0 < len(judged_in_full) < len(rows)
    with store.engine.connect() as c:
        bodies_stored = c.exec_driver_sql("SELECT count(*) FROM judgment_bodies").scalar()
    # one stored body per behaviour (fewer when two behaviours judge alike)
    assert 0 < bodies_stored <= len(judged_in_full)
    registry = store.suites.get_registry(run.registry_id)
    cases = {k: c for k, (_pk, c) in store.suites.get_cases(run.suite_id).items()}
    expected = {}
    for row in store.traces.iter_traces(run.id):
        j = judge(row.trace, cases[row.case_key], registry, tier, rules)
        expected[j.key] = (j.hash, j.verdict)
    stored = {
        r.judgment_key: (r.judgment_hash, r.verdict)
        for r in store.judgments.iter_evaluation_rows(result.evaluation_id)
    }
    assert stored == expected
    store.close()


def test_the_batchs_memory_of_behaviours_stays_under_its_bound(monkeypatch):
    """A batch remembers at most ``_BEHAVIOURS_MAX`` behaviours (cleared when full), however
    many distinct ones it judges: golden's peak memory stops growing once it is full (at
    4,096; bench/README.md, "Re-judging a recorded model-graded evaluation")."""
    import rejudge.judge._batch as batch_module

    from .conftest import call, case, gcall, trace

    monkeypatch.setattr(batch_module, "_BEHAVIOURS_MAX", 4)
    c = case(gcall("get_order", order_id="W441"), id="c1")
    judge_ = BatchJudge(REGISTRY, {"c1": c}, RULES[-1], "golden")
    sizes, copies = [], 0
    for i in range(11):  # ten distinct behaviours, then the last one again
        t = trace(call("get_order", order_id=f"W{min(i, 9)}"), case_id="c1", repetition=i)
        body = t.model_dump(mode="json")
        row = _Row(i, "c1", f"sha256:{i:064x}", behaviour_hash(body))
        plan = judge_.plan([row], [f"key{i}"], {})
        copies += len(plan.copies)
        made = judge_.judge_now(plan.judge_rows({i: json.dumps(body)}))
        judge_.complete(plan, made, lambda ids: {})
        sizes.append(len(judge_._seen))
    assert max(sizes) == 4  # filled to the bound, never past it
    assert sizes[:5] == [1, 2, 3, 4, 1]  # cleared when full
    assert copies == 1  # a behaviour remembered is still copied, not judged again
