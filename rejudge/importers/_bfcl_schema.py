"""BFCL's categories and its schema dialect, as rejudge reads them (pure).

The categories of BFCL v4's AST checker this reads (:data:`CATEGORIES`, each with its checker
kind and language); a function's BFCL-dialect parameters (``dict``, ``float``, ``tuple``,
``any``, Java and JavaScript type names) as JSON Schema a provider accepts; the wire names of
functions whose names providers reject; and the representative golden value of each parameter
(the first acceptable one, Java/JavaScript values in their string syntax, as BFCL expects them).
:mod:`._bfcl_suite` builds suites from these; ``suites/domains/bfcl.py`` registers a domain per
category.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any

from rejudge.model import GoldenCall
from rejudge.registry import BUILTINS

__all__ = [
    "CATEGORIES",
    "CategoryInfo",
    "checker_kind",
    "convert_parameters",
    "render_value",
    "representative_call",
    "signature",
    "suite_name",
    "wire_name",
]


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


#: the AST categories of BFCL v4 this importer reads, in BFCL's order: the registry's built-in
#: ``bfcl-<category>`` domains are the one list of them (a domain per category)
CATEGORIES: dict[str, CategoryInfo] = {
    name.removeprefix("bfcl-"): _info(name.removeprefix("bfcl-"))
    for name in BUILTINS["domain"]
    if name.startswith("bfcl-")
}


def checker_kind(kind: str) -> str:
    """Which of BFCL's checkers a kind uses: parallel_multiple is checked as parallel."""
    return "parallel" if kind == "parallel_multiple" else kind


def suite_name(category: str) -> str:
    return f"bfcl-{category}"


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
        _put_properties(out, prop, prop["properties"], _convert_property)
    return out


def _put_properties(
    out: dict[str, Any],
    obj: dict[str, Any],
    props: dict[Any, Any],
    convert: Callable[[Any], dict[str, Any]],
) -> None:
    """``out`` given ``obj``'s properties, each converted, and which of them it requires (only
    names it has: a stray required name would make every call invalid)."""
    out["properties"] = {str(k): convert(v) for k, v in props.items()}
    required = obj.get("required")
    if isinstance(required, list):
        kept = [r for r in required if r in props]
        if kept:
            out["required"] = kept


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
    convert: Callable[[Any], dict[str, Any]] = _convert_property
    if language in _LANGUAGE_LABEL:
        convert = partial(_string_property, language=language)
    schema: dict[str, Any] = {"type": "object"}
    _put_properties(schema, params, props, convert)
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
