"""Cohere v2 chat (``POST /v2/chat``): ``message.tool_calls`` responses and their SSE stream.

Requests look like OpenAI chat (``messages`` with ``tool_calls`` and ``role: tool`` results,
``tools[].function``), so the path decides, or the response's shape: a top-level ``message`` and
``finish_reason`` where chat completions have ``choices``. A stream is typed events
(``message-start``, ``content-delta``, ``tool-call-start``/``-delta``/``-end``, ``message-end``)
whose payload nests under ``delta.message``; tool-call argument fragments concatenate per
``index``.
"""

from __future__ import annotations

from typing import Any

from rejudge.recorder.wire._common import (
    WIRE_COHERE,
    AssistantTurn,
    as_dict,
    cohere_usage,
    iter_sse,
    listed,
    load_json_event,
    make_call,
    text_or_none,
    unreadable_calls,
)
from rejudge.recorder.wire._format import (
    Probe,
    detect_chat_answered,
    is_event_stream,
)
from rejudge.recorder.wire._openai_chat import ChatCompletionsRequests
from rejudge.recorder.wire._partial import PartialCall
from rejudge.recorder.wire._register import register_wire_format

from rejudge.model import ToolCall

__all__ = ["parse_cohere_chat", "parse_cohere_sse", "CohereChat", "COHERE_CHAT"]

_STREAM_EVENTS = (
    "message-start",
    "content-start",
    "content-delta",
    "tool-call-start",
    "tool-call-delta",
    "tool-call-end",
    "message-end",
    "tool-plan-delta",
)


def _text(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    return (
        [
            b["text"]
            for b in content
            if isinstance(content, list)
            and isinstance(b, dict)
            and b.get("type") in (None, "text")
            and isinstance(b.get("text"), str)
        ]
        if isinstance(content, list)
        else []
    )


def parse_cohere_chat(body: dict[str, Any]) -> AssistantTurn:
    """A non-streaming v2 chat response: ``message.content`` text and ``message.tool_calls``."""
    if not isinstance(body, dict):
        return AssistantTurn(error="response body is not a JSON object")
    message = body.get("message")
    err = None
    if not isinstance(message, dict):
        detail = body.get("message") if isinstance(body.get("message"), str) else None
        err = detail or "response has no message"
        message = {}
    calls = []
    raw = message.get("tool_calls")
    for tc in listed(raw):
        if isinstance(tc, dict):
            fn = as_dict(tc.get("function"))
            calls.append(make_call(tc.get("id"), fn.get("name"), fn.get("arguments")))
    calls += unreadable_calls(raw)
    finish = body.get("finish_reason")
    if err is None and finish == "ERROR":
        err = "the model's generation failed"
    return AssistantTurn(
        text=text_or_none(_text(message.get("content"))),
        calls=calls,
        finish_reason=finish if isinstance(finish, str) else None,
        usage=cohere_usage(body.get("usage")),
        error=err,
    )


def _delta_tool_calls(delta: dict[str, Any]) -> Any:
    return as_dict(delta.get("message")).get("tool_calls")


def _delta_calls(calls: Any) -> list[dict[str, Any]]:
    # one call object per event (some servers send a one-element list)
    if isinstance(calls, dict):
        return [calls]
    return [c for c in listed(calls) if isinstance(c, dict)]


def parse_cohere_sse(text: str) -> AssistantTurn:
    """A v2 chat stream. Without ``message-end`` the turn is ``truncated``; unknown event types
    (citations, future ones) are skipped."""
    if not isinstance(text, str):
        return AssistantTurn(truncated=True, error="stream body is not text")
    texts: list[str] = []
    calls: dict[Any, PartialCall] = {}
    opened: list[Any] = []  # the keys of ``calls``, in the order their calls opened
    # every call in its place: a key of ``calls``, or the position of an unreadable one
    order: list[Any] = []
    unreadable: dict[Any, ToolCall] = {}
    finish: str | None = None
    usage: dict[str, int] = {}
    done = False
    err: str | None = None
    for event, data in iter_sse(text):
        payload = as_dict(load_json_event(data))
        kind = payload.get("type") or event
        delta = as_dict(payload.get("delta"))
        index = payload.get("index")
        key = index if isinstance(index, int) and not isinstance(index, bool) else None
        if kind == "content-delta":
            content = as_dict(as_dict(delta.get("message")).get("content"))
            if isinstance(content.get("text"), str):
                texts.append(content["text"])
        elif kind in ("tool-call-start", "tool-call-delta"):
            raw = _delta_tool_calls(delta)
            if not isinstance(raw, dict) and unreadable_calls(raw):
                # a tool_calls that is no object nor list is kept as one unreadable call where
                # it came, as a whole response's is, not opened as an empty well-formed call
                place = ("unreadable", len(order))
                [unreadable[place]] = unreadable_calls(raw)
                order.append(place)
                continue
            if key is None:  # no index: a start opens a call, a delta continues the last one
                key = len(opened) if kind == "tool-call-start" or not opened else opened[-1]
            call = calls.get(key)
            if call is None:
                call = calls[key] = PartialCall()
                opened.append(key)
                order.append(key)
            for tc in _delta_calls(raw):
                fn = as_dict(tc.get("function"))
                if call.id is None and isinstance(tc.get("id"), str):
                    call.id = tc["id"]
                if call.name is None and isinstance(fn.get("name"), str):
                    call.name = fn["name"]
                if isinstance(fn.get("arguments"), str):
                    call.parts.append(fn["arguments"])
        elif kind == "message-end":
            done = True
            if isinstance(delta.get("finish_reason"), str):
                finish = delta["finish_reason"]
            usage = cohere_usage(delta.get("usage")) or usage
            err = _end_error(delta) or err
    return AssistantTurn(
        text=text_or_none(texts),
        calls=[unreadable[k] if k in unreadable else calls[k].call() for k in order],
        finish_reason=finish,
        usage=usage,
        truncated=not done,
        error=err,
    )


def _end_error(end: dict[str, Any]) -> str | None:
    """The error a stream's ``message-end`` (``finish_reason: ERROR``) reports."""
    error = end.get("error")
    if not isinstance(error, str) or not error:
        return "the model's generation failed" if end.get("finish_reason") == "ERROR" else None
    kind = end.get("error_type")
    return f"{kind}: {error}" if isinstance(kind, str) and kind else error


def _cohere_response(response: Any) -> bool:
    if isinstance(response, dict):
        # Ollama's answers also hold a top-level message, beside a boolean ``done``
        return (
            isinstance(response.get("message"), dict)
            and "choices" not in response
            and "done" not in response
        )
    if isinstance(response, str) and is_event_stream(response):
        head = response[:2000]
        return any(f'"type":"{e}"' in head or f"event: {e}" in head for e in _STREAM_EVENTS)
    return False


class CohereChat(ChatCompletionsRequests):
    """``POST .../v2/chat``; also a chat-shaped request answered in Cohere's shape. Its requests
    are chat completions' (``role: tool`` messages; document contents are kept as sent)."""

    name = WIRE_COHERE
    provider = "cohere"
    title = "Cohere v2 chat"

    def detect(self, probe: Probe) -> int:
        return detect_chat_answered(probe, "/v2/chat", _cohere_response)

    def other_endpoint(self, probe: Probe) -> bool:
        # embeddings and reranking (v1 and v2) carry no chat turn
        return probe.last_segment in ("embed", "rerank", "tokenize", "detokenize", "classify")

    parse_message = staticmethod(parse_cohere_chat)
    assemble_stream = staticmethod(parse_cohere_sse)


COHERE_CHAT = CohereChat()

register_wire_format(COHERE_CHAT)
