"""Ollama's native chat API (``POST /api/chat``): JSON, or a newline-delimited JSON stream.

Requests are chat-completions-like (``messages``, ``tools[].function``), but a call's
``function.arguments`` is a JSON object, never text, calls carry no id, and a tool result is a
``role: tool`` message with the tool's name (``tool_name``) instead of a call id. A response is
one object with ``message`` and ``done``; a stream (``stream`` defaults to true) is one such
object per line, text fragments in ``message.content``, calls whole in the chunk that carries
them, and the last line ``done: true`` with ``done_reason`` and the token counts.
"""

from __future__ import annotations

from typing import Any

from rejudge.recorder.wire._common import (
    WIRE_OLLAMA,
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
    iter_json_lines,
    listed,
    load_json_event,
    make_call,
    named_counts,
    nonempty_str,
    text_or_none,
    unreadable_calls,
    user_texts_of,
)
from rejudge.recorder.wire._format import (
    Probe,
    WireFormat,
    detect_chat_answered,
)
from rejudge.recorder.wire._register import register_wire_format

from rejudge.model import ToolCall

__all__ = [
    "parse_ollama_chat",
    "parse_ollama_stream",
    "ollama_response",
    "OllamaChat",
    "OLLAMA_CHAT",
]


def _usage(body: dict[str, Any]) -> dict[str, int]:
    return named_counts(
        body, (("prompt_eval_count", "input_tokens"), ("eval_count", "output_tokens"))
    )


def _calls(message: dict[str, Any]) -> list[ToolCall]:
    out = []
    raw = message.get("tool_calls")
    for tc in listed(raw):
        fn = as_dict(as_dict(tc).get("function"))
        if fn:
            args = fn.get("arguments")
            out.append(
                make_call(as_dict(tc).get("id"), fn.get("name"), {} if args is None else args)
            )
    return out + unreadable_calls(raw)


def _text(message: dict[str, Any]) -> list[str]:
    # ``thinking`` is the model's reasoning, kept out of the answer as other formats do
    content = message.get("content")
    return [content] if isinstance(content, str) else []


def _finish(body: dict[str, Any]) -> str | None:
    reason = body.get("done_reason")
    return reason if isinstance(reason, str) else None


def parse_ollama_chat(body: dict[str, Any]) -> AssistantTurn:
    """A non-streamed ``/api/chat`` response (``stream: false``)."""
    if not isinstance(body, dict):
        return AssistantTurn(error="response body is not a JSON object")
    err = error_message(body)
    message = as_dict(body.get("message"))
    if not message and err is None:
        err = "response has no message"
    model = body.get("model")
    return AssistantTurn(
        text=text_or_none(_text(message)),
        calls=_calls(message),
        finish_reason=_finish(body),
        usage=_usage(body),
        raw_model=model if isinstance(model, str) else None,
        error=err,
        truncated=body.get("done") is False,
    )


def parse_ollama_stream(chunks: list[Any]) -> AssistantTurn:
    """The decoded lines of a stream, assembled: text fragments join, calls keep their order.
    A stream whose last chunk is not ``done`` is ``truncated``; an ``error`` line sets ``error``."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    finish: str | None = None
    usage: dict[str, int] = {}
    model: str | None = None
    done = False
    err: str | None = None
    for chunk in chunks:
        if not isinstance(chunk, dict):
            continue
        err = error_message(chunk) or err
        message = as_dict(chunk.get("message"))
        texts.extend(_text(message))
        calls.extend(_calls(message))
        if isinstance(chunk.get("model"), str):
            model = chunk["model"]
        if chunk.get("done") is True:
            done = True
            finish = _finish(chunk) or finish
            usage = _usage(chunk) or usage
    return AssistantTurn(
        text=text_or_none(texts),
        calls=calls,
        finish_reason=finish,
        usage=usage,
        raw_model=model,
        truncated=not done,
        error=err,
    )


def ollama_response(response: Any) -> bool:
    """An ``/api/chat`` answer: an object (or a stream's first line) with a ``message`` and a
    boolean ``done``, which no other chat API sends."""
    if isinstance(response, str):
        response = load_json_event(response.lstrip().split("\n", 1)[0])
    return (
        isinstance(response, dict)
        and isinstance(response.get("done"), bool)
        and isinstance(response.get("message"), dict)
    )


class OllamaChat(WireFormat):
    """``POST /api/chat`` on an Ollama server; also a chat request answered in Ollama's shape
    behind another path (its requests alone look like chat completions, and
    ``/v1/chat/completions`` on the same server is OpenAI chat)."""

    name = WIRE_OLLAMA
    provider = "ollama"
    title = "Ollama chat"

    def detect(self, probe: Probe) -> int:
        return detect_chat_answered(probe, "/api/chat", ollama_response)

    def other_endpoint(self, probe: Probe) -> bool:
        # embeddings, model listings and pulls of the same API carry no chat turn
        return probe.path.startswith("/api/") and probe.last_segment in (
            "embed",
            "embeddings",
            "tags",
            "show",
            "pull",
            "ps",
            "version",
        )

    # one JSON object, or one per line: Ollama streams NDJSON, never server-sent events
    json_lines_stream = True

    parse_message = staticmethod(parse_ollama_chat)

    def assemble_stream(self, text: str) -> AssistantTurn:
        return parse_ollama_stream(list(iter_json_lines(text)))

    def parse_events(self, events: list[Any]) -> AssistantTurn:
        # a stream decoded as a list of its events (the recorder's JSON-lines body)
        return parse_ollama_stream(events)

    def tool_results(self, request_body: Any) -> list[SentToolResult]:
        out = []
        for msg in dict_messages(request_body):
            if msg.get("role") != "tool":
                continue
            name = msg.get("tool_name") or msg.get("name")
            cid = msg.get("tool_call_id")
            out.append(
                SentToolResult(
                    call_id=nonempty_str(cid),
                    content=msg.get("content"),
                    name=nonempty_str(name),
                )
            )
        return out

    def echoed_calls(self, request_body: Any) -> list[list[EchoedCall]]:
        out: list[list[EchoedCall]] = []
        # only a list of calls is an echoed turn, as in every other format's echo: iterating
        # another value made a text's characters (an object's keys) into empty calls, or raised
        for tool_calls in assistant_lists(request_body, "tool_calls"):
            turn = []
            for tc in tool_calls:
                fn = as_dict(as_dict(tc).get("function"))
                args = fn.get("arguments")
                name = fn.get("name")
                turn.append(
                    # Ollama's calls carry no id; their arguments are an object (or text)
                    echoed_call(
                        None,
                        name,
                        compact_json(args)
                        if isinstance(args, dict)
                        else args
                        if isinstance(args, str)
                        else None,
                    )
                )
            if turn:
                out.append(turn)
        return out

    tool_specs = staticmethod(function_tool_specs)

    def user_texts(self, request_body: Any) -> list[str]:
        return user_texts_of(dict_messages(request_body))


OLLAMA_CHAT = OllamaChat()

register_wire_format(OLLAMA_CHAT)
