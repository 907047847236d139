"""OpenAI Responses API: ``function_call`` output items, JSON and SSE, and ``function_call_output``."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from rejudge.recorder.wire._common import (
    WIRE_OPENAI_RESPONSES,
    AssistantTurn,
    EchoedCall,
    SentToolResult,
    as_dict,
    echoed_call,
    error_message,
    function_tool_specs,
    int_usage,
    iter_sse,
    joined_texts,
    load_json_event,
    make_call,
    make_freeform_call,
    nonempty_str,
    parse_arguments,
    stream_head,
    text_or_none,
    user_texts_of,
)
from rejudge.recorder.wire._format import (
    DETECT_BODY,
    DETECT_NONE,
    DETECT_PATH,
    Probe,
    WireFormat,
    is_event_stream,
)
from rejudge.recorder.wire._register import register_wire_format

from rejudge.model import ServerToolUse, ToolCall

__all__ = [
    "parse_openai_responses",
    "parse_openai_responses_sse",
    "openai_responses_tool_results",
    "openai_responses_echoed_calls",
    "OpenAIResponses",
    "OPENAI_RESPONSES",
]


def _call_id(item: dict[str, Any]) -> Any:
    # ``call_id`` is what function_call_output refers to; ``id`` is the item's own id
    cid = item.get("call_id")
    return cid if isinstance(cid, str) and cid else item.get("id")


def _message_text(item: dict[str, Any]) -> list[str]:
    content = item.get("content")
    if not isinstance(content, list):
        return []
    return [
        p["text"]
        for p in content
        if isinstance(p, dict)
        and p.get("type") in ("output_text", "text")
        and isinstance(p.get("text"), str)
    ]


# output items the client executes: their calls are the client's (and judged)
_CLIENT_CALLS = ("function_call", "custom_tool_call")
# ``*_call`` items the client answers itself although no function tool asked for them
_CLIENT_SIDE = frozenset({"computer_call", "local_shell_call", "shell_call", "apply_patch_call"})
# what a server item keeps as the tool's input: every field but its identity and bookkeeping
_NOT_INPUT = frozenset({"id", "type", "status", "name", "output", "outputs", "results", "error"})
_RESULT_FIELDS = ("output", "outputs", "results", "error")


def _server_tool(item: dict[str, Any]) -> ServerToolUse | None:
    """A built-in tool OpenAI ran inside the response (``web_search_call``, ``file_search_call``,
    ``code_interpreter_call``, ``mcp_call``, ...): every ``*_call`` item the client does not run."""
    kind = item.get("type")
    if not isinstance(kind, str) or not kind.endswith("_call"):
        return None
    if kind in _CLIENT_CALLS or kind in _CLIENT_SIDE:
        return None
    named = item.get("name")
    name = named if isinstance(named, str) else kind[: -len("_call")]
    raw_input: dict[str, Any] | str | None = {k: v for k, v in item.items() if k not in _NOT_INPUT}
    arguments = item.get("arguments")
    if kind == "mcp_call" and isinstance(arguments, str):
        parsed, _raw, error = parse_arguments(arguments)
        raw_input = parsed if error is None else arguments
    result = {k: item[k] for k in _RESULT_FIELDS if item.get(k) is not None} or None
    if isinstance(result, dict) and len(result) == 1:
        result = next(iter(result.values()))
    item_id = item.get("id")
    return ServerToolUse(
        id=nonempty_str(item_id),
        name=name,
        input=raw_input or None,
        result=result,
        kind=kind,
    )


def _client_call(item: dict[str, Any]) -> ToolCall:
    if item.get("type") == "custom_tool_call":
        return make_freeform_call(_call_id(item), item.get("name"), item.get("input"))
    return make_call(_call_id(item), item.get("name"), item.get("arguments"))


def _finish(body: dict[str, Any]) -> str | None:
    details = body.get("incomplete_details")
    reason = details.get("reason") if isinstance(details, dict) else None
    if isinstance(reason, str):
        return reason
    status = body.get("status")
    return status if isinstance(status, str) else None


def parse_openai_responses(body: dict[str, Any]) -> AssistantTurn:
    """A Responses API response: ``message`` items give text, ``function_call`` items give calls.

    ``finish_reason`` is the response ``status`` (``completed``), or the incomplete reason.
    """
    if not isinstance(body, dict):
        return AssistantTurn(error="response body is not a JSON object")
    model = body.get("model") if isinstance(body.get("model"), str) else None
    err = error_message(body)
    output = body.get("output")
    texts: list[str] = []
    calls = []
    server_tools = []
    if isinstance(output, list):
        for item in output:
            if not isinstance(item, dict):
                continue
            kind = item.get("type")
            if kind == "message":
                texts.extend(_message_text(item))
            elif kind in _CLIENT_CALLS:
                calls.append(_client_call(item))
            else:
                server = _server_tool(item)
                if server is not None:
                    server_tools.append(server)
    elif err is None:
        err = "response has no output"
    if body.get("status") == "failed" and err is None:
        err = "response failed"
    return AssistantTurn(
        text=text_or_none(texts),
        calls=calls,
        finish_reason=_finish(body),
        usage=int_usage(body.get("usage")),
        raw_model=model,
        error=err,
        server_tools=server_tools,
    )


@dataclass
class _Item:
    type: str
    call_id: Any = None
    name: Any = None
    arguments: str | None = None
    parts: list[str] = field(default_factory=list)
    done_item: dict[str, Any] | None = None


def parse_openai_responses_sse(text: str) -> AssistantTurn:
    """A streamed response. The terminal ``response.completed`` / ``response.incomplete`` /
    ``response.failed`` event carries the whole response and wins; without one the items are
    rebuilt from ``output_item``/``delta`` events and the turn is ``truncated``."""
    if not isinstance(text, str):
        return AssistantTurn(truncated=True, error="stream body is not text")
    items: dict[Any, _Item] = {}
    order: list[Any] = []
    model: str | None = None
    err: str | None = None
    for event, data in iter_sse(text):
        if data.strip() == "[DONE]":
            continue
        payload = load_json_event(data)
        if not isinstance(payload, dict):
            continue
        # an event type that is no string (a list, an object) names no event this reader knows
        kind = payload.get("type") if isinstance(payload.get("type"), str) else None
        kind = kind or event
        response = payload.get("response")
        if isinstance(response, dict) and isinstance(response.get("model"), str):
            model = response["model"]
        if kind in ("response.completed", "response.incomplete", "response.failed") and isinstance(
            response, dict
        ):
            turn = parse_openai_responses(response)
            if kind == "response.failed" and turn.error is None:
                # the failed turn as read, with the event's verdict (and, as ever, without the
                # server-side tools of a response that failed)
                return replace(turn, error="response failed", server_tools=[])
            return turn
        if kind == "error":
            err = error_message(payload) or str(payload.get("message") or "stream error event")
            continue
        key = payload.get("output_index")
        if kind in ("response.output_item.added", "response.output_item.done"):
            item = payload.get("item")
            if not isinstance(item, dict):
                continue
            if key is None:
                key = len(order)
            it = items.get(key)
            if it is None:
                it = items[key] = _Item(type=str(item.get("type")))
                order.append(key)
            if it.call_id is None:
                it.call_id = _call_id(item)
            if it.name is None:
                it.name = item.get("name")
            if kind == "response.output_item.done":
                it.done_item = item
        elif kind in _DELTA_EVENTS:
            it = items.get(key)
            if it is None:
                it = items[key] = _Item(type=_DELTA_EVENTS[kind])
                order.append(key)
            if isinstance(payload.get("delta"), str):
                it.parts.append(payload["delta"])
        elif kind in (
            "response.function_call_arguments.done",
            "response.custom_tool_call_input.done",
        ):
            it = items.get(key)
            whole = payload.get("arguments", payload.get("input"))
            if it is not None and isinstance(whole, str):
                it.arguments = whole
    texts: list[str] = []
    calls = []
    server_tools = []
    for key in order:
        it = items[key]
        if it.type == "message":
            texts.extend(_message_text(it.done_item) if it.done_item else it.parts)
        elif it.type in _CLIENT_CALLS:
            field_name = "input" if it.type == "custom_tool_call" else "arguments"
            if it.done_item is not None and isinstance(it.done_item.get(field_name), str):
                args: str = it.done_item[field_name]
            elif it.arguments is not None:
                args = it.arguments
            else:
                args = "".join(it.parts)
            item = {"type": it.type, "call_id": it.call_id, "name": it.name, field_name: args}
            calls.append(_client_call(item))
        elif it.done_item is not None:
            server = _server_tool(it.done_item)
            if server is not None:
                server_tools.append(server)
    return AssistantTurn(
        text=text_or_none(texts),
        calls=calls,
        truncated=True,
        raw_model=model,
        error=err,
        server_tools=server_tools,
    )


_DELTA_EVENTS = {
    "response.function_call_arguments.delta": "function_call",
    "response.custom_tool_call_input.delta": "custom_tool_call",
    "response.output_text.delta": "message",
}


_OUTPUT_ITEMS = ("function_call_output", "custom_tool_call_output")


def openai_responses_tool_results(body: Any) -> list[SentToolResult]:
    """Every ``function_call_output`` item of a request's ``input``."""
    out: list[SentToolResult] = []
    if not isinstance(body, dict) or not isinstance(body.get("input"), list):
        return out
    for item in body["input"]:
        if not isinstance(item, dict) or item.get("type") not in _OUTPUT_ITEMS:
            continue
        cid = item.get("call_id")
        out.append(
            SentToolResult(
                call_id=nonempty_str(cid),
                content=joined_texts(item.get("output")),
            )
        )
    return out


def openai_responses_echoed_calls(body: Any) -> list[list[EchoedCall]]:
    """``function_call`` items of a request's ``input``, grouped by consecutive runs."""
    out: list[list[EchoedCall]] = []
    if not isinstance(body, dict) or not isinstance(body.get("input"), list):
        return out
    current: list[EchoedCall] = []
    for item in body["input"]:
        if isinstance(item, dict) and item.get("type") in _CLIENT_CALLS:
            cid = _call_id(item)
            args = item.get("input" if item.get("type") == "custom_tool_call" else "arguments")
            current.append(
                echoed_call(cid, item.get("name"), args if isinstance(args, str) else None)
            )
        elif isinstance(item, dict) and (
            item.get("type") == "reasoning" or _server_tool(item) is not None
        ):
            continue  # a turn's reasoning and server-side tool items sit among its calls
        elif current:
            out.append(current)
            current = []
    if current:
        out.append(current)
    return out


def _responses_response(response: Any) -> bool:
    """A response the Responses API could give: unknown, ``output`` or ``error``, or a stream
    of ``response.*`` events (an embeddings answer, ``data``, is none)."""
    if response is None:
        return True
    if isinstance(response, dict):
        return "output" in response or "error" in response
    head = stream_head(response)
    if head is None:
        return False
    return (
        not is_event_stream(head)
        or '"response.' in head
        or "event: response." in head
        or '"error"' in head
    )


class OpenAIResponses(WireFormat):
    """``POST .../responses``; also a request with ``model`` and ``input`` but no ``messages``."""

    name = WIRE_OPENAI_RESPONSES
    provider = "openai"
    title = "OpenAI Responses"

    def detect(self, probe: Probe) -> int:
        if probe.path.endswith("/responses") or probe.path == "responses":
            return DETECT_PATH
        body = probe.body
        if isinstance(body, dict) and "input" in body and "model" in body:
            if "messages" in body or not _responses_response(probe.response):
                return DETECT_NONE
            return DETECT_BODY
        return DETECT_NONE

    parse_message = staticmethod(parse_openai_responses)
    assemble_stream = staticmethod(parse_openai_responses_sse)
    tool_results = staticmethod(openai_responses_tool_results)
    echoed_calls = staticmethod(openai_responses_echoed_calls)
    tool_specs = staticmethod(function_tool_specs)

    def user_texts(self, request_body: Any) -> list[str]:
        items = as_dict(request_body).get("input")
        if isinstance(items, str):
            return [items] if items else []
        # input items without a type are messages too (the easy-input form)
        return user_texts_of(
            [i for i in items if isinstance(i, dict) and i.get("type", "message") == "message"]
            if isinstance(items, list)
            else []
        )


OPENAI_RESPONSES = OpenAIResponses()

register_wire_format(OPENAI_RESPONSES)
