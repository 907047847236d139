"""The built-in retail suite: valid, self-testing clean, and shaped as seed 001 says."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import pytest
from rejudge.suites import (
    SuiteSource,
    builtin_suites,
    get_domain,
    golden_trace,
    load_suite,
    selftest_suite,
    validate_suite,
)

from rejudge.model import Case, ToolRegistry, Trace


@pytest.fixture(scope="module")
def retail() -> SuiteSource:
    return load_suite("retail")


def test_retail_is_a_builtin_suite(retail: SuiteSource) -> None:
    assert "retail" in builtin_suites()
    assert retail.name == "retail" and retail.domain == "retail" and retail.format_version == 1


def test_retail_suite_is_valid(retail: SuiteSource) -> None:
    assert validate_suite("retail") == []
    assert validate_suite(retail) == []


def test_counts(retail: SuiteSource) -> None:
    assert len(retail.cases) == 72
    assert retail.dimensions() == {"D1": 18, "D2": 18, "D3": 18, "D4": 18}
    assert retail.negative_count == 12
    assert {c.dimension for c in retail.cases if c.negative} == {"D3"}
    assert retail.summary() == {
        "name": "retail",
        "cases": 72,
        "hash": retail.hash,
        "dimensions": {"D1": 18, "D2": 18, "D3": 18, "D4": 18},
        "negative": 12,
    }


def test_ids_are_consecutive_per_dimension_in_scenario_groups(retail: SuiteSource) -> None:
    by_dim: dict[str, list[Case]] = defaultdict(list)
    for case in retail.cases:
        by_dim[case.dimension].append(case)
    for dim, cases in by_dim.items():
        assert [c.id for c in cases] == [f"fc-d{dim[1]}-{n:03d}" for n in range(1, 19)]
        for start in range(0, 18, 3):
            group = cases[start : start + 3]
            assert len({c.scenario for c in group}) == 1
            assert [c.phrasing for c in group] == ["canonical", "colloquial", "mixed"]


def test_scenarios_cover_the_seed_topics(retail: SuiteSource) -> None:
    scenarios = {c.scenario for c in retail.cases}
    assert len(scenarios) == 24
    categories = Counter(c.category for c in retail.cases)
    for topic in (
        "return",
        "exchange",
        "refund",
        "stock",
        "cancellation",
        "address_change",
        "ambiguity",
        "refusal",
    ):
        assert categories[topic] > 0, topic
    tools = {call.tool for c in retail.cases for call in c.golden.calls}
    assert tools == set(retail.registry.tool_names())  # every tool is exercised
    chains = [c for c in retail.cases if c.dimension == "D4"]
    assert all(c.golden.order_sensitive for c in chains)
    assert all(c.golden.calls[-1].tool in ("confirm_action", "abort_action") for c in chains)
    assert {c.golden.calls[-1].tool for c in chains} == {"confirm_action", "abort_action"}


def test_action_ids_are_any_ruled(retail: SuiteSource) -> None:
    for case in retail.cases:
        for call in case.golden.calls:
            if "action_id" in call.params:
                assert call.param_rules.get("action_id") == "any", case.id


def test_selftest_is_clean(retail: SuiteSource) -> None:
    report = selftest_suite(retail)
    assert report.ok, [f.as_dict() for f in report.failures]
    assert report.calls_executed == sum(c.expected_steps for c in retail.cases)
    assert len(report.cases) == 72
    assert report.as_dict()["passed"] == 72


def test_golden_trace_resolves_action_ids_from_earlier_results(retail: SuiteSource) -> None:
    [case] = [
        c
        for c in retail.cases
        if c.scenario == "d4-refund-abort-return-confirm" and c.phrasing == "canonical"
    ]
    trace = golden_trace(case, get_domain("retail").new_sandbox())
    assert isinstance(trace, Trace) and trace.case_id == case.id
    assert [c.name for c in trace.calls] == [
        "request_refund",
        "abort_action",
        "request_return",
        "confirm_action",
    ]
    assert [c.arguments["action_id"] for c in trace.calls if c.name.endswith("_action")] == [
        "ACT-0001",
        "ACT-0002",
    ]
    assert all(c.ok for c in trace.calls)
    assert trace.rounds[-1].text and not trace.rounds[-1].calls
    again = golden_trace(case, get_domain("retail").new_sandbox())
    assert again.hash == trace.hash


def test_judge_hook_sees_every_golden_trace(retail: SuiteSource) -> None:
    seen: list[str] = []

    def judge(trace: Trace, case: Case, registry: ToolRegistry) -> dict[str, Any]:
        seen.append(case.id)
        assert trace.case_id == case.id and registry.domain == "retail"
        if case.id == "fc-d2-001":
            return {"golden": "PASS", "contract": "FAIL"}
        if case.id == "fc-d2-002":
            raise RuntimeError("boom")
        return {"golden": "PASS"}

    report = selftest_suite(retail, judge_fn=judge)
    assert seen == [c.id for c in retail.cases]
    assert report.judged and not report.ok
    failures = {f.case_id: f.problems for f in report.failures}
    assert failures == {
        "fc-d2-001": ("tier contract: golden trace judged FAIL",),
        "fc-d2-002": ("judge raised RuntimeError: boom",),
    }
