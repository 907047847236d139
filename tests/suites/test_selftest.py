"""golden_trace / selftest mechanics: counts, `any` resolution, failing goldens, negatives."""

from __future__ import annotations

from rejudge.suites import (
    SuiteSource,
    expand_calls,
    get_domain,
    golden_trace,
    resolve_arguments,
    selftest_suite,
)
from rejudge.suites.domains.retail import retail_registry

from rejudge.model import Case, Golden, GoldenCall


def case(calls: list[GoldenCall], **kw: object) -> Case:
    return Case(
        id=str(kw.pop("id", "fc-d1-001")),
        dimension="D1",
        category="c",
        instruction="i",
        context={"db_fixture": "standard", "notes": "n"},
        golden=Golden(calls=calls),
        **kw,  # type: ignore[arg-type]
    )


def source(*cases: Case) -> SuiteSource:
    return SuiteSource(
        name="t", domain="retail", format_version=1, registry=retail_registry(), cases=cases
    )


def test_count_repeats_a_call() -> None:
    c = case([GoldenCall(tool="check_stock", params={"product_id": "P201"}, count=3)])
    assert len(expand_calls(c)) == 3 == c.expected_steps
    trace = golden_trace(c, get_domain("retail").new_sandbox())
    assert [call.name for call in trace.calls] == ["check_stock"] * 3
    assert [r.index for r in trace.rounds] == [0, 1, 2, 3]


def test_any_values_come_from_the_newest_earlier_result() -> None:
    call = GoldenCall(
        tool="confirm_action", params={"action_id": "ACT-9999"}, param_rules={"action_id": "any"}
    )
    earlier = [{"action_id": "ACT-0001"}, {"nested": {"action_id": "ACT-0002"}}, {"other": 1}]
    assert resolve_arguments(call, earlier) == {"action_id": "ACT-0002"}
    assert resolve_arguments(call, []) == {"action_id": "ACT-9999"}
    exact = GoldenCall(tool="confirm_action", params={"action_id": "ACT-9999"})
    assert resolve_arguments(exact, earlier) == {"action_id": "ACT-9999"}


def test_a_failing_golden_call_fails_the_case() -> None:
    bad = case([GoldenCall(tool="request_cancel", params={"order_id": "W442"})], id="fc-d1-002")
    good = case([GoldenCall(tool="get_order", params={"order_id": "W442"})])
    negative = case([], id="fc-d3-001", negative=True)
    skipped = case(
        [GoldenCall(tool="get_order", params={"order_id": "W999"})],
        id="fc-d1-003",
        skip=True,
        skip_reason="r",
    )
    report = selftest_suite(source(good, bad, negative, skipped))
    assert not report.ok
    [failure] = report.failures
    assert failure.case_id == "fc-d1-002"
    assert failure.problems == (
        "call 1 (request_cancel) failed: order W442 is shipped; a cancellation needs an order that is pending",
    )
    by_id = {r.case_id: r for r in report.cases}
    assert by_id["fc-d3-001"].ok and by_id["fc-d3-001"].steps == ()
    assert by_id["fc-d1-003"].skipped and by_id["fc-d1-003"].ok


def test_call_only_cases_need_the_call_not_its_success() -> None:
    c = case([GoldenCall(tool="get_order", params={"order_id": "W999"})], call_only=True)
    report = selftest_suite(source(c))
    assert report.ok and report.cases[0].steps[0].ok is False
