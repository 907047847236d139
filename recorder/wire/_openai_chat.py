"""OpenAI chat completions: responses (JSON and SSE) and the tool results a request sends back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rejudge.recorder.wire._anthropic import anthropic_shaped
from rejudge.recorder.wire._bedrock import bedrock_shaped
from rejudge.recorder.wire._common import (
    WIRE_OPENAI_CHAT,
    AssistantTurn,
    EchoedCall,
    SentToolResult,
    as_dict,
    assistant_lists,
    dict_messages,
    echoed_call,
    error_message,
    function_tool_specs,
    int_usage,
    iter_sse,
    joined_texts,
    listed,
    load_json_event,
    make_call,
    make_freeform_call,
    messages_user_texts,
    nonempty_str,
    stream_head,
    text_or_none,
    unreadable_calls,
)
from rejudge.recorder.wire._format import (
    DETECT_BODY,
    DETECT_NONE,
    DETECT_PATH,
    Probe,
    WireFormat,
    is_event_stream,
)
from rejudge.recorder.wire._partial import PartialCall
from rejudge.recorder.wire._register import register_wire_format

from rejudge.model import Alternative, ToolCall

__all__ = [
    "parse_openai_chat",
    "parse_openai_chat_sse",
    "openai_chat_tool_results",
    "openai_chat_echoed_calls",
    "OpenAIChat",
    "OPENAI_CHAT",
]


def _choices(body: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """The choices of a response or chunk by their ``index`` (a choice without one takes its
    place in the list): ``n > 1`` responses carry several, and a stream chunk may carry only
    choice 1, so choices are told apart by index, never by position alone."""
    choices = body.get("choices")
    out: dict[int, dict[str, Any]] = {}
    if not isinstance(choices, list):
        return out
    for position, choice in enumerate(choices):
        if not isinstance(choice, dict):
            continue
        index = choice.get("index")
        key = index if isinstance(index, int) and not isinstance(index, bool) else position
        out.setdefault(key, choice)
    return out


def _content_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content if content != "" else None
    if isinstance(content, list):  # content parts
        parts = [
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        ]
        return text_or_none(parts)
    return None


def _tool_call(tc: dict[str, Any]) -> ToolCall:
    """One ``tool_calls`` entry: a function call, or a custom (freeform) tool's call."""
    custom = tc.get("custom")
    if tc.get("type") == "custom" or (isinstance(custom, dict) and "function" not in tc):
        custom = as_dict(custom)
        return make_freeform_call(tc.get("id"), custom.get("name"), custom.get("input"))
    fn = as_dict(tc.get("function"))
    return make_call(tc.get("id"), fn.get("name"), fn.get("arguments"))


def _message_calls(message: dict[str, Any]) -> list[ToolCall]:
    raw = message.get("tool_calls")
    calls = [_tool_call(tc) for tc in listed(raw) if isinstance(tc, dict)]
    # the legacy single function_call field (older clients, some compatible servers)
    fc = message.get("function_call")
    if not calls and isinstance(fc, dict):
        calls.append(make_call(None, fc.get("name"), fc.get("arguments")))
    return calls + unreadable_calls(raw)


def _finish_of(choice: dict[str, Any]) -> str | None:
    finish = choice.get("finish_reason")
    return finish if isinstance(finish, str) else None


def parse_openai_chat(body: dict[str, Any]) -> AssistantTurn:
    """A non-streaming chat completion: choice 0's ``message``; other choices (``n > 1``) are
    kept as alternatives, never merged into the turn."""
    if not isinstance(body, dict):
        return AssistantTurn(error="response body is not a JSON object")
    model = body.get("model") if isinstance(body.get("model"), str) else None
    usage = int_usage(body.get("usage"))
    err = error_message(body)
    choices = _choices(body)
    if not choices:
        return AssistantTurn(usage=usage, raw_model=model, error=err or "response has no choices")
    first = min(choices)
    alternatives = []
    for index in sorted(choices):
        if index == first:
            continue
        message = as_dict(choices[index].get("message"))
        alternatives.append(
            Alternative(
                choice=index,
                calls=_message_calls(message),
                text=_content_text(message.get("content")),
                finish_reason=_finish_of(choices[index]),
            )
        )
    choice = choices[first]
    message = as_dict(choice.get("message"))
    return AssistantTurn(
        text=_content_text(message.get("content")),
        calls=_message_calls(message),
        finish_reason=_finish_of(choice),
        usage=usage,
        raw_model=model,
        error=err,
        alternatives=alternatives,
    )


@dataclass
class _ChoiceStream:
    """What one choice of a stream has assembled so far."""

    text: list[str] = field(default_factory=list)
    calls: dict[Any, PartialCall] = field(default_factory=dict)
    order: list[Any] = field(default_factory=list)
    current: Any = None
    auto_key: int = 0
    finish: str | None = None
    #: deltas' ``tool_calls`` that were no list, kept as unreadable calls (as a response's are)
    unreadable: list[ToolCall] = field(default_factory=list)

    def add_delta(self, delta: dict[str, Any]) -> None:
        content = delta.get("content")
        if isinstance(content, str):
            self.text.append(content)
        fc = delta.get("function_call")
        if isinstance(fc, dict):  # legacy: one call, streamed in fragments of one object
            self._fragment(("fc", 0), None, fc.get("name"), fc.get("arguments"), False)
        tool_calls = delta.get("tool_calls")
        for tc in listed(tool_calls):
            if isinstance(tc, dict):
                self._tool_call_delta(tc)
        self.unreadable += unreadable_calls(tool_calls)

    def _tool_call_delta(self, tc: dict[str, Any]) -> None:
        custom = tc.get("custom")
        freeform = tc.get("type") == "custom" or isinstance(custom, dict)
        part = as_dict(custom) if freeform else as_dict(tc.get("function"))
        fragment = part.get("input") if freeform else part.get("arguments")
        tc_id = tc.get("id") if isinstance(tc.get("id"), str) and tc.get("id") else None
        name = part.get("name") if isinstance(part.get("name"), str) and part.get("name") else None
        index = tc.get("index")
        if isinstance(index, int) and not isinstance(index, bool):
            key: Any = ("i", index)
        else:
            cur = self.calls.get(self.current)
            new = (
                cur is None
                or (tc_id is not None and cur.id is not None and tc_id != cur.id)
                or (tc_id is None and name is not None and cur.name not in (None, name))
            )
            if new:
                key = ("auto", self.auto_key)
                self.auto_key += 1
            else:
                key = self.current
        self._fragment(key, tc_id, name, fragment, freeform)

    def _fragment(self, key: Any, tc_id: Any, name: Any, fragment: Any, freeform: bool) -> None:
        partial = self.calls.get(key)
        if partial is None:
            partial = self.calls[key] = PartialCall()
            self.order.append(key)
        self.current = key
        if partial.id is None and tc_id is not None:
            partial.id = tc_id
        if partial.name is None and isinstance(name, str) and name:
            partial.name = name
        partial.freeform = partial.freeform or freeform
        if isinstance(fragment, str):
            partial.parts.append(fragment)

    def assembled_calls(self) -> list[ToolCall]:
        # indexed calls sorted by index; un-indexed ones (and a legacy function_call) after them
        indexed = sorted((k for k in self.order if k[0] == "i"), key=lambda k: k[1])
        rest = [k for k in self.order if k[0] != "i"]
        return [self.calls[k].call() for k in indexed + rest] + self.unreadable


def parse_openai_chat_sse(text: str) -> AssistantTurn:
    """A streamed chat completion: ``data:`` chunks up to ``data: [DONE]``.

    Each choice assembles on its own (``n > 1`` streams interleave choices); choice 0 is the
    turn and the others are its alternatives. Argument fragments concatenate per tool-call
    ``index``; id and name come from the first delta that carries them (some servers repeat the
    name in every delta). A delta without ``index`` continues the current call unless it brings
    a new id or a different name. A stream with neither ``[DONE]`` nor a finish reason (of its
    first choice) is ``truncated``.
    """
    if not isinstance(text, str):
        return AssistantTurn(truncated=True, error="stream body is not text")
    streams: dict[int, _ChoiceStream] = {}
    usage: dict[str, int] = {}
    model: str | None = None
    done = False
    err: str | None = None
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
        for index, choice in _choices(chunk).items():
            stream = streams.get(index)
            if stream is None:
                stream = streams[index] = _ChoiceStream()
            if isinstance(choice.get("finish_reason"), str):
                stream.finish = choice["finish_reason"]
            delta = choice.get("delta")
            if isinstance(delta, dict):
                stream.add_delta(delta)
    first = min(streams) if streams else None
    main = streams[first] if first is not None else _ChoiceStream()
    alternatives = [
        Alternative(
            choice=index,
            calls=streams[index].assembled_calls(),
            text=text_or_none(streams[index].text),
            finish_reason=streams[index].finish,
        )
        for index in sorted(streams)
        if index != first
    ]
    return AssistantTurn(
        text=text_or_none(main.text),
        calls=main.assembled_calls(),
        finish_reason=main.finish,
        usage=usage,
        truncated=not done and main.finish is None,
        raw_model=model,
        error=err,
        alternatives=alternatives,
    )


def openai_chat_tool_results(body: Any) -> list[SentToolResult]:
    """Every ``role: tool`` message of a chat request (the legacy ``role: function`` too)."""
    out: list[SentToolResult] = []
    for msg in dict_messages(body):
        role = msg.get("role")
        if role in ("tool", "function"):
            # a legacy ``function`` result names no call
            cid = msg.get("tool_call_id") if role == "tool" else None
            out.append(
                SentToolResult(
                    call_id=nonempty_str(cid),
                    content=joined_texts(msg.get("content")),
                    name=msg.get("name") if isinstance(msg.get("name"), str) else None,
                )
            )
    return out


def openai_chat_echoed_calls(body: Any) -> list[list[EchoedCall]]:
    """The tool calls of each assistant message of a chat request, in conversation order."""
    out: list[list[EchoedCall]] = []
    for tool_calls in assistant_lists(body, "tool_calls"):
        if not tool_calls:
            continue
        turn = []
        for tc in tool_calls:
            if not isinstance(tc, dict):
                continue
            custom = tc.get("type") == "custom" or isinstance(tc.get("custom"), dict)
            fn = as_dict(tc.get("custom") if custom else tc.get("function"))
            cid = tc.get("id")
            args = fn.get("input") if custom else fn.get("arguments")
            turn.append(echoed_call(cid, fn.get("name"), args if isinstance(args, str) else None))
        out.append(turn)
    return out


def _chat_response(response: Any) -> bool:
    """A response a chat completion could be: unknown, ``choices`` or an ``error`` (JSON or
    in a stream's chunks), or text that is no stream (an HTML error page)."""
    if response is None:
        return True
    if isinstance(response, dict):
        return "choices" in response or "error" in response
    head = stream_head(response)
    if head is None:
        return False  # bytes: a binary stream no chat server sends
    if not is_event_stream(head):
        return True
    return '"choices"' in head or '"error"' in head


class ChatCompletionsRequests(WireFormat):
    """The request side of chat completions: a ``messages`` history whose ``role: tool``
    messages carry results and whose assistant messages echo ``tool_calls``, and ``tools``
    offered. APIs that take requests in this shape (Cohere v2 chat) read them with these."""

    tool_results = staticmethod(openai_chat_tool_results)
    echoed_calls = staticmethod(openai_chat_echoed_calls)
    tool_specs = staticmethod(function_tool_specs)
    user_texts = staticmethod(messages_user_texts)


class OpenAIChat(ChatCompletionsRequests):
    """``POST .../chat/completions``; also any ``messages`` request Anthropic would not send."""

    name = WIRE_OPENAI_CHAT
    provider = "openai"
    title = "OpenAI chat completions"

    def detect(self, probe: Probe) -> int:
        if probe.path.endswith("/chat/completions") or probe.path == "chat/completions":
            return DETECT_PATH
        body = probe.body
        if (
            isinstance(body, dict)
            and isinstance(body.get("messages"), list)
            and not anthropic_shaped(probe)
            and not bedrock_shaped(body)
            and _chat_response(probe.response)
        ):
            return DETECT_BODY
        return DETECT_NONE

    def other_endpoint(self, probe: Probe) -> bool:
        # legacy text completions and model listings (also served by compatible servers)
        return probe.path.endswith("/completions") or probe.path.endswith("/models")

    parse_message = staticmethod(parse_openai_chat)
    assemble_stream = staticmethod(parse_openai_chat_sse)


OPENAI_CHAT = OpenAIChat()

register_wire_format(OPENAI_CHAT)
