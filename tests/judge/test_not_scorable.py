"""A case no golden call can score (not negative, no golden call: an ad-hoc import) is SKIP with
a "not scorable" reason under the call-matching tiers, never a FAIL of TOOL_UNEXPECTED calls; a
negative case without golden calls is still judged."""

from __future__ import annotations

import pytest
from rejudge.judge import judge

from rejudge.model import Case, Golden, Round, ToolCall, Trace

from .conftest import REGISTRY

TIERS = ["contract", "execution", "completion", "completion-contract", "golden"]


def _case(negative: bool) -> Case:
    return Case(
        id="adhoc-1",
        dimension="imported",
        category="imported",
        instruction="What is order #W1?",
        golden=Golden(calls=[]),
        negative=negative,
    )


TRACE = Trace(
    case_id="adhoc-1",
    rounds=[
        Round(
            index=0,
            calls=[
                ToolCall(
                    name="get_order",
                    arguments={"order_id": "#W1"},
                    arguments_raw='{"order_id": "#W1"}',
                    result={"id": "#W1"},
                    ok=True,
                )
            ],
        ),
        Round(index=1, text="It is pending."),
    ],
)


@pytest.mark.parametrize("tier", TIERS)
def test_no_golden_call_is_not_scorable(tier: str) -> None:
    j = judge(TRACE, _case(negative=False), REGISTRY, tier)
    assert j.verdict == "SKIP"
    assert j.reasons and j.reasons[0].startswith("not scorable")
    assert j.taxonomy == [] and j.partial_score is None


@pytest.mark.parametrize("tier", TIERS)
def test_a_negative_case_without_golden_calls_is_still_judged(tier: str) -> None:
    j = judge(TRACE, _case(negative=True), REGISTRY, tier)
    # judged as before: a call where none was expected fails, unless the tier lets a read-only
    # look-up pass (the completion tiers)
    assert j.verdict in ("PASS", "FAIL")
    assert not any(r.startswith("not scorable") for r in j.reasons)
    if tier in ("contract", "execution", "golden"):
        assert j.verdict == "FAIL" and j.taxonomy
