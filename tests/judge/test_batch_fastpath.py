"""The re-judge fast path: keys computed before judging, stored judgments looked up instead of
judged again, judgments serialized once in the worker, the summary aggregated on the way.

Everything here must leave the judgments exactly what ``judge()`` gives: same keys, same hashes,
same summary as reading the evaluation back."""

from __future__ import annotations

import json

import pytest
import rejudge.judge._batch as batch
from hypothesis import given
from hypothesis import strategies as st
from rejudge.judge import (
    ENGINE_VERSION,
    KeyMaker,
    build_report,
    judge,
    load_rule_set,
    pass_hat_k,
    pass_hat_k_all,
)
from rejudge.store import Store
from rejudge.suites import load_suite

from rejudge.model import Case, Round, RunConfig, ToolCall, Trace, TraceError, judgment_key
from rejudge.services import iter_evaluation_rows, judge_run

TIERS = ("contract", "execution", "completion", "completion-contract", "golden")

hashes = st.text(min_size=0, max_size=40)


@given(trace_hash=hashes, case_hash=hashes, registry_hash=hashes, tier=hashes, rules=hashes)
def test_key_maker_is_judgment_key(trace_hash, case_hash, registry_hash, tier, rules):
    make = KeyMaker({"c": case_hash}, registry_hash, tier, rules)
    expected = judgment_key(trace_hash, case_hash, registry_hash, tier, rules, ENGINE_VERSION)
    assert make("c", trace_hash) == expected


@st.composite
def _outcomes(draw):
    n_cases = draw(st.integers(min_value=0, max_value=6))
    out = {}
    for i in range(n_cases):
        n = draw(st.integers(min_value=0, max_value=80))
        out[f"c{i}"] = (n, draw(st.integers(min_value=0, max_value=n)))
    return out


@given(_outcomes(), st.integers(min_value=0, max_value=90))
def test_pass_hat_k_all_is_pass_hat_k(outcomes, max_k):
    expected = {k: pass_hat_k(outcomes, k) for k in range(1, max_k + 1)}
    assert pass_hat_k_all(outcomes, max_k).values == expected


def _trace(case: Case, kind: int, rep: int, read_only: list[str]) -> Trace:
    calls = [
        ToolCall(name=g.tool, arguments=dict(g.params), arguments_raw=json.dumps(g.params), ok=True)
        for g in case.golden.calls
        for _ in range(g.count)
    ]
    status, error = "completed", None
    if kind == 1 and calls and calls[0].arguments:
        args = dict(calls[0].arguments)
        args[sorted(args)[0]] = f"wrong-{rep}"
        calls[0] = calls[0].model_copy(update={"arguments": args})
    elif kind == 2 and calls:
        calls = calls[:-1]
    elif kind == 3:
        calls.append(ToolCall(name=read_only[rep % len(read_only)], arguments={}, ok=True))
    elif kind == 4:
        calls.append(ToolCall(name="teleport", arguments={"to": "möön"}, arguments_raw="{"))
    elif kind == 5:
        status, error = "agent_error", TraceError(kind="timeout", message="no answer")
    rounds = [Round(index=i, calls=[c]) for i, c in enumerate(calls)]
    return Trace(case_id=case.id, repetition=rep, status=status, rounds=rounds, error=error)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A retail store: every case twice, with faults of every kind (SQLite file, copied per
    test so each starts unjudged)."""
    path = tmp_path_factory.mktemp("fast") / "base.db"
    source = load_suite("retail")
    read_only = sorted(t.name for t in source.registry.tools if t.read_only)
    store = Store.open(f"sqlite:///{path}")
    suite = store.suites.save_suite(
        name="retail",
        domain="retail",
        suite_hash="sha256:retail",
        registry=source.registry,
        cases=list(source.cases),
    )
    run = store.runs.create_run(name="r", suite=suite, config=RunConfig(model="m"))
    pks = store.suites.get_case_pks(suite.id)
    rows = []
    for rep in range(2):
        for n, c in enumerate(source.cases):
            rows.append((run.id, pks[c.id], _trace(c, (n + rep) % 6, rep, read_only), None, None))
    store.traces.save_traces(rows)
    store.close()
    return path


@pytest.fixture()
def store(corpus, tmp_path):
    copy = tmp_path / "work.db"
    copy.write_bytes(corpus.read_bytes())
    st_ = Store.open(f"sqlite:///{copy}")
    yield st_
    st_.close()


def _judgments(store: Store, evaluation_id: int) -> dict[str, tuple[str, str]]:
    return {
        r.judgment_key: (r.judgment_hash, r.verdict)
        for r in store.judgments.iter_evaluation_rows(evaluation_id)
    }


@pytest.mark.parametrize("tier", TIERS)
def test_batch_matches_judge_and_reads_back(store, tier):
    rules = load_rule_set("standard@2")
    first = judge_run(store, "r", tier, rules, chunk_size=50)
    run = store.runs.get_run("r")
    assert first.judged == first.written == store.traces.count_traces(run.id)
    # every stored judgment is exactly judge()'s: same key, same hash
    registry = store.suites.get_registry(run.registry_id)
    cases = {k: c for k, (_pk, c) in store.suites.get_cases(run.suite_id).items()}
    expected = {}
    for row in store.traces.iter_traces(run.id):
        j = judge(row.trace, cases[row.case_key], registry, tier, rules)
        expected[j.key] = (j.hash, j.verdict)
    assert _judgments(store, first.evaluation_id) == expected
    # the summary aggregated on the way is the one read back from the evaluation
    read_back = build_report(
        iter_evaluation_rows(store, first.evaluation_id),
        harness_mode=run.harness_mode,
        include_cases=False,
    ).summary
    assert first.summary == read_back
    assert first.summary.verdict_counts.FAIL > 0
    assert first.summary.worst_tools and first.summary.verdict_counts.AGENT_ERROR > 0


def test_unchanged_inputs_are_lookups_not_judgings(store, monkeypatch):
    rules = load_rule_set("standard@2")
    first = judge_run(store, "r", "golden", rules)

    def refuse(*args, **kwargs):
        raise AssertionError("judged a trace whose judgment is stored")

    monkeypatch.setattr(batch, "judge_body", refuse)
    monkeypatch.setattr(batch, "ProcessPoolExecutor", refuse)  # nothing to judge: no workers
    results = [judge_run(store, "r", "golden", rules, chunk_size=37, workers=w) for w in (1, 2, 1)]
    for again in results:
        assert (again.judged, again.written) == (first.judged, 0)
        assert again.summary == first.summary
        assert _judgments(store, again.evaluation_id) == _judgments(store, first.evaluation_id)


def test_two_workers_write_what_one_writes(store, tmp_path, corpus):
    rules = load_rule_set("standard@1")
    one = judge_run(store, "r", "execution", rules)
    copy = tmp_path / "two.db"
    copy.write_bytes(corpus.read_bytes())
    other = Store.open(f"sqlite:///{copy}")
    try:
        two = judge_run(other, "r", "execution", rules, workers=2, chunk_size=20)
        assert two.written == one.written
        assert two.summary == one.summary
        assert _judgments(other, two.evaluation_id) == _judgments(store, one.evaluation_id)
    finally:
        other.close()


def test_partly_judged_run_judges_only_the_rest(store):
    rules = load_rule_set("standard@2")
    half = judge_run(store, "r", "contract", rules, shard=(0, 2))
    full = judge_run(store, "r", "contract", rules)
    assert full.judged == store.traces.count_traces(store.runs.get_run("r").id)
    assert full.written == full.judged - half.judged
