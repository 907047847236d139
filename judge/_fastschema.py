"""A fast validity check for the common subset of JSON Schema that tool parameters use.

``compile_fast(schema)`` returns a predicate ``instance -> bool`` that agrees with ``jsonschema``
(draft 2020-12 / draft 7 semantics) on schemas built only from the keywords below, or ``None``
when the schema uses anything else (then the caller uses ``jsonschema`` itself). It only decides
*valid or not*; messages for an invalid call still come from ``jsonschema``.

Supported: ``type`` (string or list), ``properties``, ``required``, ``additionalProperties``
(boolean or schema), ``items`` (one schema), ``enum``, ``const``, ``minimum``, ``maximum``,
``exclusiveMinimum``, ``exclusiveMaximum`` (numbers), ``minLength``, ``maxLength``, ``minItems``,
``maxItems``, ``uniqueItems`` (jsonschema's own ``uniq``), ``pattern`` (``re.search``, as
jsonschema does), and the annotations ``description``, ``title``,
``default``, ``examples``, ``format`` (not asserted, as jsonschema does by default), ``$comment``.
Equivalence is property-tested against jsonschema in tests/judge/test_fastschema.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

try:  # jsonschema's own uniqueness test, so ``uniqueItems`` means exactly what it means there
    from jsonschema._utils import uniq as _uniq
except ImportError:  # pragma: no cover - a jsonschema without it: uniqueItems falls back
    _uniq = None

__all__ = ["compile_fast"]

Check = Callable[[Any], bool]

_ANNOTATIONS = {"description", "title", "default", "examples", "format", "$comment", "$schema"}
_SUPPORTED = _ANNOTATIONS | {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "pattern",
}


class _Unsupported(Exception):
    pass


def _is_type(value: Any, name: str) -> bool:
    if name == "string":
        return isinstance(value, str)
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if isinstance(value, bool):
        return False
    if name == "number":
        return isinstance(value, (int, float))
    if name == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    raise _Unsupported(name)


_TYPE_CHECKS: dict[str, Check] = {
    "string": lambda v: type(v) is str or isinstance(v, str),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _equal(a: Any, b: Any) -> bool:
    """jsonschema's equality for enum/const: booleans are not numbers, 1 == 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _compile(schema: Any) -> Check:
    if schema is True:
        return lambda v: True
    if schema is False:
        return lambda v: False
    if not isinstance(schema, dict):
        raise _Unsupported("schema")
    if set(schema) - _SUPPORTED:
        raise _Unsupported(str(sorted(set(schema) - _SUPPORTED)))
    checks: list[Check] = []
    typ = schema.get("type")
    if typ is not None:
        names = [typ] if isinstance(typ, str) else list(typ)
        for name in names:
            _is_type(None, name)  # raises for unknown type names
        if len(names) == 1:

            def is_named_type(v: Any, n: str = names[0]) -> bool:
                return _is_type(v, n)

            checks.append(_TYPE_CHECKS.get(names[0]) or is_named_type)
        else:

            def is_any_type(v: Any, names: list[str] = names) -> bool:
                return any(_is_type(v, n) for n in names)

            checks.append(is_any_type)
    if "enum" in schema:
        options = list(schema["enum"])

        def in_enum(v: Any, options: list[Any] = options) -> bool:
            return any(_equal(v, o) for o in options)

        checks.append(in_enum)
    if "const" in schema:
        const = schema["const"]

        def is_const(v: Any, const: Any = const) -> bool:
            return _equal(v, const)

        checks.append(is_const)
    for key, op in (
        ("minimum", lambda v, b: v >= b),
        ("maximum", lambda v, b: v <= b),
        ("exclusiveMinimum", lambda v, b: v > b),
        ("exclusiveMaximum", lambda v, b: v < b),
    ):
        if key in schema:
            bound = schema[key]
            if isinstance(bound, bool) or not isinstance(bound, (int, float)):
                raise _Unsupported(key)

            def within(v: Any, bound: float = bound, op: Callable[[Any, Any], Any] = op) -> bool:
                return not (isinstance(v, (int, float)) and not isinstance(v, bool)) or op(v, bound)

            checks.append(within)
    if "minLength" in schema or "maxLength" in schema:
        lo, hi = schema.get("minLength", 0), schema.get("maxLength")

        # jsonschema counts code points, like len() on str
        def str_length(v: Any, lo: Any = lo, hi: Any = hi) -> bool:
            return not isinstance(v, str) or (len(v) >= lo and (hi is None or len(v) <= hi))

        checks.append(str_length)
    if "minItems" in schema or "maxItems" in schema:
        lo, hi = schema.get("minItems", 0), schema.get("maxItems")

        def list_length(v: Any, lo: Any = lo, hi: Any = hi) -> bool:
            return not isinstance(v, list) or (len(v) >= lo and (hi is None or len(v) <= hi))

        checks.append(list_length)
    if schema.get("uniqueItems"):
        if _uniq is None or schema["uniqueItems"] is not True:
            raise _Unsupported("uniqueItems")
        checks.append(lambda v: not isinstance(v, list) or _uniq(v))
    if "pattern" in schema:
        if not isinstance(schema["pattern"], str):
            raise _Unsupported("pattern")
        try:
            regex = re.compile(schema["pattern"])
        except re.error:
            raise _Unsupported("pattern") from None

        # jsonschema: re.search(pattern, instance) for strings
        def matches(v: Any, regex: re.Pattern[str] = regex) -> bool:
            return not isinstance(v, str) or regex.search(v) is not None

        checks.append(matches)
    if "items" in schema:
        item = _compile(schema["items"])

        def all_items(v: Any, item: Check = item) -> bool:
            return not isinstance(v, list) or all(item(x) for x in v)

        checks.append(all_items)
    props = schema.get("properties")
    required = schema.get("required")
    additional = schema.get("additionalProperties", True)
    if props is not None or required or additional is not True:
        if props is not None and not isinstance(props, dict):
            raise _Unsupported("properties")
        compiled = {k: _compile(s) for k, s in (props or {}).items()}
        req = list(required or [])
        extra = _compile(additional)
        extra_all = additional is True

        def obj(
            v: Any,
            compiled: dict[str, Any] = compiled,
            req: list[str] = req,
            extra: Check = extra,
            extra_all: bool = extra_all,
        ) -> bool:
            if not isinstance(v, dict):
                return True
            for k in req:
                if k not in v:
                    return False
            for k, x in v.items():
                check = compiled.get(k)
                if check is not None:
                    if not check(x):
                        return False
                elif not extra_all and not extra(x):
                    return False
            return True

        checks.append(obj)
    if not checks:
        return lambda v: True
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda v: first(v) and second(v)

    def all_checks(v: Any, checks: tuple[Check, ...] = tuple(checks)) -> bool:
        return all(c(v) for c in checks)

    return all_checks


def compile_fast(schema: Any) -> Check | None:
    """A validity predicate equivalent to jsonschema on the supported subset, else None."""
    try:
        return _compile(schema)
    except (_Unsupported, TypeError, ValueError):
        return None
