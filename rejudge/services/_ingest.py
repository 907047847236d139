"""Ingest: the one path from a cassette to a stored trace.

Every way evidence enters the store ends here: ``record`` (the loop's tape, written as a cassette
first), ``replay``/``renormalize`` (a stored trace rebuilt from its file), ``import cassettes``,
``capture`` and the demo. The trace itself always comes from the recorder's pure derivation
(:func:`rejudge.recorder._derive.trace_of`), so one cassette gives one trace hash by every path;
this module only decides the suite snapshot and run it belongs to and writes the rows.

Every importer stores its run through :func:`ingest_run`: the suite snapshot, the run, its
traces, the outside harness's verdicts and the run's finish, in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from rejudge.model import Case, RunConfig, ToolRegistry, Trace
from rejudge.recorder import CassetteFile, trace_of
from rejudge.services._evidence_paths import evidence_path
from rejudge.store import RunRecord, Store, StreamedTrace, SuiteRecord

__all__ = [
    "Evidence",
    "IngestResult",
    "IngestedRun",
    "SuiteSnapshot",
    "VerdictItem",
    "save_suite_source",
    "evidence_of",
    "ingest",
    "ingest_run",
    "stored_path",
]


@dataclass(frozen=True)
class Evidence:
    """One trace with the cassette it was derived from, ready to store."""

    case_id: str
    trace: Trace
    cassette_path: str | None
    cassette_hash: str | None


@dataclass(frozen=True)
class IngestResult:
    inserted: int = 0
    replaced: int = 0
    unchanged: int = 0


@dataclass(frozen=True)
class SuiteSnapshot:
    """A suite as ``store.suites.save_suite`` stores it (the same (name, hash) again is a
    lookup): what an importer hands :func:`ingest_run` when the suite is not stored yet."""

    name: str
    domain: str
    suite_hash: str
    registry: ToolRegistry
    cases: Sequence[Case]
    format_version: int = 1
    meta: dict[str, Any] | None = None
    case_hashes: Sequence[str] | None = None

    @classmethod
    def of_source(
        cls, suite: Any, *, meta: dict[str, Any] | None = None, case_hashes: bool = False
    ) -> SuiteSnapshot:
        """A loaded suite (:class:`rejudge.suites.SuiteSource`); ``case_hashes``: pass on the
        case hashes it computed for its own hash."""
        return cls(
            name=suite.name,
            domain=suite.domain,
            suite_hash=suite.hash,
            registry=suite.registry,
            cases=list(suite.cases),
            format_version=suite.format_version,
            meta=meta,
            case_hashes=suite.case_hashes if case_hashes else None,
        )

    def save(self, store: Store) -> SuiteRecord:
        return store.suites.save_suite(
            name=self.name,
            domain=self.domain,
            suite_hash=self.suite_hash,
            registry=self.registry,
            cases=self.cases,
            format_version=self.format_version,
            meta=self.meta,
            case_hashes=self.case_hashes,
        )


def save_suite_source(store: Store, suite: Any) -> SuiteRecord:
    """Snapshot a loaded suite (:class:`rejudge.suites._case_format.SuiteSource`); a lookup when
    the same snapshot is already stored."""
    return SuiteSnapshot.of_source(suite).save(store)


def stored_path(cassette: Path, cassettes_dir: Path | None) -> str:
    """How a trace row names its cassette: relative to the cassettes folder when it lies there,
    else relative to a named root of rejudge's own data, else by its absolute path (see
    :mod:`rejudge.services._evidence_paths`)."""
    return evidence_path(cassette, cassettes_dir)


def evidence_of(
    cassette: CassetteFile,
    case_id: str,
    repetition: int,
    path: str,
    *,
    name_map: dict[str, str] | None = None,
) -> Evidence:
    """The evidence a cassette file gives for ``case_id`` r``repetition`` (stored as ``path``)."""
    trace = trace_of(cassette, case_id, repetition, name_map=name_map)
    return Evidence(case_id, trace, path, cassette.sha256)


def ingest(
    store: Store,
    run: RunRecord,
    evidence: Sequence[Evidence],
    *,
    replace: bool = False,
    case_pks: dict[str, int] | None = None,
) -> IngestResult:
    """Store ``evidence`` as traces of ``run`` in one bulk write.

    A (case, repetition) the run already holds is left as it is, unless ``replace``: then a row
    whose trace or cassette hash differs is rewritten (``capture`` re-recording a case,
    ``renormalize`` after a normalizer change). ``case_pks`` (the suite's case id -> row id)
    spares the lookup to a caller that commits many small batches (``record``).
    """
    if case_pks is None:
        case_pks = store.suites.get_case_pks(run.suite_id)
    existing: dict[tuple[str, int], StreamedTrace] = {}
    if replace:
        wanted = {e.case_id for e in evidence}
        for row in store.traces.iter_trace_rows(run.id, with_body=False):
            if row.case_key in wanted:
                existing[(row.case_key, row.repetition)] = row
    rows: list[tuple[int, int, Trace, str | None, str | None]] = []
    replaced = unchanged = 0
    for item in evidence:
        found = existing.get((item.case_id, item.trace.repetition))
        if found is not None:
            if found.hash == item.trace.hash and found.cassette_hash == item.cassette_hash:
                unchanged += 1
            else:
                store.traces.replace_trace(found.id, item.trace, cassette_hash=item.cassette_hash)
                replaced += 1
            continue
        rows.append(
            (run.id, case_pks[item.case_id], item.trace, item.cassette_path, item.cassette_hash)
        )
    inserted = store.traces.save_traces(rows) if rows else 0
    return IngestResult(inserted, replaced, unchanged + len(rows) - inserted)


#: an outside harness's verdict on one trace: (case id, repetition, value in [0, 1], detail)
VerdictItem = tuple[str, int, float, Mapping[str, Any] | None]


@dataclass(frozen=True)
class IngestedRun:
    """What :func:`ingest_run` stored: the run (as it is once finished), its suite, and counts."""

    run: RunRecord
    suite: SuiteRecord
    inserted: int
    skipped: int  # evidence the run held already
    verdicts: int = 0  # external verdict rows written
    replaced: int = 0  # traces rewritten (``replace=True``: their trace or cassette changed)


def ingest_run(
    store: Store,
    suite: SuiteRecord | SuiteSnapshot,
    *,
    name: str,
    config: RunConfig,
    evidence: Sequence[Evidence] | Callable[[RunRecord, SuiteRecord], Sequence[Evidence]],
    verdicts: Mapping[str, Sequence[VerdictItem]] | None = None,
    verdict_versions: Mapping[str, str] | None = None,
    replace: bool = False,
    finish: Literal["always", "once", "never"] = "always",
) -> IngestedRun:
    """Store one imported run in one transaction: snapshot ``suite`` (a stored one is used as it
    is), create run ``name`` with ``config``, :func:`ingest` its ``evidence``, record each
    source's external ``verdicts`` (:mod:`rejudge.services._external`, sources in name order,
    each of the version ``verdict_versions`` names for it)
    and finish the run. A failure anywhere stores nothing; the same import again is a lookup.

    ``evidence`` may be a function of the new run and its suite, for evidence that is named
    after the run (a copied cassette's path); it is called inside the transaction. Called
    inside an open ``store.atomic()`` block, everything joins that block's transaction.

    ``replace``: as :func:`ingest`'s (``capture`` recording a case again). ``finish``: mark the
    run finished ``"always"`` (an import), ``"once"`` (unless it is already: the demo's shipped
    runs keep the time they were first finished) or ``"never"`` (a capture).
    """
    from rejudge.services._external import record_external_verdicts

    with store.atomic():
        suite_rec = suite.save(store) if isinstance(suite, SuiteSnapshot) else suite
        run = store.runs.create_run(name=name, suite=suite_rec, config=config)
        items = evidence(run, suite_rec) if callable(evidence) else evidence
        result = ingest(store, run, items, replace=replace)
        written = 0
        for source, said in sorted((verdicts or {}).items()):
            written += record_external_verdicts(
                store, run.id, source, list(said), version=(verdict_versions or {}).get(source)
            )
        if finish == "always" or (finish == "once" and run.status != "finished"):
            store.runs.finish_run(run.id, "finished")
        finished = store.runs.get_run(run.id)
    return IngestedRun(
        run=finished,
        suite=suite_rec,
        inserted=result.inserted,
        skipped=len(items) - result.inserted,
        verdicts=written,
        replaced=result.replaced,
    )
