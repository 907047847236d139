"""The formats and shapes added for real traffic: Bedrock Converse (JSON and event stream), Cohere
v2 chat, custom (freeform) tools, the legacy ``function_call``, ``n > 1`` choices and
provider-side (server) tools."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path
from typing import Any

from rejudge.recorder import read_cassette, trace_of
from rejudge.recorder.wire import (
    decode_event_stream,
    get_wire_format,
    parse_anthropic_message,
    parse_anthropic_sse,
    parse_bedrock_stream,
    parse_cohere_sse,
    parse_openai_chat,
    parse_openai_chat_sse,
    parse_openai_responses,
    parse_openai_responses_sse,
)

DATA = Path(__file__).parent / "data" / "wire"


# --------------------------------------------------------------------------- event stream


def _header(name: str, value: str) -> bytes:
    raw = value.encode()
    return bytes([len(name)]) + name.encode() + b"\x07" + struct.pack(">H", len(raw)) + raw


def frame(event: str, payload: Any, message_type: str = "event") -> bytes:
    """One AWS event-stream message, built from the public spec (prelude, headers, CRCs)."""
    kind = ":exception-type" if message_type == "exception" else ":event-type"
    headers = _header(kind, event) + _header(":message-type", message_type)
    body = json.dumps(payload).encode()
    total = 12 + len(headers) + len(body) + 4
    prelude = struct.pack(">II", total, len(headers))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    message = prelude + headers + body
    return message + struct.pack(">I", zlib.crc32(message))


def _bedrock_tool_stream() -> bytes:
    return b"".join(
        [
            frame("messageStart", {"role": "assistant"}),
            frame("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Let me "}}),
            frame("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "look."}}),
            frame("contentBlockStop", {"contentBlockIndex": 0}),
            frame(
                "contentBlockStart",
                {
                    "contentBlockIndex": 1,
                    "start": {"toolUse": {"toolUseId": "tu1", "name": "get_weather"}},
                },
            ),
            frame(
                "contentBlockDelta",
                {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '{"city":'}}},
            ),
            frame(
                "contentBlockDelta",
                {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '"Oslo"}'}}},
            ),
            frame("contentBlockStop", {"contentBlockIndex": 1}),
            frame("messageStop", {"stopReason": "tool_use"}),
            frame("metadata", {"usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15}}),
        ]
    )


def test_event_stream_framing_decodes_and_checks_crcs() -> None:
    data = _bedrock_tool_stream()
    stream = decode_event_stream(data)
    assert stream.fault is None and len(stream.messages) == 10
    assert stream.messages[0].event_type == "messageStart"
    assert stream.messages[0].message_type == "event"
    damaged = bytearray(data)
    damaged[40] ^= 0xFF  # inside the first message's headers/payload
    assert "CRC" in (decode_event_stream(bytes(damaged)).fault or "")
    cut = decode_event_stream(data[:-7])
    assert len(cut.messages) == 9 and "ends inside" in (cut.fault or "")


def test_bedrock_stream_assembles_text_and_tool_input() -> None:
    turn = parse_bedrock_stream(_bedrock_tool_stream())
    assert turn.text == "Let me look."
    assert [(c.id, c.name, c.arguments) for c in turn.calls] == [
        ("tu1", "get_weather", {"city": "Oslo"})
    ]
    assert turn.finish_reason == "tool_use" and not turn.truncated and turn.error is None
    assert turn.usage == {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}


def test_bedrock_stream_bad_input_is_reported_never_raised() -> None:
    data = _bedrock_tool_stream()
    assert parse_bedrock_stream(data[: len(data) // 2]).truncated
    unknown = frame("somethingNew", {"x": 1}) + frame("messageStop", {"stopReason": "end_turn"})
    turn = parse_bedrock_stream(unknown)
    assert not turn.truncated and turn.calls == [] and turn.error is None
    exc = frame("messageStart", {}) + frame(
        "throttlingException", {"message": "slow down"}, message_type="exception"
    )
    turn = parse_bedrock_stream(exc)
    assert turn.error == "throttlingException: slow down" and turn.truncated
    assert parse_bedrock_stream("not bytes").truncated


def test_bedrock_converse_json_and_request_side() -> None:
    fmt = get_wire_format("bedrock-converse")
    turn = fmt.parse_response(
        {
            "output": {
                "message": {
                    "role": "assistant",
                    "content": [
                        {"text": "Checking."},
                        {"toolUse": {"toolUseId": "a", "name": "w", "input": {"q": 1}}},
                    ],
                }
            },
            "stopReason": "tool_use",
            "usage": {"inputTokens": 3, "outputTokens": 4, "totalTokens": 7},
        }
    )
    assert turn.text == "Checking." and [(c.id, c.arguments) for c in turn.calls] == [
        ("a", {"q": 1})
    ]
    request = {
        "messages": [
            {"role": "user", "content": [{"text": "first"}]},
            {
                "role": "assistant",
                "content": [{"toolUse": {"toolUseId": "a", "name": "w", "input": {}}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "toolResult": {
                            "toolUseId": "a",
                            "content": [{"json": {"t": 3}}],
                            "status": "error",
                        }
                    }
                ],
            },
            {"role": "user", "content": [{"text": "second"}]},
        ]
    }
    [result] = fmt.tool_results(request)
    assert (result.call_id, result.content, result.is_error) == ("a", {"t": 3}, True)
    assert [[e.id for e in t] for t in fmt.echoed_calls(request)] == [["a"]]
    assert fmt.user_texts(request) == ["first", "second"]
    assert fmt.parse_response(b"\x00garbage").error is not None


def test_real_bedrock_converse_stream_cassette() -> None:
    trace = trace_of(read_cassette(DATA / "test_bedrock_model_iter_stream.yaml"), "c", 0)
    assert trace.status == "completed"
    [call] = trace.rounds[0].calls
    assert (call.id, call.name, call.arguments) == (
        "tooluse_lAG_zP8QRHmSYOwZzzaCqA",
        "get_temperature",
        {"city": "Paris"},
    )
    assert call.result == "30°C" and call.ok is True
    assert trace.final_text is not None and "Paris" in trace.final_text


def test_real_bedrock_error_is_a_structured_provider_error() -> None:
    trace = trace_of(read_cassette(DATA / "test_bedrock_error.yaml"), "c", 0)
    assert trace.status == "agent_error" and trace.error is not None
    assert trace.error.kind == "provider_error" and trace.error.status_code == 400
    assert "model identifier is invalid" in trace.error.message


# --------------------------------------------------------------------------- cohere


def test_cohere_json_and_stream() -> None:
    fmt = get_wire_format("cohere-chat")
    turn = fmt.parse_response(
        {
            "message": {
                "role": "assistant",
                "tool_plan": "I will check.",
                "tool_calls": [
                    {
                        "id": "w_1",
                        "type": "function",
                        "function": {"name": "w", "arguments": '{"a":1}'},
                    }
                ],
            },
            "finish_reason": "TOOL_CALL",
            "usage": {"tokens": {"input_tokens": 5, "output_tokens": 2}},
        }
    )
    assert [(c.id, c.name, c.arguments) for c in turn.calls] == [("w_1", "w", {"a": 1})]
    assert turn.finish_reason == "TOOL_CALL" and turn.usage["input_tokens"] == 5
    events = [
        {"type": "message-start", "id": "m"},
        {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "x"}}},
        {
            "type": "tool-call-start",
            "index": 0,
            "delta": {
                "message": {
                    "tool_calls": {
                        "id": "c0",
                        "type": "function",
                        "function": {"name": "w", "arguments": ""},
                    }
                }
            },
        },
        {
            "type": "tool-call-delta",
            "index": 0,
            "delta": {"message": {"tool_calls": {"function": {"arguments": '{"a":'}}}},
        },
        {
            "type": "tool-call-delta",
            "index": 0,
            "delta": {"message": {"tool_calls": {"function": {"arguments": "2}"}}}},
        },
        {"type": "tool-call-end", "index": 0},
        {"type": "citation-start", "index": 0},
        {"type": "message-end", "delta": {"finish_reason": "TOOL_CALL"}},
    ]
    sse = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    turn = parse_cohere_sse(sse)
    assert [(c.id, c.arguments) for c in turn.calls] == [("c0", {"a": 2})] and not turn.truncated
    assert parse_cohere_sse(sse.split("event: message-end")[0]).truncated
    failed = (
        'event: message-end\ndata: {"type":"message-end","delta":{"finish_reason":"ERROR",'
        '"error":"invalid tool generation","error_type":"INVALID_TOOL_GENERATION"}}\n\n'
    )
    assert parse_cohere_sse(failed).error == "INVALID_TOOL_GENERATION: invalid tool generation"


def test_real_cohere_cassette() -> None:
    trace = trace_of(read_cassette(DATA / "test_tool_choice_matrix[auto-cohere].yaml"), "c", 0)
    assert trace.status == "completed"
    [call] = trace.rounds[0].calls
    assert (call.name, call.arguments, call.result) == (
        "get_weather",
        {"city": "Paris"},
        "Sunny, 22C in Paris",
    )
    assert trace.final_text == "The weather in Paris is currently sunny and 22C."


# --------------------------------------------------------------------------- openai shapes


def test_custom_tools_in_chat_keep_raw_input_without_parse_error() -> None:
    body = {
        "choices": [
            {
                "index": 0,
                "message": {
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "custom",
                            "custom": {"name": "sql", "input": "SELECT 1"},
                        }
                    ]
                },
                "finish_reason": "tool_calls",
            }
        ]
    }
    [call] = parse_openai_chat(body).calls
    assert (call.name, call.arguments, call.arguments_raw, call.parse_error) == (
        "sql",
        None,
        "SELECT 1",
        None,
    )
    chunks = [
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "c1",
                                "type": "custom",
                                "custom": {"name": "sql", "input": "SELECT "},
                            }
                        ]
                    },
                }
            ]
        },
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {"tool_calls": [{"index": 0, "custom": {"input": "1"}}]},
                    "finish_reason": "tool_calls",
                }
            ]
        },
    ]
    sse = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    [call] = parse_openai_chat_sse(sse).calls
    assert (call.name, call.arguments, call.arguments_raw, call.parse_error) == (
        "sql",
        None,
        "SELECT 1",
        None,
    )
    fmt = get_wire_format("openai-chat")
    specs = fmt.tool_specs(
        {"tools": [{"type": "custom", "custom": {"name": "sql", "description": "run SQL"}}]}
    )
    assert [(s.name, s.parameters["required"]) for s in specs] == [("sql", ["input"])]


def test_custom_tool_calls_in_responses() -> None:
    body = {
        "status": "completed",
        "output": [
            {"type": "custom_tool_call", "call_id": "k1", "name": "patch", "input": "*** diff"}
        ],
    }
    [call] = parse_openai_responses(body).calls
    assert (call.id, call.name, call.arguments, call.arguments_raw, call.parse_error) == (
        "k1",
        "patch",
        None,
        "*** diff",
        None,
    )
    events = [
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "custom_tool_call", "call_id": "k1", "name": "patch", "input": ""},
        },
        {"type": "response.custom_tool_call_input.delta", "output_index": 0, "delta": "*** "},
        {"type": "response.custom_tool_call_input.delta", "output_index": 0, "delta": "diff"},
    ]
    sse = "".join(f"data: {json.dumps(e)}\n\n" for e in events)
    [call] = parse_openai_responses_sse(sse).calls
    assert (call.name, call.arguments_raw, call.parse_error) == ("patch", "*** diff", None)
    fmt = get_wire_format("openai-responses")
    request = {
        "model": "m",
        "input": [
            {"role": "user", "content": "go"},
            {"type": "custom_tool_call", "call_id": "k1", "name": "patch", "input": "*** diff"},
            {"type": "custom_tool_call_output", "call_id": "k1", "output": "applied"},
        ],
    }
    assert [(r.call_id, r.content) for r in fmt.tool_results(request)] == [("k1", "applied")]
    assert [[e.arguments_raw for e in t] for t in fmt.echoed_calls(request)] == [["*** diff"]]


def test_legacy_function_call_json_and_streamed() -> None:
    body = {"choices": [{"message": {"function_call": {"name": "f", "arguments": '{"x":1}'}}}]}
    assert [(c.name, c.arguments) for c in parse_openai_chat(body).calls] == [("f", {"x": 1})]
    chunks = [
        {"choices": [{"index": 0, "delta": {"function_call": {"name": "f", "arguments": ""}}}]},
        {"choices": [{"index": 0, "delta": {"function_call": {"arguments": '{"x":'}}}]},
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {"function_call": {"arguments": "1}"}},
                    "finish_reason": "function_call",
                }
            ]
        },
    ]
    sse = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    turn = parse_openai_chat_sse(sse)
    assert [(c.name, c.arguments) for c in turn.calls] == [("f", {"x": 1})]
    assert turn.finish_reason == "function_call"


def _call(index: int, cid: str | None, name: str | None, args: str) -> dict[str, Any]:
    fn: dict[str, Any] = {"arguments": args}
    if name:
        fn["name"] = name
    out: dict[str, Any] = {"index": index, "function": fn}
    if cid:
        out["id"] = cid
    return out


def test_n_choices_follow_choice_zero_and_keep_the_others() -> None:
    body = {
        "choices": [
            {"index": 1, "message": {"content": "other"}, "finish_reason": "stop"},
            {
                "index": 0,
                "message": {
                    "tool_calls": [{"id": "a", "function": {"name": "f", "arguments": "{}"}}]
                },
                "finish_reason": "tool_calls",
            },
        ]
    }
    turn = parse_openai_chat(body)
    assert [c.id for c in turn.calls] == ["a"] and turn.text is None
    [alt] = turn.alternatives
    assert (alt.choice, alt.text, alt.calls, alt.finish_reason) == (1, "other", [], "stop")
    # streamed: the two choices' fragments interleave; a chunk may carry choice 1 alone
    chunks = [
        {"choices": [{"index": 0, "delta": {"tool_calls": [_call(0, "a", "f", '{"x":')]}}]},
        {"choices": [{"index": 1, "delta": {"tool_calls": [_call(0, "b", "g", '{"y":')]}}]},
        {"choices": [{"index": 1, "delta": {"tool_calls": [_call(0, None, None, "2}")]}}]},
        {"choices": [{"index": 0, "delta": {"tool_calls": [_call(0, None, None, "1}")]}}]},
        {
            "choices": [
                {"index": 0, "delta": {}, "finish_reason": "tool_calls"},
                {"index": 1, "delta": {}, "finish_reason": "tool_calls"},
            ]
        },
    ]
    sse = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    turn = parse_openai_chat_sse(sse)
    assert [(c.id, c.name, c.arguments) for c in turn.calls] == [("a", "f", {"x": 1})]
    [alt] = turn.alternatives
    assert alt.choice == 1 and [(c.id, c.name, c.arguments) for c in alt.calls] == [
        ("b", "g", {"y": 2})
    ]


# --------------------------------------------------------------------------- server tools


def test_anthropic_server_tool_use_is_no_client_call() -> None:
    body = {
        "content": [
            {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "q"}},
            {"type": "web_search_tool_result", "tool_use_id": "s1", "content": [{"url": "u"}]},
            {"type": "tool_use", "id": "t1", "name": "save", "input": {}},
        ],
        "stop_reason": "tool_use",
    }
    turn = parse_anthropic_message(body)
    assert [c.name for c in turn.calls] == ["save"]
    [server] = turn.server_tools
    assert (server.id, server.name, server.input, server.result, server.kind) == (
        "s1",
        "web_search",
        {"query": "q"},
        [{"url": "u"}],
        "server_tool_use",
    )


def test_real_anthropic_web_search_stream_has_server_tools_only() -> None:
    trace = trace_of(read_cassette(DATA / "test_anthropic_web_search_tool_stream.yaml"), "c", 0)
    assert trace.status == "completed" and trace.calls == []
    uses = [s for r in trace.rounds for s in r.server_tools]
    assert [(s.name, s.input) for s in uses] == [
        ("web_search", {"query": "top world news today"}),
        ("web_search", {"query": "breaking news headlines August 14 2025"}),
    ]
    assert all(isinstance(s.result, list) and s.result for s in uses)
    assert trace.format_version == 2


def test_anthropic_stream_server_tool_blocks() -> None:
    events = [
        {"type": "message_start", "message": {"model": "m"}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {
                "type": "server_tool_use",
                "id": "s1",
                "name": "web_search",
                "input": {},
            },
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"query":"q"}'},
        },
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {
                "type": "web_search_tool_result",
                "tool_use_id": "s1",
                "content": [{"url": "u"}],
            },
        },
        {"type": "message_stop"},
    ]
    sse = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    turn = parse_anthropic_sse(sse)
    assert turn.calls == []
    assert [(s.input, s.result) for s in turn.server_tools] == [({"query": "q"}, [{"url": "u"}])]


def test_responses_built_in_tools_are_server_tools() -> None:
    body = {
        "status": "completed",
        "output": [
            {
                "type": "web_search_call",
                "id": "ws1",
                "status": "completed",
                "action": {"type": "search", "query": "q"},
            },
            {
                "type": "code_interpreter_call",
                "id": "ci1",
                "code": "1+1",
                "outputs": [{"type": "logs", "logs": "2"}],
            },
            {"type": "function_call", "call_id": "f1", "name": "save", "arguments": "{}"},
        ],
    }
    turn = parse_openai_responses(body)
    assert [c.name for c in turn.calls] == ["save"]
    assert [(s.name, s.kind, s.input, s.result) for s in turn.server_tools] == [
        ("web_search", "web_search_call", {"action": {"type": "search", "query": "q"}}, None),
        (
            "code_interpreter",
            "code_interpreter_call",
            {"code": "1+1"},
            [{"type": "logs", "logs": "2"}],
        ),
    ]
    # echoed in a later request, the server items do not split the turn's calls
    fmt = get_wire_format("openai-responses")
    request = {"model": "m", "input": [body["output"][0], body["output"][2]]}
    assert [[e.name for e in t] for t in fmt.echoed_calls(request)] == [["save"]]


def test_models_named_in_the_url() -> None:
    bedrock = get_wire_format("bedrock-converse")
    url = "https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-micro-v1%3A0/converse"
    assert bedrock.model_in_url(url) == "amazon.nova-micro-v1:0"
    gemini = get_wire_format("gemini-generate-content")
    assert gemini.model_in_url("https://g/v1beta/models/gemini-2.0:generateContent") == "gemini-2.0"
    assert (
        get_wire_format("openai-chat").model_in_url("https://api.openai.com/v1/chat/completions")
        is None
    )


def test_the_cassette_reader_keeps_event_streams_as_bytes_even_gzipped() -> None:
    import gzip

    from rejudge.recorder import exchanges_from_interactions

    stream = _bedrock_tool_stream()
    for body, headers in (
        (stream, {"content-type": ["application/vnd.amazon.eventstream"]}),
        (stream, {}),  # found by its prelude alone
        (gzip.compress(stream), {"content-encoding": ["gzip"]}),
    ):
        [ex] = exchanges_from_interactions(
            [
                {
                    "request": {"method": "POST", "uri": "https://x/model/m/converse-stream"},
                    "response": {
                        "status": {"code": 200},
                        "headers": headers,
                        "body": {"string": body},
                    },
                }
            ]
        )
        assert ex.response_body == stream
