"""Rule sets, evaluations, judgments and baselines, on both backends."""

from __future__ import annotations

import pytest
from rejudge.judge import build_report
from rejudge.store import RunRecord, Store
from rejudge.store._tables import EvaluationJudgmentRow, JudgmentRow, RuleSetRow
from sqlalchemy import select

from rejudge.errors import ConflictError, NotFoundError
from rejudge.model import Case, Judgment, ToolRegistry
from tests.store.store_factories import count_rows, make_judgment, make_rule_set, make_trace

# --------------------------------------------------------------------------- rule sets


def test_rule_set_is_stored_once_and_round_trips(store: Store) -> None:
    rules = make_rule_set("1")
    first = store.rule_sets.save_rule_set(rules, builtin=True)
    assert store.rule_sets.save_rule_set(make_rule_set("1"), builtin=True) == first
    assert count_rows(store, RuleSetRow) == 1
    assert store.rule_sets.get_rule_set(first) == rules
    second = store.rule_sets.save_rule_set(make_rule_set("2", strict=False))
    assert second != first
    assert store.rule_sets.get_rule_set(second).settings == {"strict_types": False}
    with store.engine.connect() as c:
        builtin = dict(c.execute(select(RuleSetRow.version, RuleSetRow.builtin)).all())
    assert builtin == {"1": True, "2": False}


def test_rule_sets_are_immutable(store: Store) -> None:
    store.rule_sets.save_rule_set(make_rule_set("1", strict=True))
    with pytest.raises(ConflictError, match=r"default@1 .*immutable"):
        store.rule_sets.save_rule_set(make_rule_set("1", strict=False))
    assert count_rows(store, RuleSetRow) == 1
    assert store.rule_sets.get_rule_set(
        store.rule_sets.save_rule_set(make_rule_set("1"))
    ).settings == {"strict_types": True}


def test_missing_rule_set_is_not_found(store: Store) -> None:
    with pytest.raises(NotFoundError, match="^no rule set with id 999$"):
        store.rule_sets.get_rule_set(999)


# --------------------------------------------------------------------------- evaluations


@pytest.fixture
def judged(
    store: Store,
    run: RunRecord,
    case_pks: dict[str, int],
    cases: list[Case],
    registry: ToolRegistry,
) -> tuple[int, int, list[Judgment], list[dict[str, object]]]:
    """An evaluation of the run with one judgment per trace (every third one a FAIL)."""
    rules = make_rule_set()
    rule_set_id = store.rule_sets.save_rule_set(rules)
    by_key = {c.id: c for c in cases}
    store.traces.save_traces(
        (run.id, case_pks[key], make_trace(key, rep, seed=rep), None, None)
        for key in sorted(case_pks)
        for rep in range(2)
    )
    evaluation_id = store.evaluations.create_evaluation(
        run_id=run.id, tier="ast", rule_set_id=rule_set_id, engine_version="0.1.0"
    )
    judgments: list[Judgment] = []
    links: list[dict[str, object]] = []
    stored = list(store.traces.iter_traces(run.id))
    for n, st in enumerate(stored):
        verdict = "FAIL" if n % 3 == 0 else "PASS"
        judgments.append(
            make_judgment(st.trace, by_key[st.case_key], registry, rules, verdict=verdict)
        )
    ids = store.judgments.save_judgments(judgments)
    for st, judgment in zip(stored, judgments, strict=True):
        case = by_key[st.case_key]
        links.append(
            {
                "judgment_id": ids[judgment.key],
                "trace_id": st.id,
                "case_key": st.case_key,
                "repetition": st.repetition,
                "dimension": case.dimension,
                "category": case.category,
                "verdict": judgment.verdict,
                "partial_score": judgment.partial_score,
            }
        )
    store.judgments.link_judgments(evaluation_id, links)
    return evaluation_id, rule_set_id, judgments, links


def test_evaluation_lifecycle(store: Store, run: RunRecord, judged) -> None:  # type: ignore[no-untyped-def]
    evaluation_id, rule_set_id, _judgments, _links = judged
    record = store.evaluations.get_evaluation(evaluation_id)
    assert (record.run_id, record.tier, record.rule_set_id) == (run.id, "ast", rule_set_id)
    assert record.status == "running" and record.summary is None and record.finished_at is None
    rows = [{"case": "a", "verdict": "PASS"}, {"case": "b", "verdict": "FAIL", "repetition": 1}]
    summary = build_report(rows, include_cases=False).summary
    store.evaluations.finish_evaluation(evaluation_id, summary=summary, inputs_hash="sha256:inputs")
    done = store.evaluations.get_evaluation(str(evaluation_id))
    assert done.status == "finished"
    assert done.summary == summary and done.summary.accuracy == 0.5
    assert done.inputs_hash == "sha256:inputs"
    assert done.finished_at is not None
    second = store.evaluations.create_evaluation(
        run_id=run.id, tier="completion", rule_set_id=rule_set_id, engine_version="0.1.0"
    )
    assert [e.id for e in store.evaluations.list_evaluations()] == [evaluation_id, second]
    assert [e.id for e in store.evaluations.list_evaluations(run.id)] == [evaluation_id, second]
    assert store.evaluations.list_evaluations(run.id + 1000) == []


def test_unknown_evaluation_is_not_found(store: Store) -> None:
    with pytest.raises(NotFoundError, match="no evaluation 77"):
        store.evaluations.get_evaluation(77)
    with pytest.raises(NotFoundError, match="are numbers"):
        store.evaluations.get_evaluation("latest")


def test_judgments_are_insert_or_ignore_by_key(store: Store, judged) -> None:  # type: ignore[no-untyped-def]
    _evaluation_id, _rules, judgments, _links = judged
    rows = count_rows(store, JudgmentRow)
    assert rows == len({j.key for j in judgments}) == len(judgments)
    first = store.judgments.find_judgments([j.key for j in judgments])
    again = store.judgments.save_judgments(judgments)
    assert again == first
    assert count_rows(store, JudgmentRow) == rows
    assert store.judgments.find_judgments(["sha256:nothing"]) == {}
    # a judgment of the same inputs is a lookup, even if the new body differs
    changed = judgments[0].model_copy(update={"reasons": ["re-judged"]})
    assert changed.key == judgments[0].key
    assert store.judgments.save_judgments([changed]) == {changed.key: first[changed.key]}
    assert count_rows(store, JudgmentRow) == rows


def test_links_are_idempotent_and_rows_stream_in_case_order(store: Store, judged) -> None:  # type: ignore[no-untyped-def]
    evaluation_id, _rules, judgments, links = judged
    store.judgments.link_judgments(evaluation_id, links)  # again: nothing new
    assert count_rows(store, EvaluationJudgmentRow) == len(links)
    rows = list(store.judgments.iter_evaluation_rows(evaluation_id, yield_per=5))
    assert [(r.case_key, r.repetition) for r in rows] == sorted(
        (str(link["case_key"]), int(link["repetition"]))
        for link in links  # type: ignore[call-overload]
    )
    by_key = {j.key: j for j in judgments}
    for row in rows:
        judgment = by_key[row.judgment_key]
        assert row.verdict == judgment.verdict
        assert row.taxonomy == judgment.taxonomy
        assert row.judgment_hash == judgment.hash
        assert row.trace_hash == judgment.trace_hash
        assert row.tier == "ast"
        assert "body" not in row
    with_body = list(store.judgments.iter_evaluation_rows(evaluation_id, with_body=True))
    assert all(Judgment.model_validate(r.body) == by_key[r.judgment_key] for r in with_body)
    verdicts = [r.verdict for r in rows]
    assert verdicts.count("FAIL") == sum(j.verdict == "FAIL" for j in judgments) > 0


def test_two_evaluations_share_judgment_rows(store: Store, run: RunRecord, judged) -> None:  # type: ignore[no-untyped-def]
    evaluation_id, rule_set_id, judgments, links = judged
    second = store.evaluations.create_evaluation(
        run_id=run.id, tier="ast", rule_set_id=rule_set_id, engine_version="0.1.0"
    )
    ids = store.judgments.save_judgments(judgments)
    store.judgments.link_judgments(second, links)
    assert count_rows(store, JudgmentRow) == len(judgments)
    assert count_rows(store, EvaluationJudgmentRow) == 2 * len(links)
    a = [r.judgment_id for r in store.judgments.iter_evaluation_rows(evaluation_id)]
    b = [r.judgment_id for r in store.judgments.iter_evaluation_rows(second)]
    assert a == b and set(a) == set(ids.values())


# --------------------------------------------------------------------------- baselines


def test_baselines_are_immutable(store: Store, judged) -> None:  # type: ignore[no-untyped-def]
    evaluation_id, *_rest = judged
    report = {"accuracy": 0.66, "cases": [{"case": "case-000", "verdict": "FAIL"}]}
    saved = store.baselines.save_baseline(
        name="main",
        evaluation_id=evaluation_id,
        report_hash="sha256:report",
        input_hashes={"rules": "sha256:r"},
        report=report,
        note="first lock",
    )
    assert saved.name == "main"
    assert saved.report == report
    assert saved.input_hashes == {"rules": "sha256:r"}
    assert saved.note == "first lock"
    assert store.baselines.get_baseline("main") == saved
    with pytest.raises(ConflictError, match="immutable"):
        store.baselines.save_baseline(
            name="main",
            evaluation_id=evaluation_id,
            report_hash="sha256:other",
            input_hashes={},
            report={},
        )
    assert store.baselines.get_baseline("main").report_hash == "sha256:report"
    other = store.baselines.save_baseline(
        name="next", evaluation_id=evaluation_id, report_hash="sha256:x", input_hashes={}, report={}
    )
    assert [b.name for b in store.baselines.list_baselines()] == ["main", "next"]
    assert other.note is None
    with pytest.raises(NotFoundError, match="no baseline named 'gone'"):
        store.baselines.get_baseline("gone")
