"""Import the Berkeley Function Calling Leaderboard's AST categories as call-only suites.

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

Nothing here executes a BFCL function: the domain's sandbox answers every call with a stub.
Nothing here touches the store either: :func:`rejudge.services.import_bfcl` snapshots the
suites built here.
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from rejudge.suites._case_format import FORMAT_VERSION, SuiteManifest, SuiteSource
from rejudge.suites._domain import ToolResult, register_domain

from rejudge.errors import InvalidInputError, NotFoundError, RejudgeError
from rejudge.model import Case, Golden, GoldenCall, ToolRegistry, ToolSpec

__all__ = [
    "CATEGORIES",
    "CategoryInfo",
    "BfclError",
    "BfclNotInstalledError",
    "bfcl_data_dir",
    "bfcl_version",
    "checker_kind",
    "convert_parameters",
    "wire_name",
    "bfcl_categories",
    "build_suite",
    "imported_suite",
    "suite_meta",
    "render_value",
    "representative_call",
    "suite_name",
    "ImportedSuite",
]

PIP_LINE = "pip install --no-deps bfcl-eval"


class BfclError(RejudgeError):
    """A BFCL file or category cannot be imported; the message says what to do."""


class BfclNotInstalledError(BfclError, NotFoundError):
    pass


@dataclass(frozen=True)
class CategoryInfo:
    name: str
    kind: str  # simple | multiple | parallel | parallel_multiple | irrelevance | relevance
    language: str  # python | java | javascript


def _info(name: str) -> CategoryInfo:
    if "irrelevance" in name:
        kind = "irrelevance"
    elif "relevance" in name:
        kind = "relevance"
    elif "parallel_multiple" in name:
        kind = "parallel_multiple"
    elif "parallel" in name:
        kind = "parallel"
    elif "multiple" in name:
        kind = "multiple"
    else:
        kind = "simple"
    language = (
        "javascript" if "javascript" in name else "java" if name.endswith("java") else "python"
    )
    return CategoryInfo(name, kind, language)


#: the AST categories of BFCL v4 this importer reads, in BFCL's order
CATEGORIES: dict[str, CategoryInfo] = {
    name: _info(name)
    for name in (
        "simple_python",
        "simple_java",
        "simple_javascript",
        "multiple",
        "parallel",
        "parallel_multiple",
        "irrelevance",
        "live_simple",
        "live_multiple",
        "live_parallel",
        "live_parallel_multiple",
        "live_relevance",
        "live_irrelevance",
    )
}


def checker_kind(kind: str) -> str:
    """Which of BFCL's checkers a kind uses: parallel_multiple is checked as parallel."""
    return "parallel" if kind == "parallel_multiple" else kind


def suite_name(category: str) -> str:
    return f"bfcl-{category}"


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


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BfclError(f"cannot read {path}: {exc.strerror}") from exc
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BfclError(f"{path}:{number}: invalid JSON: {exc.msg}") from exc
        if not isinstance(item, dict):
            raise BfclError(f"{path}:{number}: expected a JSON object")
        out.append(item)
    return out


# --------------------------------------------------------------------------- schema dialect

# BFCL type name -> JSON Schema type (what a provider is sent)
_JSON_TYPE: dict[str, str] = {
    "integer": "integer",
    "int": "integer",
    "byte": "integer",
    "short": "integer",
    "long": "integer",
    "Bigint": "integer",
    "number": "number",
    "float": "number",
    "double": "number",
    "string": "string",
    "str": "string",
    "String": "string",
    "char": "string",
    "any": "string",
    "Any": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "Boolean": "boolean",
    "array": "array",
    "list": "array",
    "tuple": "array",
    "Array": "array",
    "ArrayList": "array",
    "Queue": "array",
    "Stack": "array",
    "dict": "object",
    "object": "object",
    "HashMap": "object",
    "Hashtable": "object",
}
_COPIED_KEYWORDS = ("enum", "default", "minimum", "maximum")
_LANGUAGE_LABEL = {"java": "Java", "javascript": "JavaScript"}


def _convert_property(prop: Any) -> dict[str, Any]:
    if not isinstance(prop, dict):
        return {"type": "string"}
    bfcl_type = prop.get("type")
    json_type = _JSON_TYPE.get(bfcl_type, "string") if isinstance(bfcl_type, str) else "string"
    out: dict[str, Any] = {"type": json_type}
    description = prop.get("description")
    if isinstance(description, str) and description:
        out["description"] = description
    for key in _COPIED_KEYWORDS:
        if key in prop and (key != "enum" or isinstance(prop[key], list)):
            out[key] = prop[key]
    if json_type == "array":
        items = prop.get("items")
        out["items"] = _convert_property(items) if isinstance(items, dict) else {}
        if bfcl_type == "tuple":
            out["description"] = (
                out.get("description", "") + " (a tuple, given as a list)"
            ).strip()
    elif json_type == "object" and isinstance(prop.get("properties"), dict):
        props = prop["properties"]
        out["properties"] = {str(k): _convert_property(v) for k, v in props.items()}
        required = prop.get("required")
        if isinstance(required, list):
            kept = [r for r in required if r in props]
            if kept:
                out["required"] = kept
    return out


def _string_property(prop: Any, language: str) -> dict[str, Any]:
    """Java/JavaScript parameters are sent as strings holding source syntax (as BFCL does)."""
    prop = prop if isinstance(prop, dict) else {}
    label = _LANGUAGE_LABEL[language]
    bfcl_type = prop.get("type")
    text = str(prop.get("description") or "")
    if bfcl_type == "any":
        text += f" Any {label} object, written in {label} syntax as a string."
    else:
        text += f" A {label} {bfcl_type} value, written in {label} syntax as a string."
    items = prop.get("items")
    if isinstance(items, dict) and items.get("type"):
        text += f" Its elements are {label} {items['type']} values."
    if (
        language == "javascript"
        and bfcl_type == "dict"
        and isinstance(prop.get("properties"), dict)
    ):
        text += f" Its entries follow this schema: {json.dumps(prop['properties'])}."
    out: dict[str, Any] = {"type": "string", "description": text.strip()}
    if isinstance(prop.get("enum"), list):
        out["enum"] = [str(v) for v in prop["enum"]]
    return out


def convert_parameters(parameters: Any, language: str = "python") -> dict[str, Any]:
    """A BFCL ``parameters`` object as a JSON Schema object schema."""
    params = parameters if isinstance(parameters, dict) else {}
    raw_props = params.get("properties")
    props = raw_props if isinstance(raw_props, dict) else {}
    if language in _LANGUAGE_LABEL:
        converted = {str(k): _string_property(v, language) for k, v in props.items()}
    else:
        converted = {str(k): _convert_property(v) for k, v in props.items()}
    schema: dict[str, Any] = {"type": "object", "properties": converted}
    required = params.get("required")
    if isinstance(required, list):
        kept = [r for r in required if r in props]
        if kept:
            schema["required"] = kept
    return schema


def _description(function: dict[str, Any], language: str) -> str:
    text = str(function.get("description") or "")
    if language in _LANGUAGE_LABEL:
        label = _LANGUAGE_LABEL[language]
        text = f"{text} This function is written in {label} syntax.".strip()
    return text


def signature(function: dict[str, Any]) -> dict[str, Any]:
    """What the bfcl-ast tier needs of a function: BFCL types and the required list."""
    raw_params = function.get("parameters")
    params = raw_params if isinstance(raw_params, dict) else {}
    raw_props = params.get("properties")
    props = raw_props if isinstance(raw_props, dict) else {}
    out_props: dict[str, Any] = {}
    for name, prop in props.items():
        prop = prop if isinstance(prop, dict) else {}
        entry: dict[str, Any] = {"type": prop.get("type")}
        items = prop.get("items")
        if isinstance(items, dict) and "type" in items:
            entry["items"] = items["type"]
        out_props[str(name)] = entry
    required = params.get("required")
    return {
        "required": [str(r) for r in required] if isinstance(required, list) else [],
        "properties": out_props,
    }


_WIRE_BAD = re.compile(r"[^A-Za-z0-9_-]")


def wire_name(name: str) -> str:
    """A provider-safe tool name (``^[A-Za-z0-9_-]{1,64}$``), as BFCL's handlers make it."""
    return (_WIRE_BAD.sub("_", name) or "_")[:64]


def _name_map(names: Iterable[str]) -> dict[str, str]:
    """wire -> original for every name that needs one; wire names unique within the suite."""
    originals = sorted(set(names))
    taken = {n for n in originals if wire_name(n) == n}
    out: dict[str, str] = {}
    for name in originals:
        if wire_name(name) == name:
            continue
        base = wire_name(name)
        candidate, k = base, 2
        while candidate in taken:
            suffix = f"_{k}"
            candidate = base[: 64 - len(suffix)] + suffix
            k += 1
        taken.add(candidate)
        out[candidate] = name
    return out


# --------------------------------------------------------------------------- golden values


def _first(values: Any) -> tuple[bool, Any]:
    if not isinstance(values, list):
        return True, values
    for value in values:
        if value != "":
            return True, value
    return False, None


def _rep_dict(answer: Any) -> Any:
    if not isinstance(answer, dict):
        return answer
    out: dict[str, Any] = {}
    for key, values in answer.items():
        present, value = _first(values)
        if present:
            out[key] = value
    return out


def _rep_python(value: Any, sig: dict[str, Any]) -> Any:
    bfcl_type = sig.get("type")
    if bfcl_type == "dict":
        return _rep_dict(value)
    if bfcl_type in ("array", "tuple") and sig.get("items") == "dict" and isinstance(value, list):
        return [_rep_dict(v) for v in value]
    return value


def _java_scalar(value: Any, java_type: str | None) -> str:
    """One Java literal as BFCL's Java converter reads it for ``java_type``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if java_type == "long" and isinstance(value, int):
        return f"{value}L"
    if java_type == "float" and isinstance(value, (int, float)):
        return f"{float(value)}f"
    return str(value)


def _java_element(value: Any, items: str | None, container: str) -> str:
    # Array elements go through the typed converter (a String element is kept verbatim);
    # ArrayList String/char elements and untyped values are read as quoted literals
    if isinstance(value, str):
        if container == "Array" and items not in (None, "Object"):
            return value
        if container == "ArrayList" and items == "char":
            return f"'{value}'"
        return json.dumps(value)
    return _java_scalar(value, items)


def _js_scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_js_scalar(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_js_scalar(v) for v in value) + "]"
    return str(value)


def render_value(value: Any, sig: dict[str, Any], language: str) -> Any:
    """A representative Python value in the form a model's call carries for ``language``.

    Java and JavaScript arguments travel as strings of source syntax (BFCL converts them back
    with its type converters); Python values stay as they are.
    """
    if language == "python":
        return _rep_python(value, sig)
    if isinstance(value, str):
        return value
    bfcl_type = sig.get("type")
    items = sig.get("items")
    if language == "java":
        if bfcl_type == "Array" and isinstance(value, list):
            elem = {"integer": "int", "String": "String"}.get(str(items), str(items or "Object"))
            inner = ", ".join(_java_element(v, items, "Array") for v in value)
            return f"new {elem}[]{{{inner}}}"
        if bfcl_type == "ArrayList" and isinstance(value, list):
            inner = ", ".join(_java_element(v, items, "ArrayList") for v in value)
            return f"new ArrayList<>(Arrays.asList({inner}))"
        if bfcl_type == "HashMap" and isinstance(value, dict):
            rep = _rep_dict(value)
            puts = " ".join(
                f"put({json.dumps(k)}, {_java_element(v, None, 'HashMap')});"
                for k, v in rep.items()
            )
            return f"new HashMap<String, Object>() {{{{ {puts} }}}}"
        return _java_scalar(value, bfcl_type)
    # javascript
    if bfcl_type == "Bigint" and isinstance(value, int) and not isinstance(value, bool):
        return f"{value}n"
    if bfcl_type == "dict" and isinstance(value, dict):
        return _js_scalar(_rep_dict(value))
    return _js_scalar(value)


def representative_call(
    answer: dict[str, Any], functions: dict[str, dict[str, Any]], language: str
) -> GoldenCall:
    """A golden call from one ground-truth entry ``{name: {param: [acceptable values]}}``."""
    (name, params), *_ = answer.items()
    sig = functions.get(name, {"properties": {}})
    out: dict[str, Any] = {}
    for param, values in (params or {}).items():
        present, value = _first(values)
        if present:
            out[param] = render_value(value, sig["properties"].get(param, {}), language)
    return GoldenCall(tool=name, params=out)


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


# --------------------------------------------------------------------------- the domain


class _StubSandbox:
    """BFCL cases are call-only: every call of an offered tool is recorded, never executed."""

    def __init__(self, tools: Sequence[str] | None) -> None:
        self.tools = set(tools) if tools is not None else None

    def execute(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        if self.tools is not None and name not in self.tools:
            return ToolResult(ok=False, error=f"unknown tool {name!r}")
        return ToolResult(ok=True, result={"status": "recorded (BFCL cases are call-only)"})


@dataclass
class BfclDomain:
    """The domain of one imported category: its registry is rebuilt from bfcl-eval's data."""

    name: str
    category: str
    _registry: ToolRegistry | None = field(default=None, repr=False)

    def registry(self) -> ToolRegistry:
        if self._registry is None:
            self._registry = _cached_suite(self.category).registry
        return self._registry

    def new_sandbox(self, case_metadata: dict[str, Any] | None = None) -> _StubSandbox:
        tools = (case_metadata or {}).get("tools")
        return _StubSandbox(tools if isinstance(tools, list) else None)


@lru_cache(maxsize=16)
def _cached_suite(category: str) -> SuiteSource:
    return build_suite(category)


def _domain_factory(category: str) -> Callable[[], BfclDomain]:
    return lambda: BfclDomain(name=suite_name(category), category=category)


for _category in CATEGORIES:
    register_domain(suite_name(_category), _domain_factory(_category))


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
