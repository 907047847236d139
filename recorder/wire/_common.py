"""Neutral types and helpers shared by every wire format.

A provider response, whatever its format, becomes one :class:`AssistantTurn`; the tool results a
client sends back in its next request become :class:`SentToolResult` records. Both are plain data:
no I/O, no clock, so parsing the same bytes always gives the same values.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from rejudge.model import Alternative, ServerToolUse, ToolCall, ToolSpec

__all__ = [
    "WIRE_OPENAI_CHAT",
    "WIRE_OPENAI_RESPONSES",
    "WIRE_ANTHROPIC",
    "WIRE_GEMINI",
    "WIRE_BEDROCK",
    "WIRE_COHERE",
    "WIRE_COHERE_V1",
    "WIRE_OLLAMA",
    "WIRE_BEDROCK_INVOKE",
    "iter_json_lines",
    "WIRE_UNKNOWN",
    "AssistantTurn",
    "SentToolResult",
    "EchoedCall",
    "parse_arguments",
    "make_call",
    "make_freeform_call",
    "int_usage",
    "iter_sse",
    "compact_json",
    "as_dict",
    "strict_loads",
    "is_finite_json",
    "tool_spec",
    "function_tool_specs",
    "freeform_tool_spec",
    "FREEFORM_SCHEMA_KEY",
    "user_text",
    "user_texts_of",
    "stream_head",
]

WIRE_OPENAI_CHAT = "openai-chat"
WIRE_OPENAI_RESPONSES = "openai-responses"
WIRE_ANTHROPIC = "anthropic-messages"
WIRE_GEMINI = "gemini-generate-content"
WIRE_BEDROCK = "bedrock-converse"
WIRE_COHERE = "cohere-chat"
WIRE_COHERE_V1 = "cohere-chat-v1"
WIRE_OLLAMA = "ollama-chat"
WIRE_BEDROCK_INVOKE = "bedrock-invoke-model"
WIRE_UNKNOWN = "unknown"


@dataclass(frozen=True)
class AssistantTurn:
    """One model response in neutral form.

    ``calls`` carry no result yet (the sandbox, or the next request of a foreign cassette, supplies
    it). ``truncated`` means a stream ended without its terminator. ``error`` holds the provider's
    own error message when the body was an error object (or a stream sent an error event).
    ``server_tools`` are the tools the provider ran itself inside the response (never client
    calls); ``alternatives`` the other choices of an ``n > 1`` response (the turn is choice 0).
    """

    text: str | None = None
    calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    truncated: bool = False
    raw_model: str | None = None
    error: str | None = None
    server_tools: list[ServerToolUse] = field(default_factory=list)
    alternatives: list[Alternative] = field(default_factory=list)


@dataclass(frozen=True)
class SentToolResult:
    """A tool result the client sent back to the model in a request.

    ``is_error`` is what the wire said explicitly (Anthropic's ``is_error``); ``None`` when the
    format has no such flag.
    """

    call_id: str | None
    content: Any
    is_error: bool | None = None
    name: str | None = None


@dataclass(frozen=True)
class EchoedCall:
    """A call of an earlier assistant turn as the client repeated it in a later request.

    Clients that talk to endpoints sending empty tool-call ids invent their own ids; the echo is
    how a normalizer links such a call to its result.
    """

    id: str | None
    name: str | None
    arguments_raw: str | None = None


def echoed_call(call_id: Any, name: Any, arguments_raw: str | None) -> EchoedCall:
    """An echoed call as a request carries it: its id when a non-empty string, its name when a
    string (either may be missing or of another JSON type), its arguments as the format gives
    them (each reader knows whether they come as text or as an object to write compactly)."""
    return EchoedCall(
        id=nonempty_str(call_id),
        name=name if isinstance(name, str) else None,
        arguments_raw=arguments_raw,
    )


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"{text} overflows a JSON number")
    return value


def strict_loads(text: str | bytes) -> Any:
    """``json.loads`` that refuses NaN/Infinity and overflowing numbers (they cannot be hashed)."""
    return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)


def is_finite_json(value: Any) -> bool:
    """True when ``value`` holds no NaN or infinite float (canonical JSON refuses those)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return False
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return True


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (for reading optional fields)."""
    return value if isinstance(value, dict) else {}


def compact_json(value: Any) -> str:
    """JSON text of ``value``, compact and key-order preserving (for ``arguments_raw``)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def parse_arguments(raw: Any) -> tuple[dict[str, Any] | None, str, str | None]:
    """Parse a model's argument text: ``(arguments, arguments_raw, parse_error)``.

    A JSON object parses to a dict. Empty text (a call of a parameterless tool, as several servers
    stream it) is ``{}``. Anything else keeps ``arguments=None``, the text verbatim and the reason.
    An already-decoded dict (Anthropic's ``input``) is taken as is.
    """
    if isinstance(raw, dict):
        if not is_finite_json(raw):
            return None, compact_json(raw), "arguments hold a NaN or infinite number"
        return dict(raw), compact_json(raw), None
    if raw is None:
        return {}, "", None
    if not isinstance(raw, str):
        text = compact_json(raw)
        return None, text, f"arguments are a JSON {_json_kind(raw)}, not an object"
    if raw.strip() == "":
        return {}, raw, None
    try:
        value = strict_loads(raw)
    except (ValueError, RecursionError) as exc:
        return None, raw, f"invalid JSON: {exc}"
    if not isinstance(value, dict):
        return None, raw, f"arguments are a JSON {_json_kind(value)}, not an object"
    return value, raw, None


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if value is None:
        return "null"
    return type(value).__name__


def unreadable_calls(value: Any) -> list[ToolCall]:
    """A response's ``tool_calls`` when it is no list: none when absent (null), else one call
    that keeps the value (its text, or its JSON) with a ``parse_error`` saying what it is, as
    argument text that does not parse is kept. The model's malformed output is evidence to
    judge, not no call (iterating it read a text's characters or an object's keys as calls and
    dropped them, or raised on a number)."""
    if value is None or isinstance(value, list):
        return []
    raw = value if isinstance(value, str) else compact_json(value)
    reason = f"tool_calls is a JSON {_json_kind(value)}, not a list"
    return [ToolCall(id=None, name="", arguments=None, arguments_raw=raw, parse_error=reason)]


def listed(value: Any) -> list[Any]:
    """``value`` when it is a list, else no entries (see :func:`unreadable_calls`)."""
    return value if isinstance(value, list) else []


def make_freeform_call(call_id: Any, name: Any, raw_input: Any) -> ToolCall:
    """A call of a freeform (custom) tool: its input is text by design, so it is kept whole in
    ``arguments_raw`` with ``arguments=None`` and no parse error (nothing failed to parse)."""
    cid = call_id if isinstance(call_id, str) and call_id != "" else None
    text = (
        raw_input
        if isinstance(raw_input, str)
        else ""
        if raw_input is None
        else compact_json(raw_input)
    )
    return ToolCall(
        id=cid, name=name if isinstance(name, str) else "", arguments=None, arguments_raw=text
    )


def make_call(call_id: Any, name: Any, raw_arguments: Any) -> ToolCall:
    """A result-less :class:`ToolCall`; an empty id becomes ``None`` (it identifies nothing)."""
    arguments, arguments_raw, parse_error = parse_arguments(raw_arguments)
    cid = call_id if isinstance(call_id, str) and call_id != "" else None
    return ToolCall(
        id=cid,
        name=name if isinstance(name, str) else "",
        arguments=arguments,
        arguments_raw=arguments_raw,
        parse_error=parse_error,
    )


_USAGE_ALIASES = {
    "prompt_tokens": "input_tokens",
    "completion_tokens": "output_tokens",
    "input_tokens": "input_tokens",
    "output_tokens": "output_tokens",
    "total_tokens": "total_tokens",
    "cache_read_input_tokens": "cache_read_input_tokens",
    "cache_creation_input_tokens": "cache_creation_input_tokens",
}


def int_usage(usage: Any) -> dict[str, int]:
    """Neutral token counts (``input_tokens``, ``output_tokens``, ``total_tokens``, cache counts)."""
    out: dict[str, int] = {}
    if not isinstance(usage, dict):
        return out
    for key, value in usage.items():
        neutral = _USAGE_ALIASES.get(key)
        if neutral is None or isinstance(value, bool) or not isinstance(value, int):
            continue
        out[neutral] = value
    return out


def named_counts(usage: Any, names: tuple[tuple[str, str], ...]) -> dict[str, int]:
    """The integer counts of a usage object in an API's own words (``names``: its key, the
    neutral key), in the order of ``names`` (a trace keeps them in that order)."""
    out: dict[str, int] = {}
    usage = as_dict(usage)
    for key, neutral in names:
        value = usage.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            out[neutral] = value
    return out


def cohere_usage(usage: Any) -> dict[str, int]:
    """Cohere's usage (v2's ``usage``, v1's ``meta``): ``tokens`` is what the model saw and
    wrote, ``billed_units`` what was charged; the first that has counts."""
    usage = as_dict(usage)
    return int_usage(usage.get("tokens")) or int_usage(usage.get("billed_units"))


def iter_sse(text: str) -> Iterator[tuple[str | None, str]]:
    """Yield ``(event, data)`` for each server-sent event in ``text``.

    Events are separated by blank lines; several ``data:`` lines of one event join with a newline.
    Comment lines (``:``) and unknown fields are skipped. A final event without its blank line is
    still yielded (a truncated stream is the caller's judgment, not the tokenizer's).
    """
    event: str | None = None
    data: list[str] = []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if line == "":
            if data:
                yield event, "\n".join(data)
            event, data = None, []
            continue
        if line.startswith(":"):
            continue
        name, sep, value = line.partition(":")
        if not sep:
            continue
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
    if data:
        yield event, "\n".join(data)


def iter_json_lines(text: str) -> Iterator[Any]:
    """Each non-blank line of a newline-delimited JSON body (Ollama's and Cohere v1's streams),
    decoded; a line that is no JSON gives ``None`` so a damaged line never hides the others."""
    for line in text.splitlines():
        if line.strip():
            yield load_json_event(line)


def load_json_event(data: str) -> Any:
    """The JSON value of one SSE data payload, or ``None`` when it is not JSON."""
    try:
        return strict_loads(data)
    except (ValueError, RecursionError):
        return None


def nonempty_str(value: Any) -> str | None:
    """``value`` when it is a non-empty string, else None: how a reader keeps an id, a name or a
    text a body may leave out, send empty or send as another JSON type."""
    return value if isinstance(value, str) and value else None


def text_or_none(parts: list[str]) -> str | None:
    text = "".join(parts)
    return text if text != "" else None


def joined_texts(content: Any, block_type: str | None = None) -> Any:
    """A tool result's content as a request sent it: a list of text parts (``{"text": ...}``,
    each of ``type`` ``block_type`` when given) joined into one text, anything else as it came
    (a string, or a list with other parts, an image say, which no text can stand for)."""
    if isinstance(content, list):
        parts: list[str] = [
            p["text"]
            for p in content
            if isinstance(p, dict)
            and (block_type is None or p.get("type") == block_type)
            and isinstance(p.get("text"), str)
        ]
        if len(parts) == len(content):
            return "".join(parts)
    return content


def error_message(body: Any) -> str | None:
    """The provider's error message when ``body`` is an error object, else ``None``."""
    if not isinstance(body, dict):
        return None
    err = body.get("error")
    if err is None:
        return None
    if isinstance(err, dict):
        message = err.get("message")
        kind = err.get("type") or err.get("code")
        if isinstance(message, str) and message:
            return f"{kind}: {message}" if isinstance(kind, str) and kind else message
        return compact_json(err)
    if isinstance(err, str):
        return err
    return compact_json(err)


# --------------------------------------------------------------------------- request facts


def tool_spec(name: Any, description: Any, parameters: Any) -> ToolSpec | None:
    """A :class:`ToolSpec` from a declaration's fields; ``None`` when it has no usable name."""
    if not isinstance(name, str) or not name:
        return None
    return ToolSpec(
        name=name,
        description=description if isinstance(description, str) else "",
        parameters=parameters
        if isinstance(parameters, dict) and is_finite_json(parameters)
        else {"type": "object", "properties": {}},
    )


# the JSON Schema key that marks a freeform (custom) tool's spec: its one parameter ``input`` is
# the call's raw text, which is how the judge reads a freeform call's arguments
FREEFORM_SCHEMA_KEY = "x-rejudge-freeform"


def freeform_tool_spec(name: Any, description: Any, decl: dict[str, Any]) -> ToolSpec | None:
    """The spec of a freeform tool: one string parameter ``input``; its grammar/format, when the
    declaration has one, is kept under :data:`FREEFORM_SCHEMA_KEY`."""
    fmt = decl.get("format")
    return tool_spec(
        name,
        description,
        {
            "type": "object",
            "properties": {"input": {"type": "string"}},
            "required": ["input"],
            FREEFORM_SCHEMA_KEY: fmt if isinstance(fmt, dict) and is_finite_json(fmt) else True,
        },
    )


def function_tool_specs(request_body: Any) -> list[ToolSpec]:
    """The function tools of a request's ``tools`` list, in any of the three shapes.

    Chat completions nest ``function``, Anthropic has ``input_schema``, Responses a flat
    ``parameters``. The three formats share this one reader, which accepts every shape whichever
    format the exchange was detected as, so a registry read from a cassette is the same by any
    path (and the suite hashes of imported cassettes stay as they were).
    """
    if not isinstance(request_body, dict):
        return []
    out: list[ToolSpec | None] = []
    tools = request_body.get("tools")
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "custom":  # freeform tools: chat nests "custom", Responses not
            decl = tool["custom"] if isinstance(tool.get("custom"), dict) else tool
            out.append(freeform_tool_spec(decl.get("name"), decl.get("description"), decl))
        elif isinstance(tool.get("function"), dict):  # chat completions
            fn = tool["function"]
            out.append(tool_spec(fn.get("name"), fn.get("description"), fn.get("parameters")))
        elif "input_schema" in tool:  # anthropic
            out.append(
                tool_spec(tool.get("name"), tool.get("description"), tool.get("input_schema"))
            )
        elif tool.get("type") in ("function", None):  # responses
            out.append(tool_spec(tool.get("name"), tool.get("description"), tool.get("parameters")))
    return [s for s in out if s is not None]


def user_text(content: Any) -> str | None:
    """The text of a user message's content: a string, or its text parts joined by newlines."""
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


def user_texts_of(messages: Any) -> list[str]:
    """The text of each user message with any text, in a list of ``role``/``content`` dicts
    (messages holding only tool results have none)."""
    out = []
    for msg in messages if isinstance(messages, list) else []:
        if isinstance(msg, dict) and msg.get("role") == "user":
            text = user_text(msg.get("content"))
            if text:
                out.append(text)
    return out


def dict_messages(request_body: Any) -> list[dict[str, Any]]:
    """The messages of a request's ``messages`` list that are objects (none when it has no
    list): what every reader of a chat-like request walks."""
    messages = as_dict(request_body).get("messages")
    return [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []


def assistant_lists(request_body: Any, key: str) -> Iterator[list[Any]]:
    """The ``key`` list (``content``, ``tool_calls``) of each assistant message of a request's
    ``messages``, in order; an assistant message without such a list is passed over. Where a
    request repeats the calls of earlier turns."""
    for msg in dict_messages(request_body):
        value = msg.get(key)
        if msg.get("role") == "assistant" and isinstance(value, list):
            yield value


def messages_user_texts(request_body: Any) -> list[str]:
    """:func:`user_texts_of` a request's ``messages`` (chat completions', Anthropic's)."""
    return user_texts_of(as_dict(request_body).get("messages"))


def stream_head(response: Any, limit: int = 4000) -> str | None:
    """The first ``limit`` characters of a text response (``None`` for any other body)."""
    return response[:limit] if isinstance(response, str) else None
