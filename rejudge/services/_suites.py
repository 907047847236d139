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

__all__ = [
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


def suite_summaries(names: list[str] | None = None) -> list[dict[str, Any]]:
    """``suite list`` entries (DESIGN §11) for the built-in suites, sorted by name.

    A suite that fails to load still gets an entry, with ``error`` set and null counts.
    """
    wanted = sorted(builtin_suites()) if names is None else names
    out: list[dict[str, Any]] = []
    for name in wanted:
        try:
            out.append(load_suite(name).summary())
        except RejudgeError as exc:
            out.append(
                {
                    "name": name,
                    "cases": None,
                    "hash": None,
                    "dimensions": {},
                    "negative": None,
                    "error": str(exc),
                }
            )
    return out


def stored_suite_summaries(store: Store) -> list[dict[str, Any]]:
    """``suite list --stored`` entries: every suite snapshot in the store (built-in, imported
    with ``suite import-bfcl``, generated with ``generate funcbench``, snapshotted by a
    recording), oldest first per name, with the keys of :func:`suite_summaries` plus ``id``,
    ``domain`` and ``runs`` (how many runs were recorded or imported on it)."""
    runs_by_suite = store.runs.count_runs_by_suite()
    out: list[dict[str, Any]] = []
    for record in store.suites.list_suites():
        cases = [case for _pk, case in store.suites.get_cases(record.id).values()]
        dimensions: dict[str, int] = {}
        for case in cases:
            dimensions[case.dimension] = dimensions.get(case.dimension, 0) + 1
        out.append(
            {
                "name": record.name,
                "cases": len(cases),
                "hash": record.hash,
                "dimensions": dict(sorted(dimensions.items())),
                "negative": sum(1 for case in cases if case.negative),
                "id": record.id,
                "domain": record.domain,
                "runs": runs_by_suite.get(record.id, 0),
            }
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
