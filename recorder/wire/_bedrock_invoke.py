"""AWS Bedrock ``InvokeModel`` and ``InvokeModelWithResponseStream``: a model's own format over AWS.

``POST /model/<id>/invoke`` sends and returns the model vendor's native body; this module reads
the vendors whose bodies carry tool calls: Anthropic's messages (``anthropic_version`` in the
request, a Messages response) and Amazon Nova's (Converse-shaped, ``schemaVersion:
messages-v1``, an ``output.message`` response). ``/invoke-with-response-stream`` answers with
an AWS event stream (:mod:`._eventstream`) whose ``chunk`` events hold ``{"bytes": base64}``,
each decoding to one event of the vendor's own stream: Anthropic's ``message_start``,
``content_block_delta``, ... or Nova's ``{"contentBlockDelta": {...}}``. The vendor's format
object does the parsing, so a Claude call reads the same through Bedrock as through Anthropic.

Bodies of other vendors (Titan, Llama, Mistral, embeddings) are not claimed: their exchanges
stay what body detection makes of them.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import replace
from typing import Any

from rejudge.recorder.wire._anthropic import ANTHROPIC_MESSAGES
from rejudge.recorder.wire._bedrock import (
    BEDROCK_CONVERSE,
    _AwsStreamed,
    assemble_converse_events,
    bedrock_invoke_body,
    bedrock_model_in_url,
    bedrock_shaped,
)
from rejudge.recorder.wire._common import (
    WIRE_BEDROCK_INVOKE,
    AssistantTurn,
    EchoedCall,
    SentToolResult,
    as_dict,
    compact_json,
    load_json_event,
    strict_loads,
)
from rejudge.recorder.wire._eventstream import decode_event_stream
from rejudge.recorder.wire._format import DETECT_BODY, DETECT_NONE, DETECT_PATH, Probe, WireFormat
from rejudge.recorder.wire._register import register_wire_format

from rejudge.model import ToolSpec

__all__ = ["parse_invoke_stream", "BedrockInvokeModel", "BEDROCK_INVOKE_MODEL"]

_PATH = re.compile(r"/model/[^/]+/(invoke|invoke-with-response-stream)$")


def _vendor(request_body: Any) -> WireFormat | None:
    """The format a request body is written in: Anthropic's, or Nova's Converse shape."""
    body = as_dict(request_body)
    if not isinstance(body.get("messages"), list):
        return None
    if "anthropic_version" in body:
        return ANTHROPIC_MESSAGES
    if body.get("schemaVersion") == "messages-v1" or bedrock_shaped(body):
        return BEDROCK_CONVERSE
    return None


def _chunk_events(data: bytes) -> tuple[list[dict[str, Any]], str | None, bool]:
    """The vendor events inside a stream's ``chunk`` messages, the exception the stream ended
    with (``None`` without one), and whether the framing broke off."""
    stream = decode_event_stream(data)
    events: list[dict[str, Any]] = []
    err: str | None = None
    for message in stream.messages:
        payload = as_dict(load_json_event(message.payload.decode("utf-8", errors="replace")))
        if message.message_type in ("exception", "error"):
            kind = message.event_type
            detail = payload.get("message") or payload.get("Message")
            err = f"{kind}: {detail}" if isinstance(detail, str) else (kind or "stream exception")
            continue
        if message.event_type != "chunk" or not isinstance(payload.get("bytes"), str):
            continue
        try:
            inner = strict_loads(base64.b64decode(payload["bytes"], validate=True))
        except (ValueError, binascii.Error, RecursionError):
            err = err or "a stream chunk's bytes are not base64 JSON"
            continue
        if isinstance(inner, dict):
            events.append(inner)
    return events, err, stream.fault is not None


def parse_invoke_stream(data: Any) -> AssistantTurn:
    """An ``InvokeModelWithResponseStream`` body, assembled by the vendor's own stream rules.

    Anthropic events are replayed as the server-sent events Anthropic's API would send (the
    same assembler reads both); Nova's keyed events go through the Converse assembler.
    """
    if isinstance(data, str):
        return AssistantTurn(
            truncated=True, error="event stream was stored as text: its binary framing is lost"
        )
    if not isinstance(data, (bytes, bytearray)):
        return AssistantTurn(truncated=True, error="event stream body is not bytes")
    events, err, cut = _chunk_events(bytes(data))
    if any(isinstance(e.get("type"), str) for e in events):
        sse = "".join(f"event: {e.get('type')}\ndata: {compact_json(e)}\n\n" for e in events)
        turn = ANTHROPIC_MESSAGES.assemble_stream(sse)
    elif events:
        # Nova: one key per event naming it, beside Bedrock's invocation metrics
        keyed = [
            (kind, as_dict(value))
            for e in events
            for kind, value in e.items()
            if not kind.startswith("amazon-bedrock-")
        ]
        turn = assemble_converse_events(keyed)
    else:
        turn = AssistantTurn(truncated=True)
    return replace(turn, truncated=turn.truncated or cut, error=err or turn.error)


class BedrockInvokeModel(_AwsStreamed):
    """``POST /model/<id>/invoke`` and ``/invoke-with-response-stream`` with an Anthropic or
    Nova body (found by path and body together: the path alone says nothing of the format), or
    such a body with Bedrock's version marker behind any URL."""

    name = WIRE_BEDROCK_INVOKE
    provider = "bedrock"
    title = "Bedrock InvokeModel (Anthropic, Nova)"

    def detect(self, probe: Probe) -> int:
        if _vendor(probe.body) is None:
            return DETECT_NONE
        if _PATH.search(probe.path):
            return DETECT_PATH
        # behind a redacted URL, the body's Bedrock-only version marker still says it
        return DETECT_BODY if bedrock_invoke_body(probe.body) else DETECT_NONE

    model_in_url = staticmethod(bedrock_model_in_url)

    def parse_message(self, body: dict[str, Any]) -> AssistantTurn:
        # the response's own shape names its vendor (no request body reaches a parser)
        if isinstance(body.get("output"), dict) or "stopReason" in body:
            return BEDROCK_CONVERSE.parse_message(body)
        return ANTHROPIC_MESSAGES.parse_message(body)

    assemble_stream = staticmethod(parse_invoke_stream)

    def tool_results(self, request_body: Any) -> list[SentToolResult]:
        vendor = _vendor(request_body)
        return vendor.tool_results(request_body) if vendor is not None else []

    def echoed_calls(self, request_body: Any) -> list[list[EchoedCall]]:
        vendor = _vendor(request_body)
        return vendor.echoed_calls(request_body) if vendor is not None else []

    def tool_specs(self, request_body: Any) -> list[ToolSpec]:
        vendor = _vendor(request_body)
        return vendor.tool_specs(request_body) if vendor is not None else []

    def user_texts(self, request_body: Any) -> list[str]:
        vendor = _vendor(request_body)
        return vendor.user_texts(request_body) if vendor is not None else []


BEDROCK_INVOKE_MODEL = BedrockInvokeModel()

register_wire_format(BEDROCK_INVOKE_MODEL)
