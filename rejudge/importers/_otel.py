"""Importer ``otel``: OpenTelemetry span files as one run, one trace per trace id.

Reads OTLP JSON (``resourceSpans``) and span dumps (JSON Lines or a JSON list), under the
GenAI conventions (current and older) and OpenInference (:mod:`._otel_spans` reads the file,
:mod:`._otel_messages` the conventions, :mod:`._otel_read` rebuilds each trace; all pure).
Each trace id becomes a trace of an ad-hoc case named by the trace id (no golden calls: attach
them to judge against an oracle, or judge with tiers that need none), in an ad-hoc suite whose
registry holds the tools the spans show. What could not be read right is kept as anomalies,
each naming its span and field, in the run's config and in the import's result. Importing the
same file again is a lookup; replay re-derives the traces from the file.
"""

from __future__ import annotations

import gc
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rejudge.errors import InvalidInputError
from rejudge.importers._adhoc import (
    ADHOC_DOMAIN,
    AdhocImportResult,
    file_importer,
    hashed_lines,
    import_tracer_file,
)
from rejudge.importers._contract import Importer
from rejudge.importers._langfuse_doc import is_observation
from rejudge.importers._otel_read import OtelTrace, trace_of_spans
from rejudge.importers._otel_spans import Span, iter_documents, spans_of_document
from rejudge.importers._sniff import Detection, Sniff
from rejudge.model import Case, Golden, Trace

__all__ = ["OTEL_DOMAIN", "OTEL_SOURCE", "OtelFile", "OtelImportResult", "import_otel", "read_otel"]

OTEL_SOURCE = "otel"
OTEL_DOMAIN = ADHOC_DOMAIN


@dataclass
class OtelFile:
    """A span file read: its traces (trace id order), what was left out, and its hash."""

    traces: list[OtelTrace]
    problems: list[str]
    file_hash: str
    spans: int


def read_otel(path: str | Path) -> OtelFile:
    """Read a span file whole into traces (spans are grouped by trace id, whatever the order
    they come in: a collector writes a trace's spans across many lines)."""
    source = Path(path)
    if not source.is_file():
        raise InvalidInputError(f"{source}: not a span file", file=str(source))
    digest = hashlib.sha256()
    problems: list[str] = []
    by_trace: dict[str, list[Span]] = {}
    count = 0
    # the spans held until every trace id is complete are millions of small acyclic objects:
    # the cyclic collector would walk all of them again on every full collection (at 40 MB it
    # took half the time), so it is paused while they are read and built
    collecting = gc.isenabled()
    gc.disable()
    try:
        for document in iter_documents(hashed_lines(source, digest), problems):
            for span in spans_of_document(document, problems):
                by_trace.setdefault(span.trace_id, []).append(span)
                count += 1
        traces = [trace_of_spans(trace_id, by_trace.pop(trace_id)) for trace_id in sorted(by_trace)]
    finally:
        if collecting:
            gc.enable()
    if not traces:
        shown = f": {problems[0]}" if problems else ""
        raise InvalidInputError(f"{source}: no spans in the file{shown}", file=str(source))
    return OtelFile(traces, problems, f"sha256:{digest.hexdigest()}", count)


# --------------------------------------------------------------------------- the import


@dataclass(frozen=True, kw_only=True)
class OtelImportResult(AdhocImportResult):
    spans: int

    def _counted(self) -> dict[str, int]:
        return {"spans": self.spans}


def _case(item: OtelTrace, source: str) -> Case:
    return Case(
        id=item.trace_id,
        dimension=OTEL_DOMAIN,
        category=OTEL_DOMAIN,
        instruction=item.instruction or "(the spans hold no user message)",
        golden=Golden(calls=[]),
        metadata={"imported_from": source, "otel_trace_id": item.trace_id},
    )


def import_otel(
    path: str | Path,
    store: Any,
    *,
    run_name: str | None = None,
    suite_name: str | None = None,
) -> OtelImportResult:
    """Import a span file as one run (see the module); all of it lands, or none of it."""
    source = Path(path)
    read = read_otel(source)
    return import_tracer_file(
        OtelImportResult,
        store,
        source,
        read,
        [_case(t, source.name) for t in read.traces],
        prefix="otel",
        source_tag=OTEL_SOURCE,
        description=f"traces of {source.name}",
        run_name=run_name,
        suite_name=suite_name,
        spans=read.spans,
    )


# --------------------------------------------------------------------------- detect, replay


_SPAN_KEYS = ("trace_id", "traceId", "context", "span_id", "spanId")


def _is_span(item: Any) -> bool:
    # a Langfuse observation has a name and a traceId too, but its type is Langfuse's own
    # (GENERATION, SPAN...): the langfuse importer's, not a span dump
    return (
        isinstance(item, dict)
        and "name" in item
        and any(k in item for k in _SPAN_KEYS)
        and not is_observation(item)
    )


def _detect(sniff: Sniff) -> Detection:
    """``resourceSpans`` at the top of a document or a JSON Lines record; or span objects (a
    name and a trace or span id) as a list, as JSON Lines or under ``spans``."""
    if sniff.is_dir:
        return Detection.refuse("a folder, not a span file")
    head = sniff.head_text
    first = sniff.first_json_line()
    whole = sniff.whole_json()
    for value in (whole, first):
        if isinstance(value, dict) and "resourceSpans" in value:
            return Detection.accept(1.0, "an OTLP JSON export (resourceSpans)")
        if isinstance(value, dict) and isinstance(value.get("spans"), list) and value["spans"]:
            if _is_span(value["spans"][0]):
                return Detection.accept(0.9, "a span dump (spans with trace and span ids)")
        if isinstance(value, list) and value and _is_span(value[0]):
            return Detection.accept(0.9, "a span dump (a list of spans)")
        if _is_span(value):
            return Detection.accept(0.85, "span JSON Lines (a span per line)")
    if whole is None and first is None and sniff.starts_with in "{[" and '"resourceSpans"' in head:
        return Detection.accept(0.7, "looks like an OTLP JSON export (resourceSpans)")
    return Detection.refuse("no resourceSpans and no spans with trace and span ids")


def _rederive(path: Path) -> tuple[str, list[Trace]]:
    read = read_otel(path)
    return read.file_hash, [t.trace for t in read.traces]


#: the OpenTelemetry importer (options: ``run_name``, ``suite_name``)
OTEL: Importer[OtelImportResult] = file_importer(
    "otel",
    summary="OpenTelemetry spans (GenAI or OpenInference conventions) as one run, "
    "a trace per trace id",
    accepts="an OTLP JSON file (resourceSpans) or a span dump (JSON Lines or a JSON list)",
    detect=_detect,
    imports=import_otel,
    source_tag=OTEL_SOURCE,
    kind="OpenTelemetry span file",
    rederive=_rederive,
)
