"""Ingest: the one path from a cassette to a stored trace.

Every way evidence enters the store ends here: ``record`` (the loop's tape, written as a cassette
first), ``replay``/``renormalize`` (a stored trace rebuilt from its file), ``import cassettes``,
``capture`` and the demo. The trace itself always comes from the recorder's pure derivation
(:func:`rejudge.recorder._derive.trace_of`), so one cassette gives one trace hash by every path;
this module only decides the suite snapshot and run it belongs to and writes the rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rejudge.model import Trace
from rejudge.recorder import CassetteFile, trace_of
from rejudge.services._evidence_paths import evidence_path
from rejudge.store import RunRecord, Store, SuiteRecord

__all__ = [
    "Evidence",
    "IngestResult",
    "save_suite_source",
    "evidence_of",
    "ingest",
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


def save_suite_source(store: Store, suite: Any) -> SuiteRecord:
    """Snapshot a loaded suite (:class:`rejudge.suites._case_format.SuiteSource`); a lookup when
    the same snapshot is already stored."""
    return store.save_suite(
        name=suite.name,
        domain=suite.domain,
        suite_hash=suite.hash,
        registry=suite.registry,
        cases=list(suite.cases),
        format_version=suite.format_version,
    )


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
        case_pks = store.get_case_pks(run.suite_id)
    existing: dict[tuple[str, int], dict[str, Any]] = {}
    if replace:
        wanted = {e.case_id for e in evidence}
        for row in store.iter_trace_rows(run.id, decode=False):
            if row["case_key"] in wanted:
                existing[(row["case_key"], row["repetition"])] = row
    rows = []
    replaced = unchanged = 0
    for item in evidence:
        row = existing.get((item.case_id, item.trace.repetition))
        if row is not None:
            if row["hash"] == item.trace.hash and row["cassette_hash"] == item.cassette_hash:
                unchanged += 1
            else:
                store.replace_trace(row["id"], item.trace, cassette_hash=item.cassette_hash)
                replaced += 1
            continue
        rows.append(
            (run.id, case_pks[item.case_id], item.trace, item.cassette_path, item.cassette_hash)
        )
    inserted = store.save_traces(rows) if rows else 0
    return IngestResult(inserted, replaced, unchanged + len(rows) - inserted)
