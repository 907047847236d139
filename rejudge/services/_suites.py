"""Built-in suite summaries, snapshots of suites in the store, and suites named by either.

A suite command's NAME is, in order: a built-in suite, a folder (or its ``suite.json``), or
the name of a suite snapshot in the store (the newest of that name: e.g. one that
``rejudge generate funcbench --name NAME`` or ``suite import-bfcl`` stored). The store is only
opened when the first two do not resolve.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rejudge.errors import NotFoundError, RejudgeError
from rejudge.services._ingest import SuiteSnapshot
from rejudge.store import Store, SuiteRecord
from rejudge.suites import (
    Problem,
    SuiteError,
    SuiteManifest,
    SuiteNotFoundError,
    SuiteSource,
    builtin_suites,
    load_suite,
    validate_suite,
)
from rejudge.suites.generators import GeneratedSuite, Knobs, generate_suite, write_generated_suite

#: a value of a summary's JSON form
JsonValue = str | int | dict[str, int] | None

__all__ = [
    "SuiteSummary",
    "StoredSuiteSummary",
    "suite_summaries",
    "stored_suite_summaries",
    "snapshot_suite",
    "stored_suite_source",
    "open_suite",
    "validate_named_suite",
    "Published",
    "publish_suite",
]

#: the store, opened on first use (a suite command that names a built-in suite or a folder
#: never opens it)
StoreOpener = Callable[[], Store]


@dataclass(frozen=True)
class SuiteSummary:
    """A ``suite list`` entry (DESIGN §11): a built-in suite's counts and hash, or, for one that
    fails to load, its name and ``error`` with null counts."""

    name: str
    cases: int | None
    hash: str | None
    dimensions: dict[str, int]
    negative: int | None
    error: str | None = None

    def to_json(self) -> dict[str, JsonValue]:
        out: dict[str, JsonValue] = {
            "name": self.name,
            "cases": self.cases,
            "hash": self.hash,
            "dimensions": dict(self.dimensions),
            "negative": self.negative,
        }
        if self.error is not None:
            out["error"] = self.error
        return out


@dataclass(frozen=True, kw_only=True)
class StoredSuiteSummary(SuiteSummary):
    """A ``suite list --stored`` entry: a snapshot in the store, with its row id, its domain and
    how many runs were recorded or imported on it."""

    id: int
    domain: str | None
    runs: int

    def to_json(self) -> dict[str, JsonValue]:
        return {**super().to_json(), "id": self.id, "domain": self.domain, "runs": self.runs}


def suite_summaries(names: list[str] | None = None) -> list[SuiteSummary]:
    """``suite list`` entries for the built-in suites, sorted by name.

    A suite that fails to load still gets an entry, with ``error`` set and null counts.
    """
    wanted = sorted(builtin_suites()) if names is None else names
    out: list[SuiteSummary] = []
    for name in wanted:
        try:
            source = load_suite(name)
        except RejudgeError as exc:
            out.append(SuiteSummary(name, None, None, {}, None, error=str(exc)))
            continue
        out.append(
            SuiteSummary(
                source.name,
                len(source.cases),
                source.hash,
                source.dimensions(),
                source.negative_count,
            )
        )
    return out


def stored_suite_summaries(store: Store) -> list[StoredSuiteSummary]:
    """``suite list --stored`` entries: every suite snapshot in the store (built-in, imported
    with ``suite import-bfcl``, generated with ``generate funcbench``, snapshotted by a
    recording), oldest first per name."""
    runs_by_suite = store.runs.count_runs_by_suite()
    out: list[StoredSuiteSummary] = []
    for record in store.suites.list_suites():
        cases = [case for _pk, case in store.suites.get_cases(record.id).values()]
        dimensions: dict[str, int] = {}
        for case in cases:
            dimensions[case.dimension] = dimensions.get(case.dimension, 0) + 1
        out.append(
            StoredSuiteSummary(
                name=record.name,
                cases=len(cases),
                hash=record.hash,
                dimensions=dict(sorted(dimensions.items())),
                negative=sum(1 for case in cases if case.negative),
                id=record.id,
                domain=record.domain,
                runs=runs_by_suite.get(record.id, 0),
            )
        )
    return out


def snapshot_suite(store: Store, source: SuiteSource | str | Path) -> SuiteRecord:
    """Store a valid suite as an immutable snapshot keyed by its hash (a lookup if present).

    Refuses a suite with validation problems.
    """
    if not isinstance(source, SuiteSource):
        source = load_suite(source)
    problems = validate_suite(source)
    if problems:
        raise SuiteError(
            f"suite {source.name!r} has {len(problems)} problem(s), first: {problems[0]}; "
            f"validate suite {source.path or source.name} for all of them",
            file=str(source.path) if source.path else None,
        )
    meta: dict[str, Any] = {"description": source.description}
    if source.manifest is not None:
        meta["manifest"] = source.manifest.model_dump(mode="json")
    return SuiteSnapshot.of_source(source, meta=meta, case_hashes=True).save(store)


def stored_suite_source(store: Store, record: SuiteRecord) -> SuiteSource:
    """A suite snapshot of the store as a loaded suite (cases, registry, manifest), the same
    suite its folder loads to (same hash); it has no folder, so no file lines."""
    manifest_data = (record.meta or {}).get("manifest")
    manifest = SuiteManifest.model_validate(manifest_data) if manifest_data else None
    return SuiteSource(
        name=record.name,
        domain=record.domain,
        format_version=record.format_version,
        registry=store.suites.get_registry(record.registry_id),
        cases=tuple(case for _pk, case in store.suites.get_cases(record.id).values()),
        description=str((record.meta or {}).get("description") or ""),
        manifest=manifest,
    )


def _stored(
    open_store: StoreOpener | None, ref: str | Path, missing: SuiteNotFoundError
) -> SuiteSource:
    if open_store is None or not isinstance(ref, str):
        raise missing
    store = open_store()
    try:
        record = store.suites.get_suite(ref)
    except NotFoundError:
        raise missing from None
    return stored_suite_source(store, record)


def open_suite(ref: str | Path, open_store: StoreOpener | None = None) -> SuiteSource:
    """The suite a command's NAME|PATH names (see the module's docstring for the order)."""
    try:
        return load_suite(ref)
    except SuiteNotFoundError as missing:
        return _stored(open_store, ref, missing)


def validate_named_suite(ref: str | Path, open_store: StoreOpener | None = None) -> list[Problem]:
    """:func:`validate_suite` of a built-in name or a folder (with file:line for each problem),
    else of the store's snapshot of that name."""
    try:
        return validate_suite(ref)
    except SuiteNotFoundError as missing:
        return validate_suite(_stored(open_store, ref, missing))


# --------------------------------------------------------------------------- generated suites


@dataclass(frozen=True)
class Published:
    generated: GeneratedSuite
    suite_id: int
    folder: Path | None

    def summary(self) -> dict[str, Any]:
        out = self.generated.summary()
        out["folder"] = str(self.folder) if self.folder is not None else None
        return out


def publish_suite(
    store: Store, knobs: Knobs, *, name: str | None = None, folder: Path | str | None = None
) -> Published:
    """Generate a FuncBenchGen suite, store its snapshot (a lookup when it exists) and write
    its folder (``folder`` None writes none)."""
    generated = generate_suite(knobs, name)
    record = snapshot_suite(store, generated.source)
    written = write_generated_suite(folder, generated) if folder is not None else None
    return Published(generated, record.id, written)
