"""Importer ``tau-bench``: a τ-bench trajectory file or a τ²-bench results document as one run.

The file is parsed and checked whole first (:func:`._tau_read.read_tau`, which tells a τ²
document from a τ-bench file and gives τ²'s plan, :mod:`._tau2_suite`); then its suite, one
run, a trace per (task, trial) and each trial's reward as an external verdict are stored
through :func:`rejudge.services._ingest.ingest_run`, all in one transaction. Replay re-derives such a
run by parsing the file again the same way (:data:`TAU_BENCH`'s sources).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rejudge.errors import InvalidInputError, NotFoundError
from rejudge.importers._contract import Importer, ReplaySource, register_importer
from rejudge.importers._sniff import Detection, Sniff
from rejudge.model import RunConfig, Trace
from rejudge.services._evidence_paths import evidence_path, resolve_evidence_path
from rejudge.services._ingest import Evidence, SuiteSnapshot, VerdictItem, ingest_run
from rejudge.store import RunRecord, Store, SuiteRecord

if TYPE_CHECKING:
    from rejudge.importers._tau2_suite import Tau2Plan
    from rejudge.importers._tau_read import TauImport

__all__ = ["TauImportResult", "import_tau_bench", "read_tau_file"]


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
    # the file was a τ²-bench results document (its verdicts are τ²'s rewards), not τ-bench's
    tau2: bool = False
    # the version of the benchmark's reward recorded with the verdicts (τ-bench: 7362a17 or
    # 59a200c; τ²: the code commit its document names, if any) and how it is known
    reward_version: str | None = None
    reward_version_how: str | None = None

    @property
    def benchmark(self) -> str:
        return "τ²-bench" if self.tau2 else "τ-bench"

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
            "reward_version": self.reward_version,
            "reward_version_how": self.reward_version_how,
        }


def read_tau_file(source: Path, tools: Path | None) -> tuple[Tau2Plan | None, TauImport]:
    """A τ-bench file (or τ² document) parsed as its import parses it: its τ² plan (None for a
    τ-bench file) and the parse. Replay re-derives a run's traces through this too."""
    _data, plan, parsed = _read(source, tools)
    return plan, parsed


def _read(source: Path, tools: Path | None) -> tuple[Any, Tau2Plan | None, TauImport]:
    """:func:`read_tau_file`, and the file's JSON value as loaded (the import reads the reward
    version from it too, rather than parsing the file a second time)."""
    from rejudge.importers._tau_read import load_json, read_tau

    data = load_json(source, "τ-bench file")
    tools_data = load_json(tools, "tools file") if tools is not None else None
    plan, parsed = read_tau(
        data, source=source.name, tools=tools_data, tools_source=str(tools or "")
    )
    return data, plan, parsed


def import_tau_bench(
    path: str | Path,
    store: Store,
    *,
    tools: str | Path | None = None,
    run_name: str | None = None,
    model: str | None = None,
    suite_name: str | None = None,
    reward_version: str | None = None,
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
    (:mod:`rejudge.importers._tau2_suite` says why). Its run is named
    ``tau2-<domain>/<submission>/<model>``.
    """
    from rejudge.importers._tau2_suite import task_conflicts, tau2_registry
    from rejudge.importers._tau_tools import TAU_DOMAIN
    from rejudge.suites import suite_hash

    source = Path(path)
    if source.is_dir():
        raise InvalidInputError(
            f"{source} is a folder: τ²-bench's dir layout (results.json next to simulations/) is "
            "not supported; give a τ-bench trajectory file or a one-document τ²-bench results file",
            file=str(source),
        )
    data, plan, parsed = _read(source, Path(tools) if tools is not None else None)
    version, how = _reward_version(source, plan, reward_version, data)
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
            extra["relabelled"] = [asdict(r) for r in plan.relabels]
    name_of_suite = suite_name or (plan.suite_name if plan is not None else f"{flavor}-{stem}")
    suite = SuiteSnapshot(
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
    # no cassette: the traces come from a results file, named (with its hash) in the run's config
    evidence = [Evidence(t.case_id, t, None, None) for t in parsed.traces]
    verdicts: list[VerdictItem] = [
        (v.case_id, v.repetition, v.value, v.detail) for v in parsed.verdicts
    ]
    with store.atomic():  # all of it lands, or none of it
        if plan is not None:
            _refuse_other_tasks(store, name_of_suite, parsed.cases, source, task_conflicts)
        stored = ingest_run(
            store,
            suite,
            name=run_name or default_name,
            config=config,
            evidence=evidence,
            verdicts={flavor: verdicts},
            verdict_versions={flavor: version} if version is not None else None,
        )
    return TauImportResult(
        run=stored.run,
        suite=stored.suite,
        inserted=stored.inserted,
        skipped=stored.skipped,
        verdicts=stored.verdicts,
        registry_inferred=parsed.registry_inferred,
        cases=len(parsed.cases),
        trials=parsed.trials,
        relabelled=len(plan.relabels) if plan is not None else 0,
        tau2=plan is not None,
        reward_version=version,
        reward_version_how=how,
    )


def _reward_version(
    source: Path, plan: Tau2Plan | None, given: str | None, data: Any
) -> tuple[str | None, str | None]:
    """The reward version recorded with a file's verdicts (``data``: the file as loaded), and
    how it is known."""
    if plan is not None:
        if given is not None:
            raise InvalidInputError(
                f"{source.name} is a τ²-bench document: a reward version names a version of "
                "τ-bench's reward; τ² declares each task's reward basis instead",
                file=str(source),
                field="reward_version",
            )
        if plan.git_commit is None:
            return None, None
        return str(plan.git_commit), "the τ² code commit the document names (info.git_commit)"
    from rejudge.importers._tau_version import reward_version_of

    raw = source.read_bytes()  # its git blob id names a file τ-bench published
    found = reward_version_of(given, raw, data, source=source.name)
    return found.version, found.how


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
        stored = store.suites.get_suite(suite_name)
    except NotFoundError:
        return
    differing = conflicts(
        {k: c for k, (_pk, c) in store.suites.get_cases(stored.id).items()}, cases
    )
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


def _rederive(config: RunConfig, path: Path) -> tuple[str, list[Trace]]:
    """A run's traces parsed again from its file (and the tools file it was imported with)."""
    tools = (config.extra or {}).get("tools_path")
    tools_file = resolve_evidence_path(tools) if tools else None
    if tools_file is not None and not tools_file.exists():
        raise FileNotFoundError(f"the tools file {tools_file} the run was imported with")
    _plan, parsed = read_tau_file(path, tools_file)  # as the import parsed it
    return parsed.file_hash, parsed.traces


def _run(store: Store, path: str | Path, **options: Any) -> TauImportResult:
    return import_tau_bench(path, store, **options)


def _detect(sniff: Sniff) -> Detection:
    """A τ² results document (``tasks`` and ``simulations``) or a τ-bench trajectory file (a
    list of entries with ``task_id``, ``reward`` and ``traj``)."""
    from rejudge.importers._tau2_read import TAU2_SOURCE
    from rejudge.importers._tau_read import TAU_SOURCE, tau_flavor

    if sniff.is_dir:
        return Detection.refuse("a folder, not a τ-bench file")
    data = sniff.whole_json()
    flavor = tau_flavor(data)
    if flavor == TAU2_SOURCE:
        return Detection.accept(0.95, "a τ²-bench results document (tasks and simulations)")
    if flavor == TAU_SOURCE:
        return Detection.accept(0.9, "a τ-bench trajectory file (task_id, reward, traj)")
    if isinstance(data, list):
        return Detection.refuse("a JSON list whose entries have no task_id, reward and traj")
    head = sniff.head_text
    if data is None and sniff.starts_with == "[" and '"traj"' in head and '"task_id"' in head:
        return Detection.accept(0.5, "looks like a τ-bench trajectory file (task_id, traj)")
    return Detection.refuse("neither a τ-bench trajectory list nor a τ²-bench results document")


#: the τ-bench importer: a trajectory file or a τ² results document (options: ``tools``,
#: ``run_name``, ``model``, ``suite_name``, ``reward_version``)
TAU_BENCH: Importer[TauImportResult] = Importer(
    name="tau-bench",
    summary="a τ-bench trajectory file or a τ²-bench results document as one run, "
    "rewards kept as external verdicts",
    accepts="a τ-bench trajectory file (JSON) or a one-document τ²-bench results file",
    run=_run,
    sources={
        "tau-bench": ReplaySource("τ-bench trajectory file", "file_hash", _rederive),
        "tau2-bench": ReplaySource("τ²-bench results file", "file_hash", _rederive),
    },
    to_json=TauImportResult.summary,
    detect=_detect,
)
register_importer(TAU_BENCH)
