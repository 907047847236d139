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

This module is the pure half: finding files, naming cases, reading and deriving every file
before anything is written, so an unknown case stops the import with nothing stored. A file that
cannot be read (not a cassette, invalid YAML, no model exchange) stops a strict plan; a lenient
plan (:func:`plan_folder`) lists it as a :class:`SkippedFile` with its reason and goes on.
Storing the plan is :func:`rejudge.services._imports.import_cassettes`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml
from rejudge.recorder._cassettes import (
    CassetteError,
    CassetteFile,
    Exchange,
    cassette_stem,
    is_cassette_file,
    parse_cassette,
    scrubbed_cassette_bytes,
)
from rejudge.recorder._derive import run_config_from_meta, trace_of
from rejudge.recorder._normalizer import model_exchanges
from rejudge.recorder.wire import get_wire_format
from rejudge.store import (
    Case,
    Golden,
    HarnessAssistance,
    RejudgeError,
    RunConfig,
    ToolRegistry,
    ToolSpec,
    Trace,
    hash_bytes,
)

__all__ = [
    "CassetteImportError",
    "PlannedTrace",
    "SkippedFile",
    "ImportPlan",
    "plan_folder",
    "MAPPING_FILE_NAMES",
    "IMPORTED_DOMAIN",
    "find_cassettes",
    "load_mapping",
    "find_mapping",
    "plan_import",
    "adhoc_suite",
    "import_run_config",
    "import_summary",
]

MAPPING_FILE_NAMES = ("rejudge-import.json", "rejudge-import.yaml", "rejudge-import.yml")
IMPORTED_DOMAIN = "imported"
_REPETITION = re.compile(r"^(?P<case>.+?)__r(?P<rep>\d+)$")


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


def _case_from_name(stem: str) -> tuple[str, int | None]:
    match = _REPETITION.match(stem)
    if match:
        return match.group("case"), int(match.group("rep"))
    return stem, None


# --------------------------------------------------------------------------- planning (pure)


def _facts(
    exchanges: list[Exchange],
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[ToolSpec, ...], str | None]:
    models: list[str] = []
    formats: list[str] = []
    hosts: list[str] = []
    tools: dict[str, ToolSpec] = {}
    instruction: str | None = None
    for m in model_exchanges(exchanges):
        body = m.exchange.request_body
        model = body.get("model") if isinstance(body, dict) else None
        if m.turn is not None and m.turn.raw_model:
            model = model or m.turn.raw_model
        fmt = m.wire_format
        if not model:  # Gemini and Bedrock name the model in the URL
            model = fmt.model_in_url(m.exchange.url)
        if isinstance(model, str) and model not in models:
            models.append(model)
        if fmt.name not in formats:
            formats.append(fmt.name)
        parts = urlsplit(m.exchange.url)
        host = f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""
        if host and host not in hosts:
            hosts.append(host)
        for spec in fmt.tool_specs(body):
            tools.setdefault(spec.name, spec)
        if instruction is None:
            instruction = fmt.first_user_text(body)
    return tuple(models), tuple(formats), tuple(hosts), tuple(tools.values()), instruction


def plan_import(
    directory: str | Path,
    *,
    case_ids: Collection[str] | None = None,
    mapping: Mapping[str, tuple[str, int | None]] | None = None,
    name_map: dict[str, str] | None = None,
    case_hashes: Mapping[str, str] | None = None,
) -> list[PlannedTrace]:
    """Read and derive every cassette under ``directory`` and name its case (strict: a file that
    cannot be read raises its error). See :func:`plan_folder` for the arguments."""
    return plan_folder(
        directory,
        case_ids=case_ids,
        mapping=mapping,
        name_map=name_map,
        case_hashes=case_hashes,
        strict=True,
    ).traces


def _read_scrubbed(path: Path) -> tuple[CassetteFile, bytes, str]:
    # the cassette as read from its scrubbed bytes, those bytes, and the hash of the file as is
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CassetteError(f"{path}: cannot read: {exc.strerror or exc}", path=path) from None
    clean = scrubbed_cassette_bytes(data, str(path))
    return parse_cassette(clean, str(path)), clean, hash_bytes(data)


def _reason(exc: Exception, path: Path) -> str:
    message = " ".join(str(exc).split())
    prefix = f"{path}: "
    return message[len(prefix) :] if message.startswith(prefix) else message


def plan_folder(
    directory: str | Path,
    *,
    case_ids: Collection[str] | None = None,
    mapping: Mapping[str, tuple[str, int | None]] | None = None,
    name_map: dict[str, str] | None = None,
    case_hashes: Mapping[str, str] | None = None,
    strict: bool = False,
) -> ImportPlan:
    """Read and derive every cassette under ``directory`` and name its case.

    ``case_ids`` (a suite's cases) restricts the names: a cassette naming no case is an error
    listing every such file. Two cassettes of one case take successive repetitions.
    ``case_hashes`` (case id -> hash, the suite's): a cassette rejudge recorded against another
    version of its case is an error listing every such file. A file that cannot be read as a
    cassette with a model exchange is skipped with its reason, or raises when ``strict``; when
    every file is skipped the plan is an error (there is nothing to import).
    """
    root = Path(directory)
    files = find_cassettes(root)
    if not files:
        raise CassetteImportError(f"{root}: no cassette files (*.yaml, *.yml, *.json) to import")
    base = root if root.is_dir() else root.parent
    named: list[tuple[Path, str, str, int | None]] = []
    unknown: list[str] = []
    for path in files:
        rel = path.relative_to(base).as_posix()
        if mapping is not None and (rel in mapping or path.name in mapping):
            case_id, rep = mapping[rel] if rel in mapping else mapping[path.name]
        else:
            stem = cassette_stem(path)
            case_id, rep = _case_from_name(stem)
            if case_ids is not None and case_id not in case_ids and stem in case_ids:
                case_id, rep = stem, None
        if case_ids is not None and case_id not in case_ids:
            unknown.append(rel)
            continue
        named.append((path, rel, case_id, rep))
    if unknown:
        shown = ", ".join(unknown[:5]) + (
            f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        )
        raise CassetteImportError(
            f"{len(unknown)} cassette(s) name no case of the suite: {shown}; name each file "
            f"<case>.yaml or <case>__r<k>.yaml, or map files to cases in {MAPPING_FILE_NAMES[0]}"
        )
    stale: list[str] = []
    skipped: list[SkippedFile] = []
    taken: set[tuple[str, int]] = set()
    out: list[PlannedTrace] = []
    # explicit repetitions first, then the others fill the free slots in file order
    for path, rel, case_id, rep in sorted(named, key=lambda n: (n[3] is None, n[1])):
        try:
            cassette, clean, source_hash = _read_scrubbed(path)
            models, formats, hosts, tools, instruction = _facts(cassette.exchanges)
            if not formats:
                raise CassetteImportError(
                    f"{path}: no model exchange (OpenAI chat/responses, Anthropic messages or "
                    "Gemini generateContent) in this cassette"
                )
        except RejudgeError as exc:
            if strict:
                raise
            skipped.append(SkippedFile(rel, _reason(exc, path)))
            continue
        if rep is None or (case_id, rep) in taken:
            rep = 0
            while (case_id, rep) in taken:
                rep += 1
        taken.add((case_id, rep))
        recorded_hash = cassette.meta.get("case_hash")
        if (
            case_hashes is not None
            and isinstance(recorded_hash, str)
            and case_hashes.get(case_id) not in (None, recorded_hash)
        ):
            stale.append(rel)
        trace = trace_of(cassette, case_id, rep, name_map=name_map)
        out.append(
            PlannedTrace(
                path=path,
                rel=rel,
                case_id=case_id,
                repetition=rep,
                trace=trace,
                cassette_hash=cassette.sha256,
                models=models,
                wire_formats=formats,
                hosts=hosts,
                tools=tools,
                instruction=instruction,
                recorded_config=run_config_from_meta(cassette.meta, str(path)),
                data=clean,
                source_hash=source_hash,
            )
        )
    if stale:
        shown = ", ".join(stale[:5]) + (f" and {len(stale) - 5} more" if len(stale) > 5 else "")
        raise CassetteImportError(
            f"{len(stale)} cassette(s) were recorded against another version of their case "
            f"(the case hash in their rejudge block differs from the suite's): {shown}; import "
            "them with the suite they were recorded on"
        )
    if not out:
        shown = "; ".join(f"{f.rel}: {f.reason}" for f in skipped[:3])
        more = f" and {len(skipped) - 3} more" if len(skipped) > 3 else ""
        raise CassetteImportError(
            f"{root}: none of the {len(skipped)} file(s) could be imported: {shown}{more}"
        )
    out.sort(key=lambda p: (p.case_id, p.repetition))
    return ImportPlan(out, skipped)


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
