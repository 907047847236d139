"""A stored evaluation's calibration: against the run's other tiers, its external verdicts and
its reviews, with the same tables the agreement service computes from the same rows."""

from __future__ import annotations

from rejudge.judge import load_rule_set
from rejudge.store import Store
from rejudge.suites.importers import SHIPPED_TAU2_BENCH

from rejudge.services import (
    evaluation_judge_calibration,
    import_tau_bench,
    judge_run,
    label_judgment,
)
from rejudge.services._agreement import run_agreement
from rejudge.services._reviews import review_rows


def test_an_evaluation_is_set_against_the_other_tier_the_reward_and_the_reviews(
    store: Store,
) -> None:
    imported = import_tau_bench(SHIPPED_TAU2_BENCH / "toolorchestra_retail.json", store)
    rules = load_rule_set("standard@2")
    golden = judge_run(store, imported.run.id, "golden", rules).evaluation_id
    state = judge_run(store, imported.run.id, "state", rules).evaluation_id
    calibration = evaluation_judge_calibration(store, golden)
    assert [(a.kind, a.name) for a in calibration.against] == [
        ("tier", "state"),
        ("external", "τ²-bench reward"),
    ]
    # against the reward: the agreement service's golden table, from the same rows
    [golden_vs_reward] = [
        t for t in run_agreement(store, imported.run.id).tiers if t.tier == "golden"
    ]
    assert calibration.against[1].table == golden_vs_reward.table
    assert calibration.against[0].evaluation == state
    # the golden tier's rows against the state tier's, trace by trace
    state_rows = {r["case_key"]: r["verdict"] for r in store.iter_evaluation_rows(state)}
    golden_rows = {r["case_key"]: r["verdict"] for r in store.iter_evaluation_rows(golden)}
    both = [k for k in golden_rows if {golden_rows[k], state_rows.get(k)} <= {"PASS", "FAIL"}]
    assert calibration.against[0].items == len(both)
    assert calibration.against[0].table.agreement == round(
        sum(golden_rows[k] == state_rows[k] for k in both) / len(both), 6
    )
    # a person says the first judgment was wrong, another confirms the second
    rows = review_rows(store, golden)
    scored = [r for r in rows if r["verdict"] in ("PASS", "FAIL")]
    label_judgment(store, golden, scored[0]["judgment_id"], "judge_wrong", "ann")
    label_judgment(store, golden, scored[1]["judgment_id"], "confirmed", "ann")
    reviewed = evaluation_judge_calibration(store, golden).get("review")
    assert reviewed is not None
    assert reviewed.items == 2
    assert reviewed.table.agreement == 0.5
