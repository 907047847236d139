"""A big file's run stored a batch at a time, and visible only once whole (issue 38 item 7).

What the importers of conversation files (``otel``, ``langfuse``, ``chat-jsonl``) store is one
ad-hoc run: each trace the one trace of its own case. :func:`ingest_staged` takes those traces as
they are read, never all at once, and writes them in batches, one transaction per batch, into a
*staged* suite and run (:mod:`rejudge.store._staging`): nothing lists either, and the run's own
name finds nothing, until the last batch is in and :func:`ingest_staged` seals them in one
transaction (the suite's hash and registry, the run's name, configuration and ``finished``).

- **Killed half-way** (kill -9, a lost machine): only staged rows are left. The same import run
  again (the same file under the same run name) finds its staged run and resumes it: a trace a
  committed batch stored already is not written again (the same case and repetition, whose
  content hash the same file gives again), the others are, and the run is sealed as an
  uninterrupted import would have sealed it. Staged rows of another file under the same run
  name are an abandoned import: they are rolled back first.
- **Failed half-way** (an error the import raises: a file it refuses): the staged rows are
  rolled back before the error goes on. Ctrl-C leaves them, to resume.
- **The same file again** under a run name it was imported as: a lookup, nothing written.

The sealed rows are those :func:`rejudge.services.ingest_run` would store for the same traces:
the suite's hash is made of the same case hashes in the same order, the run's configuration is
the same, every trace hash is the same.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from rejudge.errors import ConflictError
from rejudge.model import Case, RunConfig, ToolRegistry, ToolSpec, Trace
from rejudge.services._ingest import Evidence, IngestedRun, ingest
from rejudge.store import NotFoundError, Store

__all__ = ["StagedItem", "ingest_staged", "staged_run_name"]

#: traces per transaction: big enough that a commit's cost is spread (a 1 GB file of the
#: bench's traces is ~40,000 traces), small enough that a batch holds a few MB
STAGED_BATCH = 200


@dataclass(frozen=True)
class StagedItem:
    """One trace to store: its case, the tools it offers and calls, ``weight``, the bytes
    of the file it was read from (what a progress bar counts), and what its importer could not
    read right in it (``anomalies``, stored with its batch in ``store.anomalies``)."""

    case: Case
    trace: Trace
    tools: Sequence[ToolSpec]
    weight: int = 0
    anomalies: Sequence[str] = ()


def staged_run_name(run_name: str) -> str:
    """The name a run has while it is imported (no run listing shows it)."""
    return f"{run_name}~importing"


def _batches(items: Iterable[StagedItem], size: int) -> Iterator[list[StagedItem]]:
    it = iter(items)
    while chunk := list(islice(it, size)):
        yield chunk


def ingest_staged(
    store: Store,
    items: Iterable[StagedItem],
    *,
    run_name: str,
    suite_name: str,
    domain: str,
    suite_meta: dict[str, Any],
    file_hash: str,
    config: Callable[[], RunConfig],
    provisional: RunConfig,
    batch: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> IngestedRun:
    """Store ``items`` as run ``run_name`` of suite ``suite_name`` a batch at a time (see the
    module). ``config()`` is the run's configuration, asked once every item is read (it may
    name what reading them found); ``provisional`` is the staged run's until then and must name
    ``file_hash`` (``extra["file_hash"]``). ``batch``: traces per transaction (default
    :data:`STAGED_BATCH`, read when called). ``progress`` is called with each stored batch's
    weight."""
    try:
        existing = store.runs.get_run(run_name)
    except NotFoundError:
        existing = None
    if existing is not None:
        return _lookup(store, existing, items, file_hash, progress)
    staged_name = staged_run_name(run_name)
    staged = store.staging.staged_run(staged_name)
    if staged is not None and staged.config.extra.get("file_hash") != file_hash:
        store.staging.drop(staged)  # a killed import of another file under this name
        staged = None
    if staged is None:
        digest = hashlib.sha256(f"{run_name}\0{file_hash}".encode()).hexdigest()
        suite, staged = store.staging.stage(
            run_name=staged_name,
            suite_name=suite_name,
            suite_hash=f"importing:{digest}",
            domain=domain,
            registry=ToolRegistry(domain=domain, version="1", tools=[]),
            config=provisional,
        )
    else:
        suite = store.suites.get_suite_by_id(staged.suite_id)
    try:
        tools: dict[str, ToolSpec] = {}
        position = inserted = 0
        for chunk in _batches(items, batch or STAGED_BATCH):
            for item in chunk:
                for spec in item.tools:
                    tools.setdefault(spec.name, spec)
            with store.atomic():
                pks = store.staging.add_cases(
                    suite.id, [(position + n, item.case) for n, item in enumerate(chunk)]
                )
                evidence = [Evidence(i.case.id, i.trace, None, None) for i in chunk]
                inserted += ingest(store, staged, evidence, case_pks=pks).inserted
                # in the batch's transaction: a killed import leaves a batch's anomalies with
                # its traces, and none are held until the seal
                store.anomalies.add(
                    staged.id,
                    [(position + n, i.case.id, i.anomalies) for n, i in enumerate(chunk)],
                )
            position += len(chunk)
            if progress is not None:
                progress(sum(item.weight for item in chunk))
        registry = ToolRegistry(domain=domain, version="1", tools=[tools[k] for k in sorted(tools)])
        from rejudge.suites import suite_hash

        sealed_hash = suite_hash(1, registry, [], store.staging.case_hashes(suite.id))
        suite, run = store.staging.seal(
            staged,
            run_name=run_name,
            suite_hash=sealed_hash,
            registry=registry,
            meta=suite_meta,
            config=config(),
        )
    except Exception:
        store.staging.drop(staged)
        raise
    return IngestedRun(run=run, suite=suite, inserted=inserted, skipped=position - inserted)


def _lookup(
    store: Store,
    existing: Any,
    items: Iterable[StagedItem],
    file_hash: str,
    progress: Callable[[int], None] | None,
) -> IngestedRun:
    """The run is stored already: the same file again is a lookup (every item read, none
    written); another file under its name is refused."""
    stored_hash = existing.config.extra.get("file_hash")
    if stored_hash != file_hash:
        raise ConflictError(
            f"run {existing.name!r} exists, imported from another file ({stored_hash}, this "
            f"one is {file_hash}); choose another run name to import this file",
            run=existing.name,
            field="name",
        )
    count = 0
    for item in items:
        count += 1
        if progress is not None:
            progress(item.weight)
    suite = store.suites.get_suite_by_id(existing.suite_id)
    return IngestedRun(run=existing, suite=suite, inserted=0, skipped=count)
