"""The Berkeley Function Calling Leaderboard's AST categories as call-only suites (pure).

The data come from the ``bfcl-eval`` package (``pip install --no-deps bfcl-eval``: its data
files need none of its model libraries). Each BFCL category becomes one suite named
``bfcl-<category>`` with a domain of the same name:

- **tools**: every function a case offers, converted from BFCL's schema dialect (``dict``,
  ``float``, ``tuple``, ``any``, Java and JavaScript type names) to JSON Schema a provider accepts.
  The suite's registry is the union over its cases (one spec per name: the first seen); a case
  whose own spec of a name differs from the registry's carries its exact specs in
  ``metadata["tool_specs"]``. Names that providers reject (dots, ...) get a wire name in
  ``ToolRegistry.name_map`` (wire -> original), unique within the suite, so the mapping reverses.
- **cases**: the BFCL id, the user turn as the instruction (the whole turn, system messages
  included, in ``context["messages"]`` when it has more than one message), ``metadata["tools"]``
  (the case's own tool names, original spelling), ``metadata["bfcl"]`` (category, checker kind,
  language, the possible answers as ``ground_truth`` and each function's BFCL-dialect signature,
  which is all the ``bfcl-ast`` tier needs), and golden calls set to a representative answer
  (the first acceptable value of each parameter; Java/JavaScript values rendered in their
  string syntax, as BFCL expects them) so that other tiers work too. Every case is call-only;
  irrelevance cases are negative; relevance cases have no golden calls (any call passes).

Nothing here executes a BFCL function: the domain's sandbox (``suites/domains/bfcl.py``)
answers every call with a stub.
Nothing here touches the store either: :func:`rejudge.services.import_bfcl` snapshots the
suites built here.
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from rejudge.errors import InvalidInputError, NotFoundError, RejudgeError
from rejudge.importers._bfcl_schema import (
    CATEGORIES,
    CategoryInfo,
    _description,
    _name_map,
    convert_parameters,
    representative_call,
    signature,
    suite_name,
)
from rejudge.model import Case, Golden, ToolRegistry, ToolSpec
from rejudge.suites._case_format import FORMAT_VERSION, SuiteManifest, SuiteSource

__all__ = [
    "BfclError",
    "BfclNotInstalledError",
    "bfcl_data_dir",
    "bfcl_version",
    "bfcl_categories",
    "build_suite",
    "imported_suite",
    "read_jsonl",
    "suite_meta",
    "ImportedSuite",
]

PIP_LINE = "pip install --no-deps bfcl-eval"


class BfclError(RejudgeError):
    """A BFCL file or category cannot be imported; the message says what to do."""


class BfclNotInstalledError(BfclError, NotFoundError):
    pass


# --------------------------------------------------------------------------- locating the data


def bfcl_data_dir() -> Path:
    """The ``data`` folder of the installed ``bfcl-eval`` package (without importing it)."""
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or not spec.submodule_search_locations:
        raise BfclNotInstalledError(
            f"the bfcl-eval package is not installed; run `{PIP_LINE}` "
            "(its data files need none of its model libraries)"
        )
    folder = Path(next(iter(spec.submodule_search_locations))) / "data"
    if not folder.is_dir():
        raise BfclNotInstalledError(f"bfcl-eval is installed but has no data folder at {folder}")
    return folder


@lru_cache(maxsize=1)
def bfcl_version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version

        return version("bfcl-eval")
    except PackageNotFoundError:  # pragma: no cover - only with a bare data folder
        return "unknown"


def _category_file(folder: Path, category: str) -> Path:
    pattern = re.compile(rf"BFCL_v(\d+)_{re.escape(category)}\.json")
    found = sorted(
        (int(m.group(1)), p)
        for p in folder.glob(f"BFCL_v*_{category}.json")
        if (m := pattern.fullmatch(p.name))
    )
    if not found:
        raise BfclError(f"no BFCL data file for category {category!r} in {folder}")
    return found[-1][1]


def json_lines(text: str) -> Iterator[tuple[int, Any, json.JSONDecodeError | None]]:
    """Each non-blank line's number (from 1) and JSON value, or (None, the decoder's error)
    for a line that is no JSON: what to do with one is the reader's (a data file refuses it,
    a results file lists it and reads on)."""
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line), None
        except json.JSONDecodeError as exc:
            yield number, None, exc


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BfclError(f"cannot read {path}: {exc.strerror}") from exc
    for number, item, error in json_lines(text):
        if error is not None:
            raise BfclError(f"{path}:{number}: invalid JSON: {error.msg}") from error
        if not isinstance(item, dict):
            raise BfclError(f"{path}:{number}: expected a JSON object")
        out.append(item)
    return out


# --------------------------------------------------------------------------- suites


def _instruction(question: Any) -> tuple[str, dict[str, Any]]:
    turns = question if isinstance(question, list) else []
    turn = turns[0] if turns and isinstance(turns[0], list) else []
    users = [
        str(m.get("content", "")) for m in turn if isinstance(m, dict) and m.get("role") == "user"
    ]
    instruction = users[-1] if users else ""
    context: dict[str, Any] = {}
    if len(turn) != 1 or not users:
        context["messages"] = turn
    if len(turns) > 1:
        context["turns"] = turns
    return instruction, context


def _spec(function: dict[str, Any], language: str) -> ToolSpec:
    return ToolSpec(
        name=str(function.get("name")),
        description=_description(function, language),
        parameters=convert_parameters(function.get("parameters"), language),
        read_only=False,
        kind="bfcl",
    )


def build_suite(category: str, data_dir: Path | str | None = None) -> SuiteSource:
    """One BFCL category as a suite (nothing is written anywhere)."""
    info = CATEGORIES.get(category)
    if info is None:
        raise BfclError(f"unknown BFCL category {category!r}; choose from {', '.join(CATEGORIES)}")
    folder = Path(data_dir) if data_dir is not None else bfcl_data_dir()
    entries = read_jsonl(_category_file(folder, category))
    answers: dict[str, Any] = {}
    if info.kind not in ("irrelevance", "relevance"):
        answer_file = _category_file(folder / "possible_answer", category)
        answers = {str(a.get("id")): a.get("ground_truth") for a in read_jsonl(answer_file)}
    registry_specs: dict[str, ToolSpec] = {}
    case_rows: list[tuple[dict[str, Any], list[ToolSpec]]] = []
    for entry in entries:
        functions = [f for f in entry.get("function") or [] if isinstance(f, dict)]
        specs = [_spec(f, info.language) for f in functions]
        for spec in specs:
            registry_specs.setdefault(spec.name, spec)
        case_rows.append((entry, specs))
    registry = ToolRegistry(
        domain=suite_name(category),
        version=bfcl_version(),
        tools=[registry_specs[name] for name in sorted(registry_specs)],
        name_map=_name_map(registry_specs),
    )
    cases = [_case(entry, specs, info, answers, registry_specs) for entry, specs in case_rows]
    manifest = SuiteManifest(
        name=suite_name(category),
        domain=suite_name(category),
        format_version=FORMAT_VERSION,
        description=(
            f"BFCL v4 {category} ({len(cases)} cases), imported from bfcl-eval "
            f"{bfcl_version()}; call-only, judged by the bfcl-ast tier"
        ),
        metadata={"source": "bfcl-eval", "bfcl_version": bfcl_version(), "category": category},
    )
    return SuiteSource(
        name=manifest.name,
        domain=manifest.domain,
        format_version=FORMAT_VERSION,
        registry=registry,
        cases=tuple(cases),
        description=manifest.description,
        manifest=manifest,
    )


def _case(
    entry: dict[str, Any],
    specs: list[ToolSpec],
    info: CategoryInfo,
    answers: dict[str, Any],
    registry_specs: dict[str, ToolSpec],
) -> Case:
    case_id = str(entry.get("id"))
    instruction, context = _instruction(entry.get("question"))
    functions = {
        str(f.get("name")): signature(f) for f in entry.get("function") or [] if isinstance(f, dict)
    }
    ground_truth = answers.get(case_id) if answers else None
    if info.kind not in ("irrelevance", "relevance") and ground_truth is None:
        raise BfclError(f"BFCL case {case_id} has no possible answer; is the data complete?")
    calls = [
        representative_call(a, functions, info.language)
        for a in ground_truth or []
        if isinstance(a, dict) and a
    ]
    metadata: dict[str, Any] = {
        "tools": [spec.name for spec in specs],
        "bfcl": {
            "id": case_id,
            "category": info.name,
            "kind": info.kind,
            "language": info.language,
            "ground_truth": ground_truth,
            "functions": functions,
        },
    }
    if any(registry_specs.get(spec.name) != spec for spec in specs):
        metadata["tool_specs"] = [spec.model_dump(mode="json") for spec in specs]
    return Case(
        id=case_id,
        dimension=info.kind,
        category=info.name,
        instruction=instruction,
        context=context,
        golden=Golden(calls=calls, order_sensitive=False, allowed_extra=[]),
        negative=info.kind == "irrelevance",
        call_only=bool(calls),
        metadata=metadata,
    )


# --------------------------------------------------------------------------- import


@dataclass(frozen=True)
class ImportedSuite:
    name: str
    category: str
    cases: int
    tools: int
    hash: str
    suite_id: int | None = None
    path: str | None = None
    renamed_tools: int = 0
    cases_with_own_specs: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "category": self.category,
            "cases": self.cases,
            "tools": self.tools,
            "hash": self.hash,
            "suite_id": self.suite_id,
            "path": self.path,
            "renamed_tools": self.renamed_tools,
            "cases_with_own_specs": self.cases_with_own_specs,
        }


def bfcl_categories(categories: Sequence[str] | None = None) -> list[str]:
    """The categories to import: those named (each checked), else every AST category."""
    wanted = list(categories) if categories else list(CATEGORIES)
    unknown = [c for c in wanted if c not in CATEGORIES]
    if unknown:
        raise InvalidInputError(
            f"unknown BFCL categor{'y' if len(unknown) == 1 else 'ies'} {', '.join(unknown)}; "
            f"choose from {', '.join(CATEGORIES)}"
        )
    return wanted


def suite_meta(source: SuiteSource) -> dict[str, Any]:
    """What a BFCL suite's snapshot keeps beside its cases: its description and manifest."""
    return {
        "description": source.description,
        "manifest": source.manifest.model_dump(mode="json") if source.manifest else {},
    }


def imported_suite(
    source: SuiteSource, category: str, *, suite_id: int | None = None, path: str | None = None
) -> ImportedSuite:
    """The summary of one imported category (``suite_id``: its snapshot's, when stored;
    ``path``: the folder it was written to)."""
    return ImportedSuite(
        name=source.name,
        category=category,
        cases=len(source.cases),
        tools=len(source.registry.tools),
        hash=source.hash,
        suite_id=suite_id,
        path=path,
        renamed_tools=len(source.registry.name_map),
        cases_with_own_specs=sum(1 for c in source.cases if "tool_specs" in c.metadata),
    )
