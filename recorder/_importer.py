"""``rejudge import cassettes``: store cassettes recorded anywhere as the traces of an imported run.

With a suite, each cassette's file name names its case (``<case>.yaml`` or ``<case>__r<k>.yaml``
for repetition ``k``), or a mapping file does (``rejudge-import.json|yaml`` in the folder, or
given): ``{"file name or relative path": "case id"}`` or ``{"...": {"case": id, "repetition": k}}``.
Without a suite, each cassette becomes an ad-hoc case with no golden calls (instruction = the
first user message), in an ad-hoc suite whose registry holds the tools the requests offered.

A cassette that rejudge itself recorded is derived as recording derived it (its ``rejudge``
block: outcome, round budget, provider errors, selected tools, tail results), its run config is
the one it recorded, and its case hash must be the suite's: the same file gives the same trace
hash whether it is recorded, replayed, imported or loaded by the demo.

A cassette recorded elsewhere may carry credentials (``authorization``, ``x-api-key``,
``cookie``, ``openai-organization`` ... headers; ``sk-...`` keys in bodies). Every file is read
through the scrubber a recording uses (:func:`scrubbed_cassette_bytes`), and the trace, the hash
and the copy the import stores are all of the scrubbed bytes; the original file is never written.

This module and :mod:`rejudge.recorder._import_plan` are the pure half: finding files, naming
cases, reading and deriving every file before anything is written, so an unknown case stops the
import with nothing stored. A file that cannot be read (not a cassette, invalid YAML, no model
exchange) stops a strict plan; a lenient plan (:func:`plan_folder`) lists it as a
:class:`SkippedFile` with its reason and goes on. Here: the plan's types, the files, the mapping,
the ad-hoc suite and the run config; the planning is in ``_import_plan``. Storing the plan is
:func:`rejudge.importers._cassettes.import_cassettes`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from rejudge.recorder._cassettes import is_cassette_file
from rejudge.recorder.wire import get_wire_format

from rejudge.errors import RejudgeError
from rejudge.model import Case, Golden, HarnessAssistance, RunConfig, ToolRegistry, ToolSpec, Trace

__all__ = [
    "CassetteImportError",
    "PlannedTrace",
    "SkippedFile",
    "ImportPlan",
    "MAPPING_FILE_NAMES",
    "IMPORTED_DOMAIN",
    "find_cassettes",
    "load_mapping",
    "find_mapping",
    "adhoc_suite",
    "import_run_config",
    "import_summary",
]

MAPPING_FILE_NAMES = ("rejudge-import.json", "rejudge-import.yaml", "rejudge-import.yml")
IMPORTED_DOMAIN = "imported"


class CassetteImportError(RejudgeError):
    """The folder cannot be imported as it is (no cassettes, unknown cases, a bad mapping)."""


@dataclass(frozen=True)
class PlannedTrace:
    """One cassette, read and normalized, with the case it belongs to."""

    path: Path
    rel: str
    case_id: str
    repetition: int
    trace: Trace
    cassette_hash: str
    models: tuple[str, ...]
    wire_formats: tuple[str, ...]
    hosts: tuple[str, ...]
    tools: tuple[ToolSpec, ...] = ()
    instruction: str | None = None
    # the run config a rejudge-recorded cassette carries (None for one recorded elsewhere)
    recorded_config: RunConfig | None = None
    # the scrubbed bytes the trace and ``cassette_hash`` are of: what a copy of the file holds
    data: bytes = b""
    # the hash of the file as it is on disk (differs from cassette_hash when scrubbing changed it)
    source_hash: str = ""


@dataclass(frozen=True)
class SkippedFile:
    """A file under the folder that could not be imported, and why (one line)."""

    rel: str
    reason: str


@dataclass(frozen=True)
class ImportPlan:
    """A lenient plan: the traces of the files that could be read, and the files skipped."""

    traces: list[PlannedTrace]
    skipped: list[SkippedFile]


def import_summary(
    run: str,
    run_id: int,
    suite: str,
    inserted: int,
    skipped: int,
    planned: list[PlannedTrace],
    skipped_files: Collection[SkippedFile] = (),
) -> dict[str, Any]:
    """What ``import cassettes`` reports (its ``--json`` keys). ``skipped`` counts traces already
    stored; ``skipped_files`` lists the files that could not be imported, with their reasons."""
    statuses = Counter(p.trace.status for p in planned)
    return {
        "run": run,
        "run_id": run_id,
        "suite": suite,
        "cassettes": len(planned),
        "inserted": inserted,
        "skipped": skipped,
        "statuses": dict(sorted(statuses.items())),
        "traces": [
            {
                "file": p.rel,
                "case": p.case_id,
                "repetition": p.repetition,
                "status": p.trace.status,
                "rounds": len(p.trace.rounds),
                "calls": len(p.trace.calls),
            }
            for p in planned
        ],
        "skipped_files": [{"file": f.rel, "reason": f.reason} for f in skipped_files],
    }


# --------------------------------------------------------------------------- files


def find_cassettes(directory: Path) -> list[Path]:
    """Cassette files under ``directory`` (recursive, sorted), mapping files excluded."""
    if not directory.exists():
        raise CassetteImportError(f"{directory}: no such folder")
    if directory.is_file():
        return [directory]
    return sorted(
        p
        for p in directory.rglob("*")
        if p.is_file()
        and is_cassette_file(p)
        and p.name not in MAPPING_FILE_NAMES
        and not any(part.startswith(".") for part in p.relative_to(directory).parts)
        and not _judge_exchange(p.relative_to(directory).parts)
    )


_RUBRIC_DIR = re.compile(r"^[0-9a-f]{16}$")


def _judge_exchange(parts: tuple[str, ...]) -> bool:
    """A model judge's cassette (``<run>/judge/<rubric hash>/...``): evidence of a judgment,
    not of an agent, so never imported as a trace."""
    return any(
        part == "judge" and _RUBRIC_DIR.match(parts[i + 1]) for i, part in enumerate(parts[:-2])
    )


def load_mapping(path: Path) -> dict[str, tuple[str, int | None]]:
    """A mapping file: file name or relative path -> (case id, repetition or None)."""
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise CassetteImportError(f"{path}: cannot read the mapping file: {exc}") from None
    if not isinstance(data, Mapping):
        raise CassetteImportError(f"{path}: a mapping file maps file names to case ids")
    out: dict[str, tuple[str, int | None]] = {}
    for key, value in data.items():
        if isinstance(value, str):
            out[str(key)] = (value, None)
        elif isinstance(value, Mapping) and isinstance(value.get("case"), str):
            rep = value.get("repetition")
            if rep is not None and (not isinstance(rep, int) or isinstance(rep, bool) or rep < 0):
                raise CassetteImportError(f"{path}: {key}: repetition must be a whole number >= 0")
            out[str(key)] = (value["case"], rep)
        else:
            raise CassetteImportError(
                f'{path}: {key}: expected a case id or {{"case": ID, "repetition": K}}'
            )
    return out


def find_mapping(
    directory: Path, mapping_file: Path | None = None
) -> dict[str, tuple[str, int | None]] | None:
    """The mapping given, or the one found in the folder (None when there is none)."""
    if mapping_file is not None:
        return load_mapping(mapping_file)
    base = directory if directory.is_dir() else directory.parent
    for name in MAPPING_FILE_NAMES:
        if (base / name).is_file():
            return load_mapping(base / name)
    return None


def adhoc_suite(planned: list[PlannedTrace], name: str) -> tuple[ToolRegistry, list[Case]]:
    """The registry (tools the requests offered) and golden-less cases of an ad-hoc import."""
    tools: dict[str, ToolSpec] = {}
    for p in planned:
        for spec in p.tools:
            tools.setdefault(spec.name, spec)
    registry = ToolRegistry(
        domain=IMPORTED_DOMAIN,
        version="1",
        tools=[tools[k] for k in sorted(tools)],
    )
    cases: dict[str, Case] = {}
    for p in planned:
        if p.case_id in cases:
            continue
        cases[p.case_id] = Case(
            id=p.case_id,
            dimension=IMPORTED_DOMAIN,
            category=IMPORTED_DOMAIN,
            instruction=p.instruction or "(the cassette holds no user message)",
            golden=Golden(calls=[]),
            metadata={"imported_from": p.rel, "suite": name},
        )
    return registry, [cases[k] for k in sorted(cases)]


def import_run_config(planned: list[PlannedTrace], source: str) -> RunConfig:
    """The run config of an import: the one every cassette recorded, when rejudge recorded them
    all under one config; otherwise what the files show (harness mode ``imported``)."""
    recorded = {
        p.recorded_config.identity_hash: p.recorded_config for p in planned if p.recorded_config
    }
    if len(recorded) == 1 and all(p.recorded_config is not None for p in planned):
        return next(iter(recorded.values()))
    models = sorted({m for p in planned for m in p.models})
    formats = sorted({f for p in planned for f in p.wire_formats})
    hosts = sorted({h for p in planned for h in p.hosts})
    providers = sorted({get_wire_format(f).provider for f in formats})
    return RunConfig(
        model=models[0]
        if len(models) == 1
        else ("mixed:" + ",".join(models) if models else "unknown"),
        provider=providers[0] if len(providers) == 1 else "mixed",
        base_url=hosts[0] if len(hosts) == 1 else None,
        harness_mode="imported",
        harness_assistance=HarnessAssistance(round_budget="unknown"),
        temperature=None,
        tool_choice=None,
        extra={"imported_from": source, "wire_formats": formats, "models": models},
    )
