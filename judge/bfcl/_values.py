"""BFCL's values: string standardization, equality, the type tables, and the conversion of Java
and JavaScript source literals the way bfcl-eval's type converters read them."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from rejudge.errors import RejudgeError

__all__ = [
    "CONVERTED_NESTED",
    "Equal",
    "JAVA_TYPES",
    "JS_TYPES",
    "PY_NESTED",
    "PY_TYPES",
    "Unsupported",
    "is_member",
    "java_value",
    "js_value",
    "python_equal",
    "standardize",
    "standardized",
    "strict_equal",
]


# --------------------------------------------------------------------------- values


def standardize(text: str) -> str:
    """BFCL's string standardization: drop spaces and ``,./-_*^``, lowercase, ``'`` -> ``"``."""
    return _STD_DROP.sub("", text).lower().replace("'", '"')


_STD_DROP = re.compile(r"[ ,./\-_*^]")


def strict_equal(a: Any, b: Any) -> bool:
    """Equality where booleans are not numbers (otherwise Python's, 1 == 1.0 included)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(strict_equal(a[k], b[k]) for k in a)
    return bool(a == b)


def python_equal(a: Any, b: Any) -> bool:
    return bool(a == b)


Equal = Callable[[Any, Any], bool]


def is_member(value: Any, options: Any, eq: Equal) -> bool:
    if not isinstance(options, list):
        return False
    if eq is python_equal:
        return value in options  # Python's own membership test, as bfcl-eval uses
    return any(eq(value, option) for option in options)


def standardized(value: Any) -> Any:
    return standardize(value) if type(value) is str else value


PY_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": str,
}
JAVA_TYPES: dict[str, type] = {
    "byte": int,
    "short": int,
    "integer": int,
    "float": float,
    "double": float,
    "long": int,
    "boolean": bool,
    "char": str,
    "Array": list,
    "ArrayList": list,
    "Set": set,
    "HashMap": dict,
    "Hashtable": dict,
    "Queue": list,
    "Stack": list,
    "String": str,
    "any": str,
}
JS_TYPES: dict[str, type] = {
    "String": str,
    "integer": int,
    "float": float,
    "Bigint": int,
    "Boolean": bool,
    "dict": dict,
    "array": list,
    "any": str,
}
PY_NESTED = ("array", "tuple")
CONVERTED_NESTED = ("Array", "ArrayList", "array")


class Unsupported(RejudgeError):
    """A type bfcl-eval cannot convert (it raises); caught by the tier and recorded as a rule
    error, never raised out of judging."""


# --------------------------------------------------------------------------- Java values

_INT_RE = re.compile(r"^-?\d+$")
_JAVA_FLOAT_RE = re.compile(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$")
_JAVA_DOUBLE_RE = re.compile(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?$")
_JAVA_LONG_RE = re.compile(r"^-?\d+[lL]$")
_JAVA_ARRAY_RE = re.compile(r"new\s+\w+\[\]\s*\{(.*?)\}")
_JAVA_ASLIST_RE = re.compile(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)")
_JAVA_ADDS_RE = re.compile(r"new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}", re.DOTALL)
_JAVA_ADD_RE = re.compile(r"add\((.+?)\)")
_JAVA_EMPTY_LIST_RE = re.compile(r"new\s+ArrayList<\w*>\(\)")
_JAVA_MAP_RE = re.compile(r"new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}", re.DOTALL)
_JAVA_PUT_RE = re.compile(r"put\(\"(.*?)\",\s*(.*?)\)")
_JAVA_EMPTY_MAP_RE = re.compile(r"new\s+HashMap<.*?>\s*\(\)")


def _number_or_text(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def _java_literal(text: str) -> Any:
    """A Java literal read without knowing its type."""
    if text in ("true", "false"):
        return text == "true"
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    if _JAVA_LONG_RE.match(text):
        return int(text[:-1])
    if _JAVA_FLOAT_RE.match(text):
        return float(text.rstrip("fF")) if text[-1] in "fF" else float(text)
    return _number_or_text(text)


def _java_elements(raw: list[str], nested: str | None) -> list[Any]:
    out: list[Any] = []
    for item in raw:
        text = item.strip()
        if nested in ("char", "String"):
            out.append(text[1:-1])
        elif nested:
            out.append(java_value(text, nested))
        else:
            out.append(_java_literal(text))
    return out


def java_value(text: str, java_type: str, nested: str | None = None) -> Any:
    """A Java argument string as BFCL's Java converter reads it (unreadable -> the string)."""
    if java_type not in JAVA_TYPES:
        raise Unsupported(f"unsupported Java type {java_type!r}")
    if java_type in ("byte", "short", "integer"):
        return int(text) if _INT_RE.match(text) else str(text)
    if java_type == "float":
        return float(re.sub(r"[fF]$", "", text)) if _JAVA_FLOAT_RE.match(text) else str(text)
    if java_type == "double":
        return float(text) if _JAVA_DOUBLE_RE.match(text) else str(text)
    if java_type == "long":
        return int(re.sub(r"[lL]$", "", text)) if _JAVA_LONG_RE.match(text) else str(text)
    if java_type == "boolean":
        return text == "true" if text in ("true", "false") else str(text)
    if java_type in ("char", "String", "any"):
        # BFCL's char pattern can never match, so a char stays the text it was given
        return str(text)
    if java_type == "Array":
        found = _JAVA_ARRAY_RE.search(text)
        if not found:
            return text
        parts = [p.strip() for p in found.group(1).split(",") if p.strip()]
        if nested:
            return [java_value(p, nested) for p in parts]
        return [_java_literal(p) for p in parts]
    if java_type == "ArrayList":
        found = _JAVA_ASLIST_RE.search(text)
        if found:
            return _java_elements(found.group(1).split(","), nested)
        found = _JAVA_ADDS_RE.search(text)
        if found:
            return _java_elements(_JAVA_ADD_RE.findall(found.group(1)), nested)
        if _JAVA_EMPTY_LIST_RE.search(text):
            return []
        return text
    if java_type == "HashMap":
        found = _JAVA_MAP_RE.search(text)
        if found:
            body = found.group(1)
            entries: dict[str, Any] = {}
            if body.strip():
                for key, raw in _JAVA_PUT_RE.findall(body):
                    entries[key] = _java_literal(raw.strip())
            return entries
        if _JAVA_EMPTY_MAP_RE.search(text):
            return {}
        return text
    raise Unsupported(f"BFCL cannot convert Java type {java_type!r}")


# --------------------------------------------------------------------------- JavaScript values

_JS_FLOAT_RE = re.compile(r"^-?\d+(\.\d+)?$")
_JS_BIGINT_RE = re.compile(r"^-?\d+n$")
_JS_2D_RE = re.compile(
    r"\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\)"
)
_JS_1D_RE = re.compile(r"\[(.*?)\]|\bnew\s+Array\((.*?)\)")
_JS_INNER_RE = re.compile(r"\[(.*?)\]")
_JS_DICT_RE = re.compile(r"\{(.*?)\}")
_JS_PAIR_RE = re.compile(r"([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)")


def _quoted(text: str) -> bool:
    return (text.startswith('"') and text.endswith('"')) or (
        text.startswith("'") and text.endswith("'")
    )


def _js_literal(text: str) -> Any:
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    if _quoted(text):
        return text[1:-1]
    return _number_or_text(text)


def _js_array(code: str, nested: str | None) -> Any:
    try:
        two_d = _JS_2D_RE.match(code)
        if two_d:
            rows: list[Any] = []
            for index, inner in enumerate(_JS_INNER_RE.findall(two_d.group(0))):
                inner = inner.strip()
                if index == 0 and inner.startswith("["):
                    inner = inner[1:]
                rows.append([_js_literal(e.strip()) for e in inner.split(",")])
            return rows
        one_d = _JS_1D_RE.match(code)
        if not one_d:
            return code
        body = one_d.group(1) if one_d.group(1) is not None else one_d.group(2)
        body = (body or "").strip()
        parts = body.split(",") if body else []
        if nested:
            return [
                js_value(p.strip(), nested, "String")
                if p.strip().startswith(("'", '"'))
                else js_value(p.strip(), nested)
                for p in parts
            ]
        return [_js_literal(p.strip()) for p in parts]
    except Exception:  # BFCL falls back to the text on any failure
        return code


def _js_dict(code: str) -> Any:
    if code == "{}":
        return {}
    found = _JS_DICT_RE.match(code)
    if not found:
        return code
    try:
        out: dict[str, Any] = {}
        for key, raw in _JS_PAIR_RE.findall(found.group(1)):
            key = key.strip().strip("'\"")
            raw = raw.strip()
            if raw.startswith("[") and raw.endswith("]"):
                out[key] = _js_array(raw.strip(), None)
            elif raw.startswith("{") and raw.endswith("}"):
                out[key] = _js_dict(raw.strip())
            else:
                out[key] = _js_literal(raw.strip("'\""))
        return out
    except Exception:
        return code


def js_value(text: str, js_type: str, nested: str | None = None) -> Any:
    """A JavaScript argument string as BFCL's JS converter reads it."""
    if js_type not in JS_TYPES:
        raise Unsupported(f"unsupported JavaScript type {js_type!r}")
    if js_type == "String":
        return text[1:-1] if _quoted(text) else str(text)
    if js_type == "integer":
        return int(text) if _INT_RE.match(text) else str(text)
    if js_type == "float":
        return float(text) if _JS_FLOAT_RE.match(text) else str(text)
    if js_type == "Bigint":
        return int(text[:-1]) if _JS_BIGINT_RE.match(text) else str(text)
    if js_type == "Boolean":
        return text == "true" if text in ("true", "false") else str(text)
    if js_type == "dict":
        return _js_dict(text.strip())
    if js_type == "array":
        return _js_array(text.strip(), nested)
    return str(text)
