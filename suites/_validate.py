"""Suite validation that lists every problem at once, each with file, line, case and field.

The checks here are domain-independent: they read the suite's tool registry (tools, read-only
flags, JSON Schemas, fixture ids) and the manifest, so every domain's suites reuse them. A domain
adds its own through two optional attributes (see :class:`suites.domain.CaseChecks`):

- ``case_id_pattern``: a regex every id must fully match; a named group ``dim`` ties the id to the
  dimension (``D`` + the group's integer). A manifest's ``id_pattern`` overrides it.
- ``check_case(case, registry)``: yields ``(field, message)`` for domain rules (e.g. retail's
  ``context`` shape).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypedDict, Unpack

import jsonschema
from rejudge.suites._case_format import (
    MANIFEST_NAME,
    CaseLine,
    SuiteManifest,
    SuiteSource,
    format_path,
    manifest_problems,
    own_registry,
    read_case_lines,
    resolve_versioned_suite,
)
from rejudge.suites._domain import get_domain

from rejudge.errors import RejudgeError
from rejudge.model import Case, ToolRegistry

__all__ = [
    "Problem",
    "CaseEntry",
    "validate_suite",
    "validate_case_lines",
    "check_cases",
    "get_path",
    "PHRASING_FREE_FIELDS",
]

# the only fields in which phrasing variants of one scenario may differ
PHRASING_FREE_FIELDS: frozenset[str] = frozenset({"id", "instruction", "phrasing"})


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with a suite. ``line`` is None for whole-file problems."""

    file: str
    line: int | None
    case: str | None
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}: {self.case or '-'}: {self.field}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CaseEntry:
    """A parsed case and where it came from."""

    case: Case
    line: int | None = None


def _sort_key(problem: Problem) -> tuple[str, int, str, str]:
    return (problem.file, problem.line or 0, problem.field, problem.message)


# --------------------------------------------------------------------------- helpers


_MISSING = object()


def get_path(params: Any, dotted: str) -> Any:
    """The value at a dotted path inside nested dicts, or a sentinel when absent."""
    current = params
    for part in dotted.split("."):
        if not isinstance(current, dict) or part not in current:
            return _MISSING
        current = current[part]
    return current


def _walk(value: Any, prefix: str) -> Iterator[tuple[str, str, Any]]:
    """(dotted path, key name, value) for every dict entry, recursively (lists included)."""
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            yield path, str(key), item
            yield from _walk(item, path)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, f"{prefix}[{index}]")


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, (str, list, dict)) and len(value) == 0)


def _schema_path(error: jsonschema.ValidationError) -> str:
    parts: list[Any] = list(error.absolute_path)
    if error.validator in ("required", "additionalProperties") and "'" in error.message:
        parts.append(error.message.split("'")[1])
    return format_path(parts)


# --------------------------------------------------------------------------- case checks


def _golden_call_problems(case: Case, registry: ToolRegistry) -> Iterator[tuple[str, str]]:
    read_only = {t.name for t in registry.tools if t.read_only}
    known = set(registry.tool_names())
    for index, call in enumerate(case.golden.calls):
        base = f"golden.calls[{index}]"
        spec = registry.tool(call.tool)
        if spec is None:
            yield (
                f"{base}.tool",
                f"unknown tool {call.tool!r} (not in the {registry.domain} registry)",
            )
        else:
            validator_cls = jsonschema.validators.validator_for(spec.parameters)
            validator = validator_cls(spec.parameters)
            for error in sorted(validator.iter_errors(call.params), key=lambda e: e.path):
                sub = _schema_path(error)
                field = f"{base}.params.{sub}" if sub else f"{base}.params"
                yield field, f"not valid for {call.tool}'s schema: {error.message}"
        for key, rule in sorted(call.param_rules.items()):
            value = get_path(call.params, key)
            if value is _MISSING:
                yield (
                    f"{base}.param_rules.{key}",
                    f"rule {rule!r} names {key!r}, which is not in params",
                )
            elif rule == "any" and _empty(value):
                yield (
                    f"{base}.params.{key}",
                    "an 'any'-ruled parameter needs a non-empty example value",
                )
        for path, key, value in _walk(call.params, ""):
            ids = registry.fixture_ids.get(key)
            if ids is None or call.param_rules.get(path) == "any":
                continue
            values = value if isinstance(value, list) else [value]
            for item in values:
                if isinstance(item, str) and item not in ids:
                    yield f"{base}.params.{path}", f"unknown {key} {item!r} (not in the fixtures)"
    allowed = case.golden.allowed_extra
    if allowed is not None:
        for index, name in enumerate(allowed):
            field = f"golden.allowed_extra[{index}]"
            if name not in known:
                yield field, f"unknown tool {name!r} cannot be whitelisted"
            elif name not in read_only:
                yield field, f"{name!r} changes state; only read-only tools may be whitelisted"
    for section in ("equivalent_tools", "follow_ups"):
        mapping: dict[str, list[str]] = getattr(case, section)
        for tool, others in sorted(mapping.items()):
            for name in [tool, *others]:
                if name not in known:
                    yield f"{section}.{tool}", f"unknown tool {name!r}"
    for tool in sorted(case.alternative_keys):
        if tool not in known:
            yield f"alternative_keys.{tool}", f"unknown tool {tool!r}"


def _case_rule_problems(case: Case) -> Iterator[tuple[str, str]]:
    if case.negative and case.golden.calls:
        yield "golden.calls", "a negative case must have no golden calls"
    if case.skip and (case.skip_reason is None or not case.skip_reason.strip()):
        yield "skip_reason", "skip=true needs a non-empty skip_reason"
    if not case.skip and case.skip_reason is not None:
        yield "skip_reason", "skip_reason must be null when skip is false"
    if case.call_only and not case.golden.calls:
        yield "call_only", "a call-only case needs golden calls"


class SuiteRules(TypedDict, total=False):
    """What a suite adds to the generic case checks, each optional: the pattern every id must
    match, the phrasings every scenario needs, and the domain's ``check_case``."""

    id_pattern: str | None
    phrasings: list[str] | None
    domain_check: Any


def check_cases(
    entries: list[CaseEntry],
    registry: ToolRegistry | None,
    *,
    file: str,
    **rules: Unpack[SuiteRules],
) -> list[Problem]:
    """Every problem of already-parsed cases (the generic checks plus ``domain_check``)."""
    id_pattern, domain_check = rules.get("id_pattern"), rules.get("domain_check")
    problems: list[Problem] = []

    def add(entry: CaseEntry, field: str, message: str) -> None:
        problems.append(Problem(file, entry.line, entry.case.id, field, message))

    pattern = re.compile(id_pattern) if id_pattern else None
    first_id: dict[str, CaseEntry] = {}
    first_instruction: dict[str, CaseEntry] = {}
    for entry in entries:
        case = entry.case
        if case.id in first_id:
            add(entry, "id", f"duplicate id (first on line {first_id[case.id].line})")
        else:
            first_id[case.id] = entry
        if pattern is not None:
            match = pattern.fullmatch(case.id)
            if match is None:
                readable = re.sub(r"\(\?P<\w+>", "(", pattern.pattern)
                add(entry, "id", f"id does not match the pattern {readable}")
            elif "dim" in pattern.groupindex and match.group("dim") is not None:
                expected = f"D{int(match.group('dim'))}"
                if case.dimension != expected:
                    add(
                        entry,
                        "dimension",
                        f"dimension {case.dimension!r} does not match the id (expected {expected!r})",
                    )
        key = " ".join(case.instruction.split()).casefold()
        if key in first_instruction:
            other = first_instruction[key]
            add(entry, "instruction", f"same instruction as {other.case.id} (line {other.line})")
        else:
            first_instruction[key] = entry
        for field, message in _case_rule_problems(case):
            add(entry, field, message)
        if registry is not None:
            for field, message in _golden_call_problems(case, registry):
                add(entry, field, message)
        if domain_check is not None and registry is not None:
            for field, message in domain_check(case, registry):
                add(entry, field, message)
    problems.extend(_phrasing_problems(entries, file, rules.get("phrasings")))
    return problems


def _phrasing_problems(
    entries: list[CaseEntry], file: str, phrasings: list[str] | None
) -> Iterator[Problem]:
    scenarios: dict[str, list[CaseEntry]] = {}
    for entry in entries:
        case = entry.case
        if case.scenario is None:
            if phrasings is not None:
                yield Problem(
                    file,
                    entry.line,
                    case.id,
                    "scenario",
                    "the suite declares phrasings, so every case needs a scenario",
                )
            continue
        scenarios.setdefault(case.scenario, []).append(entry)
    for scenario, group in scenarios.items():
        reference = group[0]
        ref_dump = reference.case.model_dump(mode="json", exclude=set(PHRASING_FREE_FIELDS))
        for entry in group[1:]:
            dump = entry.case.model_dump(mode="json", exclude=set(PHRASING_FREE_FIELDS))
            for field in sorted(set(ref_dump) | set(dump)):
                if ref_dump.get(field) != dump.get(field):
                    yield Problem(
                        file,
                        entry.line,
                        entry.case.id,
                        field,
                        f"phrasing variants of scenario {scenario!r} may differ only in id, "
                        f"instruction and phrasing; {field} differs from {reference.case.id}",
                    )
        if phrasings is None:
            continue
        seen: dict[str, CaseEntry] = {}
        for entry in group:
            phrasing = entry.case.phrasing
            if phrasing not in phrasings:
                yield Problem(
                    file,
                    entry.line,
                    entry.case.id,
                    "phrasing",
                    f"phrasing {phrasing!r} is not one of the suite's {phrasings}",
                )
            elif phrasing in seen:
                yield Problem(
                    file,
                    entry.line,
                    entry.case.id,
                    "phrasing",
                    f"scenario {scenario!r} already has a {phrasing!r} variant ({seen[phrasing].case.id})",
                )
            else:
                seen[phrasing] = entry
        missing = [p for p in phrasings if p not in seen]
        if missing:
            yield Problem(
                file,
                reference.line,
                reference.case.id,
                "scenario",
                f"scenario {scenario!r} lacks the phrasing(s) {', '.join(missing)}",
            )


# --------------------------------------------------------------------------- files and suites


def validate_case_lines(
    lines: list[CaseLine], registry: ToolRegistry | None, *, file: str, **rules: Unpack[SuiteRules]
) -> list[Problem]:
    """Problems of a read case file: parse and schema errors per line, then the case checks."""
    problems: list[Problem] = []
    entries: list[CaseEntry] = []
    broken: set[int] = set()
    first_line: dict[str, int] = {}
    for line in lines:
        if line.case_id is not None:
            first_line.setdefault(line.case_id, line.line)
        if line.parse_error:
            problems.append(Problem(file, line.line, None, "<line>", line.parse_error))
            continue
        errors = line.schema_errors or line.model_errors
        for field, message in errors:
            problems.append(Problem(file, line.line, line.case_id, field, message))
        if line.case is not None and not errors:
            entries.append(CaseEntry(line.case, line.line))
        else:
            broken.add(line.line)
    # duplicates that involve a broken line (check_cases sees only the well-formed ones)
    for line in lines:
        case_id = line.case_id
        if case_id is None or first_line[case_id] == line.line:
            continue
        if line.line in broken or first_line[case_id] in broken:
            problems.append(
                Problem(
                    file,
                    line.line,
                    case_id,
                    "id",
                    f"duplicate id (first on line {first_line[case_id]})",
                )
            )
    problems.extend(check_cases(entries, registry, file=file, **rules))
    return problems


def _domain_hooks(
    domain_name: str, folder: Path | None = None
) -> tuple[ToolRegistry, str | None, Any]:
    domain = get_domain(domain_name)
    registry = own_registry(folder) if folder is not None else None
    return (
        registry if registry is not None else domain.registry(),
        getattr(domain, "case_id_pattern", None),
        getattr(domain, "check_case", None),
    )


def validate_suite(source_or_path: SuiteSource | str | Path) -> list[Problem]:
    """Every problem of a suite, sorted by file and line; an empty list means valid.

    Accepts a loaded :class:`SuiteSource`, a built-in suite name, a suite folder or its
    ``suite.json``. Never raises for a broken suite; only an unresolvable name/path raises.
    """
    if isinstance(source_or_path, SuiteSource):
        return _validate_source(source_or_path)
    return _validate_folder(*resolve_versioned_suite(source_or_path))


def _validate_folder(folder: Path, number: int | None) -> list[Problem]:
    """:func:`validate_suite` of a folder: version ``number``'s cases, or every version's."""
    manifest_file = folder / MANIFEST_NAME
    problems: list[Problem] = []
    try:
        data = json.loads(manifest_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return [
            Problem(
                str(manifest_file),
                None,
                None,
                "<file>",
                "missing; a suite folder needs a suite.json manifest",
            )
        ]
    except json.JSONDecodeError as exc:
        return [Problem(str(manifest_file), exc.lineno, None, "<file>", f"invalid JSON: {exc.msg}")]
    for field, message in manifest_problems(data):
        problems.append(Problem(str(manifest_file), None, None, field, message))
    if problems:
        return sorted(problems, key=_sort_key)
    manifest = SuiteManifest.model_validate(data)
    registry: ToolRegistry | None = None
    id_pattern = manifest.id_pattern
    domain_check = None
    try:
        registry, domain_pattern, domain_check = _domain_hooks(manifest.domain, folder)
        id_pattern = id_pattern or domain_pattern
    except RejudgeError as exc:
        problems.append(Problem(str(manifest_file), None, None, "domain", str(exc)))
    # NAME@VERSION: that version's cases; a folder or NAME: every version's
    try:
        files = (
            [manifest.version(number).cases_file]
            if number is not None
            else [manifest.cases_file, *(v.cases_file for v in manifest.versions)]
        )
    except RejudgeError as exc:
        return [Problem(str(manifest_file), None, None, "versions", str(exc))]
    for name in files:
        cases_file = folder / name
        if not cases_file.is_file():
            problems.append(Problem(str(cases_file), None, None, "<file>", "case file is missing"))
            continue
        lines = read_case_lines(cases_file, manifest.format_version)
        if not lines:
            problems.append(
                Problem(str(cases_file), None, None, "<file>", "the case file holds no cases")
            )
        problems.extend(
            validate_case_lines(
                lines,
                registry,
                file=str(cases_file),
                id_pattern=id_pattern,
                phrasings=manifest.phrasings,
                domain_check=domain_check,
            )
        )
    return sorted(problems, key=_sort_key)


def _validate_source(source: SuiteSource) -> list[Problem]:
    if source.cases_path is not None and source.path is not None and source.cases_path.is_file():
        # the version loaded, not every version the folder holds (each is a suite of its own)
        versions = source.manifest.versions if source.manifest is not None else []
        number = next(
            (v.version for v in versions if source.path / v.cases_file == source.cases_path), 1
        )
        return _validate_folder(source.path, number)
    manifest = source.manifest
    id_pattern = manifest.id_pattern if manifest else None
    domain_check = None
    try:
        _registry, domain_pattern, domain_check = _domain_hooks(source.domain)
        id_pattern = id_pattern or domain_pattern
    except RejudgeError:
        pass
    entries = [CaseEntry(case, source.lines.get(case.id)) for case in source.cases]
    problems = check_cases(
        entries,
        source.registry,
        file=str(source.cases_path or source.name),
        id_pattern=id_pattern,
        phrasings=manifest.phrasings if manifest else None,
        domain_check=domain_check,
    )
    return sorted(problems, key=_sort_key)


def format_problems(problems: Iterable[Problem]) -> str:
    return "\n".join(str(p) for p in problems)
