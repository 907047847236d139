"""Importer ``langfuse``: Langfuse trace and observation exports as one run, a trace per trace.

Reads what Langfuse writes or serves (:mod:`._langfuse_doc`: the public API's trace with its
observations, the UI's download, observation lists and table exports as JSON or JSONL, the
ingestion batch), the ChatML its integrations put in ``input``/``output``
(:mod:`._langfuse_messages`), and rebuilds each trace from its observation tree
(:mod:`._langfuse_read`, through the OpenTelemetry reader's walk; all pure). Each Langfuse trace
becomes a trace of an ad-hoc case named by its trace id (no golden calls), in an ad-hoc suite
whose registry holds the tools the observations show. Anomalies name the observation and field,
in the run's config and the import's result. Importing the same file again is a lookup; replay
re-derives the traces from the file.
"""

from __future__ import annotations

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
from rejudge.importers._langfuse_doc import (
    LangfuseTrace,
    is_observation,
    is_trace,
    traces_of_documents,
)
from rejudge.importers._langfuse_messages import read_messages
from rejudge.importers._langfuse_read import trace_of_observations
from rejudge.importers._otel_read import OtelTrace
from rejudge.importers._otel_spans import iter_documents
from rejudge.importers._sniff import Detection, Sniff
from rejudge.model import Case, Golden, Trace
from rejudge.recorder import scrub_text

__all__ = [
    "LANGFUSE_SOURCE",
    "LangfuseFile",
    "LangfuseImportResult",
    "import_langfuse",
    "read_langfuse",
]

LANGFUSE_SOURCE = "langfuse"


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


def read_langfuse(path: str | Path) -> LangfuseFile:
    """Read a Langfuse export whole (see the module)."""
    source = Path(path)
    if not source.is_file():
        raise InvalidInputError(f"{source}: not a Langfuse export", file=str(source))
    digest = hashlib.sha256()
    problems: list[str] = []
    documents = [
        (f"document {n}", document)
        for n, document in enumerate(
            iter_documents(hashed_lines(source, digest), problems), start=1
        )
    ]
    # the trace view's log download names its trace only in its file name (trace-<id>.json)
    found = traces_of_documents(documents, problems, source.stem.removeprefix("trace-"))
    traces: list[OtelTrace] = []
    names: dict[str, str | None] = {}
    for item in found:
        if not item.observations:
            problems.append(f"trace {item.id}: no observations; left out")
            continue
        read = trace_of_observations(item)
        read.instruction = read.instruction or _instruction(item)
        traces.append(read)
        name = item.fields.get("name")
        names[item.id] = scrub_text(str(name)) if name is not None else None
    if not traces:
        shown = f": {problems[0]}" if problems else ""
        raise InvalidInputError(
            f"{source}: no Langfuse trace with observations in the file{shown}", file=str(source)
        )
    count = sum(len(t.observations) for t in found)
    return LangfuseFile(traces, names, problems, f"sha256:{digest.hexdigest()}", count)


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
    return Case(
        id=item.trace_id,
        dimension=ADHOC_DOMAIN,
        category=ADHOC_DOMAIN,
        instruction=item.instruction or "(the trace holds no user message)",
        golden=Golden(calls=[]),
        metadata=metadata,
    )


def import_langfuse(
    path: str | Path,
    store: Any,
    *,
    run_name: str | None = None,
    suite_name: str | None = None,
) -> LangfuseImportResult:
    """Import a Langfuse export as one run (see the module); all of it lands, or none of it."""
    source = Path(path)
    read = read_langfuse(source)
    return import_tracer_file(
        LangfuseImportResult,
        store,
        source,
        read,
        [_case(t, read.names.get(t.trace_id), source.name) for t in read.traces],
        prefix="langfuse",
        source_tag=LANGFUSE_SOURCE,
        description=f"Langfuse traces of {source.name}",
        run_name=run_name,
        suite_name=suite_name,
        observations=read.observations,
    )


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
)
