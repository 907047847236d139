"""One file's traces stored as one run of an ad-hoc suite: what the importers of conversation
files (``otel``, ``langfuse``, ``chat-jsonl``) store, what they return and how they register,
written once.

Each trace is the one trace of its own case (no golden calls); the suite's registry holds every
tool the traces offer or call (the first spec seen of a name, in name order). Suite and run are
named ``PREFIX-STEM-HASH`` (the file's stem and the first ten hex digits of its hash) unless
named; the traces are stored as they are read, a batch per transaction, and the run is visible
once whole; importing the same file again is a lookup (:func:`rejudge.services.ingest_staged`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, Self, TypeVar

from rejudge.importers._contract import Detect, Importer, ReplaySource, register_importer
from rejudge.model import Case, RunConfig, Trace

if TYPE_CHECKING:
    from rejudge.importers._otel_read import OtelTrace
    from rejudge.services import IngestedRun, StagedItem

__all__: list[str] = []

ADHOC_DOMAIN = "imported"

R = TypeVar("R")
T = TypeVar("T", bound="AdhocImportResult")


@dataclass(frozen=True)
class AdhocImportResult:
    """What importing one file as one ad-hoc run stored: the run and suite, the traces (new and
    already stored), their calls, the anomalies by case id and what was left out of the file.
    An importer whose file holds records other than traces (spans, observations) counts them in
    a field of its own subclass, shown after ``suite`` in :meth:`to_json`."""

    run: str
    run_id: int
    suite: str
    traces: int
    inserted: int
    skipped: int
    calls: int
    anomalies: dict[str, list[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @classmethod
    def of(
        cls,
        stored: IngestedRun,
        traces: int,
        calls: int,
        anomalies: dict[str, list[str]],
        problems: list[str],
        **counted: int,
    ) -> Self:
        """The result of storing ``traces`` traces making ``calls`` calls as ``stored``
        (``counted``: a subclass's counts)."""
        return cls(
            run=stored.run.name,
            run_id=stored.run.id,
            suite=stored.suite.name,
            traces=traces,
            inserted=stored.inserted,
            skipped=stored.skipped,
            calls=calls,
            anomalies=anomalies,
            problems=problems,
            **counted,
        )

    def _counted(self) -> dict[str, int]:
        """What a subclass counts of its file (none here)."""
        return {}

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "run_id": self.run_id,
            "suite": self.suite,
            **self._counted(),
            "traces": self.traces,
            "inserted": self.inserted,
            "skipped": self.skipped,
            "calls": self.calls,
            "anomalies": self.anomalies,
            "problems": self.problems,
        }


def adhoc_config(
    *,
    source_tag: str,
    source: Path,
    file_hash: str,
    models: list[str] | None,
    providers: list[str],
    anomalies: dict[str, list[str]],
) -> RunConfig:
    """The config of a run of traces from a tracer's file (``otel``, ``langfuse``): one model
    and provider when every trace names the same, ``mixed`` when not, ``unknown`` when none.
    ``models`` None: a file that names no models at all (chat JSONL), kept without the key."""
    from rejudge.services import evidence_path

    named = models or []
    extra: dict[str, Any] = {
        "source": source_tag,
        "file": source.name,
        "file_hash": file_hash,
        "source_path": evidence_path(source),
    }
    if models is not None:
        extra["models"] = models
    extra["anomalies"] = anomalies
    return RunConfig(
        model=named[0] if len(named) == 1 else ("mixed:" + ",".join(named) if named else "unknown"),
        provider=providers[0] if len(providers) == 1 else ("mixed" if providers else "unknown"),
        harness_mode="imported",
        temperature=None,
        tool_choice=None,
        extra=extra,
    )


def hash_file(path: Path, chunk: int = 1 << 20) -> str:
    """``sha256:<hex>`` of a file's bytes, read a MiB at a time (a run's name and its resume key
    are made of it before the file is read for its traces)."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return f"sha256:{digest.hexdigest()}"


def store_adhoc_run(
    store: Any,
    source: Path,
    items: Iterable[StagedItem],
    *,
    prefix: str,
    source_tag: str,
    description: str,
    file_hash: str,
    config: Callable[[], RunConfig],
    run_name: str | None,
    suite_name: str | None,
    progress: Callable[[int], None] | None = None,
) -> IngestedRun:
    """Store ``items`` (each case, its trace and the tools it offers), read as they come, as one
    run: a batch per transaction, visible once all of it is stored (a killed import resumes,
    :func:`rejudge.services.ingest_staged`). ``config()`` is the run's configuration, asked once
    every item is read."""
    from rejudge.services import ingest_staged

    default_name = f"{prefix}-{source.stem}-{file_hash.split(':', 1)[1][:10]}"
    return ingest_staged(
        store,
        items,
        run_name=run_name or default_name,
        suite_name=suite_name or default_name,
        domain=ADHOC_DOMAIN,
        suite_meta={"description": description, "adhoc": True, "source": source_tag},
        file_hash=file_hash,
        config=config,
        provisional=adhoc_config(
            source_tag=source_tag,
            source=source,
            file_hash=file_hash,
            models=[],
            providers=[],
            anomalies={},
        ),
        progress=progress,
    )


class TracerFile(Protocol):
    """A tracer's file read (``otel``, ``langfuse``): its traces, what was left out, its hash."""

    traces: list[OtelTrace]
    problems: list[str]
    file_hash: str


def import_tracer_file(
    result: type[T],
    store: Any,
    source: Path,
    read: TracerFile,
    cases: Sequence[Case],
    *,
    prefix: str,
    source_tag: str,
    description: str,
    run_name: str | None,
    suite_name: str | None,
    **counted: int,
) -> T:
    """Store a tracer's traces (each with the case made of it) as one run, its config naming
    their models, providers and anomalies (:func:`adhoc_config`); returns ``result`` of it
    (``counted``: what the result's subclass counts of the file)."""
    from rejudge.services import StagedItem

    anomalies = {t.trace_id: t.anomalies for t in read.traces if t.anomalies}
    config = adhoc_config(
        source_tag=source_tag,
        source=source,
        file_hash=read.file_hash,
        models=sorted({m for t in read.traces for m in t.models}),
        providers=sorted({p for t in read.traces for p in t.providers}),
        anomalies=anomalies,
    )
    stored = store_adhoc_run(
        store,
        source,
        [StagedItem(case, t.trace, t.tools) for case, t in zip(cases, read.traces, strict=True)],
        prefix=prefix,
        source_tag=source_tag,
        description=description,
        file_hash=read.file_hash,
        config=lambda: config,
        run_name=run_name,
        suite_name=suite_name,
    )
    calls = sum(len(t.trace.calls) for t in read.traces)
    return result.of(stored, len(read.traces), calls, anomalies, read.problems, **counted)


def file_importer(
    name: str,
    *,
    summary: str,
    accepts: str,
    detect: Detect,
    imports: Callable[..., R],
    source_tag: str,
    kind: str,
    rederive: Callable[[Path], tuple[str, list[Trace]]],
    streams: bool = False,
) -> Importer[R]:
    """Register (and return) the importer of one file as one ad-hoc run: ``imports(path, store,
    **options)`` imports it, and replay re-derives its run from the file (``rederive(path)`` ->
    the file's hash, its traces), the run's config naming the file's hash under ``file_hash``;
    ``streams``: ``imports`` takes ``progress`` (:attr:`Importer.streams`)."""

    def run(store: Any, path: str | Path, **options: Any) -> R:
        return imports(path, store, **options)

    def rederive_run(_config: RunConfig, path: Path) -> tuple[str, list[Trace]]:
        return rederive(path)

    importer = Importer(
        name=name,
        summary=summary,
        accepts=accepts,
        run=run,
        sources={source_tag: ReplaySource(kind, "file_hash", rederive_run)},
        detect=detect,
        streams=streams,
    )
    register_importer(importer)
    return importer


def hashed_lines(path: Path, digest: Any) -> Iterator[bytes]:
    """The lines of ``path`` as bytes, each fed to ``digest`` (a hashlib hash) as it is read."""
    with path.open("rb") as fh:
        for line in fh:
            digest.update(line)
            yield line
