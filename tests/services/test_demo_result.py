"""The demo's typed result: each part dumps the dict ``rejudge demo --json`` printed before it
was typed (keys, their order, and the keys only some entries carry), and holds the numbers the
services give for the same store."""

from __future__ import annotations

import json

import pytest
from rejudge.store import Store

from rejudge.model import Comparison, EvaluationReport, wilson_interval
from rejudge.services import (
    DEMO_TAU_RUN,
    DemoHeadline,
    DemoResult,
    DemoRun,
    PassRate,
    compare_evaluations,
    evaluation_agreement,
    evaluation_report,
    run_agreement,
)

RUN_KEYS = ["run", "run_id", "suite", "model", "harness_mode", "traces", "inserted", "outcomes"]
HEADLINE_KEYS = [
    "run",
    "model",
    "evaluation",
    "tier",
    "rules",
    "verdict_counts",
    "accuracy",
    "pass_at_k",
    "top_failures",
    "nothing_to_score",
]
STATE_KEYS = ["rejudge_state", "state_evaluation", "state_agreement"]


@pytest.fixture(scope="module")
def demo(demo_run: tuple[str, DemoResult]) -> DemoResult:
    return demo_run[1]


@pytest.fixture(scope="module")
def demo_json(demo: DemoResult) -> dict:
    # through the JSON writer's own round trip: what a script reading --json gets
    return json.loads(json.dumps(demo.to_json(), ensure_ascii=False))


def test_the_result_dumps_its_parts_in_order(demo_json: dict) -> None:
    assert list(demo_json) == [
        "cassettes",
        "suites",
        "runs",
        "skipped",
        "evaluations",
        "reports",
        "comparisons",
        "headlines",
        "tier_comparisons",
        "agreement",
        "model_vs_model",
        "model_graded",
        "elapsed_s",
    ]
    assert [s["name"] for s in demo_json["suites"]] == ["retail", "genome-simple", "genome-complex"]
    assert all(list(s) == ["name", "cases", "hash"] for s in demo_json["suites"])
    assert all(s["hash"].startswith("sha256:") for s in demo_json["suites"])


def test_only_imported_runs_name_a_source_and_only_tau_runs_the_flag(demo: DemoResult) -> None:
    by_name = {r.run: r.to_json() for r in demo.runs}
    tau = by_name[DEMO_TAU_RUN]
    assert list(tau) == [*RUN_KEYS, "source", "tau_rules"] and tau["tau_rules"] is True
    real_world = [j for name, j in by_name.items() if name.startswith("real-world-")]
    assert real_world and all(list(j) == [*RUN_KEYS, "source"] for j in real_world)
    shipped = [j for name, j in by_name.items() if name.startswith(("smollm2-", "sweep-"))]
    assert shipped and all(list(j) == RUN_KEYS for j in shipped)
    # outcomes: most first, as the recordings ended
    for j in shipped:
        counts = list(j["outcomes"].values())
        assert counts == sorted(counts, reverse=True) and sum(counts) == j["traces"]


def test_evaluations_and_reports_are_what_the_report_service_gives(
    demo: DemoResult, demo_run: tuple[str, DemoResult]
) -> None:
    store = Store.open(demo_run[0])
    try:
        assert len(demo.reports) == len(demo.evaluations)
        for evaluation, report in zip(demo.evaluations[:6], demo.reports[:6], strict=True):
            assert isinstance(report, EvaluationReport)
            again = evaluation_report(store, evaluation.evaluation)
            assert evaluation.summary == again.summary == report.summary
            assert report.to_json() == again.to_json()
            assert list(evaluation.to_json()) == [
                "evaluation",
                "run",
                "tier",
                "rules",
                "reused",
                "summary",
            ]
            assert (report.run, report.tier, report.rules) == (
                evaluation.run,
                evaluation.tier,
                evaluation.rules,
            )
    finally:
        store.close()


def test_comparisons_put_the_run_and_tiers_before_the_compare_json(
    demo: DemoResult, demo_run: tuple[str, DemoResult]
) -> None:
    versions = demo.comparisons[0]
    assert isinstance(versions.comparison, Comparison)
    dumped = versions.to_json()
    # the run and tier, then the compare JSON as `rejudge compare --json` has it
    assert list(dumped) == ["run", "tier", *versions.comparison.to_json()]
    assert versions.comparison.kind == "judge"  # one run under two rule-set versions
    tiers = next(c for c in demo.tier_comparisons if c.comparison.flips)
    dumped_tiers = tiers.to_json()
    assert list(dumped_tiers) == ["run", "tier_a", "tier_b", *tiers.comparison.to_json()]
    assert dumped_tiers["tier_a"] == "golden" and dumped_tiers["tier_b"] != "golden"
    assert len(dumped_tiers["flips"]) == len(tiers.comparison.flips)
    store = Store.open(demo_run[0])
    try:
        again = compare_evaluations(store, tiers.comparison.a, tiers.comparison.b).to_json()
    finally:
        store.close()
    assert {k: v for k, v in dumped_tiers.items() if k not in ("run", "tier_a", "tier_b")} == again


def test_a_headline_quotes_the_golden_report_under_the_newest_rules(demo: DemoResult) -> None:
    tau = next(h for h in demo.headlines if h.run == DEMO_TAU_RUN)
    assert (tau.tier, tau.rules, tau.nothing_to_score) == ("golden", "tau-bench@2", None)
    assert list(tau.to_json()) == HEADLINE_KEYS
    report = next(r for r in demo.reports if r.evaluation == tau.evaluation)
    assert tau.verdict_counts == report.summary.verdict_counts
    assert tau.accuracy == report.summary.accuracy
    assert tau.top_failures == report.summary.top_failures[:3]
    # τ-bench's run repeats its cases, so its pass^k is shown (more than k=1)
    assert tau.pass_at_k == report.summary.pass_at_k
    assert tau.pass_at_k is not None and tau.pass_at_k.max_k > 1


def test_a_run_with_nothing_to_score_says_why_and_nothing_else() -> None:
    headline = DemoHeadline(
        run="r", model="m", evaluation=None, nothing_to_score="every trace hit the budget"
    )
    assert headline.to_json() == {
        "run": "r",
        "model": "m",
        "evaluation": None,
        "nothing_to_score": "every trace hit the budget",
    }
    run = DemoRun("r", 1, "retail", "m", "production-parity", 2, 2, {"round_budget": 2})
    assert "source" not in run.to_json() and "tau_rules" not in run.to_json()


def test_a_pass_rate_carries_its_wilson_interval() -> None:
    rate = PassRate(96, 114)
    low, high = wilson_interval(96, 114)
    assert rate.to_json() == {
        "passed": 96,
        "n": 114,
        "rate": 0.8421,
        "ci95": [round(low, 4), round(high, 4)],
    }
    assert PassRate(0, 0).to_json() == {"passed": 0, "n": 0, "rate": None, "ci95": None}


def test_tau2_runs_carry_the_state_tier_only_where_the_suite_has_a_world(
    demo: DemoResult, demo_run: tuple[str, DemoResult]
) -> None:
    mvm = demo.model_vs_model
    assert mvm is not None
    assert list(mvm.to_json()) == ["rules", "tier", "runs", "pair"]
    with_state = [r for r in mvm.runs if r.state_agreement is not None]
    # both τ² domains have a world: every run is judged by the state tier too
    assert [r.suite for r in with_state] == ["tau2-airline"] * 5 + ["tau2-retail"]
    for r in mvm.runs:
        keys = list(r.to_json())
        assert keys[:8] == [
            "run",
            "model",
            "suite",
            "evaluation",
            "traces",
            "relabelled",
            "tau2_reward",
            "rejudge_golden",
        ]
        assert keys[8:] == (STATE_KEYS if r in with_state else [])
        assert r.tau2_reward.n == r.traces
    retail = with_state[-1]
    store = Store.open(demo_run[0])
    try:
        agreement = run_agreement(store, retail.run, prefer={"state": retail.state_evaluation})
    finally:
        store.close()
    state = agreement.tier("state")
    assert state is not None and state.evaluation == retail.state_evaluation
    table = state.table.to_json()
    del table["total"]  # the cells add up to it; the demo leaves it out
    assert retail.to_json()["state_agreement"] == table
    pair = mvm.pair.to_json()
    assert list(pair) == ["a", "b", "compare", "tau2_reward"]
    assert list(pair["tau2_reward"]) == ["cases", "pass_to_fail", "fail_to_pass", "mcnemar_p"]
    assert pair["compare"]["a"] == next(r.evaluation for r in mvm.runs if r.run == pair["a"])


def test_the_agreement_is_the_services_agreement(
    demo: DemoResult, demo_run: tuple[str, DemoResult]
) -> None:
    assert demo.agreement is not None
    assert demo.agreement.run == DEMO_TAU_RUN and demo.agreement.traces == 200
    rules = {t.rules for t in demo.agreement.tiers}
    assert rules == {"tau-bench@2"}  # the newest rules of the τ-bench run, every tier
    store = Store.open(demo_run[0])
    try:
        golden = demo.agreement.tier("golden")
        assert golden is not None and golden.evaluation is not None
        again = evaluation_agreement(store, golden.evaluation)
    finally:
        store.close()
    # as `report EVAL --against external` gives it: the run was not judged under the rule set
    # that follows the file's reward version (7362a17), and the view says so
    assert demo.agreement.to_json() == again.to_json()
    assert demo.agreement.external_versions == ["7362a17"]
    assert "judge it under rule set tau-bench-7362a17@1" in (demo.agreement.rules_reason or "")
