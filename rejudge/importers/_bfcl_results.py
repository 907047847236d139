"""BFCL into the store: its AST categories as suites (``suite import-bfcl``) and its result files
as imported runs (``import bfcl-results``), one run per category.

The parsing and building are pure (:mod:`rejudge.importers._bfcl_suite`,
:mod:`rejudge.importers._bfcl_read`); this stores what they give, every category in
one transaction (all land, or none), each run through
:func:`rejudge.services._ingest.ingest_run`. Replay re-derives a results run by reading its
category's lines again (:data:`BFCL_RESULTS`' source).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rejudge.errors import InvalidInputError
from rejudge.importers._contract import Importer, ReplaySource, register_importer
from rejudge.importers._sniff import Detection, Sniff
from rejudge.model import RunConfig, Trace
from rejudge.services._evidence_paths import evidence_path
from rejudge.services._ingest import Evidence, SuiteSnapshot, ingest_run
from rejudge.store import Store

if TYPE_CHECKING:
    from rejudge.importers import ImportedSuite

__all__ = ["BfclResultImport", "import_bfcl", "import_bfcl_results"]

#: the ``source`` a BFCL results run's config names
SOURCE = "bfcl-results"


def import_bfcl(
    store: Store | None = None,
    categories: Sequence[str] | None = None,
    *,
    data_dir: Path | str | None = None,
    out_dir: Path | str | None = None,
) -> list[ImportedSuite]:
    """Import BFCL categories (default: every AST category): snapshot each suite in ``store``
    and/or write it as a suite folder under ``out_dir``. The snapshot is keyed by the suite
    hash, so importing twice is a lookup. Returns an
    :class:`rejudge.importers.ImportedSuite` per category."""
    from rejudge.importers import bfcl_categories, build_suite, imported_suite, suite_meta
    from rejudge.suites import write_suite

    wanted = bfcl_categories(categories)
    sources = [(category, build_suite(category, data_dir)) for category in wanted]
    stored: dict[str, int] = {}
    if store is not None:
        with store.atomic():  # every category's snapshot, or none
            for category, source in sources:
                snapshot = SuiteSnapshot.of_source(
                    source, meta=suite_meta(source), case_hashes=True
                )
                stored[category] = snapshot.save(store).id
    results = []
    for category, source in sources:
        path = None
        if out_dir is not None and source.manifest is not None:
            path = str(write_suite(Path(out_dir) / source.name, source.manifest, source.cases))
        results.append(imported_suite(source, category, suite_id=stored.get(category), path=path))
    return results


@dataclass
class BfclResultImport:
    """One category of a BFCL results import: its run and what became of its lines."""

    category: str
    run: str
    run_id: int
    suite: str
    traces: int = 0
    inserted: int = 0
    undecodable: int = 0
    unknown_ids: list[str] = field(default_factory=list)
    bad_lines: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "run": self.run,
            "run_id": self.run_id,
            "suite": self.suite,
            "traces": self.traces,
            "inserted": self.inserted,
            "undecodable": self.undecodable,
            "unknown_ids": self.unknown_ids[:20],
            "unknown_id_count": len(self.unknown_ids),
            "bad_lines": self.bad_lines[:20],
            "bad_line_count": len(self.bad_lines),
        }


def import_bfcl_results(
    store: Store,
    path: Path | str,
    model: str,
    *,
    run_name: str | None = None,
    data_dir: Path | str | None = None,
    source_path: str | None = None,
) -> list[BfclResultImport]:
    """Import BFCL result file(s) as imported runs (one per category); idempotent per run name.

    Every line is parsed and every category's suite built before the first write
    (:func:`rejudge.importers.plan_results`); then every category's suite, run and
    traces are stored in one transaction. ``source_path``: how the store names ``path``
    (recorded on each run with the hash of its category's lines, so replay can re-derive the
    traces from the file)."""
    from rejudge.importers import plan_results

    planned = plan_results(path, data_dir=data_dir)
    out: list[BfclResultImport] = []
    with store.atomic():  # every category's suite, run and traces: all land, or none
        for category in planned:
            source = category.suite
            config = RunConfig(
                model=model,
                provider="bfcl",
                harness_mode="imported",
                temperature=None,
                tool_choice=None,
                extra={
                    "source": SOURCE,
                    "category": category.category,
                    "results_hash": category.results_hash,
                    "source_path": source_path,
                },
            )
            stored = ingest_run(
                store,
                SuiteSnapshot.of_source(
                    source, meta={"description": source.description}, case_hashes=True
                ),
                name=f"{run_name}-{category.category}"
                if run_name
                else f"bfcl-{model}-{category.category}",
                config=config,
                # no cassette: the traces come from the results file named in the run's config
                evidence=[Evidence(t.case_id, t, None, None) for t in category.traces],
            )
            out.append(
                BfclResultImport(
                    category=category.category,
                    run=stored.run.name,
                    run_id=stored.run.id,
                    suite=source.name,
                    traces=len(category.traces),
                    inserted=stored.inserted,
                    undecodable=category.undecodable,
                    unknown_ids=list(category.unknown_ids),
                    bad_lines=list(category.bad_lines),
                )
            )
    return out


def _rederive(config: RunConfig, path: Path) -> tuple[str, list[Trace]]:
    """A run's traces derived again from its category's lines of the results file(s)."""
    from rejudge.importers import read_results, result_traces, results_hash

    lines = read_results(path)[0].get(str((config.extra or {}).get("category")), [])
    return results_hash(lines), result_traces(lines)


def _run(store: Store, path: str | Path, **options: Any) -> list[BfclResultImport]:
    options.setdefault("source_path", evidence_path(path))
    model = options.pop("model", None)
    if not model:
        raise InvalidInputError("a BFCL results import needs the model's name", field="model")
    return import_bfcl_results(store, path, str(model), **options)


def _detect(sniff: Sniff) -> Detection:
    """BFCL result lines: JSON Lines whose first record has a string ``id`` of an AST
    category and a ``result``; or a folder whose first .json/.jsonl file is such."""
    from rejudge.importers import category_of

    target = sniff
    if sniff.is_dir:
        files = sorted(
            p for p in sniff.path.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl")
        )
        if not files:
            return Detection.refuse("a folder without .json or .jsonl files")
        target = Sniff(files[0])
    first = target.first_json_line()
    if not isinstance(first, dict) or not isinstance(first.get("id"), str) or "result" not in first:
        return Detection.refuse("its first line is no BFCL result (an object with id and result)")
    if category_of(first["id"], target.path.name) is None:
        return Detection.refuse(f"result id {first['id']!r} is in no BFCL AST category")
    where = "a folder of BFCL result files" if sniff.is_dir else "BFCL result lines"
    return Detection.accept(0.9, f"{where} (id and result; needs -o model=NAME)")


#: the BFCL results importer: result file(s) of BFCL's AST categories, one run per category
#: (options: ``model``, required; ``run_name``, ``data_dir``)
BFCL_RESULTS: Importer[list[BfclResultImport]] = Importer(
    name="bfcl-results",
    summary="BFCL result files as imported runs, one per AST category",
    accepts="a BFCL result file (JSON Lines) or a folder of them",
    run=_run,
    sources={SOURCE: ReplaySource("BFCL results", "results_hash", _rederive)},
    to_json=lambda results: [r.as_dict() for r in results],
    detect=_detect,
)
register_importer(BFCL_RESULTS)
