"""Reading a trace's cassette for display: each raw HTTP exchange, decoded and readable.

The file is read by rejudge's one cassette reader (``rejudge.recorder.read_cassette``), so the
page shows every layout the importer reads (vcrpy YAML/JSON, gzip ``!!binary`` bodies,
pydantic-ai's ``parsed_body``, old httpx-stub responses, Ruby VCR, ``.yaml.gz``). A streamed
(SSE) response is reassembled by the wire format that speaks it into the message the model sent
(text, calls, finish reason, usage); the raw body stays one click away. The request's tool
schemas (often most of the bytes) are split off, so the page can keep them collapsed.

Each response's content blocks in the order the provider sent them are read by the wire
formats' reader too (:func:`rejudge.recorder.wire.content_blocks`), so the dashboard shows what
this service read and parses no wire format itself. The view models are plain data.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rejudge.errors import RejudgeError
from rejudge.model import Block
from rejudge.recorder import (
    SECRET_REQUEST_HEADERS,
    SECRET_RESPONSE_HEADERS,
    CassetteError,
    Exchange,
    is_cassette_file,
    read_cassette,
    scrub_headers,
)
from rejudge.recorder.wire import (
    WIRE_UNKNOWN,
    content_blocks,
    detect_wire_format,
    is_event_stream,
    parse_response,
)
from rejudge.services._evidence_paths import resolve_evidence_path
from rejudge.services._timeline import LATENCY_HEADERS

__all__ = ["CassetteView", "ExchangeView", "load_exchanges", "exchange_view", "as_text"]

_MAX_BYTES = 20 * 1024 * 1024
# request keys that hold the tool schemas, per wire format family (OpenAI, Anthropic, Gemini)
_TOOL_KEYS = ("tools", "functions", "toolConfig")


def as_text(body: Any) -> str:
    """A decoded body as text: JSON indented, anything else as it is."""
    if body is None:
        return ""
    if isinstance(body, bytes):
        return body.decode("utf-8", errors="replace")
    if not isinstance(body, str):
        return json.dumps(body, indent=2, ensure_ascii=False)
    return body


@dataclass(frozen=True)
class ExchangeView:
    """One exchange as the page shows it."""

    index: int
    method: str
    url: str
    status: int | None
    wire_format: str
    # the response: the body as decoded JSON, or for a stream the message reassembled from it
    response: Any
    streamed: bool
    # the request without its tool schemas, the schemas' names, and the schemas themselves
    request: Any
    tool_names: list[str]
    tools: Any
    request_headers: dict[str, list[str]]
    response_headers: dict[str, list[str]]
    latency_ms: float | None
    raw_request: str
    raw_response: str
    notes: list[str] = field(default_factory=list)
    # the response's content blocks in recorded order (None: a response of no shape known)
    blocks: list[Block] | None = None

    @property
    def title(self) -> str:
        status = "—" if self.status is None else str(self.status)
        latency = "" if self.latency_ms is None else f" · {self.latency_ms:.0f} ms"
        stream = " · streamed" if self.streamed else ""
        return f"#{self.index} {self.method} {self.url} → {status}{latency}{stream}"


class CassetteView:
    def __init__(self, path: Path, exchanges: list[ExchangeView], error: str | None = None):
        self.path = path
        self.exchanges = exchanges
        self.error = error


def _tool_name(spec: Any) -> str:
    if not isinstance(spec, dict):
        return "?"
    function = spec.get("function")
    if isinstance(function, dict) and function.get("name"):
        return str(function["name"])
    if spec.get("name"):
        return str(spec["name"])
    declarations = spec.get("functionDeclarations") or spec.get("function_declarations")
    if isinstance(declarations, list):
        return ", ".join(str(d.get("name", "?")) for d in declarations if isinstance(d, dict))
    return str(spec.get("type", "?"))


def _split_tools(body: Any) -> tuple[Any, list[str], Any]:
    if not isinstance(body, dict):
        return body, [], None
    tools = {k: body[k] for k in _TOOL_KEYS if k in body}
    if not tools:
        return body, [], None
    rest = {k: v for k, v in body.items() if k not in tools}
    names = [
        _tool_name(spec) for value in tools.values() if isinstance(value, list) for spec in value
    ]
    return rest, names, tools


def _latency(headers: dict[str, list[str]], timings: dict[str, Any] | None) -> float | None:
    for name in LATENCY_HEADERS:
        values = headers.get(name)
        if values:
            try:
                return float(values[0])
            except ValueError:
                continue
    if timings and isinstance(timings.get("elapsed_s"), int | float):
        return 1000.0 * float(timings["elapsed_s"])
    return None


def _reassembled(wire: str, exchange: Exchange) -> tuple[Any, list[str]]:
    """The message a streamed response carried, as the wire format reassembles it."""
    turn = parse_response(wire, exchange.response_body, exchange.response_headers)
    message: dict[str, Any] = {
        "text": turn.text,
        "calls": [
            {"id": c.id, "name": c.name, "arguments": c.arguments}
            if c.parse_error is None
            else {"id": c.id, "name": c.name, "arguments_raw": c.arguments_raw}
            for c in turn.calls
        ],
        "finish_reason": turn.finish_reason,
        "usage": turn.usage,
    }
    if turn.raw_model:
        message["model"] = turn.raw_model
    notes = []
    if turn.truncated:
        notes.append("the stream ended without its terminator (truncated)")
    if turn.error:
        notes.append(f"provider error: {turn.error}")
    return message, notes


def exchange_view(exchange: Exchange, timings: dict[str, Any] | None = None) -> ExchangeView:
    """``exchange`` ready to show: response decoded (a stream reassembled), tools split off,
    secret headers masked."""
    wire = detect_wire_format(exchange.url, exchange.request_body, exchange.response_headers)
    body = exchange.response_body
    streamed = isinstance(body, str) and (
        is_event_stream(exchange.response_headers) or body.lstrip().startswith(("data:", "event:"))
    )
    notes: list[str] = []
    response: Any = body
    if streamed and wire != WIRE_UNKNOWN:
        response, notes = _reassembled(wire, exchange)
    elif streamed:
        notes.append("a stream of an unknown wire format: shown raw")
    request, names, tools = _split_tools(exchange.request_body)
    return ExchangeView(
        index=exchange.index,
        method=exchange.method,
        url=exchange.url,
        status=exchange.status,
        wire_format=wire,
        response=response,
        streamed=streamed,
        request=request,
        tool_names=names,
        tools=tools,
        request_headers=scrub_headers(exchange.request_headers, SECRET_REQUEST_HEADERS),
        response_headers=scrub_headers(exchange.response_headers, SECRET_RESPONSE_HEADERS),
        latency_ms=_latency(exchange.response_headers, timings),
        raw_request=as_text(exchange.request_body),
        raw_response=as_text(body),
        notes=notes,
        blocks=content_blocks(response, as_text(body)),
    )


def _round_timings(timings: dict[str, Any] | None) -> list[dict[str, Any] | None]:
    rounds = (timings or {}).get("rounds")
    if not isinstance(rounds, list):
        return []
    return [r if isinstance(r, dict) else None for r in rounds]


def load_exchanges(
    root: Path | None, relative: str | None, timings: dict[str, Any] | None = None
) -> CassetteView | None:
    """The exchanges of the cassette a trace names as ``relative`` (None when the trace has no
    cassette): relative to the cassettes folder ``root``, to a root of rejudge's own data, or
    absolute, as the store recorded it (:func:`rejudge.services.resolve_evidence_path`).
    ``timings`` (the trace's) give each exchange its latency when the response headers do not.

    Problems (missing file, a path leaving its folder, a file that is no cassette) come back
    as an ``error`` to show, never as an exception.
    """
    if not relative:
        return None
    try:
        path = resolve_evidence_path(relative, root)
    except RejudgeError:
        return CassetteView(Path(relative), [], f"cassette path {relative!r} leaves its folder")
    if not is_cassette_file(path):
        return CassetteView(path, [], f"{path} is not a cassette file (.yaml, .yml, .json)")
    try:
        if path.stat().st_size > _MAX_BYTES:
            return CassetteView(
                path, [], f"cassette {path} is larger than 20 MiB; open it directly"
            )
    except OSError as exc:
        return CassetteView(
            path,
            [],
            f"cannot read cassette {path}: {exc.strerror or exc} "
            "(start the dashboard with the cassettes folder the run was recorded into)",
        )
    try:
        cassette = read_cassette(path)
        exchanges = cassette.exchanges
    except CassetteError as exc:
        return CassetteView(path, [], str(exc))
    per_round = _round_timings(timings)
    return CassetteView(
        path,
        [
            exchange_view(e, per_round[i] if i < len(per_round) else None)
            for i, e in enumerate(exchanges)
        ],
    )
