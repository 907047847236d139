"""Importer ``langfuse``: Langfuse trace and observation exports as one run, a trace per trace.

Reads what Langfuse writes or serves (:mod:`._langfuse_doc`: the public API's trace with its
observations, the UI's download, observation lists and table exports as JSON or JSONL, the
ingestion batch), the ChatML its integrations put in ``input``/``output``
(:mod:`._langfuse_messages`), and rebuilds each trace from its observation tree
(:mod:`._langfuse_read`, through the OpenTelemetry reader's walk; all pure). Each Langfuse trace
becomes a trace of an ad-hoc case named by its trace id (no golden calls), in an ad-hoc suite
whose registry holds the tools the observations show. Anomalies name the observation and field,
stored per trace with its batch and shown in the import's result. Importing the same file again is a lookup; replay
re-derives the traces from the file.

An export of any size streams (:func:`iter_langfuse`), as a span file does: JSON Lines a line
at a time, one document (a list, an API page's ``{"data": [...]}``, an ingestion batch's
``{"batch": [...]}``) an item at a time (:mod:`._json_stream`); what each says of a trace
waits, grouped by trace id, in memory up to a budget and past it in a scratch file
(:mod:`._spill`); traces are built one at a time, in the order their ids first appear, and
stored a batch per transaction into a staged run. Read whole: a log download (one trace), and
an ingestion batch that is one line of JSON Lines. Unlike a whole read, an
observation id seen under two trace ids stays in both, and an update event that names no trace
finds its observation only within its own batch (the SDKs name the trace in every update).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rejudge.errors import InvalidInputError
from rejudge.importers._adhoc import (
    AdhocFile,
    AdhocImportResult,
    adhoc_case,
    file_importer,
    hash_file,
)
from rejudge.importers._contract import Importer
from rejudge.importers._json_stream import Piece, TooBig, iter_pieces
from rejudge.importers._langfuse_doc import (
    LangfuseTrace,
    Record,
    Router,
    build_trace,
    is_observation,
    is_trace,
)
from rejudge.importers._langfuse_messages import read_messages
from rejudge.importers._langfuse_read import trace_of_observations
from rejudge.importers._otel import OtelStream
from rejudge.importers._otel_read import OtelTrace
from rejudge.importers._sniff import Detection, Sniff
from rejudge.importers._spill import SPILL_BUDGET, Groups
from rejudge.model import Case, Trace
from rejudge.recorder import scrub_text, scrub_value

__all__ = [
    "LANGFUSE_SOURCE",
    "LangfuseFile",
    "LangfuseImportResult",
    "LangfuseStream",
    "import_langfuse",
    "iter_langfuse",
    "read_langfuse",
]

LANGFUSE_SOURCE = "langfuse"
#: the members of a document whose lists are read an item at a time: an API page's ``data``,
#: an ingestion batch's ``batch`` (a request body of any size: past 128 MiB, one value parsed
#: whole would be refused)
STREAMED_KEYS = ("data", "batch")
LANGFUSE_FILE = AdhocFile("Langfuse export", "langfuse", LANGFUSE_SOURCE, "Langfuse traces of")


@dataclass
class LangfuseFile:
    """An export read: its traces (first-seen order), what was left out, and its hash."""

    traces: list[OtelTrace]
    names: dict[str, str | None]  # trace id -> the trace's name in Langfuse
    problems: list[str]
    file_hash: str
    observations: int


def _instruction(trace: LangfuseTrace) -> str | None:
    """The user's words from the trace's own ``input`` (when no generation kept them)."""
    found = read_messages(trace.fields.get("input"), output=False)
    users = [m.text for m in found or [] if m.role == "user" and m.text]
    return scrub_text(users[0]) if users else None


@dataclass
class LangfuseStream(OtelStream):
    """What reading an export found, filled in as :func:`iter_langfuse` yields its traces
    (complete once it has yielded the last)."""

    observations: int = 0


class _Document:
    """One document's pieces (:mod:`._json_stream`) walked as they come, as the whole document
    would be: a top-level list item by item (a log download, whose rows need each other to find
    their parents, is read whole: it is one trace), an object's ``data`` items or ``batch``
    events one by one, its other members once it ends."""

    def __init__(self, router: Router, number: int, flush: Callable[[int], None]) -> None:
        self.router, self.number, self.flush = router, number, flush
        self.where = f"document {number}"
        self.items = 0
        self.rows: list[Any] | None = None  # a log download's rows
        self.members: dict[str, Any] = {}
        self.size = 0
        self.streamed = False

    def piece(self, piece: Piece) -> None:
        if piece.key is None and not piece.item:  # a whole document
            self.router.walk(piece.value, self.where)
            self.flush(piece.size)
        elif piece.key is None:  # an item of a top-level list
            first = self.items == 0
            self.items += 1
            value = piece.value
            if first and isinstance(value, dict) and isinstance(value.get("depth"), int):
                if "parentObservationId" not in value:
                    self.rows = []
            if self.rows is not None:
                self.rows.append(value)
                self.size += piece.size
            else:
                self.router.walk(value, f"{self.where}[{self.items - 1}]")
                self.flush(piece.size)
        elif piece.opened:  # a streamed list starts: an API page's data, an ingestion batch
            self.members[piece.key] = []
            self.streamed = True
            self.items = 0
            if piece.key == "batch":
                self.router.batch()
        elif piece.item:
            if piece.key == "batch":  # an ingestion event, as a whole batch's walk reads it
                self.router.event(piece.value, f"{self.where} batch[{self.items}]")
            else:
                self.router.walk(piece.value, f"{self.where} data[{self.items}]")
            self.items += 1
            self.flush(piece.size)
        else:
            self.members[piece.key] = piece.value
            self.size += piece.size

    def end(self) -> None:
        if self.rows is not None:
            self.router.walk(self.rows, self.where)
        elif self.members:
            rest = self.members
            # its data items are walked already; the rest only when the whole document would
            # have been read as something else (a batch, a trace, a download), whose data
            # Langfuse never sends beside them
            page = self.streamed and not (
                isinstance(rest.get("batch"), list)
                or is_trace(rest)
                or isinstance(rest.get("observations"), list)
            )
            if not page:
                self.router.walk(rest, self.where)
        self.flush(self.size)


def _item_of(trace: LangfuseTrace, problems: list[str]) -> tuple[OtelTrace, str | None] | None:
    """One grouped trace derived, with its scrubbed name; None (a problem said) when it holds
    no observation. The one derivation a streamed and a whole read share."""
    if not trace.observations:
        problems.append(f"trace {trace.id}: no observations; left out")
        return None
    item = trace_of_observations(trace)
    item.instruction = item.instruction or _instruction(trace)
    name = trace.fields.get("name")
    return item, (scrub_text(str(name)) if name is not None else None)


def iter_langfuse(
    path: str | Path,
    found: LangfuseStream,
    *,
    budget: int = SPILL_BUDGET,
    scratch_dir: str | Path | None = None,
    progress: Callable[[int], None] | None = None,
) -> Iterator[tuple[OtelTrace, str | None, int]]:
    """An export's traces in the order their ids first appear, one at a time, each with its
    name in Langfuse and the bytes its records came from; ``found`` fills in as they come. The
    file is read a value at a time (JSON Lines by line, one document by item:
    :mod:`._json_stream`) and what it says of each trace is grouped by trace id in bounded
    memory (:mod:`._spill`: past ``budget`` bytes, in a scratch file), so memory holds the
    budget and one trace, not the file. ``progress`` is called with the bytes read."""
    source = LANGFUSE_FILE.checked(path)
    problems = found.problems
    pending: list[tuple[str, Record]] = []
    with Groups(
        _scrubbed, _same, budget=budget, scratch_dir=scratch_dir, first_seen=True
    ) as groups:

        def flush(size: int) -> None:
            share = size // len(pending) if pending else 0
            for key, record in pending:
                groups.add(key, record, share)
            pending.clear()

        # the trace view's log download names its trace only in its file name (trace-<id>.json)
        router = Router(
            lambda key, record: pending.append((key, record)),
            problems,
            source.stem.removeprefix("trace-"),
        )
        document: _Document | None = None
        reported = 0
        try:
            with source.open("rb") as fh:
                for piece in iter_pieces(fh, problems, stream_keys=STREAMED_KEYS):
                    if document is None or piece.document != document.number:
                        if document is not None:
                            document.end()
                        document = _Document(router, piece.document, flush)
                    document.piece(piece)
                    if progress is not None and fh.tell() - reported >= 1 << 20:
                        progress(fh.tell() - reported)  # a tick per MiB: a redraw is not free
                        reported = fh.tell()
                if document is not None:
                    document.end()
                if progress is not None and fh.tell() > reported:
                    progress(fh.tell() - reported)
        except TooBig as exc:
            raise InvalidInputError(
                f"{source}: {exc.where} is one JSON value of {exc.size // (1024 * 1024)} MiB or "
                f"more: past {exc.limit // (1024 * 1024)} MiB a value (a line, an item of a "
                "list) is refused, since each is parsed whole",
                file=str(source),
            ) from None
        found.spilled = groups.spilled
        for key, records, weight in groups.groups():
            trace = build_trace(key, records, problems)
            if trace is None:
                continue
            derived = _item_of(trace, problems)
            if derived is None:
                continue
            item, name = derived
            found.note(item)
            found.observations += len(trace.observations)
            yield item, name, weight
    if not found.traces:
        shown = f": {problems[0]}" if problems else ""
        raise InvalidInputError(
            f"{source}: no Langfuse trace with observations in the file{shown}", file=str(source)
        )


def _scrubbed(record: Record) -> Record:
    """A record as it is spilled to a scratch file (which a process killed with -9 leaves on
    disk): plain data already, for ``marshal``, but scrubbed as a trace's observations are when
    read (secret-named keys dropped, provider keys redacted). Scrubbing again gives the same, so
    the traces are the same spilled or held; only a spilled record pays for it twice."""
    what, payload, where, event = record
    return what, scrub_value(payload, drop_secret_names=True), where, event


def _same(record: Record) -> Record:
    return record  # a record is plain data already (marshal reads it back as it was)


def read_langfuse(path: str | Path) -> LangfuseFile:
    """Read a Langfuse export whole into traces (what replay re-derives a run from; an import
    streams, :func:`iter_langfuse`)."""
    source = LANGFUSE_FILE.checked(path)
    found = LangfuseStream()
    traces: list[OtelTrace] = []
    names: dict[str, str | None] = {}
    for item, name, _weight in iter_langfuse(source, found):
        traces.append(item)
        names[item.trace_id] = name
    return LangfuseFile(traces, names, found.problems, hash_file(source), found.observations)


# --------------------------------------------------------------------------- the import


@dataclass(frozen=True, kw_only=True)
class LangfuseImportResult(AdhocImportResult):
    observations: int

    def _counted(self) -> dict[str, int]:
        return {"observations": self.observations}


def _case(item: OtelTrace, name: str | None, source: str) -> Case:
    metadata: dict[str, Any] = {"imported_from": source, "langfuse_trace_id": item.trace_id}
    if name:
        metadata["langfuse_trace_name"] = name
    return adhoc_case(
        item.trace_id, item.instruction or "(the trace holds no user message)", metadata
    )


def import_langfuse(
    path: str | Path,
    store: Any,
    *,
    run_name: str | None = None,
    suite_name: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> LangfuseImportResult:
    """Import a Langfuse export as one run (see the module), streamed as a span file is
    (:func:`rejudge.importers.import_otel`): memory holds a bounded part of the file and one
    trace, traces are stored a batch per transaction, and the run is visible once all of it is
    stored (a killed import, run again, resumes). ``progress`` is called with bytes: the file's
    size as it is read, then again as its traces are stored."""
    from rejudge.services import StagedItem

    found = LangfuseStream()

    def items(source: Path) -> Iterator[StagedItem]:
        for item, name, weight in iter_langfuse(source, found, progress=progress):
            case = _case(item, name, source.name)
            yield StagedItem(case, item.trace, item.tools, weight, item.anomalies)

    stored = LANGFUSE_FILE.store(
        store, path, found, items, run_name=run_name, suite_name=suite_name, progress=progress
    )
    return LangfuseImportResult.of(store, stored, found, observations=found.observations)


# --------------------------------------------------------------------------- detect, replay


def _is_event(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("body"), dict) and "type" in value


def _detect_value(value: Any) -> Detection | None:
    if isinstance(value, dict):
        if isinstance(value.get("batch"), list) and value["batch"] and _is_event(value["batch"][0]):
            kind = str(value["batch"][0].get("type"))
            if kind.endswith(("-create", "-update")):
                return Detection.accept(0.95, "a Langfuse ingestion batch ({batch: [events]})")
        if is_trace(value):
            listed = value["observations"]
            if not listed or is_observation(listed[0]):
                return Detection.accept(1.0, "a Langfuse trace with its observations")
        listed = value.get("observations")
        if isinstance(listed, list) and listed and is_observation(listed[0]):
            return Detection.accept(0.95, "a Langfuse trace download ({observations: [...]})")
        data = value.get("data")
        if isinstance(data, list) and data and (is_observation(data[0]) or is_trace(data[0])):
            return Detection.accept(0.95, "a Langfuse API page ({data: [...]} of observations)")
        if is_observation(value):
            return Detection.accept(0.95, "Langfuse observations, one per line")
    if isinstance(value, list) and value:
        if is_observation(value[0]):
            return Detection.accept(0.95, "a list of Langfuse observations")
        if is_trace(value[0]):
            return Detection.accept(0.95, "a list of Langfuse traces with their observations")
    return None


def _detect(sniff: Sniff) -> Detection:
    """A trace with ``observations``, observations (an id and an ``ObservationType``: SPAN,
    GENERATION, TOOL, ...) as a list, a ``{data: [...]}`` page or one per line, or an ingestion
    ``{batch: [...]}``."""
    if sniff.is_dir:
        return Detection.refuse("a folder, not a Langfuse export")
    for value in (sniff.whole_json(), sniff.first_json_line()):
        found = _detect_value(value)
        if found is not None:
            return found
    if sniff.starts_with in "{[" and '"parentObservationId"' in sniff.head_text:
        return Detection.accept(0.6, "looks like Langfuse observations (parentObservationId)")
    return Detection.refuse("no Langfuse trace, observation (type SPAN, GENERATION...) or batch")


def _rederive(path: Path) -> tuple[str, list[Trace]]:
    read = read_langfuse(path)
    return read.file_hash, [t.trace for t in read.traces]


#: the Langfuse importer (options: ``run_name``, ``suite_name``)
LANGFUSE: Importer[LangfuseImportResult] = file_importer(
    "langfuse",
    summary="Langfuse traces and observations (API, UI download, JSONL, ingestion batch) "
    "as one run, a trace per Langfuse trace",
    accepts="a Langfuse export: traces with observations, observation lists or JSONL, "
    "or an ingestion batch",
    detect=_detect,
    imports=import_langfuse,
    source_tag=LANGFUSE_SOURCE,
    kind="Langfuse export",
    rederive=_rederive,
    streams=True,
)
