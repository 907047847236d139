"""Importer ``inspect``: an Inspect AI eval log as one run, through the ingest path.

The log is read and every sample parsed and checked first
(:func:`rejudge.importers.parse_inspect_samples`); only a log with no problem is stored:
its suite (the samples' cases, or the suite named), one run, a trace per sample and epoch (the
log file is the evidence each trace names, with its hash), and each Inspect scorer's value as
an external verdict on its trace (source ``inspect/<scorer>``), which the agreement view
compares with rejudge's own verdicts. Importing the same log again is a lookup.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rejudge.importers._contract import Importer, ReplaySource, register_importer
from rejudge.importers._sniff import Detection, Sniff
from rejudge.model import RunConfig, Trace
from rejudge.services._evidence_paths import evidence_path
from rejudge.services._ingest import Evidence, SuiteSnapshot, VerdictItem, ingest_run
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
    from rejudge.importers import (
        INSPECT_DOMAIN,
        INSPECT_SOURCE,
        parse_inspect_samples,
        read_inspect_log,
    )
    from rejudge.suites import SuiteSource, suite_hash

    source = Path(path)
    log = read_inspect_log(source)
    parsed = parse_inspect_samples(
        log.header,
        log.samples(),
        source=str(source),
        suite_cases={c.id: c for c in suite.cases} if suite is not None else None,
        suite_registry=suite.registry if suite is not None else None,
    )
    log_version, file_hash = log.version, log.file_hash()
    # a .json log's samples are one parsed document: let it go before the writes (thousands
    # of live objects make every garbage collection during the ingest slower)
    del log
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
    # no cassette: the traces come from the log, named (with its hash) in the run's config
    evidence = [Evidence(t.case_id, t, None, None) for t in parsed.traces]
    # all of it lands, or none of it; one write per scorer (each is its own source of verdicts)
    stored = ingest_run(
        store,
        SuiteSnapshot.of_source(suite),
        name=name,
        config=config,
        evidence=evidence,
        verdicts=_by_source(parsed.verdicts),
    )
    return InspectImportResult(
        run=stored.run,
        suite=stored.suite,
        task=parsed.task,
        samples=len(parsed.traces),
        epochs=parsed.epochs,
        inserted=stored.inserted,
        skipped=stored.skipped,
        verdicts=stored.verdicts,
        unscored=parsed.unscored,
        cases_with_golden=parsed.with_golden,
        registry_inferred=parsed.registry_inferred,
    )


def _by_source(verdicts: list[Any]) -> dict[str, list[VerdictItem]]:
    by_source: dict[str, list[VerdictItem]] = {}
    for v in verdicts:
        by_source.setdefault(v.source, []).append((v.case_id, v.repetition, v.value, v.detail))
    return by_source


def _rederive(_config: RunConfig, path: Path) -> tuple[str, list[Trace]]:
    """A run's traces parsed again from its log (a sample's trace does not depend on the suite
    it was filed under)."""
    from rejudge.importers import parse_inspect_samples, read_inspect_log

    log = read_inspect_log(path)
    parsed = parse_inspect_samples(log.header, log.samples(), source=str(path))
    return log.file_hash(), parsed.traces


def _run(store: Store, path: str | Path, **options: Any) -> InspectImportResult:
    return import_inspect(path, store, **options)


def _detect(sniff: Sniff) -> Detection:
    """An ``.eval`` zip holding Inspect's header (or the journal of a log still running), or a
    ``.json`` log: an object with ``version`` and an ``eval`` object."""
    if sniff.is_dir:
        return Detection.refuse("a folder, not an Inspect AI log")
    if sniff.is_zip:
        with zipfile.ZipFile(sniff.path) as archive:
            names = set(archive.namelist())
        if "header.json" in names or "_journal/start.json" in names:
            return Detection.accept(1.0, "an Inspect AI .eval log (header.json in the zip)")
        return Detection.refuse("a zip without Inspect's header.json or _journal/start.json")
    data = sniff.whole_json()
    if isinstance(data, dict):
        if isinstance(data.get("eval"), dict) and "version" in data:
            return Detection.accept(0.95, "an Inspect AI .json log (version and eval)")
        return Detection.refuse("a JSON object without Inspect's version and eval keys")
    head = sniff.head_text
    if data is None and sniff.starts_with == "{" and '"eval"' in head and '"version"' in head:
        # too big to parse here: the keys Inspect writes first are in the head
        return Detection.accept(0.6, "looks like an Inspect AI .json log (version and eval)")
    return Detection.refuse("not an Inspect AI log (an .eval zip or a .json with version, eval)")


#: the Inspect AI importer: an eval log (options: ``suite``, a loaded suite; ``run_name``)
INSPECT: Importer[InspectImportResult] = Importer(
    name="inspect",
    summary="an Inspect AI eval log as one run, each scorer's value kept as an external verdict",
    accepts="an Inspect AI eval log (.eval or .json)",
    run=_run,
    sources={"inspect": ReplaySource("Inspect log", "file_hash", _rederive)},
    to_json=InspectImportResult.to_json,
    detect=_detect,
)
register_importer(INSPECT)
