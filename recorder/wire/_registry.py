"""The wire formats by name, and the format-generic entry points built on them.

A format is a :class:`~.format.WireFormat` subclass in its own module, which registers it at its
bottom with :func:`register_wire_format` (:mod:`._register`); a built-in one also has its line in
``rejudge.registry.BUILTINS["wire_format"]`` (:data:`WIRE_FORMATS` is their names, in that order),
so its module is imported on first use, and a plugin's registers the same way: the formats live
in the one extension registry (:mod:`rejudge.registry`, kind ``wire_format``). Detection asks
every registered format, the built-ins in their table's order and then the others, and keeps the
surest answer, so no function here names a format, and
:func:`describe_wire_formats` lists them for people from the registry itself, so no message's
list of formats can go stale.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rejudge.recorder.wire._common import (
    WIRE_UNKNOWN,
    AssistantTurn,
    EchoedCall,
    SentToolResult,
)
from rejudge.recorder.wire._format import (
    DETECT_NONE,
    DETECT_PATH,
    Probe,
    WireFormat,
    is_event_stream,
    make_probe,
)
from rejudge.recorder.wire._nonmodel import non_model_kind
from rejudge.recorder.wire._register import UnknownWireFormatError, register_wire_format

from rejudge.model import ToolSpec
from rejudge.registry import BUILTINS, REGISTRY

__all__ = [
    "WIRE_FORMATS",
    "describe_wire_formats",
    "UnknownWireFormatError",
    "register_wire_format",
    "get_wire_format",
    "wire_formats",
    "find_wire_format",
    "detect_wire_format",
    "is_event_stream",
    "parse_response",
    "extract_tool_results",
    "extract_echoed_calls",
    "extract_tool_specs",
    "extract_first_user_text",
]


def get_wire_format(name: str) -> WireFormat:
    """The format called ``name``; an unknown one raises the registry's one error,
    :class:`UnknownWireFormatError` ("unknown wire format 'x' (known: ...)")."""
    return REGISTRY.get("wire_format", name)


def wire_formats() -> list[WireFormat]:
    """Every registered format, in registration order (plugins' after the built-ins)."""
    return [wire_format for _, wire_format in REGISTRY.items("wire_format")]


def _find(name: str) -> WireFormat | None:
    found: WireFormat | None = REGISTRY.find("wire_format", name)
    return found


def describe_wire_formats() -> str:
    """Every registered format's title for people, as one phrase: ``"A, B or C"``."""
    titles = [f.title or f.name for f in wire_formats()]
    return titles[0] if len(titles) == 1 else f"{', '.join(titles[:-1])} or {titles[-1]}"


def find_wire_format(probe: Probe) -> WireFormat | None:
    """The format ``probe`` speaks, or ``None`` for no model exchange.

    A URL that names a non-model endpoint (:mod:`._nonmodel`: embeddings, files, telemetry, ...)
    means no model exchange; a path that names a format's endpoint decides; a path that names another endpoint of a known
    API (model listings, token counts) means no model exchange; otherwise the surest of the
    body-shape and header answers wins.
    """
    if non_model_kind(probe.host, probe.path) is not None:
        return None  # embeddings, files, telemetry, ...: a known non-model endpoint
    formats = wire_formats()
    scores = [(f.detect(probe), f) for f in formats]
    for score, wire_format in scores:
        if score >= DETECT_PATH:
            return wire_format
    if any(f.other_endpoint(probe) for f in formats):
        return None
    best_score, best = DETECT_NONE, None
    for score, wire_format in scores:
        if score > best_score:
            best_score, best = score, wire_format
    return best


def detect_wire_format(
    request_path: str | None,
    request_body: Any = None,
    response_headers: Mapping[str, Any] | None = None,
) -> str:
    """The name of the format an exchange speaks (``"openai-chat"``, ...), or ``"unknown"``.

    ``request_path`` may be a full URL or a path with a query string; ``request_body`` text, bytes
    or decoded JSON. ``"unknown"`` means "not a model exchange" (``GET /v1/models``, embeddings).
    """
    found = find_wire_format(make_probe(request_path, request_body, response_headers))
    return found.name if found is not None else WIRE_UNKNOWN


def parse_response(
    wire_format: str, body: Any, response_headers: Mapping[str, Any] | None = None
) -> AssistantTurn:
    """Parse a response body (decoded JSON, or text holding JSON or SSE) in ``wire_format``; an
    unregistered name gives a turn whose ``error`` says so (parsing never raises)."""
    found = _find(wire_format)
    if found is None:
        return AssistantTurn(error=f"unknown wire format {wire_format!r}")
    return found.parse_response(body, response_headers)


def extract_tool_results(wire_format: str, request_body: Any) -> list[SentToolResult]:
    found = _find(wire_format)
    return found.tool_results(request_body) if found is not None else []


def extract_echoed_calls(wire_format: str, request_body: Any) -> list[list[EchoedCall]]:
    found = _find(wire_format)
    return found.echoed_calls(request_body) if found is not None else []


def extract_tool_specs(wire_format: str, request_body: Any) -> list[ToolSpec]:
    found = _find(wire_format)
    return found.tool_specs(request_body) if found is not None else []


def extract_first_user_text(wire_format: str, request_body: Any) -> str | None:
    found = _find(wire_format)
    return found.first_user_text(request_body) if found is not None else None


# the built-in formats' names, in detection order: their lines in the registry's table
WIRE_FORMATS: tuple[str, ...] = tuple(BUILTINS["wire_format"])
