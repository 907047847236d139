"""Bad input through the normalizer, for every format: a structured status and reason, never a
traceback."""

from __future__ import annotations

import struct
import zlib
from typing import Any

import pytest
from rejudge.recorder import Exchange, normalize_exchanges
from test_wire_registry import RESPONSES, SAMPLES


def _ex(name: str, status: int = 200, response: Any = None, **kw: Any) -> Exchange:
    url, body, headers = SAMPLES[name]
    return Exchange(
        method="POST",
        url=url,
        request_body=body,
        status=status,
        response_headers={k: list(v) for k, v in headers.items()} | kw.get("headers", {}),
        response_body=RESPONSES[name] if response is None else response,
    )


@pytest.mark.parametrize("name", list(SAMPLES))
@pytest.mark.parametrize("status", [400, 429, 500, 503])
def test_an_error_status_ends_the_trace_with_its_reason(name: str, status: int) -> None:
    trace = normalize_exchanges(
        [_ex(name, status, {"message": "nope", "error": {"message": "nope"}})], "c"
    )
    assert trace.status == "agent_error" and trace.error is not None
    assert (trace.error.kind, trace.error.status_code) == ("provider_error", status)
    assert trace.error.message == f"HTTP {status}: nope"


@pytest.mark.parametrize("name", list(SAMPLES))
def test_a_body_neither_json_nor_a_stream(name: str) -> None:
    trace = normalize_exchanges([_ex(name, response="<html>bad gateway</html>")], "c")
    assert trace.status == "agent_error" and trace.error is not None
    assert trace.error.kind == "provider_error" and trace.rounds == []


@pytest.mark.parametrize("name", list(SAMPLES))
def test_each_format_answers_its_own_sample(name: str) -> None:
    trace = normalize_exchanges([_ex(name)], "c")
    assert trace.status == "completed" and trace.error is None and len(trace.rounds) == 1


def _frame(event: str, payload: bytes) -> bytes:
    name = b":event-type"
    headers = bytes([len(name)]) + name + b"\x07" + struct.pack(">H", len(event)) + event.encode()
    total = 12 + len(headers) + len(payload) + 4
    prelude = struct.pack(">II", total, len(headers))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    message = prelude + headers + payload
    return message + struct.pack(">I", zlib.crc32(message))


def test_a_truncated_event_stream_is_a_truncated_trace() -> None:
    stream = _frame("contentBlockDelta", b'{"contentBlockIndex":0,"delta":{"text":"hi"}}')
    stream += _frame("messageStop", b'{"stopReason":"end_turn"}')
    headers = {"content-type": ["application/vnd.amazon.eventstream"]}
    whole = normalize_exchanges([_ex("bedrock-converse", response=stream, headers=headers)], "c")
    assert whole.status == "completed" and whole.final_text == "hi"
    cut = normalize_exchanges([_ex("bedrock-converse", response=stream[:-9], headers=headers)], "c")
    assert cut.status == "agent_error" and cut.error is not None
    assert cut.error.kind == "truncated_stream" and cut.rounds[0].text == "hi"


def test_unknown_stream_events_are_skipped() -> None:
    sse = (
        'event: mystery\ndata: {"type":"mystery"}\n\n'
        + 'data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
    )
    trace = normalize_exchanges(
        [_ex("openai-chat", response=sse, headers={"content-type": ["text/event-stream"]})], "c"
    )
    assert trace.status == "completed" and trace.final_text == "ok"


def test_a_cassette_mixing_providers_keeps_every_round() -> None:
    exchanges = [_ex(name) for name in SAMPLES]
    trace = normalize_exchanges(exchanges, "c")
    assert trace.status == "completed" and len(trace.rounds) == len(SAMPLES)


def test_an_anthropic_server_tool_id_of_another_json_type_is_no_traceback() -> None:
    """A ``server_tool_use`` block whose id is an object or a list: the parser looked its result
    up by that id and raised TypeError (unhashable); it is a server tool without id or result."""
    from rejudge.recorder.wire import parse_anthropic_message

    for bad_id in ({"a": 1}, [1], 3):
        body = {
            "type": "message",
            "content": [
                {"type": "server_tool_use", "id": bad_id, "name": "web_search", "input": {}},
                {"type": "web_search_tool_result", "tool_use_id": "s1", "content": []},
                {"type": "text", "text": "done"},
            ],
        }
        turn = parse_anthropic_message(body)
        assert turn.text == "done" and turn.error is None
        assert [(s.id, s.name, s.result) for s in turn.server_tools] == [(None, "web_search", None)]
