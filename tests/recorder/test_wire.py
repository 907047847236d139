"""Wire-format parsers: synthetic bodies covering each format's quirks."""

from __future__ import annotations

import json

from rejudge.recorder.wire import (
    AssistantTurn,
    detect_wire_format,
    extract_echoed_calls,
    extract_tool_results,
    parse_anthropic_message,
    parse_anthropic_sse,
    parse_arguments,
    parse_openai_chat,
    parse_openai_chat_sse,
    parse_openai_responses,
    parse_openai_responses_sse,
    parse_response,
)


def sse(*payloads: object, done: bool = True) -> str:
    lines = [f"data: {json.dumps(p)}\n\n" for p in payloads]
    if done:
        lines.append("data: [DONE]\n\n")
    return "".join(lines)


def chunk(delta: dict, finish: str | None = None, **extra: object) -> dict:
    return {
        "model": "m-1",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


# --------------------------------------------------------------------------- arguments


def test_parse_arguments_object_empty_and_malformed() -> None:
    assert parse_arguments('{"a": 1}') == ({"a": 1}, '{"a": 1}', None)
    assert parse_arguments("") == ({}, "", None)
    args, raw, err = parse_arguments('{"a": 1')
    assert args is None and raw == '{"a": 1' and err is not None and "invalid JSON" in err
    args, raw, err = parse_arguments("[1, 2]")
    assert args is None and raw == "[1, 2]" and err is not None and "array" in err
    args, raw, err = parse_arguments({"city": "Paris"})
    assert args == {"city": "Paris"} and raw == '{"city":"Paris"}' and err is None


# --------------------------------------------------------------------------- openai chat


def test_openai_chat_parallel_calls_and_usage() -> None:
    body = {
        "model": "gpt-x",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "a", "arguments": '{"x":1}'},
                        },
                        {
                            "id": "",
                            "type": "function",
                            "function": {"name": "b", "arguments": "{oops"},
                        },
                    ],
                },
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15, "cost": 0.1},
    }
    turn = parse_openai_chat(body)
    assert [c.name for c in turn.calls] == ["a", "b"]
    assert turn.calls[0].id == "c1" and turn.calls[0].arguments == {"x": 1}
    assert turn.calls[1].id is None  # empty id identifies nothing
    assert turn.calls[1].arguments is None and turn.calls[1].arguments_raw == "{oops"
    assert turn.calls[1].parse_error
    assert turn.finish_reason == "tool_calls" and turn.text is None
    assert turn.usage == {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
    assert turn.raw_model == "gpt-x" and not turn.truncated and turn.error is None


def test_openai_chat_error_body() -> None:
    turn = parse_openai_chat({"error": {"message": "bad tool_choice", "type": "invalid_request"}})
    assert turn.error == "invalid_request: bad tool_choice" and turn.calls == []


def test_openai_sse_concatenates_per_index() -> None:
    text = sse(
        chunk({"role": "assistant", "content": ""}),
        chunk(
            {"tool_calls": [{"index": 0, "id": "c0", "function": {"name": "f", "arguments": ""}}]}
        ),
        chunk(
            {
                "tool_calls": [
                    {"index": 1, "id": "c1", "function": {"name": "g", "arguments": '{"b"'}}
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"a": '}}]}),
        chunk({"tool_calls": [{"index": 1, "function": {"arguments": ": 2}"}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"x"}'}}]}),
        chunk({}, finish="tool_calls"),
        {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4}},
    )
    turn = parse_openai_chat_sse(text)
    assert [(c.id, c.name, c.arguments) for c in turn.calls] == [
        ("c0", "f", {"a": "x"}),
        ("c1", "g", {"b": 2}),
    ]
    assert turn.finish_reason == "tool_calls" and not turn.truncated
    assert turn.usage == {"input_tokens": 3, "output_tokens": 4}
    assert turn.raw_model == "m-1"


def test_openai_sse_name_repeated_in_every_delta_is_not_doubled() -> None:
    text = sse(
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "0", "function": {"name": "llm_version", "arguments": ""}}
                ]
            }
        ),
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "0", "function": {"name": "llm_version", "arguments": "{}"}}
                ]
            }
        ),
    )
    turn = parse_openai_chat_sse(text)
    assert len(turn.calls) == 1
    assert turn.calls[0].name == "llm_version" and turn.calls[0].arguments == {}
    assert not turn.truncated  # [DONE] seen, even without a finish reason


def test_openai_sse_missing_index_and_empty_ids() -> None:
    text = sse(
        chunk({"tool_calls": [{"id": "", "function": {"name": "a", "arguments": '{"p":'}}]}),
        chunk({"tool_calls": [{"function": {"arguments": "1}"}}]}),
        chunk({"tool_calls": [{"id": "", "function": {"name": "b", "arguments": "{}"}}]}),
        chunk({}, finish="tool_calls"),
    )
    turn = parse_openai_chat_sse(text)
    assert [(c.id, c.name, c.arguments) for c in turn.calls] == [
        (None, "a", {"p": 1}),
        (None, "b", {}),
    ]


def test_openai_sse_text_and_truncation() -> None:
    text = sse(chunk({"content": "Hel"}), chunk({"content": "lo"}), done=False)
    turn = parse_openai_chat_sse(text)
    assert turn.text == "Hello" and turn.truncated and turn.finish_reason is None
    cut = sse(
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "c", "function": {"name": "f", "arguments": '{"a": "'}}
                ]
            }
        ),
        done=False,
    )
    turn = parse_openai_chat_sse(cut)
    assert turn.truncated and turn.calls[0].arguments is None and turn.calls[0].parse_error


def test_openai_sse_crlf_and_garbage_lines() -> None:
    text = sse(chunk({"content": "ok"}, finish="stop")).replace("\n", "\r\n")
    text = ": keepalive\r\n\r\ndata: not json\r\n\r\n" + text
    turn = parse_openai_chat_sse(text)
    assert turn.text == "ok" and turn.finish_reason == "stop" and not turn.truncated


def test_openai_sse_midstream_error() -> None:
    text = sse(chunk({"content": "a"}), {"error": {"message": "overloaded"}}, done=False)
    turn = parse_openai_chat_sse(text)
    assert turn.error == "overloaded" and turn.truncated


# --------------------------------------------------------------------------- anthropic


def test_anthropic_message_tool_use_blocks() -> None:
    body = {
        "model": "claude-x",
        "content": [
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "t1", "name": "w", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "t2", "name": "w", "input": {}},
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 7, "output_tokens": 2, "cache_creation": {"x": 1}},
    }
    turn = parse_anthropic_message(body)
    assert turn.text == "Let me check."
    assert [(c.id, c.arguments) for c in turn.calls] == [("t1", {"city": "Paris"}), ("t2", {})]
    assert turn.finish_reason == "tool_use" and turn.usage == {
        "input_tokens": 7,
        "output_tokens": 2,
    }


def anthropic_stream(stop: bool = True) -> str:
    events = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {"model": "claude-y", "usage": {"input_tokens": 9, "output_tokens": 1}},
            },
        ),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "Hi"},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": ""},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": '{"q": "a'},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": 'b"}'},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 1}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 2,
                "content_block": {"type": "tool_use", "id": "t2", "name": "g", "input": {}},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 2}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use"},
                "usage": {"output_tokens": 30},
            },
        ),
    ]
    if stop:
        events.append(("message_stop", {"type": "message_stop"}))
    return "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events)


def test_anthropic_sse_blocks() -> None:
    turn = parse_anthropic_sse(anthropic_stream())
    assert turn.text == "Hi"
    assert [(c.id, c.name, c.arguments) for c in turn.calls] == [
        ("t1", "f", {"q": "ab"}),
        ("t2", "g", {}),
    ]
    assert turn.finish_reason == "tool_use" and not turn.truncated
    assert turn.usage == {"input_tokens": 9, "output_tokens": 30} and turn.raw_model == "claude-y"
    assert parse_anthropic_sse(anthropic_stream(stop=False)).truncated


def test_anthropic_sse_error_event() -> None:
    text = 'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n'
    turn = parse_anthropic_sse(text)
    assert turn.error == "overloaded_error: Overloaded" and turn.truncated


# --------------------------------------------------------------------------- responses


def test_openai_responses_function_calls() -> None:
    body = {
        "model": "gpt-5",
        "status": "completed",
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "mul",
                "arguments": '{"a": 2, "b": 3}',
            },
            {"type": "message", "content": [{"type": "output_text", "text": "done"}]},
        ],
        "usage": {
            "input_tokens": 5,
            "output_tokens": 6,
            "total_tokens": 11,
            "output_tokens_details": {"reasoning_tokens": 2},
        },
    }
    turn = parse_openai_responses(body)
    assert [(c.id, c.name, c.arguments) for c in turn.calls] == [
        ("call_1", "mul", {"a": 2, "b": 3})
    ]
    assert turn.text == "done" and turn.finish_reason == "completed"
    assert turn.usage == {"input_tokens": 5, "output_tokens": 6, "total_tokens": 11}


def test_openai_responses_sse_completed_and_truncated() -> None:
    item = {"type": "function_call", "id": "fc", "call_id": "c9", "name": "f", "arguments": ""}
    events = [
        {"type": "response.created", "response": {"model": "gpt-5", "output": []}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": '{"k":'},
        {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": " 1}"},
    ]
    text = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    cut = parse_openai_responses_sse(text)
    assert cut.truncated and [(c.id, c.arguments) for c in cut.calls] == [("c9", {"k": 1})]
    final = {
        "type": "response.completed",
        "response": {
            "model": "gpt-5",
            "status": "completed",
            "output": [{**item, "arguments": '{"k": 1}'}],
        },
    }
    full = parse_openai_responses_sse(text + f"data: {json.dumps(final)}\n\n")
    assert not full.truncated and full.finish_reason == "completed"
    assert [(c.id, c.arguments) for c in full.calls] == [("c9", {"k": 1})]


def test_openai_responses_sse_failed_event_keeps_the_turn_and_says_it_failed() -> None:
    # a ``response.failed`` event whose response names no error: the turn read from it, its
    # error "response failed", and no server-side tools (a failed response's are not kept)
    response = {
        "model": "gpt-5",
        "output": [
            {"type": "message", "content": [{"type": "output_text", "text": "part"}]},
            {"type": "web_search_call", "id": "ws1", "status": "completed"},
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        ],
    }
    event = {"type": "response.failed", "response": response}
    turn = parse_openai_responses_sse(f"data: {json.dumps(event)}\n\n")
    assert turn.error == "response failed" and turn.text == "part"
    assert [c.id for c in turn.calls] == ["c1"] and turn.raw_model == "gpt-5"
    assert turn.server_tools == [] and not turn.truncated
    assert parse_openai_responses(response).server_tools != []


# --------------------------------------------------------------------------- detection and dispatch


def test_detect_wire_format() -> None:
    assert detect_wire_format("https://api.openai.com/v1/chat/completions") == "openai-chat"
    assert detect_wire_format("/v1beta/openai/chat/completions?x=1") == "openai-chat"
    assert detect_wire_format("https://api.openai.com/v1/responses") == "openai-responses"
    assert (
        detect_wire_format("https://api.anthropic.com/v1/messages?beta=true")
        == "anthropic-messages"
    )
    assert detect_wire_format("https://api.openai.com/v1/models") == "unknown"
    assert detect_wire_format("/v1beta/models/gemini:generateContent") == "gemini-generate-content"
    assert detect_wire_format("/v1beta/models/gemini:countTokens") == "unknown"
    assert detect_wire_format("/proxy", {"model": "m", "input": "hi"}) == "openai-responses"
    assert detect_wire_format("/proxy", {"messages": [], "system": "s"}) == "anthropic-messages"
    assert detect_wire_format("/proxy", '{"messages": []}') == "openai-chat"
    assert (
        detect_wire_format("/proxy", None, {"anthropic-ratelimit-requests-limit": ["5"]})
        == "anthropic-messages"
    )


def test_parse_response_dispatch() -> None:
    text = sse(chunk({"content": "x"}, finish="stop"))
    assert parse_response("openai-chat", text).text == "x"
    assert parse_response("openai-chat", text, {"Content-Type": ["text/event-stream"]}).text == "x"
    assert parse_response("anthropic-messages", anthropic_stream()).calls[0].name == "f"
    turn = parse_response("openai-chat", "<html>502</html>")
    assert isinstance(turn, AssistantTurn) and turn.error


def test_request_side_results_and_echoes() -> None:
    chat = {
        "messages": [
            {"role": "user", "content": "q"},
            {
                "role": "assistant",
                "tool_calls": [{"id": "x1", "function": {"name": "f", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": "x1", "content": [{"type": "text", "text": "R"}]},
        ]
    }
    res = extract_tool_results("openai-chat", chat)
    assert [(r.call_id, r.content, r.is_error) for r in res] == [("x1", "R", None)]
    assert [[e.id for e in t] for t in extract_echoed_calls("openai-chat", chat)] == [["x1"]]
    anth = {
        "messages": [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {"a": 1}}],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t", "content": "boom", "is_error": True}
                ],
            },
        ]
    }
    res = extract_tool_results("anthropic-messages", anth)
    assert [(r.call_id, r.content, r.is_error) for r in res] == [("t", "boom", True)]
    assert extract_echoed_calls("anthropic-messages", anth)[0][0].arguments_raw == '{"a":1}'
    resp = {
        "input": [
            {"role": "user", "content": "q"},
            {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c", "output": "7"},
        ]
    }
    assert [(r.call_id, r.content) for r in extract_tool_results("openai-responses", resp)] == [
        ("c", "7")
    ]
    assert [[e.id for e in t] for t in extract_echoed_calls("openai-responses", resp)] == [["c"]]
    assert extract_tool_results("openai-chat", "not a dict") == []


def test_gemini_json_stream_and_request_side() -> None:
    from rejudge.recorder.wire import parse_gemini, parse_gemini_stream

    body = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"text": "ok "}, {"functionCall": {"name": "f", "args": {"a": 1}}}],
                },
                "finishReason": "STOP",
            }
        ],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 4, "totalTokenCount": 7},
        "modelVersion": "gemini-x",
    }
    turn = parse_gemini(body)
    assert turn.text == "ok " and [(c.id, c.name, c.arguments) for c in turn.calls] == [
        (None, "f", {"a": 1})
    ]
    assert (
        turn.usage == {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7}
        and turn.raw_model == "gemini-x"
    )
    first = {"candidates": [{"content": {"parts": [{"text": "Hel"}]}}]}
    text = f"data: {json.dumps(first)}\n\ndata: {json.dumps(body)}\n\n"
    streamed = parse_gemini_stream(text)
    assert streamed.text == "Helok " and not streamed.truncated and len(streamed.calls) == 1
    assert parse_gemini_stream(f"data: {json.dumps(first)}\n\n").truncated
    assert parse_response("gemini-generate-content", [first, body]).text == "Helok "
    req = {
        "contents": [
            {"role": "user", "parts": [{"text": "q"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {"a": 1}}}]},
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": "f", "response": {"return_value": 5}}}],
            },
        ]
    }
    (res,) = extract_tool_results("gemini-generate-content", req)
    assert (res.call_id, res.name, res.content) == (None, "f", 5)
    assert extract_echoed_calls("gemini-generate-content", req)[0][0].name == "f"


def test_tool_specs_and_first_user_text() -> None:
    from rejudge.recorder.wire import extract_first_user_text, extract_tool_specs

    chat = {
        "messages": [
            {"role": "system", "content": "s"},
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        ],
        "tools": [
            {
                "type": "function",
                "function": {"name": "f", "description": "d", "parameters": {"type": "object"}},
            }
        ],
    }
    assert [(t.name, t.description) for t in extract_tool_specs("openai-chat", chat)] == [
        ("f", "d")
    ]
    assert extract_first_user_text("openai-chat", chat) == "hi"
    anth = {
        "messages": [{"role": "user", "content": "q"}],
        "tools": [{"name": "g", "input_schema": {"type": "object"}}],
    }
    assert [t.name for t in extract_tool_specs("anthropic-messages", anth)] == ["g"]
    resp = {"input": "plain", "tools": [{"type": "function", "name": "h", "parameters": {}}]}
    assert [t.name for t in extract_tool_specs("openai-responses", resp)] == ["h"]
    assert extract_first_user_text("openai-responses", resp) == "plain"
    gem = {
        "contents": [{"role": "user", "parts": [{"text": "g?"}]}],
        "tools": [{"function_declarations": [{"name": "k"}]}],
    }
    assert [t.name for t in extract_tool_specs("gemini-generate-content", gem)] == ["k"]
    assert extract_first_user_text("gemini-generate-content", gem) == "g?"


def test_a_responses_event_whose_type_is_no_string_is_skipped_not_raised() -> None:
    # found by test_normalizer_never_raises: a list as the event type broke the set lookup
    turn = parse_openai_responses_sse('data:{"type":[null]}\n\n')
    assert turn.calls == [] and turn.text is None
