"""The case format: JSONL case files, suite folders, their JSON Schemas and loaders.

A suite on disk is a folder holding ``suite.json`` (the manifest: name, domain, format_version,
description, optional id_pattern / phrasings / cases_file) and ``cases.jsonl`` (one case per line,
each line valid against ``suites/schema/case.v1.json`` and parsed into :class:`rejudge.model.Case`).

Loading is strict: a file with any bad line raises :class:`SuiteFormatError`. To list every problem
of a suite at once, use :func:`suites.validate.validate_suite`.

A suite may ship later **versions** of its cases beside the first (``versions`` in the manifest:
``{"version": 2, "cases_file": "cases.v2.jsonl", "description": ...}``), addressed as
``NAME@VERSION`` (``retail@2``); ``NAME`` alone (or ``NAME@1``) is the first. A version is
another suite to the store (its name and hash differ), so the old version and its verdicts
stay as they were, and a changed case's new hash says why a verdict moved.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import Any

import jsonschema
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from rejudge.suites._domain import get_domain, package_data
from rejudge.suites._errors import SuiteFormatError, SuiteNotFoundError

from rejudge.model import (
    CASE_FORMAT_VERSION,
    HASH_ALGORITHM,
    Case,
    ToolRegistry,
    canonical_json,
)

__all__ = [
    "FORMAT_VERSION",
    "SUPPORTED_FORMAT_VERSIONS",
    "MANIFEST_NAME",
    "SUITE_REGISTRY_FILE",
    "own_registry",
    "DEFAULT_CASES_FILE",
    "NINE_FIELDS",
    "CaseLine",
    "SuiteManifest",
    "SuiteSource",
    "SuiteVersion",
    "split_version",
    "resolve_versioned_suite",
    "case_schema",
    "suite_schema",
    "case_schema_errors",
    "format_path",
    "read_case_lines",
    "load_case_file",
    "load_manifest",
    "load_suite",
    "suite_hash",
    "case_to_json",
    "dump_cases",
    "write_suite",
    "builtin_suites",
    "resolve_suite_path",
]

FORMAT_VERSION: int = CASE_FORMAT_VERSION
SUPPORTED_FORMAT_VERSIONS: tuple[int, ...] = (1,)
MANIFEST_NAME = "suite.json"
DEFAULT_CASES_FILE = "cases.jsonl"
# seed 001's case fields, always written out (the extensions are written only when set)
NINE_FIELDS: tuple[str, ...] = (
    "id",
    "dimension",
    "category",
    "instruction",
    "context",
    "golden",
    "negative",
    "skip",
    "skip_reason",
)


# --------------------------------------------------------------------------- schemas


@cache
def _schema(file_name: str) -> dict[str, Any]:
    path = package_data("schema", file_name)
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(loaded)
    return loaded


def case_schema(format_version: int = FORMAT_VERSION) -> dict[str, Any]:
    """The JSON Schema of one case line for ``format_version`` (shipped in the package)."""
    _check_version(format_version, where="case schema")
    return _schema(f"case.v{format_version}.json")


def suite_schema(format_version: int = FORMAT_VERSION) -> dict[str, Any]:
    """The JSON Schema of a suite manifest (``suite.json``)."""
    _check_version(format_version, where="suite schema")
    return _schema(f"suite.v{format_version}.json")


@cache
def _validator(file_name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(_schema(file_name))


def _check_version(format_version: Any, *, where: str) -> None:
    if format_version not in SUPPORTED_FORMAT_VERSIONS:
        supported = ", ".join(str(v) for v in SUPPORTED_FORMAT_VERSIONS)
        raise SuiteFormatError(
            f"{where}: format_version {format_version!r} is not supported "
            f"(this rejudge reads {supported}); upgrade rejudge or convert the suite"
        )


def format_path(parts: Any) -> str:
    """``golden.calls[0].params`` from ``["golden", "calls", 0, "params"]``."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _error_path(error: jsonschema.ValidationError) -> str:
    parts: list[Any] = list(error.absolute_path)
    if error.validator == "required" and isinstance(error.message, str):
        # "'golden' is a required property" -> point at the missing field itself
        missing = error.message.split("'")[1] if "'" in error.message else ""
        if missing:
            parts.append(missing)
    elif error.validator == "additionalProperties":
        extra = error.message.split("'")[1] if "'" in error.message else ""
        if extra:
            parts.append(extra)
    return format_path(parts) or "<line>"


def case_schema_errors(data: Any, format_version: int = FORMAT_VERSION) -> list[tuple[str, str]]:
    """Every schema error of one parsed case line as ``(field path, message)``, sorted."""
    _check_version(format_version, where="case schema")
    validator = _validator(f"case.v{format_version}.json")
    found = [(_error_path(e), e.message) for e in validator.iter_errors(data)]
    return sorted(found)


# --------------------------------------------------------------------------- case files


@dataclass(frozen=True)
class CaseLine:
    """One non-blank line of a case file, parsed as far as it goes."""

    line: int
    text: str
    data: Any = None
    parse_error: str | None = None
    schema_errors: tuple[tuple[str, str], ...] = ()
    model_errors: tuple[tuple[str, str], ...] = ()
    case: Case | None = None

    @property
    def case_id(self) -> str | None:
        case_id = self.data.get("id") if isinstance(self.data, dict) else None
        return case_id if isinstance(case_id, str) else None


def _model_errors(exc: ValidationError) -> tuple[tuple[str, str], ...]:
    return tuple((format_path(err["loc"]) or "<line>", err["msg"]) for err in exc.errors())


def read_case_lines(path: Path | str, format_version: int = FORMAT_VERSION) -> list[CaseLine]:
    """Parse a JSONL case file line by line; problems are kept on each line, never raised.

    Blank lines are skipped (they keep their line numbers for the others).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise SuiteFormatError(f"case file {path} does not exist", file=str(path)) from exc
    except UnicodeDecodeError as exc:
        raise SuiteFormatError(f"case file {path} is not UTF-8: {exc}", file=str(path)) from exc
    lines: list[CaseLine] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            lines.append(
                CaseLine(number, raw, parse_error=f"invalid JSON: {exc.msg} (column {exc.colno})")
            )
            continue
        if not isinstance(data, dict):
            lines.append(
                CaseLine(number, raw, data=data, parse_error="a case line must be a JSON object")
            )
            continue
        schema_errors = tuple(case_schema_errors(data, format_version))
        case: Case | None = None
        model_errors: tuple[tuple[str, str], ...] = ()
        try:
            case = Case.model_validate(data)
        except ValidationError as exc:
            model_errors = _model_errors(exc)
        lines.append(
            CaseLine(
                number,
                raw,
                data=data,
                schema_errors=schema_errors,
                model_errors=model_errors,
                case=case if not schema_errors else None,
            )
        )
    return lines


def load_case_file(path: Path | str, format_version: int = FORMAT_VERSION) -> list[Case]:
    """Read a JSONL case file into cases; any bad line raises :class:`SuiteFormatError`.

    The error names every bad line (file:line and field), not only the first.
    """
    return _cases_of(Path(path), read_case_lines(path, format_version))


def _cases_of(path: Path, entries: list[CaseLine]) -> list[Case]:
    """The cases of a case file's parsed lines (:func:`load_case_file`)."""
    cases: list[Case] = []
    problems: list[str] = []
    first_case: str | None = None  # the error's context: the first bad line's case, if it has one
    for entry in entries:
        if (entry.parse_error or entry.schema_errors or entry.model_errors) and not problems:
            first_case = entry.case_id
        if entry.parse_error:
            problems.append(f"{path}:{entry.line}: {entry.parse_error}")
            continue
        for where, message in entry.schema_errors or entry.model_errors:
            problems.append(f"{path}:{entry.line}: {entry.case_id or '-'}: {where}: {message}")
        if entry.case is not None and not entry.schema_errors:
            cases.append(entry.case)
    if problems:
        shown = "; ".join(problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise SuiteFormatError(
            f"{len(problems)} problem(s) in {path}: {shown}{more}; "
            f"validate the suite in {path.parent} for the full list",
            file=str(path),
            case=first_case,
        )
    return cases


# --------------------------------------------------------------------------- manifests


class SuiteVersion(BaseModel):
    """A later version of a suite's cases (the manifest's ``versions``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int
    cases_file: str
    description: str = ""


class SuiteManifest(BaseModel):
    """``suite.json``: what a suite is and how to read it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    domain: str
    format_version: int
    description: str = ""
    cases_file: str = DEFAULT_CASES_FILE
    id_pattern: str | None = None
    phrasings: list[str] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    versions: list[SuiteVersion] = Field(default_factory=list)

    def version(self, number: int) -> SuiteVersion:
        """The cases of version ``number`` (1: the manifest's own ``cases_file``)."""
        if number == 1:
            return SuiteVersion(version=1, cases_file=self.cases_file)
        for entry in self.versions:
            if entry.version == number:
                return entry
        known = ", ".join(str(v) for v in [1, *(e.version for e in self.versions)])
        raise SuiteNotFoundError(
            f"suite {self.name!r} has no version {number} (versions: {known}); "
            f"address one as {self.name}@VERSION"
        )


_VERSIONED = re.compile(r"^(?P<name>[a-z0-9][a-z0-9._-]*)@(?P<version>[0-9]+)$")


def split_version(ref: str) -> tuple[str, int | None]:
    """``"retail@2"`` -> ``("retail", 2)``; a name or path without a version -> ``(ref, None)``."""
    match = _VERSIONED.match(ref)
    if match is None:
        return ref, None
    return match.group("name"), int(match.group("version"))


def manifest_problems(data: Any) -> list[tuple[str, str]]:
    """Schema problems of a parsed manifest as ``(field, message)``."""
    if not isinstance(data, dict):
        return [("<manifest>", "suite.json must hold a JSON object")]
    version = data.get("format_version", FORMAT_VERSION)
    if version not in SUPPORTED_FORMAT_VERSIONS:
        return [("format_version", f"format_version {version!r} is not supported")]
    validator = _validator(f"suite.v{version}.json")
    return sorted((_error_path(e), e.message) for e in validator.iter_errors(data))


def load_manifest(folder: Path | str) -> SuiteManifest:
    folder = Path(folder)
    path = folder / MANIFEST_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise SuiteFormatError(
            f"{folder} has no {MANIFEST_NAME}; a suite folder needs one "
            '(e.g. {"name": ..., "domain": ..., "format_version": 1})',
            file=str(path),
        ) from exc
    except json.JSONDecodeError as exc:
        raise SuiteFormatError(
            f"{path}:{exc.lineno}: invalid JSON: {exc.msg}", file=str(path)
        ) from exc
    problems = manifest_problems(data)
    if problems:
        listed = "; ".join(f"{where}: {message}" for where, message in problems)
        raise SuiteFormatError(f"{path}: {listed}", file=str(path))
    return SuiteManifest.model_validate(data)


# --------------------------------------------------------------------------- suites


def suite_hash(
    format_version: int,
    registry: ToolRegistry,
    cases: Iterable[Case],
    case_hashes: Iterable[str] | None = None,
) -> str:
    """A suite's identity: its format version, its registry and its cases, in file order
    (``case_hashes``: the cases' hashes, when the caller has them).

    The content hash of ``{"format_version": ..., "registry": ..., "cases": [...]}``, hashed as
    the case hashes come: its canonical JSON is ``{"cases":[`` each hash's JSON joined by
    ``,`` then ``],"format_version":...,"registry":...}`` (keys sorted), so the hashes are
    never held as one list (a streamed import's seal reads 130,000 of them from the store;
    tests/suites/test_suite_hash.py holds this equal to the content hash of the mapping)."""
    hashes = case_hashes if case_hashes is not None else (c.hash for c in cases)
    digest = hashlib.sha256(b'{"cases":[')
    first = True
    for case_hash in hashes:
        if not first:
            digest.update(b",")
        first = False
        digest.update(canonical_json(case_hash).encode("utf-8"))
    tail = f'],"format_version":{canonical_json(format_version)},'
    tail += f'"registry":{canonical_json(registry.hash)}}}'
    digest.update(tail.encode("utf-8"))
    return f"{HASH_ALGORITHM}:{digest.hexdigest()}"


@dataclass(frozen=True)
class SuiteSource:
    """A loaded suite: manifest facts, the domain's registry and the parsed cases."""

    name: str
    domain: str
    format_version: int
    registry: ToolRegistry
    cases: tuple[Case, ...]
    description: str = ""
    path: Path | None = None
    cases_path: Path | None = None
    manifest: SuiteManifest | None = None
    # case id -> line number in cases_path (for messages)
    lines: dict[str, int] = field(default_factory=dict)

    @cached_property
    def case_hashes(self) -> tuple[str, ...]:
        """Each case's content hash, in file order (computed once: hashing is the costly part
        of snapshotting a large suite, and the suite's own hash needs them too)."""
        return tuple(case.hash for case in self.cases)

    @cached_property
    def hash(self) -> str:
        return suite_hash(self.format_version, self.registry, self.cases, self.case_hashes)

    def case(self, case_id: str) -> Case:
        for case in self.cases:
            if case.id == case_id:
                return case
        raise SuiteNotFoundError(f"suite {self.name!r} has no case {case_id!r}", case=case_id)

    def dimensions(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for case in self.cases:
            counts[case.dimension] = counts.get(case.dimension, 0) + 1
        return dict(sorted(counts.items()))

    @property
    def negative_count(self) -> int:
        return sum(1 for case in self.cases if case.negative)

    def summary(self) -> dict[str, Any]:
        """The ``suite list --json`` entry (DESIGN §11)."""
        return {
            "name": self.name,
            "cases": len(self.cases),
            "hash": self.hash,
            "dimensions": self.dimensions(),
            "negative": self.negative_count,
        }


def builtin_suites() -> dict[str, Path]:
    """Built-in suites by name: every ``suites/data/<folder>/suite.json``."""
    found: dict[str, Path] = {}
    root = package_data("data")
    for manifest_path in sorted(root.glob(f"*/{MANIFEST_NAME}")):
        try:
            data = json.loads(manifest_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            data = {}
        name = data.get("name")
        key = name if isinstance(name, str) and name else manifest_path.parent.name
        found[key] = manifest_path.parent
        # a manifest with problems is named only, so that loading it says what is wrong
        if not manifest_problems(data):
            for entry in SuiteManifest.model_validate(data).versions:
                found[f"{key}@{entry.version}"] = manifest_path.parent
    return found


def resolve_suite_path(name_or_path: str | Path) -> Path:
    """The folder of a suite given a built-in name, a folder, or a path to its suite.json."""
    if isinstance(name_or_path, str):
        builtins = builtin_suites()
        if name_or_path in builtins:
            return builtins[name_or_path]
    path = Path(name_or_path)
    if path.is_file() and path.name == MANIFEST_NAME:
        return path.parent
    if path.is_dir():
        return path
    if path.is_file():
        raise SuiteFormatError(
            f"{path} is a file; give the suite folder (the one holding {MANIFEST_NAME})",
            file=str(path),
        )
    known = ", ".join(sorted(builtin_suites())) or "none"
    raise SuiteNotFoundError(
        f"no suite named or at {str(name_or_path)!r} (built-in suites: {known})"
    )


def resolve_versioned_suite(name_or_path: str | Path) -> tuple[Path, int | None]:
    """The folder of a suite and the version asked for: ``NAME@VERSION`` names the folder of
    ``NAME`` (its manifest lists the versions); a name, folder or path names no version (None)."""
    if isinstance(name_or_path, str) and not Path(name_or_path).exists():
        base, number = split_version(name_or_path)
        if number is not None:
            return resolve_suite_path(base), number
    return resolve_suite_path(name_or_path), None


SUITE_REGISTRY_FILE = "registry.json"


def own_registry(folder: Path) -> ToolRegistry | None:
    """The registry snapshot a suite folder carries (generated and imported suites), if any."""
    path = folder / SUITE_REGISTRY_FILE
    if not path.is_file():
        return None
    try:
        return ToolRegistry.model_validate_json(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise SuiteFormatError(f"{path}: not a tool registry: {exc}", file=str(path)) from exc


def load_suite(name_or_path: str | Path, *, registry: ToolRegistry | None = None) -> SuiteSource:
    """Load a built-in suite by name, or a suite folder by path.

    The registry is, in order: the one given; the folder's own ``registry.json`` (generated and
    imported suites carry a snapshot of their tools); the manifest's domain's registry.
    """
    folder, number = resolve_versioned_suite(name_or_path)
    manifest = load_manifest(folder)
    _check_version(manifest.format_version, where=str(folder / MANIFEST_NAME))
    version = manifest.version(number or 1)
    if registry is None:
        registry = own_registry(folder)
    if registry is None:
        registry = get_domain(manifest.domain).registry()
    cases_path = folder / version.cases_file
    # the file is read and checked once: its cases, and the line each stands on
    entries = read_case_lines(cases_path, manifest.format_version)
    cases = _cases_of(cases_path, entries)
    lines = {entry.case.id: entry.line for entry in entries if entry.case is not None}
    return SuiteSource(
        # a later version is another suite: its own name in the store and in every report
        name=manifest.name if version.version == 1 else f"{manifest.name}@{version.version}",
        domain=manifest.domain,
        format_version=manifest.format_version,
        registry=registry,
        cases=tuple(cases),
        description=version.description or manifest.description,
        path=folder,
        cases_path=cases_path,
        manifest=manifest,
        lines=lines,
    )


# --------------------------------------------------------------------------- writing


def case_to_json(case: Case) -> dict[str, Any]:
    """A case as a JSONL object: the nine seed fields always, extensions only when set."""
    full = case.model_dump(mode="json")
    defaults = {
        name: info.get_default(call_default_factory=True)
        for name, info in Case.model_fields.items()
        if name not in NINE_FIELDS
    }
    out: dict[str, Any] = {key: full[key] for key in NINE_FIELDS}
    golden = out["golden"]
    golden["calls"] = [
        {
            k: v
            for k, v in call.items()
            if not (k == "count" and v == 1) and not (k == "param_rules" and not v)
        }
        for call in golden["calls"]
    ]
    for key, default in defaults.items():
        if full.get(key, default) != default:
            out[key] = full[key]
    return out


def dump_cases(cases: Sequence[Case]) -> str:
    """Cases as JSONL text (one compact object per line, trailing newline)."""
    return "".join(json.dumps(case_to_json(c), ensure_ascii=False) + "\n" for c in cases)


def write_suite(folder: Path | str, manifest: SuiteManifest, cases: Sequence[Case]) -> Path:
    """Write a suite folder (manifest + case file); returns the folder."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MANIFEST_NAME).write_text(
        json.dumps(
            manifest.model_dump(mode="json", exclude_defaults=True), indent=2, ensure_ascii=False
        )
        + "\n",
        encoding="utf-8",
    )
    (folder / manifest.cases_file).write_text(dump_cases(cases), encoding="utf-8")
    return folder
