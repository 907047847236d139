"""Importer ``cassettes``: store a folder of cassettes, recorded anywhere, as one run.

The plan (files, cases, traces) is the recorder's pure :func:`rejudge.recorder.plan_folder`, or
the same plan read on a Dask cluster (:mod:`rejudge.services._distributed_import`); this stores
it through the ingest path. Importing the same folder again is a lookup: same suite
snapshot, same run, no duplicate trace.

What is stored is of the scrubbed file (:func:`rejudge.recorder.scrubbed_cassette_bytes`): the
copy under the cassettes folder holds the scrubbed bytes, and the trace and the stored cassette
hash are of them, so replay and renormalize of the copy give the same trace hash. With no copy
the stored path is the source file and the stored hash that file's own. The source is only read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rejudge.errors import NotFoundError
from rejudge.importers._contract import Importer, register_importer
from rejudge.importers._sniff import HEAD_BYTES, Detection, Sniff
from rejudge.model import content_hash, hash_bytes
from rejudge.recorder import (
    IMPORTED_DOMAIN,
    ImportPlan,
    PlannedTrace,
    SkippedFile,
    adhoc_suite,
    find_mapping,
    import_run_config,
    import_summary,
    plan_folder,
    write_atomic,
)
from rejudge.services._evidence_paths import evidence_path
from rejudge.services._ingest import Evidence, SuiteSnapshot, ingest_run
from rejudge.store import RunRecord, Store, SuiteRecord

if TYPE_CHECKING:
    from rejudge.services._distributed import DaskEngine

__all__ = ["ImportResult", "import_cassettes"]


@dataclass(frozen=True)
class ImportResult:
    run: RunRecord
    suite: SuiteRecord
    inserted: int
    skipped: int
    planned: list[PlannedTrace] = field(default_factory=list)
    # files under the folder that could not be imported (non-strict imports only)
    skipped_files: list[SkippedFile] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        summary: dict[str, Any] = import_summary(
            self.run.name,
            self.run.id,
            self.suite.name,
            self.inserted,
            self.skipped,
            self.planned,
            self.skipped_files,
        )
        return summary


def _resolve_suite(store: Store, suite: str) -> SuiteRecord:
    try:
        return store.suites.get_suite(suite)
    except NotFoundError:
        from rejudge.services._suites import snapshot_suite

        return snapshot_suite(store, suite)


def import_cassettes(
    directory: str | Path,
    store: Store,
    suite: str | None = None,
    *,
    run_name: str | None = None,
    mapping_file: str | Path | None = None,
    copy_to: str | Path | None = None,
    adhoc_suite_name: str | None = None,
    strict: bool = True,
    engine: DaskEngine | None = None,
    progress: Callable[[int], None] | None = None,
) -> ImportResult:
    """Import every cassette under ``directory`` as one run.

    ``suite``: a suite in the store (or a built-in/path, snapshotted on the way). ``copy_to``
    (the cassettes folder): copy each cassette to ``copy_to/<run>/<relative path>`` and record
    it under that folder, as recorded runs do (so ``renormalize`` finds it when the source
    folder is gone); otherwise the source's absolute path is recorded. The run's config is the
    one rejudge recorded in the cassettes, else harness mode ``imported``.

    ``strict`` (the default): a file that cannot be read stops the import with nothing stored.
    Otherwise such files are skipped and listed in ``skipped_files`` with their reasons; when no
    file at all can be read the import is an error.

    ``engine``: read the files as tasks on a Dask cluster whose workers see ``directory`` at the
    same path (:mod:`rejudge.services._distributed_import`); the plan, and so what is stored,
    is the one a local import makes. ``progress`` gets the file count of each partition read.
    """
    root = Path(directory)
    base = root if root.is_dir() else root.parent
    mapping = find_mapping(root, Path(mapping_file) if mapping_file is not None else None)
    plan_files: Callable[..., ImportPlan] = plan_folder
    if engine is not None:
        from functools import partial

        from rejudge.services._distributed_import import plan_on_cluster

        plan_files = partial(plan_on_cluster, engine, progress=progress)

    suite_rec: SuiteRecord | SuiteSnapshot
    if suite is not None:
        suite_rec = _resolve_suite(store, suite)
        cases = store.suites.get_cases(suite_rec.id)
        registry = store.suites.get_registry(suite_rec.registry_id)
        plan = plan_files(
            root,
            case_ids=set(cases),
            mapping=mapping,
            name_map=registry.name_map or None,
            case_hashes={key: case.hash for key, (_pk, case) in cases.items()},
            strict=strict,
        )
        planned = plan.traces
    else:
        plan = plan_files(root, mapping=mapping, strict=strict)
        planned = plan.traces
        from rejudge.suites import suite_hash

        name = adhoc_suite_name or f"imported-{base.resolve().name or 'cassettes'}"
        registry, case_list = adhoc_suite(planned, name)
        suite_rec = SuiteSnapshot(
            name=name,
            domain=IMPORTED_DOMAIN,
            suite_hash=suite_hash(1, registry, case_list),
            registry=registry,
            cases=case_list,
            meta={"description": f"ad-hoc cases imported from {base}", "adhoc": True},
        )
    # the ad-hoc suite, the run and its traces land together, or nothing (ingest_run)
    return _store_import(store, suite_rec, planned, plan, base, run_name, copy_to)


def _store_import(
    store: Store,
    suite: SuiteRecord | SuiteSnapshot,
    planned: list[PlannedTrace],
    plan: ImportPlan,
    base: Path,
    run_name: str | None,
    copy_to: str | Path | None,
) -> ImportResult:
    config = import_run_config(planned, str(base.resolve()))
    the_hash = suite.hash if isinstance(suite, SuiteRecord) else suite.suite_hash
    digest = content_hash([the_hash, [(p.rel, p.cassette_hash) for p in planned]])
    name = run_name or f"import-{suite.name}-{digest.split(':', 1)[1][:10]}"

    def evidence(run: RunRecord, _suite: SuiteRecord) -> list[Evidence]:
        out = []
        for p in planned:
            # like recorded runs: a copied cassette is stored relative to the cassettes folder;
            # a cassette left where it is, by its absolute path
            stored_path, stored_hash = evidence_path(p.path), p.source_hash
            if copy_to is not None:
                relative = f"{run.name}/{p.rel}"
                dest = Path(copy_to) / relative
                if not dest.exists() or hash_bytes(dest.read_bytes()) != p.cassette_hash:
                    write_atomic(dest, p.data)  # the scrubbed bytes, never the source's
                stored_path, stored_hash = evidence_path(dest, copy_to), p.cassette_hash
            out.append(Evidence(p.case_id, p.trace, stored_path, stored_hash))
        return out

    stored = ingest_run(store, suite, name=name, config=config, evidence=evidence)
    return ImportResult(
        run=stored.run,
        suite=stored.suite,
        inserted=stored.inserted,
        skipped=stored.skipped,
        planned=planned,
        skipped_files=plan.skipped,
    )


def _run(store: Store, path: str | Path, **options: Any) -> ImportResult:
    return import_cassettes(path, store, **options)


# vcrpy, Ruby VCR and the JSON layouts all keep their exchanges under the key "interactions"
# (or "http_interactions"), as a YAML mapping key at a line's start or a JSON object key
_INTERACTIONS = re.compile(r'(^|\n)(http_)?interactions:|"(http_)?interactions"\s*:')


def _looks_like_cassette(head: str) -> bool:
    return _INTERACTIONS.search(head) is not None


def _detect(sniff: Sniff) -> Detection:
    """A cassette file (by its name and an ``interactions`` list in its head), or a folder
    holding cassette files (the first one checked the same way)."""
    from rejudge.recorder import find_cassettes
    from rejudge.recorder._cassettes import is_cassette_file

    if sniff.is_dir:
        found = find_cassettes(sniff.path)
        if not found:
            return Detection.refuse("a folder without cassette files (*.yaml, *.yml, *.json)")
        if found[0].name.lower().endswith(".gz"):
            return Detection.accept(0.7, f"a folder of {len(found)} cassette file(s)")
        with found[0].open("rb") as fh:
            head = fh.read(HEAD_BYTES).decode("utf-8", errors="replace")
        if _looks_like_cassette(head):
            return Detection.accept(0.9, f"a folder of {len(found)} cassette file(s)")
        return Detection.refuse(f"{found[0].name} under the folder holds no interactions")
    if not is_cassette_file(sniff.path):
        return Detection.refuse("not a cassette file name (*.yaml, *.yml, *.json, .gz)")
    if sniff.path.name.lower().endswith(".gz"):
        return Detection.accept(0.6, "a gzipped cassette file name")
    if _looks_like_cassette(sniff.head_text):
        return Detection.accept(0.95, "a cassette (a list of recorded interactions)")
    return Detection.refuse("no recorded interactions in the file")


#: the cassettes importer: a folder (or file) of cassettes recorded anywhere (options:
#: ``suite``, ``run_name``, ``mapping_file``, ``copy_to``, ``strict``, ...); its runs re-derive
#: from their cassettes, so it reads no results file for replay
CASSETTES: Importer[ImportResult] = Importer(
    name="cassettes",
    summary="a folder of cassettes recorded anywhere (vcrpy, Ruby VCR, httpx stubs) as one run",
    accepts="a folder of cassettes, or one cassette file",
    run=_run,
    to_json=ImportResult.summary,
    detect=_detect,
)
register_importer(CASSETTES)
