"""Trace format 2 (conversations, provider-side tools, alternatives) beside format 1.

A trace that holds none of format 2's fields must stay byte for byte what format 1 wrote, so
every hash and verdict stored before the change stays valid; one that holds them says so.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from rejudge.model import (
    TRACE_FORMAT_VERSION,
    Alternative,
    Round,
    ServerToolUse,
    ToolCall,
    Trace,
    UserTurn,
    canonical_json,
)

# a format-1 trace body as rejudge 0.1 stored it (keys and order as written then)
FORMAT_1_BODY = {
    "format_version": 1,
    "case_id": "fc-d1-001",
    "repetition": 0,
    "status": "completed",
    "rounds": [
        {
            "index": 0,
            "calls": [
                {
                    "id": "call_1",
                    "name": "get_order",
                    "arguments": {"order_id": "A1"},
                    "arguments_raw": '{"order_id": "A1"}',
                    "parse_error": None,
                    "result": {"status": "shipped"},
                    "ok": True,
                    "error": None,
                }
            ],
            "text": None,
            "finish_reason": "tool_calls",
        },
        {"index": 1, "calls": [], "text": "It shipped.", "finish_reason": "stop"},
    ],
    "final_text": "It shipped.",
    "error": None,
    "selected_tools": None,
    "usage": {"prompt_tokens": 10},
    "normalizer_version": "3",
    "timings": {},
}


def test_a_format_1_body_reads_and_dumps_unchanged():
    trace = Trace.model_validate(FORMAT_1_BODY)
    assert trace.format_version == 1
    assert trace.model_dump(mode="json") == FORMAT_1_BODY
    expected = dict(FORMAT_1_BODY)
    del expected["timings"]
    assert canonical_json(trace.hashable()) == canonical_json(expected)


def test_format_2_fields_raise_the_version_and_round_trip():
    body = json.loads(json.dumps(FORMAT_1_BODY))
    body["rounds"][0]["server_tools"] = [
        {"id": "srv_1", "name": "web_search", "input": {"query": "x"}, "result": None, "kind": "k"}
    ]
    body["rounds"][0]["alternatives"] = [
        {"choice": 1, "calls": [], "text": "maybe", "finish_reason": "stop"}
    ]
    body["user_turns"] = [{"before_round": 1, "position": 1, "text": "and the other one?"}]
    trace = Trace.model_validate(body)
    assert trace.format_version == 2 == TRACE_FORMAT_VERSION
    assert trace.rounds[0].server_tools[0] == ServerToolUse(
        id="srv_1", name="web_search", input={"query": "x"}, kind="k"
    )
    assert trace.rounds[0].alternatives[0] == Alternative(
        choice=1, text="maybe", finish_reason="stop"
    )
    again = Trace.model_validate_json(trace.model_dump_json())
    assert again == trace and again.hash == trace.hash
    # server-tool use is never one of the client's calls
    assert [c.name for c in trace.calls] == ["get_order"]


def test_the_version_follows_the_content_not_the_label():
    # a body labelled 2 without format-2 content is format 1 (and hashes as format 1)
    labelled = Trace.model_validate({**FORMAT_1_BODY, "format_version": 2})
    assert labelled.format_version == 1
    assert labelled.hash == Trace.model_validate(FORMAT_1_BODY).hash
    # an unlabelled trace with a user turn is format 2
    with_turn = Trace(case_id="c", user_turns=[UserTurn(before_round=0, position=0, text="hi")])
    assert with_turn.format_version == 2


def test_a_newer_format_is_refused_with_the_reason():
    with pytest.raises(ValidationError, match="newer than this rejudge reads"):
        Trace.model_validate({**FORMAT_1_BODY, "format_version": TRACE_FORMAT_VERSION + 1})


def test_a_turn_position_cannot_be_negative():
    with pytest.raises(ValidationError):
        UserTurn(before_round=-1, position=0, text="x")


_text = st.text(max_size=8)
_calls = st.lists(
    st.builds(ToolCall, name=_text, arguments=st.none() | st.dictionaries(_text, st.integers())),
    max_size=2,
)
_rounds = st.lists(
    st.builds(Round, index=st.integers(0, 5), calls=_calls, text=st.none() | _text), max_size=3
)


@given(_rounds, st.none() | _text)
def test_traces_without_format_2_content_never_carry_its_keys(rounds, final_text):
    trace = Trace(case_id="c", rounds=rounds, final_text=final_text)
    body = trace.model_dump(mode="json")
    assert body["format_version"] == 1
    assert "user_turns" not in body
    assert all(set(r) == {"index", "calls", "text", "finish_reason"} for r in body["rounds"])
    assert Trace.model_validate(body).hash == trace.hash
