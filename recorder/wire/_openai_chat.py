"""OpenAI chat completions: responses (JSON and SSE) and the tool results a request sends back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rejudge.recorder.wire._anthropic import anthropic_shaped
from rejudge.recorder.wire._common import (
    WIRE_OPENAI_CHAT,
    AssistantTurn,
    EchoedCall,
    SentToolResult,
    as_dict,
    error_message,
    first_user_text_of,
    function_tool_specs,
    int_usage,
    iter_sse,
    load_json_event,
    make_call,
    text_or_none,
)
from rejudge.recorder.wire._format import DETECT_BODY, DETECT_NONE, DETECT_PATH, Probe, WireFormat
from rejudge.store import ToolSpec

__all__ = [
    "parse_openai_chat",
    "parse_openai_chat_sse",
    "openai_chat_tool_results",
    "openai_chat_echoed_calls",
    "OpenAIChat",
    "OPENAI_CHAT",
]


def _first_choice(body: dict[str, Any]) -> dict[str, Any] | None:
    choices = body.get("choices")
    if not isinstance(choices, list):
        return None
    dicts = [c for c in choices if isinstance(c, dict)]
    for choice in dicts:
        if choice.get("index", 0) == 0:
            return choice
    return dicts[0] if dicts else None


def _content_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content if content != "" else None
    if isinstance(content, list):  # content parts
        parts = [
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        ]
        return text_or_none(parts)
    return None


def parse_openai_chat(body: dict[str, Any]) -> AssistantTurn:
    """A non-streaming chat completion (``choices[0].message``)."""
    if not isinstance(body, dict):
        return AssistantTurn(error="response body is not a JSON object")
    model = body.get("model") if isinstance(body.get("model"), str) else None
    usage = int_usage(body.get("usage"))
    err = error_message(body)
    choice = _first_choice(body)
    if choice is None:
        return AssistantTurn(usage=usage, raw_model=model, error=err or "response has no choices")
    message = choice.get("message")
    if not isinstance(message, dict):
        message = {}
    calls = []
    tool_calls = message.get("tool_calls")
    if isinstance(tool_calls, list):
        for tc in tool_calls:
            if not isinstance(tc, dict):
                continue
            fn = as_dict(tc.get("function"))
            calls.append(make_call(tc.get("id"), fn.get("name"), fn.get("arguments")))
    # the legacy single function_call field
    fc = message.get("function_call")
    if not calls and isinstance(fc, dict):
        calls.append(make_call(None, fc.get("name"), fc.get("arguments")))
    finish = choice.get("finish_reason")
    return AssistantTurn(
        text=_content_text(message.get("content")),
        calls=calls,
        finish_reason=finish if isinstance(finish, str) else None,
        usage=usage,
        raw_model=model,
        error=err,
    )


@dataclass
class _PartialCall:
    id: str | None = None
    name: str | None = None
    args: list[str] = field(default_factory=list)


def parse_openai_chat_sse(text: str) -> AssistantTurn:
    """A streamed chat completion: ``data:`` chunks up to ``data: [DONE]``.

    Argument fragments concatenate per tool-call ``index``; id and name come from the first delta
    that carries them (some servers repeat the name in every delta). A delta without ``index``
    continues the current call unless it brings a new id or a different name. A stream with
    neither ``[DONE]`` nor a finish reason is ``truncated``.
    """
    if not isinstance(text, str):
        return AssistantTurn(truncated=True, error="stream body is not text")
    text_parts: list[str] = []
    calls: dict[Any, _PartialCall] = {}
    order: list[Any] = []
    current: Any = None
    finish: str | None = None
    usage: dict[str, int] = {}
    model: str | None = None
    done = False
    err: str | None = None
    auto_key = 0
    for _event, data in iter_sse(text):
        if data.strip() == "[DONE]":
            done = True
            continue
        chunk = load_json_event(data)
        if not isinstance(chunk, dict):
            continue
        chunk_err = error_message(chunk)
        if chunk_err is not None:
            err = chunk_err
        if model is None and isinstance(chunk.get("model"), str):
            model = chunk["model"]
        if isinstance(chunk.get("usage"), dict):
            usage = int_usage(chunk["usage"]) or usage
        choice = _first_choice(chunk)
        if choice is None:
            continue
        if isinstance(choice.get("finish_reason"), str):
            finish = choice["finish_reason"]
        delta = choice.get("delta")
        if not isinstance(delta, dict):
            continue
        content = delta.get("content")
        if isinstance(content, str):
            text_parts.append(content)
        tool_calls = delta.get("tool_calls")
        if not isinstance(tool_calls, list):
            continue
        for tc in tool_calls:
            if not isinstance(tc, dict):
                continue
            fn = as_dict(tc.get("function"))
            tc_id = tc.get("id") if isinstance(tc.get("id"), str) and tc.get("id") else None
            name = fn.get("name") if isinstance(fn.get("name"), str) and fn.get("name") else None
            index = tc.get("index")
            if isinstance(index, int) and not isinstance(index, bool):
                key: Any = ("i", index)
            else:
                cur = calls.get(current)
                new = (
                    cur is None
                    or (tc_id is not None and cur.id is not None and tc_id != cur.id)
                    or (tc_id is None and name is not None and cur.name not in (None, name))
                )
                if new:
                    key = ("auto", auto_key)
                    auto_key += 1
                else:
                    key = current
            partial = calls.get(key)
            if partial is None:
                partial = calls[key] = _PartialCall()
                order.append(key)
            current = key
            if partial.id is None and tc_id is not None:
                partial.id = tc_id
            if partial.name is None and name is not None:
                partial.name = name
            args = fn.get("arguments")
            if isinstance(args, str):
                partial.args.append(args)
    # calls in index order (indexed ones sorted, un-indexed ones in arrival order after them)
    indexed = sorted((k for k in order if k[0] == "i"), key=lambda k: k[1])
    rest = [k for k in order if k[0] != "i"]
    out = [make_call(calls[k].id, calls[k].name, "".join(calls[k].args)) for k in indexed + rest]
    return AssistantTurn(
        text=text_or_none(text_parts),
        calls=out,
        finish_reason=finish,
        usage=usage,
        truncated=not done and finish is None,
        raw_model=model,
        error=err,
    )


def _message_text(content: Any) -> Any:
    if isinstance(content, list):
        parts = [
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        ]
        if len(parts) == len(content):
            return "".join(parts)
    return content


def openai_chat_tool_results(body: Any) -> list[SentToolResult]:
    """Every ``role: tool`` message of a chat request (the legacy ``role: function`` too)."""
    out: list[SentToolResult] = []
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return out
    for msg in body["messages"]:
        if not isinstance(msg, dict):
            continue
        role = msg.get("role")
        if role == "tool":
            cid = msg.get("tool_call_id")
            out.append(
                SentToolResult(
                    call_id=cid if isinstance(cid, str) and cid else None,
                    content=_message_text(msg.get("content")),
                    name=msg.get("name") if isinstance(msg.get("name"), str) else None,
                )
            )
        elif role == "function":
            out.append(
                SentToolResult(
                    call_id=None,
                    content=_message_text(msg.get("content")),
                    name=msg.get("name") if isinstance(msg.get("name"), str) else None,
                )
            )
    return out


def openai_chat_echoed_calls(body: Any) -> list[list[EchoedCall]]:
    """The tool calls of each assistant message of a chat request, in conversation order."""
    out: list[list[EchoedCall]] = []
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return out
    for msg in body["messages"]:
        if not isinstance(msg, dict) or msg.get("role") != "assistant":
            continue
        tool_calls = msg.get("tool_calls")
        if not isinstance(tool_calls, list) or not tool_calls:
            continue
        turn = []
        for tc in tool_calls:
            if not isinstance(tc, dict):
                continue
            fn = as_dict(tc.get("function"))
            cid = tc.get("id")
            args = fn.get("arguments")
            turn.append(
                EchoedCall(
                    id=cid if isinstance(cid, str) and cid else None,
                    name=fn.get("name") if isinstance(fn.get("name"), str) else None,
                    arguments_raw=args if isinstance(args, str) else None,
                )
            )
        out.append(turn)
    return out


class OpenAIChat(WireFormat):
    """``POST .../chat/completions``; also any ``messages`` request Anthropic would not send."""

    name = WIRE_OPENAI_CHAT
    provider = "openai"

    def detect(self, probe: Probe) -> int:
        if probe.path.endswith("/chat/completions") or probe.path == "chat/completions":
            return DETECT_PATH
        body = probe.body
        if (
            isinstance(body, dict)
            and isinstance(body.get("messages"), list)
            and not anthropic_shaped(probe)
        ):
            return DETECT_BODY
        return DETECT_NONE

    def other_endpoint(self, probe: Probe) -> bool:
        # legacy text completions and model listings (also served by compatible servers)
        return probe.path.endswith("/completions") or probe.path.endswith("/models")

    def parse_message(self, body: dict[str, Any]) -> AssistantTurn:
        return parse_openai_chat(body)

    def assemble_stream(self, text: str) -> AssistantTurn:
        return parse_openai_chat_sse(text)

    def tool_results(self, request_body: Any) -> list[SentToolResult]:
        return openai_chat_tool_results(request_body)

    def echoed_calls(self, request_body: Any) -> list[list[EchoedCall]]:
        return openai_chat_echoed_calls(request_body)

    def tool_specs(self, request_body: Any) -> list[ToolSpec]:
        return function_tool_specs(request_body)

    def first_user_text(self, request_body: Any) -> str | None:
        if not isinstance(request_body, dict):
            return None
        return first_user_text_of(request_body.get("messages"))


OPENAI_CHAT = OpenAIChat()
