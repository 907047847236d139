"""OpenTelemetry span files as plain spans (pure: bytes in, :class:`Span` out).

Two shapes of file are read, each as one JSON document, a JSON list, or JSON Lines:

- **OTLP JSON** (the collector's file exporter writes one ``{"resourceSpans": [...]}`` per
  line; ``otel-cli`` and the OTLP/HTTP JSON encoding one per file): resource -> scope
  (``scopeSpans``, or ``instrumentationLibrarySpans`` before OTLP 0.15) -> spans, attributes
  as ``[{"key", "value": {"stringValue" | "intValue" | "doubleValue" | "boolValue" |
  "arrayValue" | "kvlistValue" | "bytesValue"}}]``, ids hex (the OTLP JSON rule) or base64
  (protobuf's own JSON mapping, which some exporters use), times as decimal strings of nanos.
- **span dumps**: one span object per item, as the SDK's console exporter (``Span.to_json``:
  ``context.trace_id`` ``0x...``, ``parent_id``, ISO times), Phoenix and agent frameworks
  (integer ids, ``parent.span_id``, nanosecond integers) write them; a ``{"spans": [...]}``
  wrapper is read too. Nested attribute objects are flattened to dotted keys (``llm:
  {input_messages: [{...}]}`` is ``llm.input_messages.0...``), the form the conventions name.

A span missing its trace or span id cannot be placed in a tree: it is left out with a problem
naming it. Nothing here knows the GenAI conventions; :mod:`._otel_read` does.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from rejudge.errors import InvalidInputError
from rejudge.importers._json_stream import Piece
from rejudge.recorder import is_secret_name, scrub_text, scrub_value

__all__ = [
    "Span",
    "SpanEvent",
    "iter_documents",
    "iter_sized_documents",
    "pack_span",
    "scrub_attributes",
    "spans_of_document",
    "spans_of_pieces",
    "unpack_span",
]

_HEX = re.compile(r"[0-9a-fA-F]+")
_LOWER_HEX = re.compile(r"[0-9a-f]+")


@dataclass
class SpanEvent:
    name: str
    time_ns: int | None
    attributes: dict[str, Any]


@dataclass
class Span:
    """One span as the readers need it: ids as lowercase hex, times in nanoseconds, attributes
    flat (``{"gen_ai.request.model": "gpt-4o", ...}``) with typed OTLP values decoded."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start_ns: int | None
    end_ns: int | None
    attributes: dict[str, Any]
    events: list[SpanEvent] = field(default_factory=list)
    error: str | None = None  # the status message of a span whose status is an error
    resource: dict[str, Any] = field(default_factory=dict)


def pack_span(span: Span) -> tuple[Any, ...]:
    """A span as plain data (what ``marshal`` writes when spans are spilled to disk)."""
    return (
        span.trace_id,
        span.span_id,
        span.parent_id,
        span.name,
        span.start_ns,
        span.end_ns,
        span.attributes,
        [(e.name, e.time_ns, e.attributes) for e in span.events],
        span.error,
        span.resource,
    )


def unpack_span(data: Any) -> Span:
    """:func:`pack_span` undone."""
    trace_id, span_id, parent_id, name, start, end, attributes, events, error, resource = data
    return Span(
        trace_id,
        span_id,
        parent_id,
        name,
        start,
        end,
        attributes,
        [SpanEvent(n, t, a) for n, t, a in events],
        error,
        resource,
    )


# --------------------------------------------------------------------------- values


def _otlp_value(value: Any) -> Any:
    """An OTLP ``AnyValue`` as a plain value (``{"intValue": "3"}`` -> 3)."""
    if not isinstance(value, dict):
        return value
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        try:
            return int(value["intValue"])
        except (TypeError, ValueError):
            return value["intValue"]
    if "arrayValue" in value:
        return [_otlp_value(v) for v in (value["arrayValue"] or {}).get("values") or []]
    if "kvlistValue" in value:
        return _otlp_attributes((value["kvlistValue"] or {}).get("values") or [])
    if "bytesValue" in value:
        return value["bytesValue"]  # base64 text: kept as the exporter wrote it
    return None  # an empty AnyValue


def scrub_attributes(attributes: dict[str, Any]) -> dict[str, Any]:
    """Attributes without secret headers (``http.request.header.authorization``...), provider
    keys redacted in every text."""
    out = {}
    for key, value in attributes.items():
        if is_secret_name(key):
            continue
        kind = value.__class__
        if kind is str:
            out[key] = scrub_text(value)
        elif kind in _SCALARS or value is None:  # nothing in them to scrub
            out[key] = value
        else:
            out[key] = scrub_value(value)
    return out


_SCALARS = frozenset((int, float, bool))


def _resource(attributes: Any) -> Any:
    # a resource's attributes are scrubbed as they are read, once for the spans that share
    # them: no trace reads them, but they are spilled with each span (and SDKs put the
    # process's command line there, keys passed as arguments included)
    if isinstance(attributes, dict):
        return scrub_attributes(attributes)
    return scrub_value(attributes, drop_secret_names=True)


def _otlp_attributes(items: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(items, dict):  # some writers put a plain mapping here
        return _flatten(items)
    for item in items or []:
        try:  # the usual item, {"key": "...", "value": {"stringValue": "..."}}, read directly
            key, value = item["key"], item["value"]
            if key.__class__ is str and value.__class__ is dict and "stringValue" in value:
                out[key] = value["stringValue"]
                continue
        except (TypeError, KeyError):
            pass
        if isinstance(item, dict):
            key = item.get("key")
            if isinstance(key, str):
                out[key] = _otlp_value(item.get("value"))
    return out


def _flatten(attributes: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested attribute objects as dotted keys; a list of objects is indexed (``a.0.b``), a
    list of scalars stays a list (an OTLP array attribute)."""
    out: dict[str, Any] = {}
    for key, value in attributes.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out.update(_flatten(value, f"{name}."))
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for i, item in enumerate(value):
                out.update(_flatten(item, f"{name}.{i}."))
        else:
            out[name] = value
    return out


def _hex_id(value: Any, width: int) -> str | None:
    """A trace id (``width`` 32) or span id (16) as lowercase hex, from hex, ``0x`` hex, base64
    or an integer; None when it is none of them (or all zeros, OTLP's "no parent")."""
    if value is None or value == "":
        return None
    if value.__class__ is str and len(value) == width and _LOWER_HEX.fullmatch(value):
        # the OTLP JSON rule (lowercase hex of the width): as it is unless all zeros
        return None if value.count("0") == width else value
    if isinstance(value, int) and not isinstance(value, bool):
        text = f"{value:0{width}x}"
    elif isinstance(value, str):
        text = value[2:] if value[:2] in ("0x", "0X") else value
        if len(text) != width or _HEX.fullmatch(text) is None:
            try:  # protobuf's JSON mapping writes bytes fields as base64
                raw = base64.b64decode(value, validate=True)
            except (binascii.Error, ValueError):
                return None
            if len(raw) != width // 2:
                return None
            text = raw.hex()
    else:
        return None
    text = text.lower()
    return None if set(text) == {"0"} else text


def _time_ns(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return int(value)
    if isinstance(value, str):
        if value.isdigit():
            return int(value)
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return int(moment.timestamp() * 1_000_000_000)
    return None


# --------------------------------------------------------------------------- spans


def _status_error(status: Any) -> str | None:
    if not isinstance(status, dict):
        return None
    code = status.get("code", status.get("status_code"))
    # OTLP: 2 or "STATUS_CODE_ERROR"; the SDK's dump: "ERROR"; some frameworks: "error"
    if code == 2 or (isinstance(code, str) and code.upper().endswith("ERROR")):
        message = status.get("message", status.get("description"))
        return str(message) if message else "error"
    return None


def _otlp_span(raw: dict[str, Any], resource: dict[str, Any], problems: list[str]) -> Span | None:
    trace_id = _hex_id(raw.get("traceId"), 32)
    span_id = _hex_id(raw.get("spanId"), 16)
    name = str(raw.get("name") or "")
    if trace_id is None or span_id is None:
        missing = "traceId" if trace_id is None else "spanId"
        problems.append(f"span {name!r}: no usable {missing}; left out")
        return None
    events = [
        SpanEvent(
            str(e.get("name") or ""),
            _time_ns(e.get("timeUnixNano")),
            _otlp_attributes(e.get("attributes")),
        )
        for e in raw.get("events") or []
        if isinstance(e, dict)
    ]
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=_hex_id(raw.get("parentSpanId"), 16),
        name=name,
        start_ns=_time_ns(raw.get("startTimeUnixNano")),
        end_ns=_time_ns(raw.get("endTimeUnixNano")),
        attributes=_otlp_attributes(raw.get("attributes")),
        events=events,
        error=_status_error(raw.get("status")),
        resource=resource,
    )


def _dumped_span(raw: dict[str, Any], problems: list[str]) -> Span | None:
    found = raw.get("context")
    context: dict[str, Any] = found if isinstance(found, dict) else {}
    parent = raw.get("parent")
    parent_id = raw.get("parent_id", raw.get("parentSpanId", raw.get("parent_span_id")))
    if isinstance(parent, dict):
        parent_id = parent.get("span_id", parent_id)
    trace_id = _hex_id(context.get("trace_id", raw.get("trace_id", raw.get("traceId"))), 32)
    span_id = _hex_id(context.get("span_id", raw.get("span_id", raw.get("spanId"))), 16)
    name = str(raw.get("name") or "")
    if trace_id is None or span_id is None:
        missing = "trace_id" if trace_id is None else "span_id"
        problems.append(f"span {name!r}: no usable {missing}; left out")
        return None
    attributes = raw.get("attributes")
    resource = raw.get("resource")
    events = []
    for e in raw.get("events") or []:
        if isinstance(e, dict):
            attrs = e.get("attributes")
            events.append(
                SpanEvent(
                    str(e.get("name") or ""),
                    _time_ns(e.get("timestamp", e.get("time_unix_nano"))),
                    _flatten(attrs) if isinstance(attrs, dict) else _otlp_attributes(attrs),
                )
            )
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=_hex_id(parent_id, 16),
        name=name,
        start_ns=_time_ns(raw.get("start_time", raw.get("startTimeUnixNano"))),
        end_ns=_time_ns(raw.get("end_time", raw.get("endTimeUnixNano"))),
        attributes=_flatten(attributes)
        if isinstance(attributes, dict)
        else _otlp_attributes(attributes),
        events=events,
        error=_status_error(raw.get("status")),
        resource=_resource(resource.get("attributes") or {}) if isinstance(resource, dict) else {},
    )


def spans_of_document(document: Any, problems: list[str]) -> Iterator[Span]:
    """The spans of one JSON value of a span file: an OTLP export, a ``{"spans": [...]}``
    wrapper, a list of either, or one dumped span. Anything else is a problem."""
    if isinstance(document, list):
        for item in document:
            yield from spans_of_document(item, problems)
        return
    if not isinstance(document, dict):
        problems.append(f"a {type(document).__name__} where a span or an export was expected")
        return
    if "resourceSpans" in document:
        for rs in document.get("resourceSpans") or []:
            yield from _resource_spans(rs, problems)
        return
    if isinstance(document.get("spans"), list):
        yield from spans_of_document(document["spans"], problems)
        return
    span = _dumped_span(document, problems)
    if span is not None:
        yield span


def _resource_spans(rs: Any, problems: list[str]) -> Iterator[Span]:
    """The spans of one ``resourceSpans`` entry (a resource, its scopes and their spans)."""
    if not isinstance(rs, dict):
        return
    resource = _resource(_otlp_attributes((rs.get("resource") or {}).get("attributes")))
    scopes = rs.get("scopeSpans") or rs.get("instrumentationLibrarySpans") or []
    for scope in scopes:
        for raw in (scope or {}).get("spans") or []:
            if isinstance(raw, dict):
                span = _otlp_span(raw, resource, problems)
                if span is not None:
                    yield span


#: the lists of a top-level object read an item at a time (:mod:`._json_stream`)
STREAMED_KEYS = ("resourceSpans", "spans")


def spans_of_pieces(
    pieces: Iterable[Piece], problems: list[str]
) -> Iterator[tuple[list[Span], int]]:
    """The spans of a span file read in pieces (:func:`._json_stream.iter_pieces` with
    :data:`STREAMED_KEYS`), a batch per piece with the piece's size, as
    :func:`spans_of_document` reads each whole document: an export's ``resourceSpans`` or a
    wrapper's ``spans`` an item at a time, any other object once it ends. (An object holding
    both lists gives both's spans; a whole read gives the ``resourceSpans`` only.)"""
    number = 0
    rest: dict[str, Any] = {}
    rest_size = 0
    streamed = False
    for piece in pieces:
        if piece.document != number:
            if rest and not streamed:
                yield list(spans_of_document(rest, problems)), rest_size
            number, rest, rest_size, streamed = piece.document, {}, 0, False
        if piece.key is None:  # a whole document, or an item of a top-level list
            yield list(spans_of_document(piece.value, problems)), piece.size
        elif piece.opened:
            streamed = True
        elif piece.item and piece.key == "resourceSpans":
            yield list(_resource_spans(piece.value, problems)), piece.size
        elif piece.item:
            yield list(spans_of_document(piece.value, problems)), piece.size
        else:
            rest[piece.key] = piece.value
            rest_size += piece.size
    if rest and not streamed:
        yield list(spans_of_document(rest, problems)), rest_size


def iter_documents(lines: Iterable[bytes], problems: list[str]) -> Iterator[Any]:
    """The JSON values of a span file given as its lines: the whole file when it is one JSON
    document (a list or an object over several lines), else one value per non-blank line."""
    for document, _size in iter_sized_documents(lines, problems):
        yield document


def _too_big(size: int, limit: int, what: str) -> InvalidInputError:
    mib = 1024 * 1024
    return InvalidInputError(
        f"{what} of {size / mib:.0f} MiB or more: past {limit // mib} MiB a span file is read "
        "only as JSON Lines (one OTLP export or span per line), which streams in bounded "
        "memory, since one JSON document must be parsed whole; the collector's file exporter "
        "writes JSON Lines, or convert it: jq -c '.resourceSpans[] | {resourceSpans: [.]}'"
    )


def iter_sized_documents(
    lines: Iterable[bytes], problems: list[str], *, limit: int | None = None
) -> Iterator[tuple[Any, int]]:
    """:func:`iter_documents` with each value's size in bytes; a document (a line, or the file
    when it is one document over several lines) over ``limit`` bytes is refused
    (:class:`~rejudge.errors.InvalidInputError`) before it is parsed."""
    pending: list[bytes] = []
    pending_size = 0
    first = True
    for number, line in enumerate(lines, start=1):
        if limit is not None and len(line) > limit:
            raise _too_big(len(line), limit, f"line {number} is one JSON document")
        if first:
            if not line.strip():
                continue
            first = False
            try:
                yield json.loads(line), len(line)
                continue
            except ValueError:
                pending.append(line)  # a document spread over lines: read it whole
                pending_size = len(line)
                continue
        if pending:
            pending.append(line)
            pending_size += len(line)
            if limit is not None and pending_size > limit:
                raise _too_big(pending_size, limit, "the file is one JSON document over lines")
            continue
        if not line.strip():
            continue
        try:
            yield json.loads(line), len(line)
        except ValueError as exc:
            problems.append(f"line {number}: not JSON ({exc})")
    if pending:
        try:
            yield json.loads(b"".join(pending)), pending_size
        except ValueError as exc:
            problems.append(f"not JSON and not JSON Lines ({exc})")
