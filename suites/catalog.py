"""Built-in suite summaries and snapshots of suites in the store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rejudge.store.errors import RejudgeError
from rejudge.store.repository import Store, SuiteRecord
from rejudge.suites.case_format import SuiteSource, builtin_suites, load_suite
from rejudge.suites.errors import SuiteError
from rejudge.suites.validate import validate_suite

__all__ = ["suite_summaries", "snapshot_suite"]


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
    runs_by_suite = store.count_runs_by_suite()
    out: list[dict[str, Any]] = []
    for record in store.list_suites():
        cases = [case for _pk, case in store.get_cases(record.id).values()]
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
            f"run `rejudge suite validate {source.path or source.name}` for all of them"
        )
    meta: dict[str, Any] = {"description": source.description}
    if source.manifest is not None:
        meta["manifest"] = source.manifest.model_dump(mode="json")
    return store.save_suite(
        name=source.name,
        domain=source.domain,
        suite_hash=source.hash,
        registry=source.registry,
        cases=list(source.cases),
        format_version=source.format_version,
        meta=meta,
        case_hashes=source.case_hashes,
    )
