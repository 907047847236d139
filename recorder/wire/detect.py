"""Which wire format an exchange speaks, and format-generic dispatch."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from rejudge.recorder.wire.anthropic import (
    anthropic_echoed_calls,
    anthropic_tool_results,
    parse_anthropic_message,
    parse_anthropic_sse,
)
from rejudge.recorder.wire.common import (
    WIRE_ANTHROPIC,
    WIRE_GEMINI,
    WIRE_OPENAI_CHAT,
    WIRE_OPENAI_RESPONSES,
    WIRE_UNKNOWN,
    AssistantTurn,
    EchoedCall,
    SentToolResult,
    is_finite_json,
    strict_loads,
)
from rejudge.recorder.wire.gemini import (
    gemini_echoed_calls,
    gemini_tool_results,
    parse_gemini,
    parse_gemini_stream,
)
from rejudge.recorder.wire.openai_chat import (
    openai_chat_echoed_calls,
    openai_chat_tool_results,
    parse_openai_chat,
    parse_openai_chat_sse,
)
from rejudge.recorder.wire.openai_responses import (
    openai_responses_echoed_calls,
    openai_responses_tool_results,
    parse_openai_responses,
    parse_openai_responses_sse,
)
from rejudge.store.schemas import ToolSpec

__all__ = [
    "detect_wire_format",
    "is_event_stream",
    "parse_response",
    "extract_tool_results",
    "extract_echoed_calls",
    "extract_tool_specs",
    "extract_first_user_text",
]


def _header(headers: Any, name: str) -> str | None:
    if not isinstance(headers, Mapping):
        return None
    for key, value in headers.items():
        if isinstance(key, str) and key.lower() == name:
            if isinstance(value, (list, tuple)):
                value = value[0] if value else None
            return value if isinstance(value, str) else None
    return None


def _has_header_prefix(headers: Any, prefix: str) -> bool:
    if not isinstance(headers, Mapping):
        return False
    return any(isinstance(k, str) and k.lower().startswith(prefix) for k in headers)


def detect_wire_format(
    request_path: str | None,
    request_body: Any = None,
    response_headers: Mapping[str, Any] | None = None,
) -> str:
    """``"openai-chat"``, ``"openai-responses"``, ``"anthropic-messages"``,
    ``"gemini-generate-content"`` or ``"unknown"``.

    The URL path decides first (``.../chat/completions``, ``.../responses``, ``.../messages``,
    full URLs and query strings accepted); then the request body's shape; then provider headers.
    ``"unknown"`` means "not a model exchange" (``GET /v1/models``, embeddings, ...).
    """
    path = ""
    if isinstance(request_path, str):
        path = urlsplit(request_path).path if "://" in request_path else request_path
        path = path.split("?", 1)[0].rstrip("/").lower()
    if path.endswith("/chat/completions") or path == "chat/completions":
        return WIRE_OPENAI_CHAT
    if path.endswith("/responses") or path == "responses":
        return WIRE_OPENAI_RESPONSES
    if path.endswith("/messages") and not path.endswith("/count_tokens"):
        return WIRE_ANTHROPIC
    last = path.rsplit("/", 1)[-1]
    if last.endswith(":generatecontent") or last.endswith(":streamgeneratecontent"):
        return WIRE_GEMINI
    if path.endswith("/completions") or path.endswith("/models") or ":" in last:
        # legacy text completions, model listings, other Gemini methods (countTokens, ...)
        return WIRE_UNKNOWN
    body = request_body
    if isinstance(body, (str, bytes)):
        try:
            body = strict_loads(body)
        except (ValueError, RecursionError):
            body = None
    if isinstance(body, dict):
        if "input" in body and "model" in body and "messages" not in body:
            return WIRE_OPENAI_RESPONSES
        if isinstance(body.get("messages"), list):
            anthropic_shaped = "system" in body and not isinstance(body.get("system"), type(None))
            for msg in body["messages"]:
                content = msg.get("content") if isinstance(msg, dict) else None
                if isinstance(content, list) and any(
                    isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result")
                    for b in content
                ):
                    anthropic_shaped = True
            if anthropic_shaped or _has_header_prefix(response_headers, "anthropic-"):
                return WIRE_ANTHROPIC
            return WIRE_OPENAI_CHAT
    if _has_header_prefix(response_headers, "anthropic-"):
        return WIRE_ANTHROPIC
    return WIRE_UNKNOWN


def is_event_stream(body: Any, response_headers: Mapping[str, Any] | None = None) -> bool:
    """True when a response body is server-sent events (by content type, else by its first line)."""
    ctype = _header(response_headers, "content-type")
    if ctype is not None and "text/event-stream" in ctype.lower():
        return True
    if isinstance(body, str):
        head = body.lstrip()[:16]
        return head.startswith("data:") or head.startswith("event:")
    return False


def parse_response(
    wire_format: str, body: Any, response_headers: Mapping[str, Any] | None = None
) -> AssistantTurn:
    """Parse a response body (decoded JSON dict, or text: JSON or SSE) in ``wire_format``."""
    if wire_format == WIRE_GEMINI:
        if isinstance(body, str) and is_event_stream(body, response_headers):
            return parse_gemini_stream(body)
        if isinstance(body, (str, bytes)):
            try:
                body = strict_loads(body)
            except (ValueError, RecursionError):
                return AssistantTurn(error="response body is neither JSON nor an event stream")
        if isinstance(body, list):
            return parse_gemini_stream(body)
        return parse_gemini(body)
    if is_event_stream(body, response_headers) and isinstance(body, str):
        if wire_format == WIRE_ANTHROPIC:
            return parse_anthropic_sse(body)
        if wire_format == WIRE_OPENAI_RESPONSES:
            return parse_openai_responses_sse(body)
        return parse_openai_chat_sse(body)
    if isinstance(body, (str, bytes)):
        try:
            body = strict_loads(body)
        except (ValueError, RecursionError):
            return AssistantTurn(error="response body is neither JSON nor an event stream")
    if not isinstance(body, dict):
        return AssistantTurn(error="response body is not a JSON object")
    if wire_format == WIRE_ANTHROPIC:
        return parse_anthropic_message(body)
    if wire_format == WIRE_OPENAI_RESPONSES:
        return parse_openai_responses(body)
    return parse_openai_chat(body)


def extract_tool_results(wire_format: str, request_body: Any) -> list[SentToolResult]:
    """The tool results a request sends back to the model, in conversation order."""
    if wire_format == WIRE_ANTHROPIC:
        return anthropic_tool_results(request_body)
    if wire_format == WIRE_OPENAI_RESPONSES:
        return openai_responses_tool_results(request_body)
    if wire_format == WIRE_OPENAI_CHAT:
        return openai_chat_tool_results(request_body)
    if wire_format == WIRE_GEMINI:
        return gemini_tool_results(request_body)
    return []


def extract_echoed_calls(wire_format: str, request_body: Any) -> list[list[EchoedCall]]:
    """The calls of each earlier assistant turn that a request repeats, in conversation order."""
    if wire_format == WIRE_ANTHROPIC:
        return anthropic_echoed_calls(request_body)
    if wire_format == WIRE_OPENAI_RESPONSES:
        return openai_responses_echoed_calls(request_body)
    if wire_format == WIRE_OPENAI_CHAT:
        return openai_chat_echoed_calls(request_body)
    if wire_format == WIRE_GEMINI:
        return gemini_echoed_calls(request_body)
    return []


# --------------------------------------------------------------------------- request facts


def _tool_spec(name: Any, description: Any, parameters: Any) -> ToolSpec | None:
    if not isinstance(name, str) or not name:
        return None
    return ToolSpec(
        name=name,
        description=description if isinstance(description, str) else "",
        parameters=parameters
        if isinstance(parameters, dict) and is_finite_json(parameters)
        else {"type": "object", "properties": {}},
    )


def extract_tool_specs(wire_format: str, request_body: Any) -> list[ToolSpec]:
    """The function tools a request offered the model (for registries of foreign cassettes)."""
    if not isinstance(request_body, dict):
        return []
    out: list[ToolSpec | None] = []
    tools = request_body.get("tools")
    if wire_format == WIRE_GEMINI:
        for group in tools if isinstance(tools, list) else []:
            decls = (
                group.get("function_declarations", group.get("functionDeclarations"))
                if isinstance(group, dict)
                else None
            )
            for d in decls if isinstance(decls, list) else []:
                if isinstance(d, dict):
                    out.append(_tool_spec(d.get("name"), d.get("description"), d.get("parameters")))
        return [s for s in out if s is not None]
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, dict):
            continue
        if isinstance(tool.get("function"), dict):  # chat completions
            fn = tool["function"]
            out.append(_tool_spec(fn.get("name"), fn.get("description"), fn.get("parameters")))
        elif "input_schema" in tool:  # anthropic
            out.append(
                _tool_spec(tool.get("name"), tool.get("description"), tool.get("input_schema"))
            )
        elif tool.get("type") in ("function", None):  # responses
            out.append(
                _tool_spec(tool.get("name"), tool.get("description"), tool.get("parameters"))
            )
    return [s for s in out if s is not None]


def _text_of(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            p["text"]
            for p in content
            if isinstance(p, dict)
            and isinstance(p.get("text"), str)
            and p.get("type") in (None, "text", "input_text")
        ]
        return "\n".join(parts) if parts else None
    return None


def extract_first_user_text(wire_format: str, request_body: Any) -> str | None:
    """The first user message of a request: the task an imported conversation started from."""
    if not isinstance(request_body, dict):
        return None
    if wire_format == WIRE_GEMINI:
        for content in request_body.get("contents") or []:
            if isinstance(content, dict) and content.get("role", "user") == "user":
                text = _text_of(content.get("parts"))
                if text:
                    return text
        return None
    if wire_format == WIRE_OPENAI_RESPONSES:
        items = request_body.get("input")
        if isinstance(items, str):
            return items
        messages: list[Any] = items if isinstance(items, list) else []
    else:
        found = request_body.get("messages")
        messages = found if isinstance(found, list) else []
    for msg in messages:
        if isinstance(msg, dict) and msg.get("role") == "user":
            text = _text_of(msg.get("content"))
            if text:
                return text
    return None
