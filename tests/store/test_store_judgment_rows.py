"""The judge's write/read fast path, on both backends: judgments stored from pre-serialized rows,
linked in one transaction, looked up without their bodies, and trace bodies read as text."""

from __future__ import annotations

import json

from rejudge.store import JudgmentLink, RunRecord, Store
from rejudge.store._tables import EvaluationJudgmentRow, JudgmentRow

from rejudge.model import Case, Judgment, PreparedJudgment, ToolRegistry, canonical_json
from tests.store.store_factories import count_rows, link_rows, make_rule_set, make_trace


def _judgment(trace_hash: str, case: Case, registry: ToolRegistry, n: int) -> Judgment:
    failing = n % 2 == 1
    return Judgment(
        verdict="FAIL" if failing else "PASS",
        taxonomy=["wrong_tool", "extra_call"] if failing else [],
        partial_score=0.25 if failing else 1.0,
        diff=[{"slot": 0, "golden": {"x": 1.5}, "actual": {"x": 'é ☃ "q"'}}],
        anomalies=["zero_partial_score_all_calls_executed"] if failing else [],
        details={"implicated_tools": ["cancel_order"], "note": "naïve"} if failing else {},
        tier="golden",
        trace_hash=trace_hash,
        case_hash=case.hash,
        registry_hash=registry.hash,
        rule_set_hash=make_rule_set().hash,
        engine_version="0.1.0",
    )


def _stored(store: Store, run: RunRecord, cases: list[Case], case_pks: dict[str, int]) -> list:
    traces = [make_trace(c.id, seed=i) for i, c in enumerate(cases)]
    store.traces.save_traces([(run.id, case_pks[t.case_id], t, None, None) for t in traces])
    return list(store.traces.iter_trace_rows(run.id))


def test_prepared_judgment_hash_is_the_judgment_hash(registry: ToolRegistry, cases) -> None:  # type: ignore[no-untyped-def]
    for n in range(2):
        judgment = _judgment("sha256:t", cases[0], registry, n)
        prepared = PreparedJudgment.of(judgment)
        assert prepared.key == judgment.key
        assert prepared.hash == judgment.hash
        assert prepared.body_json == canonical_json(judgment.model_dump(mode="json"))
        assert json.loads(prepared.taxonomy_json) == judgment.taxonomy
        assert PreparedJudgment.of(judgment, "given-key").key == "given-key"


def test_rows_store_their_text_and_read_back_equal(
    store: Store, run: RunRecord, registry: ToolRegistry, cases: list[Case], case_pks
) -> None:  # type: ignore[no-untyped-def]
    rows = _stored(store, run, cases, case_pks)
    by_key = {c.id: c for c in cases}
    judgments = [_judgment(r.hash, by_key[r.case_key], registry, n) for n, r in enumerate(rows)]
    prepared = [PreparedJudgment.of(j) for j in judgments]
    rule_set_id = store.rule_sets.save_rule_set(make_rule_set())
    evaluation_id = store.evaluations.create_evaluation(
        run_id=run.id, tier="golden", rule_set_id=rule_set_id, engine_version="0.1.0"
    )
    links = link_rows(prepared, rows, by_key)
    store.judgments.save_and_link_judgments(evaluation_id, prepared, links)
    store.judgments.save_and_link_judgments(evaluation_id, prepared, links)  # repeated: harmless
    assert count_rows(store, JudgmentRow) == len(rows)
    assert count_rows(store, EvaluationJudgmentRow) == len(rows)

    paths = {"tools": ("details", "implicated_tools"), "flags": ("anomalies",)}
    paths["note"] = ("details", "note")
    paths["absent"] = ("details", "nothing", "here")
    read = list(
        store.judgments.iter_evaluation_rows(evaluation_id, with_body=True, body_paths=paths)
    )
    assert len(read) == len(rows)
    by_jkey = {j.key: j for j in judgments}
    for r in read:
        judgment = by_jkey[r.judgment_key]
        assert Judgment.model_validate(r.body) == judgment
        assert r.judgment_hash == judgment.hash
        assert r.taxonomy == judgment.taxonomy
        assert r.paths["tools"] == judgment.details.get("implicated_tools")
        assert r.paths["flags"] == judgment.anomalies
        # the two report facts come from their own columns, equal to the body's values
        assert r.anomalies == judgment.anomalies
        assert r.implicated_tools == judgment.details.get("implicated_tools")
        assert r.paths["note"] == judgment.details.get("note")  # a string value, not JSON text
        assert r.paths["absent"] is None

    single = list(
        store.judgments.iter_evaluation_rows(evaluation_id, body_paths={"note": paths["note"]})
    )
    assert [r.paths["note"] for r in single] == [
        by_jkey[r.judgment_key].details.get("note") for r in single
    ]
    assert any(r.paths["note"] == "naïve" for r in single)

    found = store.judgments.lookup_judgments(
        [p.key for p in prepared] + ["sha256:nope"], body_paths=paths
    )
    assert set(found) == {p.key for p in prepared}
    ids = store.judgments.find_judgments([p.key for p in prepared])
    for p, j in zip(prepared, judgments, strict=True):
        hit = found[p.key]
        assert hit.id == ids[p.key]
        assert (hit.verdict, hit.partial_score, hit.taxonomy) == (
            j.verdict,
            j.partial_score,
            j.taxonomy,
        )
        assert hit.paths["flags"] == j.anomalies
        assert hit.paths["tools"] == j.details.get("implicated_tools")
        assert hit.anomalies == j.anomalies
        assert hit.implicated_tools == j.details.get("implicated_tools")
    # decoded lists are fresh copies: changing one changes no other row
    first, second = (found[p.key] for p in prepared[1:4:2])
    assert first.taxonomy is not None
    first.taxonomy.append("mutated")
    assert second.taxonomy == ["wrong_tool", "extra_call"]

    # a second evaluation links the same judgments by id (the lookup path)
    other = store.evaluations.create_evaluation(
        run_id=run.id, tier="golden", rule_set_id=rule_set_id, engine_version="0.1.0"
    )
    by_id = [{**{k: v for k, v in link.items() if k != "judgment_key"}} for link in links]
    for link, p in zip(by_id, prepared, strict=True):
        link["judgment_id"] = ids[p.key]
    store.judgments.save_and_link_judgments(other, [], by_id)
    assert [r.judgment_id for r in store.judgments.iter_evaluation_rows(other)] == [
        r.judgment_id for r in store.judgments.iter_evaluation_rows(evaluation_id)
    ]
    assert count_rows(store, JudgmentRow) == len(rows)


def test_save_judgment_rows_is_insert_or_ignore(
    store: Store, registry: ToolRegistry, cases: list[Case]
) -> None:
    judgments = [_judgment(f"sha256:{n}", cases[0], registry, n) for n in range(3)]
    ids = store.judgments.save_judgment_rows([PreparedJudgment.of(j) for j in judgments])
    assert set(ids) == {j.key for j in judgments}
    again = store.judgments.save_judgments(judgments)
    assert again == ids
    assert store.judgments.save_judgment_rows([]) == {}
    assert count_rows(store, JudgmentRow) == 3


def test_trace_rows_undecoded(
    store: Store, run: RunRecord, cases: list[Case], case_pks: dict[str, int]
) -> None:
    raw = _stored(store, run, cases, case_pks)
    traces = list(store.traces.iter_traces(run.id))
    assert [r.id for r in raw] == [t.id for t in traces]
    for text_row, stored in zip(raw, traces, strict=True):
        assert isinstance(text_row.body, str)
        assert json.loads(text_row.body) == stored.trace.model_dump(mode="json")
    bare = list(store.traces.iter_trace_rows(run.id, with_body=False))
    assert [r._replace(body=None) for r in raw] == bare


def test_rows_stored_before_and_new_ones_in_one_write_link_their_own_judgments(
    store: Store, run: RunRecord, registry: ToolRegistry, cases: list[Case]
) -> None:
    # new judgments interleaved with ones stored before (a retried chunk, another shard's):
    # the new ones' ids come back from the insert (on SQLite read back by rowid after one
    # executemany), the others are looked up; each link must reach its own judgment and body
    judgments = [
        _judgment(f"sha256:{n:04d}", cases[n % len(cases)], registry, n) for n in range(40)
    ]
    before = [judgments[n] for n in (0, 3, 4, 17, 39)]
    stored = store.judgments.save_judgments(before)
    traces = [make_trace(cases[n % len(cases)].id, n, seed=n) for n in range(len(judgments))]
    pks = store.suites.get_case_pks(run.suite_id)
    store.traces.save_traces([(run.id, pks[t.case_id], t, None, None) for t in traces])
    rows = list(store.traces.iter_trace_rows(run.id, with_body=False))
    evaluation_id = store.evaluations.create_evaluation(
        run_id=run.id,
        tier="golden",
        rule_set_id=store.rule_sets.save_rule_set(make_rule_set()),
        engine_version="0.1.0",
    )
    by_id = {c.id: c for c in cases}
    links = [
        JudgmentLink(
            None,
            row.id,
            row.case_key,
            row.repetition,
            j.verdict,
            j.partial_score,
            by_id[row.case_key].dimension,
            by_id[row.case_key].category,
            j.key,
        )
        for row, j in zip(rows, judgments, strict=True)
    ]
    store.judgments.save_and_link_rows(
        evaluation_id, [PreparedJudgment.of(j) for j in judgments], links
    )
    ids = store.judgments.find_judgments([j.key for j in judgments])
    assert {k: ids[k] for k in stored} == stored
    by_trace = {
        r.trace_id: r for r in store.judgments.iter_evaluation_rows(evaluation_id, with_body=True)
    }
    for row, j in zip(rows, judgments, strict=True):
        got = by_trace[row.id]
        assert (got.judgment_key, got.judgment_id, got.trace_hash) == (
            j.key,
            ids[j.key],
            j.trace_hash,
        )
        assert Judgment.model_validate(got.body) == j
