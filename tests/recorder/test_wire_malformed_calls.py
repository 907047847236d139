"""A ``tool_calls`` that is not a list, in a request's echo of an earlier turn or in a model's
response: never a traceback, never calls made up from its characters or keys."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rejudge.recorder.wire import get_wire_format

#: what a malformed ``tool_calls`` may be instead of a list
NOT_A_LIST = ["ab", 5, True, {"function": {"name": "f", "arguments": {}}}]


@pytest.mark.parametrize("value", NOT_A_LIST)
def test_ollama_echoes_no_turn_from_a_tool_calls_that_is_no_list(value: Any) -> None:
    """As chat's, Anthropic's, Bedrock's and Cohere v1's echoes pass over an assistant message
    without a list: a text was echoed as one empty call per character, an object as one per
    key, and a number raised."""
    fmt = get_wire_format("ollama-chat")
    request = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "", "tool_calls": value},
            {"role": "tool", "content": "42"},
        ],
    }
    assert fmt.echoed_calls(request) == []


def test_ollama_echoes_a_list_of_calls_as_before() -> None:
    fmt = get_wire_format("ollama-chat")
    call = {"function": {"name": "f", "arguments": {"a": 1}}}
    request = {"messages": [{"role": "assistant", "tool_calls": [call, {"function": {}}]}]}
    assert [[(e.id, e.name, e.arguments_raw) for e in t] for t in fmt.echoed_calls(request)] == [
        [(None, "f", '{"a":1}'), (None, None, None)]
    ]


def _response(fmt: str, tool_calls: Any) -> dict[str, Any]:
    """A response of ``fmt`` whose ``tool_calls`` is ``tool_calls`` (left out when None)."""
    message: dict[str, Any] = {"role": "assistant", "content": "hi"}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    if fmt == "openai-chat":
        return {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    if fmt == "ollama-chat":
        return {"model": "m", "message": message, "done": True}
    if fmt == "cohere-chat":
        return {"message": message | {"content": [{"type": "text", "text": "hi"}]}}
    # Cohere v1: the calls are the body's own
    return {"text": "hi"} | ({} if tool_calls is None else {"tool_calls": tool_calls})


RESPONSE_FORMATS = ["openai-chat", "ollama-chat", "cohere-chat", "cohere-chat-v1"]


@pytest.mark.parametrize("fmt", RESPONSE_FORMATS)
@pytest.mark.parametrize("value", NOT_A_LIST)
def test_a_response_tool_calls_that_is_no_list_is_one_unreadable_call(fmt: str, value: Any) -> None:
    """Kept as argument text that does not parse is kept (``parse_error``), not dropped: these
    parsers raised TypeError on a number and read nothing from a text or an object."""
    turn = get_wire_format(fmt).parse_response(_response(fmt, value))
    assert turn.error is None and turn.text == "hi"
    [call] = turn.calls
    assert (call.id, call.name, call.arguments) == (None, "", None)
    assert call.arguments_raw == (
        value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    )
    assert call.parse_error is not None and "not a list" in call.parse_error


@pytest.mark.parametrize("fmt", RESPONSE_FORMATS)
def test_a_response_with_no_or_a_listed_tool_calls_reads_as_before(fmt: str) -> None:
    assert get_wire_format(fmt).parse_response(_response(fmt, None)).calls == []
    if fmt == "cohere-chat-v1":
        listed = [{"name": "f", "parameters": {"a": 1}}]
    else:
        listed = [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
        ]
    [call] = get_wire_format(fmt).parse_response(_response(fmt, listed)).calls
    assert (call.name, call.arguments, call.parse_error) == ("f", {"a": 1}, None)


def test_chat_keeps_a_legacy_function_call_beside_an_unreadable_tool_calls() -> None:
    body = _response("openai-chat", 5)
    body["choices"][0]["message"]["function_call"] = {"name": "f", "arguments": "{}"}
    calls = get_wire_format("openai-chat").parse_response(body).calls
    assert [(c.name, c.parse_error is None) for c in calls] == [("f", True), ("", False)]


def test_an_ollama_stream_keeps_an_unreadable_tool_calls_in_its_place() -> None:
    chunks = [
        {"model": "m", "message": {"role": "assistant", "content": "", "tool_calls": 7}},
        {"model": "m", "message": {"role": "assistant", "content": "ok"}, "done": True},
    ]
    turn = get_wire_format("ollama-chat").assemble_stream("\n".join(map(json.dumps, chunks)))
    assert [(c.name, c.arguments_raw) for c in turn.calls] == [("", "7")]


def test_the_response_blocks_show_a_tool_calls_that_is_no_list() -> None:
    from rejudge.recorder.wire import content_blocks

    blocks = content_blocks(_response("openai-chat", 5))
    assert blocks is not None and ("other", "tool_calls (not a list)", 5) in blocks


def test_a_chat_stream_keeps_a_delta_tool_calls_that_is_no_list() -> None:
    """As a whole response's (above): a delta's ``tool_calls`` number or text was passed over."""
    deltas = [
        {"role": "assistant", "content": "hi"},
        {"tool_calls": "ab"},
        {"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "f", "arguments": "{}"}}]},
        {"tool_calls": None},
    ]
    chunks = [{"choices": [{"index": 0, "delta": d}]} for d in deltas]
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    text = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    turn = get_wire_format("openai-chat").assemble_stream(text)
    assert [(c.name, c.arguments_raw, c.parse_error is None) for c in turn.calls] == [
        ("f", "{}", True),
        ("", "ab", False),
    ]


def _cohere_stream(*tool_calls: Any) -> str:
    """A Cohere v2 stream whose tool-call events carry ``tool_calls`` in turn (index 0 first)."""
    events: list[dict[str, Any]] = [{"type": "message-start", "delta": {"message": {}}}]
    for index, value in enumerate(tool_calls):
        events.append({"type": "tool-call-start", "index": index})
        events[-1]["delta"] = {"message": {"tool_calls": value}}
        events.append({"type": "tool-call-end", "index": index})
    events.append({"type": "message-end", "delta": {"finish_reason": "TOOL_CALL"}})
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


@pytest.mark.parametrize("value", ["ab", 5, True])
def test_a_cohere_stream_keeps_a_tool_calls_that_is_no_list_in_its_place(value: Any) -> None:
    """As a whole response's (above): the event opened an empty call without a parse_error."""
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    turn = get_wire_format("cohere-chat").assemble_stream(_cohere_stream(value, call))
    first, second = turn.calls
    assert (first.id, first.name, first.arguments) == (None, "", None)
    assert first.arguments_raw == (value if isinstance(value, str) else json.dumps(value))
    assert first.parse_error is not None and "not a list" in first.parse_error
    assert (second.id, second.name, second.arguments, second.parse_error) == ("c1", "f", {}, None)


def test_a_cohere_stream_reads_an_object_or_a_list_of_calls_as_before() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
    turn = get_wire_format("cohere-chat").assemble_stream(
        _cohere_stream(call, [call | {"id": "c2"}])
    )
    assert [(c.id, c.name, c.arguments, c.parse_error) for c in turn.calls] == [
        ("c1", "f", {"a": 1}, None),
        ("c2", "f", {"a": 1}, None),
    ]
