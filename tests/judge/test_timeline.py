"""The pure timeline: steps in the order they happened, calls lined up with their golden calls,
the structural JSON diff, per-step figures placed on their rounds (rejudge.judge._timeline)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from rejudge.judge import build_timeline, json_diff

from rejudge.model import (
    Case,
    Golden,
    GoldenCall,
    Round,
    StepFacts,
    ToolCall,
    Trace,
    TraceError,
    UserTurn,
)

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=12,
)


def _case(*golden: GoldenCall) -> Case:
    return Case(
        id="c1",
        dimension="d",
        category="k",
        instruction="Cancel **#W1**.",
        golden=Golden(calls=list(golden)),
    )


def _call(name: str, arguments: dict[str, Any] | None, raw: str = "") -> ToolCall:
    return ToolCall(name=name, arguments=arguments, arguments_raw=raw, result={"ok": True}, ok=True)


def test_json_diff_names_every_path_and_its_status() -> None:
    golden = {"order_id": "#W1", "items": [{"sku": 1}, {"sku": 2}], "reason": "x"}
    actual = {"order_id": "#W1", "items": [{"sku": 1}, {"sku": 3}, {"sku": 4}], "note": "y"}
    got = {(d.path, d.status) for d in json_diff(golden, actual)}
    assert got == {
        ("order_id", "same"),
        ("items[0].sku", "same"),
        ("items[1].sku", "changed"),
        ("items[2]", "extra"),
        ("reason", "missing"),
        ("note", "extra"),
    }


def test_json_true_is_not_one_and_a_string_is_not_a_number() -> None:
    assert [d.status for d in json_diff({"a": 1, "b": "2"}, {"a": True, "b": 2})] == [
        "changed",
        "changed",
    ]
    assert [d.status for d in json_diff({"a": 1}, {"a": 1.0})] == ["same"]


@settings(deadline=None)  # a loaded shared machine: time is not the property
@given(JSON)
def test_a_value_against_itself_is_the_same_everywhere(value: Any) -> None:
    assert all(d.status == "same" for d in json_diff(value, value))


KEYS = st.text(alphabet="abc", min_size=1, max_size=3)


@settings(deadline=None)
@given(st.dictionaries(KEYS, JSON, max_size=4), st.dictionaries(KEYS, JSON, max_size=4))
def test_every_top_level_key_of_either_side_is_reported_with_its_status(
    golden: dict, actual: dict
) -> None:
    by_key: dict[str, set[str]] = {}
    for d in json_diff(golden, actual):
        by_key.setdefault(d.path.split(".", 1)[0].split("[", 1)[0], set()).add(d.status)
    if not golden and not actual:
        assert by_key == {"(arguments)": {"same"}}
        return
    assert set(by_key) == {*golden, *actual}
    for key, statuses in by_key.items():
        if key not in actual:
            assert statuses == {"missing"}
        elif key not in golden:
            assert statuses == {"extra"}
        elif golden[key] == actual[key] and type(golden[key]) is type(actual[key]):
            assert statuses == {"same"}


def test_steps_keep_the_conversation_order_and_end_with_the_error() -> None:
    trace = Trace(
        case_id="c1",
        status="agent_error",
        rounds=[
            Round(index=0, text="Which order?"),
            Round(index=1, calls=[_call("get_order", {"order_id": "#W1"})]),
        ],
        user_turns=[UserTurn(before_round=1, position=1, text="#W1 please")],
        error=TraceError(kind="timeout", message="no answer in 30 s", round=2),
    )
    tl = build_timeline(trace, _case())
    assert [(s.kind, s.round) for s in tl.steps] == [
        ("round", 0),
        ("user", None),
        ("round", 1),
        ("error", 2),
    ]
    assert tl.steps[1].text == "#W1 please"
    assert tl.steps[3].text == "timeout: no answer in 30 s"
    assert tl.instruction == "Cancel **#W1**."
    assert (tl.rounds, tl.calls) == (2, 1)


def test_calls_line_up_with_golden_calls_of_their_tool_in_order() -> None:
    case = _case(
        GoldenCall(tool="get_order", params={"order_id": "#W1"}, count=2),
        GoldenCall(tool="cancel_order", params={"order_id": "#W1"}),
        GoldenCall(tool="refund", params={"order_id": "#W1"}),
    )
    trace = Trace(
        case_id="c1",
        rounds=[
            Round(index=0, calls=[_call("get_order", {"order_id": "#W1"})]),
            Round(index=1, calls=[_call("get_order", {"order_id": "W1"})]),
            Round(index=2, calls=[_call("get_order", {"order_id": "#W1"})]),
            Round(index=3, calls=[_call("cancel_order", None, raw="{order_id: #W1")]),
        ],
    )
    tl = build_timeline(trace, case)
    calls = [c for s in tl.steps for c in s.calls]
    assert [c.golden_tool for c in calls] == ["get_order", "get_order", None, "cancel_order"]
    assert not calls[0].differs
    assert [(d.path, d.status, d.golden, d.actual) for d in calls[1].diff] == [
        ("order_id", "changed", "#W1", "W1")
    ]
    assert calls[2].diff == ()  # a third get_order: golden asks for two
    assert calls[3].diff[0].actual == "{order_id: #W1"  # unparsed arguments, as sent
    assert tl.golden_uncalled == ("refund",)


def test_facts_go_to_their_rounds_and_the_note_says_where_they_came_from() -> None:
    trace = Trace(
        case_id="c1",
        rounds=[Round(index=0, text="a"), Round(index=1, text="b")],
        usage={"input_tokens": 30, "output_tokens": 4},
        timings={"elapsed_s": 1.5},
    )
    facts = [
        StepFacts(120.0, 10, 2, "llama.cpp timings"),
        StepFacts(80.0, 20, 2, "llama.cpp timings"),
    ]
    tl = build_timeline(trace, None, facts)
    assert [s.facts for s in tl.steps] == facts
    assert (tl.latency_s, tl.input_tokens, tl.output_tokens) == (1.5, 30, 4)
    assert tl.timing_note == "per-step figures from the evidence (llama.cpp timings)"
    short = build_timeline(trace, None, facts[:1])
    assert short.steps[1].facts is None
    assert short.timing_note.startswith(
        "per-step figures (llama.cpp timings): 1 model response(s) for 2"
    )
    bare = build_timeline(trace, None, [], facts_note="no per-step figures: file gone")
    assert bare.timing_note == "no per-step figures: file gone"
    assert (
        build_timeline(trace, None).timing_note
        == "the evidence holds no per-step latency or tokens"
    )


def test_a_judgment_rides_along() -> None:
    trace = Trace(case_id="c1", rounds=[Round(index=0, text="done")])
    tl = build_timeline(trace, None, verdict="FAIL", causes=["WRONG_TOOL"], reasons=["r1"])
    assert (tl.verdict, tl.causes, tl.reasons) == ("FAIL", ("WRONG_TOOL",), ("r1",))
