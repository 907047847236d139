"""Cohere's v1 chat (``POST /v1/chat``): one ``message`` per request, the rest in ``chat_history``.

Unlike v2 (:mod:`._cohere`), v1 is not chat-completions-shaped: a request sends the user's
newest ``message`` (empty when it only returns tool results) with the earlier turns in
``chat_history`` (roles ``USER``, ``CHATBOT``, ``SYSTEM``, ``TOOL``, in any case), tools as
``parameter_definitions`` (``{name: {type, description, required}}``, Python type names), and
results as ``tool_results: [{call: {name, parameters}, outputs: [...]}]``. Calls carry no id.
A response has top-level ``text`` and ``tool_calls: [{name, parameters}]``; a stream is one JSON
event per line (``stream-start``, ``text-generation``, ``tool-calls-chunk``,
``tool-calls-generation``, ``stream-end``), and ``stream-end`` repeats the whole response.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rejudge.recorder.wire._common import (
    WIRE_COHERE_V1,
    AssistantTurn,
    EchoedCall,
    SentToolResult,
    as_dict,
    cohere_usage,
    compact_json,
    echoed_call,
    iter_json_lines,
    listed,
    make_call,
    nonempty_str,
    text_or_none,
    tool_spec,
    unreadable_calls,
)
from rejudge.recorder.wire._format import (
    DETECT_BODY,
    DETECT_NONE,
    DETECT_PATH,
    DETECT_RESPONSE,
    Probe,
    WireFormat,
)
from rejudge.recorder.wire._register import register_wire_format

from rejudge.model import ToolCall, ToolSpec

__all__ = ["parse_cohere_v1_chat", "parse_cohere_v1_stream", "CohereChatV1", "COHERE_CHAT_V1"]

# Python type names in parameter_definitions -> JSON Schema types
_TYPES = {
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "list": "array",
    "dict": "object",
}
_REQUEST_KEYS = frozenset({"chat_history", "tool_results", "preamble", "connectors", "documents"})


def _calls(raw: Any) -> list[ToolCall]:
    out = []
    for tc in listed(raw):
        if isinstance(tc, dict):
            params = tc.get("parameters")
            out.append(make_call(tc.get("id"), tc.get("name"), {} if params is None else params))
    return out + unreadable_calls(raw)


def parse_cohere_v1_chat(body: dict[str, Any]) -> AssistantTurn:
    """A non-streamed v1 response: ``text`` and ``tool_calls`` (the text that comes with calls
    is the model's plan, kept as the turn's text since v1 has no other place for it)."""
    if not isinstance(body, dict):
        return AssistantTurn(error="response body is not a JSON object")
    err = None
    if "text" not in body and "tool_calls" not in body:
        detail = body.get("message")
        err = detail if isinstance(detail, str) and detail else "response has no text"
    finish = body.get("finish_reason")
    if err is None and finish == "ERROR":
        err = "the model's generation failed"
    text = body.get("text")
    return AssistantTurn(
        text=nonempty_str(text),
        calls=_calls(body.get("tool_calls")),
        finish_reason=finish if isinstance(finish, str) else None,
        usage=cohere_usage(body.get("meta")),
        error=err,
    )


def parse_cohere_v1_stream(events: list[Any]) -> AssistantTurn:
    """The decoded lines of a v1 stream. ``stream-end`` carries the whole response, which wins;
    without it the turn is assembled from the events and ``truncated``."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    for event in events:
        event = as_dict(event)
        kind = event.get("event_type")
        if kind == "stream-end":
            response = as_dict(event.get("response"))
            finish = event.get("finish_reason")
            if response:
                turn = parse_cohere_v1_chat(response)
                if turn.finish_reason is None and isinstance(finish, str):
                    turn = replace(turn, finish_reason=finish)
                return turn
            return AssistantTurn(
                text=text_or_none(texts),
                calls=calls,
                finish_reason=finish if isinstance(finish, str) else None,
                error="the model's generation failed" if finish == "ERROR" else None,
            )
        if kind == "text-generation" and isinstance(event.get("text"), str):
            texts.append(event["text"])
        elif kind == "tool-calls-generation":
            calls = _calls(event.get("tool_calls"))
    return AssistantTurn(text=text_or_none(texts), calls=calls, truncated=True)


def _history(body: Any) -> list[dict[str, Any]]:
    history = as_dict(body).get("chat_history")
    return [m for m in history if isinstance(m, dict)] if isinstance(history, list) else []


def _role(entry: dict[str, Any]) -> str:
    role = entry.get("role")
    return role.upper() if isinstance(role, str) else ""


def _results(raw: Any) -> list[SentToolResult]:
    out = []
    for item in raw if isinstance(raw, list) else []:
        call = as_dict(as_dict(item).get("call"))
        outputs = as_dict(item).get("outputs")
        content = outputs[0] if isinstance(outputs, list) and len(outputs) == 1 else outputs
        name = call.get("name")
        out.append(
            SentToolResult(
                call_id=None, content=content, name=name if isinstance(name, str) else None
            )
        )
    return out


def _schema(definitions: Any) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required = []
    for name, spec in as_dict(definitions).items():
        spec = as_dict(spec)
        prop: dict[str, Any] = {}
        kind = spec.get("type")
        if isinstance(kind, str):
            base = kind.split("[", 1)[0].strip().lower()
            prop["type"] = _TYPES.get(base, kind)
        if isinstance(spec.get("description"), str):
            prop["description"] = spec["description"]
        properties[str(name)] = prop
        if spec.get("required") is True:
            required.append(str(name))
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def _v1_request(body: Any) -> bool:
    return (
        isinstance(body, dict)
        and isinstance(body.get("message"), str)
        and "messages" not in body
        and bool(set(body) & _REQUEST_KEYS)
    )


def _v1_response(response: Any) -> bool:
    if isinstance(response, dict):
        return "generation_id" in response and "text" in response
    return isinstance(response, str) and '"event_type":"stream-start"' in response[:400]


class CohereChatV1(WireFormat):
    """``POST .../v1/chat`` on Cohere's API; also a v1-shaped request behind another path."""

    name = WIRE_COHERE_V1
    provider = "cohere"
    title = "Cohere v1 chat"

    def detect(self, probe: Probe) -> int:
        body = probe.body
        one_message = (
            isinstance(body, dict)
            and isinstance(body.get("message"), str)
            and "messages" not in body
        )
        if probe.path.endswith("/v1/chat") and (
            "cohere" in probe.host or one_message or _v1_response(probe.response)
        ):
            return DETECT_PATH
        if one_message and _v1_response(probe.response):
            return DETECT_RESPONSE  # a plain request behind a redacted URL: the answer says
        return DETECT_BODY if _v1_request(body) else DETECT_NONE

    # a stream is one JSON event per line (``application/stream+json``), never SSE
    json_lines_stream = True

    parse_message = staticmethod(parse_cohere_v1_chat)

    def assemble_stream(self, text: str) -> AssistantTurn:
        return parse_cohere_v1_stream(list(iter_json_lines(text)))

    def tool_results(self, request_body: Any) -> list[SentToolResult]:
        out: list[SentToolResult] = []
        for entry in _history(request_body):
            if _role(entry) == "TOOL":
                out.extend(_results(entry.get("tool_results")))
        return out + _results(as_dict(request_body).get("tool_results"))

    def echoed_calls(self, request_body: Any) -> list[list[EchoedCall]]:
        out: list[list[EchoedCall]] = []
        for entry in _history(request_body):
            if _role(entry) != "CHATBOT" or not isinstance(entry.get("tool_calls"), list):
                continue
            turn = []
            for tc in entry["tool_calls"]:
                tc = as_dict(tc)
                # clients echo ``parameters`` (the API's word) or ``args`` (langchain's)
                args = tc.get("parameters", tc.get("args"))
                cid, name = tc.get("id"), tc.get("name")
                turn.append(
                    echoed_call(cid, name, compact_json(args) if args is not None else None)
                )
            if turn:
                out.append(turn)
        return out

    def tool_specs(self, request_body: Any) -> list[ToolSpec]:
        tools = as_dict(request_body).get("tools")
        out = [
            tool_spec(t.get("name"), t.get("description"), _schema(t.get("parameter_definitions")))
            for t in (tools if isinstance(tools, list) else [])
            if isinstance(t, dict)
        ]
        return [s for s in out if s is not None]

    def user_texts(self, request_body: Any) -> list[str]:
        out = [
            e["message"]
            for e in _history(request_body)
            if _role(e) == "USER" and isinstance(e.get("message"), str) and e["message"]
        ]
        message = as_dict(request_body).get("message")
        if isinstance(message, str) and message:
            out.append(message)
        return out


COHERE_CHAT_V1 = CohereChatV1()

register_wire_format(COHERE_CHAT_V1)
