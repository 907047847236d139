"""Importer ``otel``: OpenTelemetry span files as one run, one trace per trace id.

Reads OTLP JSON (``resourceSpans``) and span dumps (JSON Lines or a JSON list), under the
GenAI conventions (current and older) and OpenInference (:mod:`._otel_spans` reads the file,
:mod:`._otel_messages` the conventions, :mod:`._otel_read` rebuilds each trace; all pure).
Each trace id becomes a trace of an ad-hoc case named by the trace id (no golden calls: attach
them to judge against an oracle, or judge with tiers that need none), in an ad-hoc suite whose
registry holds the tools the spans show. What could not be read right is kept as anomalies,
each naming its span and field, stored per trace with its batch (``store.anomalies``) and
shown, the first of them and how many, in the import's result. Importing the
same file again is a lookup; replay re-derives the traces from the file.

A file of any size streams (:func:`iter_otel`): spans wait, grouped by trace id, in memory up
to a budget and past it in a scratch file; traces are built one at a time in trace id order and
stored a batch per transaction into a staged run, visible once the last batch is in (a killed
import, run again, resumes: :func:`rejudge.services.ingest_staged`). A file that is one
document (a pretty-printed export, a list of spans) is read an export or span at a time
(:mod:`._json_stream`); one value over :data:`DOCUMENT_LIMIT` is refused.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rejudge.errors import InvalidInputError
from rejudge.importers._adhoc import (
    ADHOC_DOMAIN,
    AdhocFile,
    AdhocImportResult,
    FileStream,
    adhoc_case,
    file_importer,
    hash_file,
)
from rejudge.importers._contract import Importer
from rejudge.importers._json_stream import TooBig, iter_pieces
from rejudge.importers._langfuse_doc import is_observation
from rejudge.importers._otel_read import OtelTrace, scrub_span, trace_of_spans
from rejudge.importers._otel_spans import STREAMED_KEYS, pack_span, spans_of_pieces, unpack_span
from rejudge.importers._sniff import Detection, Sniff
from rejudge.importers._spill import SPILL_BUDGET, Groups
from rejudge.model import Case, Trace

if TYPE_CHECKING:
    from rejudge.services import StagedItem

__all__ = [
    "OTEL_DOMAIN",
    "OTEL_SOURCE",
    "OtelFile",
    "OtelImportResult",
    "OtelStream",
    "import_otel",
    "iter_otel",
    "read_otel",
]

OTEL_SOURCE = "otel"
OTEL_DOMAIN = ADHOC_DOMAIN
OTEL_FILE = AdhocFile("span file", "otel", OTEL_SOURCE, "traces of")


@dataclass
class OtelFile:
    """A span file read: its traces (trace id order), what was left out, and its hash."""

    traces: list[OtelTrace]
    problems: list[str]
    file_hash: str
    spans: int


#: the largest JSON value a span file may hold (a line of JSON Lines, or one export or span of a
#: document read an item at a time): each is parsed whole, so past this it is refused
DOCUMENT_LIMIT = 128 * 1024 * 1024


@dataclass
class OtelStream(FileStream):
    """What reading a span file found, filled in as :func:`iter_otel` yields its traces
    (complete once it has yielded the last)."""

    spans: int = 0
    models: set[str] = field(default_factory=set)
    providers: set[str] = field(default_factory=set)
    spilled: int = 0  # how many times the records held were written out to the scratch file

    def note(self, item: OtelTrace) -> None:
        self.count(item.trace)
        self.models.update(item.models)
        self.providers.update(item.providers)

    def named(self) -> tuple[list[str] | None, list[str]]:
        return sorted(self.models), sorted(self.providers)


def _too_big(exc: TooBig) -> str:
    mib = 1024 * 1024
    return (
        f"{exc.where} is one JSON value of {exc.size / mib:.0f} MiB or more: past "
        f"{exc.limit // mib} MiB a value (a line, or one export or span of a document) is "
        "refused, since each is parsed whole; JSON Lines of one OTLP export per line (the "
        "collector's file exporter writes them) streams in bounded memory, or split it: "
        "jq -c '.resourceSpans[] | {resourceSpans: [.]}'"
    )


def iter_otel(
    path: str | Path,
    found: OtelStream,
    *,
    progress: Callable[[int], None] | None = None,
    budget: int = SPILL_BUDGET,
    scratch_dir: str | Path | None = None,
) -> Iterator[tuple[OtelTrace, int]]:
    """A span file's traces in trace id order, one at a time, each with the bytes its spans
    came from; ``found`` fills in as they come. Spans are grouped by trace id whatever the order
    they come in (a collector writes a trace's spans across many lines) in bounded memory:
    past ``budget`` bytes, the spans read so far wait in a scratch file (:mod:`._spill`), so
    memory holds the budget and one trace, not the file. ``progress`` is called with the bytes
    read."""
    source = OTEL_FILE.checked(path)
    problems = found.problems
    with Groups(pack_span, unpack_span, budget=budget, scratch_dir=scratch_dir) as groups:
        # the spans held while the file is read are many small acyclic objects: the cyclic
        # collector would walk all of them again on every full collection (at 40 MB it took
        # half the time), so it is paused while they are read (not while traces are built and
        # stored: that makes garbage it must collect)
        collecting = gc.isenabled()
        gc.disable()
        try:
            with source.open("rb") as fh:
                pieces = iter_pieces(fh, problems, stream_keys=STREAMED_KEYS, limit=DOCUMENT_LIMIT)
                reported = 0
                for spans, size in spans_of_pieces(pieces, problems):
                    share = size // len(spans) if spans else 0
                    for span in spans:
                        # scrubbed before it is held: past the budget it is written to a
                        # scratch file, which a process killed with -9 leaves on disk
                        groups.add(span.trace_id, scrub_span(span), share)
                    found.spans += len(spans)
                    if progress is not None and fh.tell() - reported >= 1 << 20:
                        progress(fh.tell() - reported)  # a tick per MiB: a redraw is not free
                        reported = fh.tell()
                if progress is not None and fh.tell() > reported:
                    progress(fh.tell() - reported)
        except TooBig as exc:
            raise InvalidInputError(f"{source}: {_too_big(exc)}", file=str(source)) from None
        finally:
            if collecting:
                gc.enable()
        found.spilled = groups.spilled
        for trace_id, spans, weight in groups.groups():
            item = trace_of_spans(trace_id, spans, scrubbed=True)
            found.note(item)
            yield item, weight
    if not found.traces:
        shown = f": {problems[0]}" if problems else ""
        raise InvalidInputError(f"{source}: no spans in the file{shown}", file=str(source))


def read_otel(path: str | Path) -> OtelFile:
    """Read a span file whole into traces (what replay re-derives a run from; an import
    streams, :func:`iter_otel`)."""
    source = OTEL_FILE.checked(path)
    found = OtelStream()
    traces = [item for item, _weight in iter_otel(source, found)]
    return OtelFile(traces, found.problems, hash_file(source), found.spans)


# --------------------------------------------------------------------------- the import


@dataclass(frozen=True, kw_only=True)
class OtelImportResult(AdhocImportResult):
    spans: int

    def _counted(self) -> dict[str, int]:
        return {"spans": self.spans}


def _case(item: OtelTrace, source: str) -> Case:
    instruction = item.instruction or "(the spans hold no user message)"
    return adhoc_case(
        item.trace_id, instruction, {"imported_from": source, "otel_trace_id": item.trace_id}
    )


def import_otel(
    path: str | Path,
    store: Any,
    *,
    run_name: str | None = None,
    suite_name: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> OtelImportResult:
    """Import a span file as one run (see the module), streamed: memory holds a bounded part of
    the file and one trace, traces are stored a batch per transaction, and the run is visible
    once all of it is stored (a killed import, run again, resumes). ``progress`` is called with
    bytes: the file's size as it is read, then again as its traces are stored."""
    from rejudge.services import StagedItem

    found = OtelStream()

    def items(source: Path) -> Iterator[StagedItem]:
        for item, weight in iter_otel(source, found, progress=progress):
            case = _case(item, source.name)
            yield StagedItem(case, item.trace, item.tools, weight, item.anomalies)

    stored = OTEL_FILE.store(
        store, path, found, items, run_name=run_name, suite_name=suite_name, progress=progress
    )
    return OtelImportResult.of(store, stored, found, spans=found.spans)


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
    streams=True,
)
