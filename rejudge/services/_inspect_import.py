"""``import inspect``: an Inspect AI eval log as one run, through the ingest path.

The log is read and every sample parsed and checked first
(:func:`rejudge.suites.importers.parse_inspect_samples`); only a log with no problem is stored:
its suite (the samples' cases, or the suite named), one run, a trace per sample and epoch (the
log file is the evidence each trace names, with its hash), and each Inspect scorer's value as
an external verdict on its trace (source ``inspect/<scorer>``), which the agreement view
compares with rejudge's own verdicts. Importing the same log again is a lookup.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rejudge.model import RunConfig, hash_bytes
from rejudge.services._evidence_paths import evidence_path
from rejudge.services._ingest import Evidence, ingest, save_suite_source
from rejudge.store import RunRecord, Store, SuiteRecord

__all__ = ["InspectImportResult", "import_inspect"]


@dataclass(frozen=True)
class InspectImportResult:
    run: RunRecord
    suite: SuiteRecord
    task: str
    samples: int
    epochs: int
    inserted: int
    skipped: int
    verdicts: int
    unscored: int
    cases_with_golden: int
    registry_inferred: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.run.name,
            "run_id": self.run.id,
            "suite": self.suite.name,
            "task": self.task,
            "samples": self.samples,
            "epochs": self.epochs,
            "inserted": self.inserted,
            "skipped": self.skipped,
            "external_verdicts": self.verdicts,
            "unscored": self.unscored,
            "cases_with_golden": self.cases_with_golden,
            "registry_inferred": self.registry_inferred,
        }


def import_inspect(
    path: str | Path,
    store: Store,
    *,
    suite: Any = None,
    run_name: str | None = None,
) -> InspectImportResult:
    """Import the Inspect AI log at ``path`` (``.eval`` or ``.json``) as one run.

    ``suite``: a loaded suite (:class:`rejudge.suites.SuiteSource`) whose case ids the samples'
    ids name; without one, each sample's own case (see the importer) makes the suite.
    """
    from rejudge.services._external import record_external_verdicts
    from rejudge.suites import SuiteSource, suite_hash
    from rejudge.suites.importers import (
        INSPECT_DOMAIN,
        INSPECT_SOURCE,
        parse_inspect_samples,
        read_inspect_log,
    )

    source = Path(path)
    log = read_inspect_log(source)
    parsed = parse_inspect_samples(
        log.header,
        log.samples(),
        source=str(source),
        suite_cases={c.id: c for c in suite.cases} if suite is not None else None,
        suite_registry=suite.registry if suite is not None else None,
    )
    log_version = log.version
    # a .json log's samples are one parsed document: let it go before the writes (thousands
    # of live objects make every garbage collection during the ingest slower)
    del log
    file_hash = hash_bytes(source.read_bytes())
    if suite is None:
        suite = SuiteSource(
            name=f"inspect-{parsed.task}",
            domain=INSPECT_DOMAIN,
            format_version=1,
            registry=parsed.registry,
            cases=tuple(parsed.cases),
            description=f"the samples of Inspect task {parsed.task}",
        )
        assert suite.hash == suite_hash(1, parsed.registry, parsed.cases)
    with store.atomic():  # all of it lands, or none of it
        suite_rec = save_suite_source(store, suite)
        config = RunConfig(
            model=parsed.model,
            provider=INSPECT_SOURCE,
            harness_mode="imported",
            temperature=None,
            tool_choice=None,
            repeat=max(parsed.epochs, 1),
            extra={
                "source": INSPECT_SOURCE,
                "file": source.name,
                "file_hash": file_hash,
                # where the log lay, so replay can re-derive the traces from it
                "source_path": evidence_path(source),
                "task": parsed.task,
                "log_version": log_version,
                "registry_inferred": parsed.registry_inferred,
            },
        )
        name = run_name or f"inspect-{parsed.task}-{file_hash.split(':', 1)[-1][:8]}"
        run = store.create_run(name=name, suite=suite_rec, config=config)
        # no cassette: the traces come from the log, named (with its hash) in the run's config
        evidence = [Evidence(t.case_id, t, None, None) for t in parsed.traces]
        result = ingest(store, run, evidence)
        written = _record_by_source(store, run.id, parsed.verdicts, record_external_verdicts)
        store.finish_run(run.id, "finished")
    return InspectImportResult(
        run=store.get_run(run.id),
        suite=suite_rec,
        task=parsed.task,
        samples=len(parsed.traces),
        epochs=parsed.epochs,
        inserted=result.inserted,
        skipped=len(evidence) - result.inserted,
        verdicts=written,
        unscored=parsed.unscored,
        cases_with_golden=parsed.with_golden,
        registry_inferred=parsed.registry_inferred,
    )


def _record_by_source(store: Store, run_id: int, verdicts: list[Any], record: Any) -> int:
    """One write per scorer (each is its own source of verdicts)."""
    by_source: dict[str, list[tuple[str, int, float, dict[str, Any]]]] = {}
    for v in verdicts:
        by_source.setdefault(v.source, []).append((v.case_id, v.repetition, v.value, v.detail))
    return sum(record(store, run_id, source, items) for source, items in sorted(by_source.items()))
