"""AWS Bedrock Converse: ``/model/<id>/converse`` (JSON) and ``/converse-stream`` (event stream).

Requests carry ``messages`` whose content blocks are keyed by kind, with no ``type`` field
(``{"text"}``, ``{"toolUse": {toolUseId, name, input}}``, ``{"toolResult": {toolUseId, content,
status}}``), a ``system`` list and ``toolConfig.tools[].toolSpec``. A response holds
``output.message``; a stream is AWS's binary event stream (:mod:`._eventstream`) of
``messageStart``, ``contentBlockStart``/``Delta``/``Stop``, ``messageStop`` and ``metadata``
events, whose tool input arrives as JSON text fragments per ``contentBlockIndex``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import unquote, urlsplit

from rejudge.recorder.wire._common import (
    WIRE_BEDROCK,
    AssistantTurn,
    EchoedCall,
    SentToolResult,
    as_dict,
    assistant_lists,
    compact_json,
    dict_messages,
    echoed_call,
    load_json_event,
    make_call,
    named_counts,
    nonempty_str,
    strict_loads,
    text_or_none,
    tool_spec,
)
from rejudge.recorder.wire._eventstream import decode_event_stream, looks_like_event_stream
from rejudge.recorder.wire._format import (
    DETECT_BODY,
    DETECT_NONE,
    DETECT_PATH,
    DETECT_RESPONSE,
    Probe,
    WireFormat,
    header_value,
)
from rejudge.recorder.wire._partial import PartialCall
from rejudge.recorder.wire._register import register_wire_format

from rejudge.model import ToolCall, ToolSpec

__all__ = [
    "parse_bedrock_converse",
    "parse_bedrock_stream",
    "assemble_converse_events",
    "bedrock_shaped",
    "bedrock_invoke_body",
    "bedrock_model_in_url",
    "BedrockConverse",
    "BEDROCK_CONVERSE",
]

_PATH = re.compile(r"/model/[^/]+/(converse|converse-stream)$")
_BLOCK_KEYS = frozenset(
    {
        "text",
        "toolUse",
        "toolResult",
        "image",
        "document",
        "video",
        "reasoningContent",
        "cachePoint",
        "guardContent",
        "citationsContent",
    }
)


_USAGE_NAMES = (
    ("inputTokens", "input_tokens"),
    ("outputTokens", "output_tokens"),
    ("totalTokens", "total_tokens"),
    ("cacheReadInputTokens", "cache_read_input_tokens"),
    ("cacheWriteInputTokens", "cache_creation_input_tokens"),
)


def _usage(usage: Any) -> dict[str, int]:
    return named_counts(usage, _USAGE_NAMES)


def _error(body: dict[str, Any]) -> str | None:
    # AWS errors: {"message": ...} (with the type in a header), sometimes {"Message": ...}
    for key in ("message", "Message"):
        message = body.get(key)
        if isinstance(message, str) and "output" not in body:
            return message
    return None


def _content_turn(content: Any) -> tuple[list[str], list[ToolCall]]:
    texts: list[str] = []
    calls = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if isinstance(block.get("text"), str):
            texts.append(block["text"])
        use = block.get("toolUse")
        if isinstance(use, dict):
            raw = use.get("input")
            calls.append(
                make_call(use.get("toolUseId"), use.get("name"), raw if raw is not None else {})
            )
    return texts, calls


def parse_bedrock_converse(body: dict[str, Any]) -> AssistantTurn:
    """A ``Converse`` response: ``output.message.content`` blocks, ``stopReason``, ``usage``."""
    if not isinstance(body, dict):
        return AssistantTurn(error="response body is not a JSON object")
    err = _error(body)
    message = as_dict(as_dict(body.get("output")).get("message"))
    if not message and err is None:
        err = "response has no output message"
    texts, calls = _content_turn(message.get("content"))
    stop = body.get("stopReason")
    return AssistantTurn(
        text=text_or_none(texts),
        calls=calls,
        finish_reason=stop if isinstance(stop, str) else None,
        usage=_usage(body.get("usage")),
        error=err,
    )


@dataclass
class _Block(PartialCall):
    """A content block of a stream: text, or (``tool``) a tool use's id, name and input."""

    tool: bool = False


def parse_bedrock_stream(data: Any) -> AssistantTurn:
    """A ``ConverseStream`` body: the binary event stream, assembled per content block.

    A stream without ``messageStop`` (or cut inside a message) is ``truncated``; an exception
    message (``:message-type: exception``) sets ``error``; events of unknown types are skipped.
    """
    if isinstance(data, str):
        return AssistantTurn(
            truncated=True, error="event stream was stored as text: its binary framing is lost"
        )
    if not isinstance(data, (bytes, bytearray)):
        return AssistantTurn(truncated=True, error="event stream body is not bytes")
    stream = decode_event_stream(bytes(data))
    events: list[tuple[str | None, dict[str, Any]]] = []
    err: str | None = None
    for message in stream.messages:
        payload = as_dict(load_json_event(message.payload.decode("utf-8", errors="replace")))
        kind = message.event_type
        if message.message_type in ("exception", "error"):
            detail = payload.get("message") or payload.get("Message")
            err = f"{kind}: {detail}" if isinstance(detail, str) else (kind or "stream exception")
            continue
        events.append((kind, payload))
    turn = assemble_converse_events(events)
    return replace(
        turn, truncated=turn.truncated or stream.fault is not None, error=err or turn.error
    )


def assemble_converse_events(events: Iterable[tuple[str | None, dict[str, Any]]]) -> AssistantTurn:
    """Converse stream events (``(type, payload)`` in order: ``contentBlockStart``/``Delta``,
    ``messageStop``, ``metadata``), assembled per content block; no ``messageStop`` means
    ``truncated``. InvokeModel streams of Amazon Nova carry the same events inside their
    ``chunk`` payloads (:mod:`._bedrock_invoke`)."""
    blocks: dict[Any, _Block] = {}
    order: list[Any] = []
    stop: str | None = None
    usage: dict[str, int] = {}
    done = False

    def block(key: Any) -> _Block:
        found = blocks.get(key)
        if found is None:
            found = blocks[key] = _Block()
            order.append(key)
        return found

    for kind, payload in events:
        key = payload.get("contentBlockIndex", len(order))
        if isinstance(key, bool) or not isinstance(key, (int, str)):
            key = len(order)
        if kind == "contentBlockStart":
            use = as_dict(as_dict(payload.get("start")).get("toolUse"))
            b = block(key)
            if use:
                b.tool, b.id, b.name = True, use.get("toolUseId"), use.get("name")
        elif kind == "contentBlockDelta":
            delta = as_dict(payload.get("delta"))
            b = block(key)
            if isinstance(delta.get("text"), str):
                b.parts.append(delta["text"])
            delta_use = delta.get("toolUse")
            if isinstance(delta_use, dict) and isinstance(delta_use.get("input"), str):
                b.tool = True
                b.parts.append(delta_use["input"])
        elif kind == "messageStop":
            done = True
            if isinstance(payload.get("stopReason"), str):
                stop = payload["stopReason"]
        elif kind == "metadata":
            usage = _usage(payload.get("usage")) or usage
    texts: list[str] = []
    calls = []
    for key in order:
        b = blocks[key]
        if b.tool:
            calls.append(b.call())
        else:
            texts.extend(b.parts)
    return AssistantTurn(
        text=text_or_none(texts),
        calls=calls,
        finish_reason=stop,
        usage=usage,
        truncated=not done,
    )


def _blocks_shaped(messages: Any) -> bool:
    """Converse content blocks: dicts keyed by kind (``text``, ``toolUse``...), never ``type``."""
    seen = False
    for msg in messages if isinstance(messages, list) else []:
        content = msg.get("content") if isinstance(msg, dict) else None
        if not isinstance(content, list):
            return False
        for b in content:
            if not isinstance(b, dict) or "type" in b or not (set(b) & _BLOCK_KEYS):
                return False
            seen = True
    return seen


def bedrock_invoke_body(body: Any) -> bool:
    """A body only Bedrock's InvokeModel takes: Anthropic's messages with Bedrock's
    ``anthropic_version``, or Nova's ``schemaVersion: messages-v1`` (Converse has neither)."""
    if not isinstance(body, dict):
        return False
    version = body.get("anthropic_version")
    return (isinstance(version, str) and version.startswith("bedrock-")) or body.get(
        "schemaVersion"
    ) == "messages-v1"


def bedrock_shaped(body: Any) -> bool:
    """A request body in Converse's shape: ``toolConfig``/``inferenceConfig``, or messages whose
    every content block is keyed by kind with no ``type`` (which no other format sends), and
    not an InvokeModel body (:func:`bedrock_invoke_body`)."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return False
    if bedrock_invoke_body(body):
        return False
    if "model" in body:  # Converse names the model in the path, never in the body
        return False
    if isinstance(body.get("toolConfig"), dict) or isinstance(body.get("inferenceConfig"), dict):
        return True
    return _blocks_shaped(body["messages"])


class _AwsStreamed(WireFormat):
    """A Bedrock API, whose streamed responses are AWS event streams (binary, not SSE): such a
    body is :meth:`assemble_stream`'s, other bytes are JSON."""

    def streamed(self, body: Any, response_headers: Mapping[str, Any] | None) -> bool:
        """The response body is an AWS event stream."""
        return looks_like_event_stream(body)

    def parse_response(
        self, body: Any, response_headers: Mapping[str, Any] | None = None
    ) -> AssistantTurn:
        if self.streamed(body, response_headers):
            return self.assemble_stream(body)
        if isinstance(body, (bytes, bytearray)):
            try:
                body = strict_loads(bytes(body))
            except (ValueError, RecursionError, UnicodeDecodeError):
                return AssistantTurn(error="response body is neither JSON nor an event stream")
        return super().parse_response(body, response_headers)


class BedrockConverse(_AwsStreamed):
    """``POST /model/<id>/converse`` and ``/converse-stream``; also a Converse-shaped body, or a
    ``messages`` request answered with an AWS event stream."""

    name = WIRE_BEDROCK
    provider = "bedrock"
    title = "Bedrock Converse"

    def detect(self, probe: Probe) -> int:
        if _PATH.search(probe.path):
            return DETECT_PATH
        if bedrock_shaped(probe.body):
            response = probe.response
            if isinstance(response, dict) and isinstance(response.get("output"), dict):
                return DETECT_RESPONSE
            if looks_like_event_stream(response):
                return DETECT_RESPONSE
            return DETECT_BODY
        return DETECT_NONE

    def other_endpoint(self, probe: Probe) -> bool:
        # counting a Bedrock model's tokens carries no turn (InvokeModel may: its body is the
        # model vendor's own format, which body detection finds)
        return "/model/" in probe.path and probe.last_segment == "count-tokens"

    def model_in_url(self, url: str) -> str | None:
        return bedrock_model_in_url(url)

    parse_message = staticmethod(parse_bedrock_converse)
    assemble_stream = staticmethod(parse_bedrock_stream)

    def streamed(self, body: Any, response_headers: Mapping[str, Any] | None) -> bool:
        ctype = (header_value(response_headers, "content-type") or "").lower()
        return "vnd.amazon.eventstream" in ctype or looks_like_event_stream(body)

    def tool_results(self, request_body: Any) -> list[SentToolResult]:
        out: list[SentToolResult] = []
        for msg in dict_messages(request_body):
            content = msg.get("content")
            for b in content if isinstance(content, list) else []:
                result = b.get("toolResult") if isinstance(b, dict) else None
                if not isinstance(result, dict):
                    continue
                cid = result.get("toolUseId")
                status = result.get("status")
                out.append(
                    SentToolResult(
                        call_id=nonempty_str(cid),
                        content=_result_content(result.get("content")),
                        is_error=(status == "error") if isinstance(status, str) else None,
                    )
                )
        return out

    def echoed_calls(self, request_body: Any) -> list[list[EchoedCall]]:
        out: list[list[EchoedCall]] = []
        for content in assistant_lists(request_body, "content"):
            turn = []
            for b in content:
                use = b.get("toolUse") if isinstance(b, dict) else None
                if isinstance(use, dict):
                    # an ``input`` sent as null is echoed as such
                    raw = compact_json(use["input"]) if "input" in use else None
                    turn.append(echoed_call(use.get("toolUseId"), use.get("name"), raw))
            if turn:
                out.append(turn)
        return out

    def tool_specs(self, request_body: Any) -> list[ToolSpec]:
        tools = as_dict(as_dict(request_body).get("toolConfig")).get("tools")
        out: list[ToolSpec | None] = []
        for tool in tools if isinstance(tools, list) else []:
            spec = as_dict(as_dict(tool).get("toolSpec"))
            schema = as_dict(spec.get("inputSchema")).get("json")
            out.append(tool_spec(spec.get("name"), spec.get("description"), schema))
        return [s for s in out if s is not None]

    def user_texts(self, request_body: Any) -> list[str]:
        out = []
        for msg in dict_messages(request_body):
            if msg.get("role") != "user" or not isinstance(msg.get("content"), list):
                continue
            parts = [
                b["text"]
                for b in msg["content"]
                if isinstance(b, dict) and isinstance(b.get("text"), str)
            ]
            if parts:
                out.append("\n".join(parts))
        return out


def bedrock_model_in_url(url: str) -> str | None:
    """The model of ``/model/<id>/...`` (Converse and InvokeModel), its id percent-decoded
    (``amazon.nova-micro-v1%3A0``)."""
    found = re.search(r"/model/([^/]+)/", urlsplit(url).path)
    return unquote(found.group(1)) if found else None


def _result_content(content: Any) -> Any:
    """``[{"text": ...}]`` joins to text; a lone ``{"json": value}`` is the value."""
    if not isinstance(content, list):
        return content
    if len(content) == 1 and isinstance(content[0], dict) and "json" in content[0]:
        return content[0]["json"]
    parts = [b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
    if len(parts) == len(content):
        return "".join(parts)
    return content


BEDROCK_CONVERSE = BedrockConverse()

register_wire_format(BEDROCK_CONVERSE)
