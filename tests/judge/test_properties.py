"""Property tests: the judge never raises, golden replays pass everywhere, results are stable."""

from __future__ import annotations

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rejudge.judge import builtin_refs, judge, load_rule_set

from rejudge.model import Case, Golden, GoldenCall, Round, ToolCall, Trace, TraceError

from .conftest import REGISTRY, replay

TIERS = ["contract", "execution", "completion", "completion-contract", "golden"]
RULES = [load_rule_set(ref) for ref in builtin_refs()]
NAMES = REGISTRY.tool_names()

json_leaf = (
    st.none()
    | st.booleans()
    | st.integers(-10, 10**6)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)
    | st.sampled_from(["W441", "U101", "P201", "2024-05-01", "2024-05-01T10:00:00Z", "", " "])
)
json_value = st.recursive(
    json_leaf,
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c, max_size=3),
    max_leaves=8,
)
param_names = st.sampled_from(
    ["user_id", "order_id", "product_id", "item_ids", "quantity", "reason", "date", "query", "x"]
)
arguments = st.dictionaries(param_names, json_value, max_size=4)
tool_name = st.sampled_from(NAMES) | st.text(max_size=10)


@st.composite
def tool_calls(draw):
    if draw(st.integers(0, 9)) == 0:
        return ToolCall(name=draw(tool_name), arguments=None, arguments_raw="{", parse_error="bad")
    return ToolCall(
        name=draw(tool_name),
        arguments=draw(arguments),
        ok=draw(st.sampled_from([True, False, None])),
        error=draw(st.none() | st.text(max_size=5)),
    )


@st.composite
def traces(draw):
    rounds = [
        Round(
            index=i,
            calls=draw(st.lists(tool_calls(), max_size=3)),
            text=draw(st.none() | st.text(max_size=5)),
        )
        for i in range(draw(st.integers(0, 4)))
    ]
    status = draw(st.sampled_from(["completed", "completed", "agent_error"]))
    error = (
        TraceError(kind="timeout", message="x")
        if status == "agent_error" and draw(st.booleans())
        else None
    )
    return Trace(case_id="c", rounds=rounds, status=status, error=error)


rule_names = st.sampled_from(["exact", "normalized_str", "normalized_date", "contains", "any"])


@st.composite
def arbitrary_cases(draw):
    calls = []
    for _ in range(draw(st.integers(0, 3))):
        params = draw(arguments)
        rules = {k: draw(rule_names) for k in params if draw(st.booleans())}
        calls.append(
            GoldenCall(
                tool=draw(tool_name),
                params=params,
                param_rules=rules,
                count=draw(st.integers(1, 2)),
            )
        )
    allowed = draw(st.none() | st.lists(tool_name, max_size=3, unique=True))
    return Case(
        id="c",
        dimension="D1",
        category="x",
        instruction="i",
        golden=Golden(calls=calls, order_sensitive=draw(st.booleans()), allowed_extra=allowed),
        negative=draw(st.booleans()),
        skip=draw(st.integers(0, 9)) == 0,
        call_only=draw(st.booleans()),
        equivalent_tools=draw(
            st.dictionaries(tool_name, st.lists(tool_name, max_size=2), max_size=2)
        ),
        alternative_keys=draw(
            st.dictionaries(
                tool_name,
                st.dictionaries(param_names, st.lists(param_names, max_size=2), max_size=2),
                max_size=2,
            )
        ),
        follow_ups=draw(st.dictionaries(tool_name, st.lists(tool_name, max_size=2), max_size=2)),
    )


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(traces(), arbitrary_cases(), st.sampled_from(TIERS), st.sampled_from(RULES))
def test_judge_never_raises(trace, case, tier, rules):
    j = judge(trace, case, REGISTRY, tier, rules)
    assert j.verdict in ("PASS", "FAIL", "SKIP", "AGENT_ERROR")
    assert "JUDGE_ERROR" not in j.taxonomy, j.reasons
    assert (j.verdict == "FAIL") == bool(j.taxonomy)
    assert j.hash.startswith("sha256:")
    if j.partial_score is not None:
        assert 0.0 <= j.partial_score <= 1.0


# ---------------------------------------------------------------- valid golden sequences

FIX = REGISTRY.fixture_ids
words = st.text(alphabet=string.ascii_letters + " ", min_size=1, max_size=12).filter(
    lambda s: s.strip()
)
VALUES = {
    "user_id": st.sampled_from(FIX["user_id"]),
    "order_id": st.sampled_from(FIX["order_id"]),
    "product_id": st.sampled_from(FIX["product_id"]),
    "item_ids": st.lists(st.sampled_from(FIX["item_ids"]), min_size=1, max_size=3),
    "quantity": st.integers(1, 9),
    "limit": st.integers(1, 50),
    "reason": words,
    "note": words,
    "query": words,
    "keywords": st.lists(words, min_size=1, max_size=2),
    "action_id": words,
    "date": st.dates().map(lambda d: d.isoformat()),
    "window": st.sampled_from(["am", "pm"]),
}


@st.composite
def valid_golden_call(draw):
    spec = draw(st.sampled_from(REGISTRY.tools))
    props = spec.parameters["properties"]
    required = spec.parameters["required"]
    params = {}
    for name in props:
        if name in required or draw(st.booleans()):
            params[name] = draw(VALUES[name])
    rules = {}
    for name, value in params.items():
        if draw(st.booleans()):
            options = ["exact", "any"]
            if isinstance(value, str):
                options += ["normalized_str", "contains"]
            if name == "date":
                options.append("normalized_date")
            rules[name] = draw(st.sampled_from(options))
    return GoldenCall(
        tool=spec.name, params=params, param_rules=rules, count=draw(st.integers(1, 3))
    )


@st.composite
def valid_cases(draw):
    negative = draw(st.integers(0, 5)) == 0
    calls = [] if negative else draw(st.lists(valid_golden_call(), min_size=1, max_size=4))
    return Case(
        id="c",
        dimension="D2",
        category="x",
        instruction="i",
        golden=Golden(
            calls=calls,
            order_sensitive=draw(st.booleans()),
            allowed_extra=draw(st.none() | st.just([])),
        ),
        negative=negative,
        call_only=draw(st.booleans()),
    )


@settings(max_examples=200, deadline=None)
@given(valid_cases(), st.sampled_from(TIERS), st.sampled_from(RULES))
def test_golden_replay_passes_under_every_tier(case, tier, rules):
    j = judge(replay(case), case, REGISTRY, tier, rules)
    assert j.verdict == "PASS", (j.taxonomy, j.reasons)
    assert j.partial_score == 1.0


@settings(max_examples=30, deadline=None)
@given(traces(), arbitrary_cases(), st.sampled_from(TIERS))
def test_three_judgings_are_identical(trace, case, tier):
    rules = RULES[-1]
    hashes = {judge(trace, case, REGISTRY, tier, rules).hash for _ in range(3)}
    assert len(hashes) == 1
