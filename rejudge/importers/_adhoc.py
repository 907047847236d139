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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self, TypeVar

from rejudge.errors import InvalidInputError
from rejudge.importers._contract import Detect, Importer, ReplaySource, register_importer
from rejudge.model import Case, Golden, RunConfig, Trace

if TYPE_CHECKING:
    from rejudge.services import IngestedRun, StagedItem

__all__: list[str] = []

ADHOC_DOMAIN = "imported"

R = TypeVar("R")
T = TypeVar("T", bound="AdhocImportResult")


@dataclass(frozen=True)
class AdhocImportResult:
    """What importing one file as one ad-hoc run stored: the run and suite, the traces (new and
    already stored), their calls, the anomalies by case id and what was left out of the file.
    ``anomalies`` holds the first :data:`rejudge.services.ANOMALIES_SHOWN` traces' (in the
    file's order), read back from the store; ``anomalous_traces`` counts every trace that has
    any. An importer whose file holds records other than traces (spans, observations) counts
    them in a field of its own subclass, shown after ``suite`` in :meth:`to_json`."""

    run: str
    run_id: int
    suite: str
    traces: int
    inserted: int
    skipped: int
    calls: int
    anomalies: dict[str, list[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    anomalous_traces: int = 0

    @classmethod
    def of(cls, store: Any, stored: IngestedRun, found: FileStream, **counted: int) -> Self:
        """The result of storing the traces ``found`` counts as ``stored``, their anomalies
        read back from ``store`` (``counted``: a subclass's counts)."""
        from rejudge.services import run_anomalies

        anomalies = run_anomalies(store, stored.run)
        return cls(
            run=stored.run.name,
            run_id=stored.run.id,
            suite=stored.suite.name,
            traces=found.traces,
            inserted=stored.inserted,
            skipped=stored.skipped,
            calls=found.calls,
            anomalies=anomalies.first,
            problems=found.problems,
            anomalous_traces=anomalies.traces,
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
            "anomalous_traces": self.anomalous_traces,
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
) -> RunConfig:
    """The config of a run of traces from a tracer's file (``otel``, ``langfuse``): one model
    and provider when every trace names the same, ``mixed`` when not, ``unknown`` when none.
    ``models`` None: a file that names no models at all (chat JSONL), kept without the key.
    The traces' anomalies are not in it (they were before revision 0104): each batch stores
    its own (``store.anomalies``), so a big file's are never held whole."""
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
        ),
        progress=progress,
    )


def adhoc_case(case_id: str, instruction: str, metadata: dict[str, Any]) -> Case:
    """The case of one imported trace: its own, in the ad-hoc domain, with no golden calls."""
    return Case(
        id=case_id,
        dimension=ADHOC_DOMAIN,
        category=ADHOC_DOMAIN,
        instruction=instruction,
        golden=Golden(calls=[]),
        metadata=metadata,
    )


@dataclass
class FileStream:
    """What reading one file found, filled in as its traces are read (complete once the last
    is): what was left out, the traces and their calls."""

    problems: list[str] = field(default_factory=list)
    traces: int = 0
    calls: int = 0

    def count(self, trace: Trace) -> None:
        self.traces += 1
        self.calls += len(trace.calls)

    def named(self) -> tuple[list[str] | None, list[str]]:
        """The models and providers the run's config names, asked once every trace is read
        (models None: the file names none, and the config keeps no ``models`` key)."""
        return None, []


@dataclass(frozen=True)
class AdhocFile:
    """One format of file imported as one ad-hoc run, as its importer names it: what such a
    file is called (``PATH: not a NOUN``), its runs' and suites' name prefix, the ``source`` of
    its runs' configs, and what its suite's description says the file holds."""

    noun: str
    prefix: str
    source_tag: str
    holds: str  # the suite's description is "HOLDS FILE-NAME"

    def checked(self, path: str | Path) -> Path:
        """``path``, refused in one line when it is no file."""
        source = Path(path)
        if not source.is_file():
            raise InvalidInputError(f"{source}: not a {self.noun}", file=str(source))
        return source

    def store(
        self,
        store: Any,
        path: str | Path,
        found: FileStream,
        items: Callable[[Path], Iterator[StagedItem]],
        *,
        run_name: str | None,
        suite_name: str | None,
        progress: Callable[[int], None] | None,
    ) -> IngestedRun:
        """The file hashed, then ``items(file)`` stored as they are read as one run
        (:func:`store_adhoc_run`), its config naming what ``found`` named once all is read."""
        source = self.checked(path)
        file_hash = hash_file(source)

        def config() -> RunConfig:
            models, providers = found.named()
            return adhoc_config(
                source_tag=self.source_tag,
                source=source,
                file_hash=file_hash,
                models=models,
                providers=providers,
            )

        return store_adhoc_run(
            store,
            source,
            items(source),
            prefix=self.prefix,
            source_tag=self.source_tag,
            description=f"{self.holds} {source.name}",
            file_hash=file_hash,
            config=config,
            run_name=run_name,
            suite_name=suite_name,
            progress=progress,
        )


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
