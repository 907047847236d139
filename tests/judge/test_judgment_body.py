"""``judge_body`` (the batch path: the stored body assembled without a pydantic round-trip) is
byte for byte ``judge(...).model_dump(mode="json")``: same dict, same canonical text, same hash
and key, for every tier and rule set, on the hand-built table and on arbitrary traces."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rejudge.judge import builtin_refs, decode_trace, judge, judge_body, load_rule_set
from rejudge.judge.tiers import get_tier

from rejudge.model import PreparedJudgment, Round, ToolCall, Trace

from .conftest import REGISTRY, case, gcall
from .test_properties import arbitrary_cases, traces
from .test_tiers import ROWS

RULES = [load_rule_set(ref) for ref in builtin_refs()]
CALL_TIERS = ["contract", "execution", "completion", "completion-contract", "golden"]
ALL_TIERS = [*CALL_TIERS, "outcome"]


def _same(trace: Trace, the_case, tier: str, rules) -> None:
    expected = judge(trace, the_case, REGISTRY, tier, rules)
    body = judge_body(trace, the_case, REGISTRY, tier, rules)
    assert body == expected.model_dump(mode="json")
    # equal dicts can still differ in text (1 == 1.0 == True): compare what is stored
    prepared = PreparedJudgment.from_body(body)
    assert prepared == PreparedJudgment.of(expected)
    assert (prepared.key, prepared.hash) == (expected.key, expected.hash)


def test_call_tiers_declare_plain_results():
    for name in CALL_TIERS:
        assert getattr(get_tier(name), "plain_json_results", False) is True


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.ref)
@pytest.mark.parametrize("tier", ALL_TIERS)
def test_table_bodies_identical(tier, rules):
    for _name, the_case, the_trace, *_ in ROWS:
        _same(the_trace, the_case, tier, rules)


def test_non_finite_and_odd_values_identical():
    # non-finite floats, deep nesting, non-ASCII, an int where the schema wants a string
    weird: dict = {"order_id": float("nan"), "reason": [float("inf"), {"é✓": -0.0}], "n": 10**30}
    for _ in range(45):
        weird = {"x": weird}
    trace = Trace(
        case_id="c1",
        rounds=[
            Round(index=0, calls=[ToolCall(name="request_cancel", arguments=weird, ok=True)]),
            Round(index=1, calls=[ToolCall(name="get_order", arguments={"order_id": 7})]),
        ],
    )
    the_case = case(gcall("request_cancel", order_id="W441", reason=1e-7))
    for tier in ALL_TIERS:
        for rules in RULES:
            _same(trace, the_case, tier, rules)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(traces(), arbitrary_cases(), st.sampled_from(ALL_TIERS), st.sampled_from(RULES))
def test_arbitrary_bodies_identical(trace, the_case, tier, rules):
    _same(trace, the_case, tier, rules)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(traces(), st.booleans())
def test_decode_trace_is_json_loads_then_validate(trace, ascii_only):
    # stored bodies are json.dumps text (SQLite) or PostgreSQL's JSONB rendering of it
    text = json.dumps(trace.model_dump(mode="json"), ensure_ascii=ascii_only)
    fast = decode_trace(text)
    slow = Trace.model_validate(json.loads(text))
    # repr, not ==: NaN != NaN, and 1 == 1.0 == True would hide a changed type
    assert repr(fast.model_dump()) == repr(slow.model_dump())


def test_decode_trace_falls_back_on_text_pydantic_refuses():
    text = '{"case_id": "c\\ud800", "rounds": []}'  # a lone surrogate escape
    assert decode_trace(text).case_id == "c\ud800"
