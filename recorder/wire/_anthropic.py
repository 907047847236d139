"""Anthropic messages: responses (JSON and SSE) and the ``tool_result`` blocks a request sends."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rejudge.recorder.wire._bedrock import bedrock_invoke_body, bedrock_shaped
from rejudge.recorder.wire._common import (
    WIRE_ANTHROPIC,
    AssistantTurn,
    EchoedCall,
    SentToolResult,
    as_dict,
    assistant_lists,
    compact_json,
    dict_messages,
    echoed_call,
    error_message,
    function_tool_specs,
    int_usage,
    iter_sse,
    joined_texts,
    load_json_event,
    make_call,
    messages_user_texts,
    nonempty_str,
    text_or_none,
)
from rejudge.recorder.wire._format import (
    DETECT_BODY,
    DETECT_HEADERS,
    DETECT_NONE,
    DETECT_PATH,
    DETECT_RESPONSE,
    Probe,
    WireFormat,
)
from rejudge.recorder.wire._register import register_wire_format

from rejudge.model import ServerToolUse

__all__ = [
    "parse_anthropic_message",
    "parse_anthropic_sse",
    "anthropic_tool_results",
    "anthropic_echoed_calls",
    "anthropic_shaped",
    "AnthropicMessages",
    "ANTHROPIC_MESSAGES",
]

# the client's own calls; ``server_tool_use`` (web search, tool search, code execution) and
# ``mcp_tool_use`` blocks are tools Anthropic ran itself, answered by ``*_tool_result`` blocks
# of the same response: provider-side tool use, never the client's calls
_TOOL_BLOCKS = ("tool_use",)
_SERVER_BLOCKS = ("server_tool_use", "mcp_tool_use")


def _server_result(kind: Any) -> bool:
    return isinstance(kind, str) and kind.endswith("_tool_result") and kind != "tool_result"


def _server_tools(
    uses: list[tuple[str, Any, Any, Any]], results: dict[Any, Any]
) -> list[ServerToolUse]:
    """``(kind, id, name, input)`` of each server block, with the result block sent under its id."""
    return [
        ServerToolUse(
            id=nonempty_str(bid),
            name=name if isinstance(name, str) else kind,
            input=raw_input,
            # the results are keyed by text ids: an id of another JSON type (an object
            # raised TypeError, unhashable) answers nothing
            result=results.get(bid) if isinstance(bid, str) else None,
            kind=kind,
        )
        for kind, bid, name, raw_input in uses
    ]


def parse_anthropic_message(body: dict[str, Any]) -> AssistantTurn:
    """A non-streaming message: ``text`` and ``tool_use`` content blocks (``input`` is an object)."""
    if not isinstance(body, dict):
        return AssistantTurn(error="response body is not a JSON object")
    model = body.get("model") if isinstance(body.get("model"), str) else None
    usage = int_usage(body.get("usage"))
    err = error_message(body)
    content = body.get("content")
    texts: list[str] = []
    calls = []
    uses: list[tuple[str, Any, Any, Any]] = []
    results: dict[Any, Any] = {}
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind in _TOOL_BLOCKS:
                raw = block.get("input")
                calls.append(
                    make_call(block.get("id"), block.get("name"), raw if raw is not None else {})
                )
            elif kind in _SERVER_BLOCKS:
                uses.append((kind, block.get("id"), block.get("name"), block.get("input")))
            elif _server_result(kind) and isinstance(block.get("tool_use_id"), str):
                results[block["tool_use_id"]] = block.get("content")
    elif err is None:
        err = "response has no content"
    stop = body.get("stop_reason")
    return AssistantTurn(
        text=text_or_none(texts),
        calls=calls,
        finish_reason=stop if isinstance(stop, str) else None,
        usage=usage,
        raw_model=model,
        error=err,
        server_tools=_server_tools(uses, results),
    )


@dataclass
class _Block:
    type: str
    id: Any = None
    name: Any = None
    start_input: Any = None
    parts: list[str] = field(default_factory=list)
    tool_use_id: Any = None  # a server tool's result block: the use it answers
    content: Any = None


def parse_anthropic_sse(text: str) -> AssistantTurn:
    """A streamed message: ``content_block_start``/``content_block_delta`` per block index.

    ``input_json_delta.partial_json`` fragments concatenate per block; a tool block with no
    fragments keeps the ``input`` of its start event. A stream without ``message_stop`` is
    ``truncated``; an ``error`` event sets ``error``.
    """
    if not isinstance(text, str):
        return AssistantTurn(truncated=True, error="stream body is not text")
    blocks: dict[Any, _Block] = {}
    order: list[Any] = []
    usage: dict[str, int] = {}
    model: str | None = None
    stop: str | None = None
    done = False
    err: str | None = None
    for event, data in iter_sse(text):
        payload = load_json_event(data)
        if not isinstance(payload, dict):
            continue
        kind = payload.get("type") or event
        if kind == "message_start":
            msg = as_dict(payload.get("message"))
            if isinstance(msg.get("model"), str):
                model = msg["model"]
            usage.update(int_usage(msg.get("usage")))
        elif kind == "content_block_start":
            block = payload.get("content_block")
            if not isinstance(block, dict):
                continue
            key = payload.get("index", len(order))
            if not isinstance(key, (int, str)) or isinstance(key, bool):
                key = len(order)
            if key not in blocks:
                order.append(key)
            b = _Block(type=str(block.get("type")), id=block.get("id"), name=block.get("name"))
            b.start_input = block.get("input")
            b.tool_use_id = block.get("tool_use_id")
            b.content = block.get("content")
            if b.type == "text" and isinstance(block.get("text"), str):
                b.parts.append(block["text"])
            blocks[key] = b
        elif kind == "content_block_delta":
            delta = payload.get("delta")
            if not isinstance(delta, dict):
                continue
            key = payload.get("index")
            found = blocks.get(key) if isinstance(key, (int, str)) else None
            if found is not None:
                b = found
            else:
                # a delta for a block we never saw start: keep it rather than drop the data
                dtype = delta.get("type")
                b = _Block(type="tool_use" if dtype == "input_json_delta" else "text")
                key = (
                    key if isinstance(key, (int, str)) and not isinstance(key, bool) else len(order)
                )
                blocks[key] = b
                order.append(key)
            if delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
                b.parts.append(delta["text"])
            elif delta.get("type") == "input_json_delta" and isinstance(
                delta.get("partial_json"), str
            ):
                b.parts.append(delta["partial_json"])
        elif kind == "message_delta":
            delta = payload.get("delta")
            if isinstance(delta, dict) and isinstance(delta.get("stop_reason"), str):
                stop = delta["stop_reason"]
            usage.update(int_usage(payload.get("usage")))
        elif kind == "message_stop":
            done = True
        elif kind == "error":
            err = error_message(payload) or "stream error event"
    texts: list[str] = []
    calls = []
    uses: list[tuple[str, Any, Any, Any]] = []
    results: dict[Any, Any] = {}
    for key in order:
        b = blocks[key]
        if b.type == "text":
            texts.extend(b.parts)
        elif b.type in _TOOL_BLOCKS or b.type in _SERVER_BLOCKS:
            joined = "".join(b.parts)
            if joined.strip() == "" and isinstance(b.start_input, dict):
                raw: Any = b.start_input if b.start_input else joined
            else:
                raw = joined
            call = make_call(b.id, b.name, raw)
            if b.type in _TOOL_BLOCKS:
                calls.append(call)
            else:
                server_input = call.arguments if call.parse_error is None else call.arguments_raw
                uses.append((b.type, b.id, b.name, server_input))
        elif _server_result(b.type) and isinstance(b.tool_use_id, str):
            results[b.tool_use_id] = b.content
    return AssistantTurn(
        server_tools=_server_tools(uses, results),
        text=text_or_none(texts),
        calls=calls,
        finish_reason=stop,
        usage=usage,
        truncated=not done,
        raw_model=model,
        error=err,
    )


def anthropic_tool_results(body: Any) -> list[SentToolResult]:
    """Every ``tool_result`` block of the user messages of a messages request."""
    out: list[SentToolResult] = []
    for msg in dict_messages(body):
        if not isinstance(msg.get("content"), list):
            continue
        for block in msg["content"]:
            if not isinstance(block, dict) or block.get("type") != "tool_result":
                continue
            cid = block.get("tool_use_id")
            is_error = block.get("is_error")
            out.append(
                SentToolResult(
                    call_id=nonempty_str(cid),
                    content=joined_texts(block.get("content"), "text"),
                    is_error=is_error if isinstance(is_error, bool) else None,
                )
            )
    return out


def anthropic_echoed_calls(body: Any) -> list[list[EchoedCall]]:
    """The ``tool_use`` blocks of each assistant message of a request, in conversation order."""
    out: list[list[EchoedCall]] = []
    for content in assistant_lists(body, "content"):
        turn = [
            echoed_call(
                b.get("id"),
                b.get("name"),
                compact_json(b.get("input")) if b.get("input") is not None else None,
            )
            for b in content
            if isinstance(b, dict) and b.get("type") in _TOOL_BLOCKS
        ]
        if turn:
            out.append(turn)
    return out


def _anthropic_response(response: Any) -> bool:
    """A Messages answer: ``{"type": "message", "content": [...]}``, or its stream's first
    event (``message_start``)."""
    if isinstance(response, dict):
        return response.get("type") == "message" and isinstance(response.get("content"), list)
    if isinstance(response, str):
        return "event: message_start" in response[:2000]
    return False


def anthropic_shaped(probe: Probe) -> bool:
    """A ``messages`` request only Anthropic's API takes: a top-level ``system``, ``tool_use`` or
    ``tool_result`` content blocks, or one answered with ``anthropic-*`` headers."""
    body = probe.body
    if bedrock_shaped(body):
        return False  # Converse also has a top-level system, but blocks keyed by kind
    if body.get("system") is not None:
        return True
    for msg in body["messages"]:
        content = msg.get("content") if isinstance(msg, dict) else None
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result") for b in content
        ):
            return True
    return probe.has_header_prefix("anthropic-")


class AnthropicMessages(WireFormat):
    """``POST .../messages``; also a ``messages`` request in Anthropic's shape, or any request
    answered with ``anthropic-*`` headers."""

    name = WIRE_ANTHROPIC
    provider = "anthropic"
    title = "Anthropic messages"

    def detect(self, probe: Probe) -> int:
        if probe.path.endswith("/messages") and not probe.path.endswith("/count_tokens"):
            return DETECT_PATH
        body = probe.body
        if isinstance(body, dict) and isinstance(body.get("messages"), list):
            if bedrock_shaped(body) or bedrock_invoke_body(body):
                return DETECT_NONE  # Converse, or Claude through InvokeModel (its own format)
            if _anthropic_response(probe.response):
                # a plain first request (no system, no tool blocks) behind a redacted URL:
                # only the answer says whose API it was
                return DETECT_RESPONSE
            return DETECT_BODY if anthropic_shaped(probe) else DETECT_NONE
        return DETECT_HEADERS if probe.has_header_prefix("anthropic-") else DETECT_NONE

    parse_message = staticmethod(parse_anthropic_message)
    assemble_stream = staticmethod(parse_anthropic_sse)
    tool_results = staticmethod(anthropic_tool_results)
    echoed_calls = staticmethod(anthropic_echoed_calls)
    tool_specs = staticmethod(function_tool_specs)
    user_texts = staticmethod(messages_user_texts)


ANTHROPIC_MESSAGES = AnthropicMessages()

register_wire_format(ANTHROPIC_MESSAGES)
