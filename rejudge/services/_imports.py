"""``import cassettes``: store a folder of cassettes, recorded anywhere, as one run.

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

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
)
from rejudge.services._evidence_paths import evidence_path
from rejudge.services._ingest import Evidence, ingest
from rejudge.store import InvalidInputError, NotFoundError, RunRecord, Store, SuiteRecord

if TYPE_CHECKING:
    from rejudge.services._distributed import DaskEngine

__all__ = [
    "ImportResult",
    "import_cassettes",
    "TauImportResult",
    "import_tau_bench",
    "read_tau_file",
]


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
        return import_summary(
            self.run.name,
            self.run.id,
            self.suite.name,
            self.inserted,
            self.skipped,
            self.planned,
            self.skipped_files,
        )


def _write_atomic(data: bytes, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".import-", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _resolve_suite(store: Store, suite: str) -> SuiteRecord:
    try:
        return store.get_suite(suite)
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

    if suite is not None:
        suite_rec = _resolve_suite(store, suite)
        cases = store.get_cases(suite_rec.id)
        registry = store.get_registry(suite_rec.registry_id)
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
        adhoc: dict[str, Any] = {
            "name": name,
            "domain": IMPORTED_DOMAIN,
            "suite_hash": suite_hash(1, registry, case_list),
            "registry": registry,
            "cases": case_list,
            "meta": {"description": f"ad-hoc cases imported from {base}", "adhoc": True},
        }
    with store.atomic():  # the ad-hoc suite, the run and its traces land together, or nothing
        if suite is None:
            suite_rec = store.save_suite(**adhoc)
        return _store_import(store, suite_rec, planned, plan, base, run_name, copy_to)


def _store_import(
    store: Store,
    suite_rec: SuiteRecord,
    planned: list[PlannedTrace],
    plan: ImportPlan,
    base: Path,
    run_name: str | None,
    copy_to: str | Path | None,
) -> ImportResult:
    config = import_run_config(planned, str(base.resolve()))
    digest = content_hash([suite_rec.hash, [(p.rel, p.cassette_hash) for p in planned]])
    name = run_name or f"import-{suite_rec.name}-{digest.split(':', 1)[1][:10]}"
    run = store.create_run(name=name, suite=suite_rec, config=config)

    evidence = []
    for p in planned:
        # like recorded runs: a copied cassette is stored relative to the cassettes folder;
        # a cassette left where it is, by its absolute path
        stored_path, stored_hash = evidence_path(p.path), p.source_hash
        if copy_to is not None:
            relative = f"{name}/{p.rel}"
            dest = Path(copy_to) / relative
            if not dest.exists() or hash_bytes(dest.read_bytes()) != p.cassette_hash:
                _write_atomic(p.data, dest)  # the scrubbed bytes, never the source's
            stored_path, stored_hash = evidence_path(dest, copy_to), p.cassette_hash
        evidence.append(Evidence(p.case_id, p.trace, stored_path, stored_hash))
    result = ingest(store, run, evidence)
    store.finish_run(run.id, "finished")
    return ImportResult(
        run=store.get_run(run.id),
        suite=suite_rec,
        inserted=result.inserted,
        skipped=len(evidence) - result.inserted,
        planned=planned,
        skipped_files=plan.skipped,
    )


@dataclass(frozen=True)
class TauImportResult:
    run: RunRecord
    suite: SuiteRecord
    inserted: int
    skipped: int
    verdicts: int
    registry_inferred: bool
    cases: int
    trials: int
    # simulations a τ² document named another task than the one they ran (re-keyed)
    relabelled: int = 0

    def summary(self) -> dict[str, Any]:
        return {
            "run": self.run.name,
            "run_id": self.run.id,
            "suite": self.suite.name,
            "cases": self.cases,
            "trials": self.trials,
            "inserted": self.inserted,
            "skipped": self.skipped,
            "external_verdicts": self.verdicts,
            "registry_inferred": self.registry_inferred,
            "relabelled": self.relabelled,
        }


def read_tau_file(source: Path, tools: Path | None) -> tuple[Any, Any]:
    """A τ-bench file (or τ² document) parsed as its import parses it: its τ² plan (None for a
    τ-bench file) and the parse. Replay re-derives a run's traces through this too."""
    from rejudge.suites.importers import load_json, parse_tau_bench
    from rejudge.suites.importers._tau2 import is_tau2_results
    from rejudge.suites.importers._tau2_suite import tau2_plan

    data = load_json(source, "τ-bench file")
    tools_data = load_json(tools, "tools file") if tools is not None else None
    plan = tau2_plan(data, source.stem) if is_tau2_results(data) else None
    if plan is not None and tools_data is None:
        tools_data = plan.tools
    parsed = parse_tau_bench(
        data, source=source.name, tools=tools_data, tools_source=str(tools or "")
    )
    return plan, parsed


def import_tau_bench(
    path: str | Path,
    store: Store,
    *,
    tools: str | Path | None = None,
    run_name: str | None = None,
    model: str | None = None,
    suite_name: str | None = None,
) -> TauImportResult:
    """Import a τ-bench trajectory file (or a τ²-bench results document) as one run: a suite of
    its tasks, a trace per (task, trial) and the benchmark's reward on each trace as an
    external verdict (source ``tau-bench`` or ``tau2-bench``).

    ``tools``: a JSON file of OpenAI function schemas; without it the registry is inferred from
    the calls and marked so (a τ² document of the airline or retail domain has its domain's
    fixed registry instead). The whole file is parsed and checked before the first write, so a
    file with any problem stores nothing; importing the same file again is a lookup.

    A τ² document imports into its domain's suite ``tau2-<domain>`` (``suite_name`` overrides
    it), every task of the document a case, so runs of several models share one suite; a
    document whose task differs from the stored suite's under the same id is refused
    (:mod:`rejudge.suites.importers._tau2_suite` says why). Its run is named
    ``tau2-<domain>/<submission>/<model>``.
    """
    from rejudge.model import RunConfig
    from rejudge.services._external import record_external_verdicts
    from rejudge.suites import suite_hash
    from rejudge.suites.importers import TAU_DOMAIN
    from rejudge.suites.importers._tau2_suite import task_conflicts, tau2_registry

    source = Path(path)
    if source.is_dir():
        raise InvalidInputError(
            f"{source} is a folder: τ²-bench's dir layout (results.json next to simulations/) is "
            "not supported; give a τ-bench trajectory file or a one-document τ²-bench results file",
            file=str(source),
        )
    plan, parsed = read_tau_file(source, Path(tools) if tools is not None else None)
    stem = source.stem
    flavor = parsed.source_name  # tau-bench or tau2-bench: whose rewards these are
    registry = parsed.registry
    extra: dict[str, Any] = {
        "source": flavor,
        "file": source.name,
        "file_hash": parsed.file_hash,
        # where the file lay, so replay can re-derive the traces from it
        "source_path": evidence_path(source),
        "tools_path": evidence_path(tools) if tools is not None else None,
    }
    if plan is not None:
        registry = tau2_registry(registry, plan.domain)
        extra.update(tau2_code_commit=plan.git_commit, domain=plan.domain)
        if plan.relabels:
            # the file named other tasks than these simulations ran (_tau2_tasks says how)
            extra["relabelled"] = [r._asdict() for r in plan.relabels]
    name_of_suite = suite_name or (plan.suite_name if plan is not None else f"{flavor}-{stem}")
    with store.atomic():  # all of it lands, or none of it
        if plan is not None:
            _refuse_other_tasks(store, name_of_suite, parsed.cases, source, task_conflicts)
        suite_rec = store.save_suite(
            name=name_of_suite,
            domain=TAU_DOMAIN,
            suite_hash=suite_hash(1, registry, parsed.cases),
            registry=registry,
            cases=parsed.cases,
            meta={
                "description": f"{flavor} tasks of {source.name}"
                if plan is None
                else f"τ²-bench {plan.domain} tasks",
                "source": flavor,
                "registry_inferred": parsed.registry_inferred,
            },
        )
        config = RunConfig(
            model=model or parsed.model or stem,
            provider=flavor,
            harness_mode="imported",
            temperature=None,
            tool_choice=None,
            repeat=max(parsed.trials, 1),
            system_prompt=parsed.system_prompt,
            extra=extra,
        )
        default_name = (
            plan.run_name
            if plan is not None
            else f"{flavor}-{stem}-{parsed.file_hash.split(':', 1)[-1][:8]}"
        )
        run = store.create_run(name=run_name or default_name, suite=suite_rec, config=config)
        # no cassette: the traces come from a results file, named (with its hash) in the run's config
        evidence = [Evidence(t.case_id, t, None, None) for t in parsed.traces]
        result = ingest(store, run, evidence)
        written = record_external_verdicts(
            store,
            run.id,
            flavor,
            [(v.case_id, v.repetition, v.value, v.detail) for v in parsed.verdicts],
        )
        store.finish_run(run.id, "finished")
    return TauImportResult(
        run=store.get_run(run.id),
        suite=suite_rec,
        inserted=result.inserted,
        skipped=len(evidence) - result.inserted,
        verdicts=written,
        registry_inferred=parsed.registry_inferred,
        cases=len(parsed.cases),
        trials=parsed.trials,
        relabelled=len(plan.relabels) if plan is not None else 0,
    )


def _refuse_other_tasks(
    store: Store,
    suite_name: str,
    cases: list[Any],
    source: Path,
    conflicts: Callable[..., list[str]],
) -> None:
    """A τ² document whose tasks differ from the stored suite's under the same ids stores
    nothing: ``compare`` joins runs by case id, so one name must mean one task."""
    try:
        stored = store.get_suite(suite_name)
    except NotFoundError:
        return
    differing = conflicts({k: c for k, (_pk, c) in store.get_cases(stored.id).items()}, cases)
    if differing:
        shown = ", ".join(differing[:5]) + (
            f" and {len(differing) - 5} more" if len(differing) > 5 else ""
        )
        raise InvalidInputError(
            f"{source.name}: {len(differing)} task(s) differ from suite {suite_name!r} under the "
            f"same id ({shown}); runs of one suite must share their tasks, so nothing was "
            "imported: import it under another suite name",
            file=str(source),
        )
