"""jsonschema's own error list for the schemas ``compile_fast`` accepts, without its machinery.

``compile_errors(schema, validator)`` returns ``instance -> [(path, message), ...]``: the same
multiset of (``error.path`` as a tuple, ``error.message``) that ``validator.iter_errors(instance)``
yields, or ``None`` when that cannot be promised, and then the caller asks jsonschema itself.
Profiling a first judging showed ``iter_errors`` on invalid calls at a fifth of all judging time:
each descent there builds an evolved validator, a resource and an exception object.

What is promised rests on reading the installed jsonschema's ``_keywords.py``,
``_legacy_keywords.py``, ``_types.py`` and ``validators.py``, so the fast path refuses:

* any jsonschema version not in ``VERIFIED_VERSIONS`` (messages change between versions, e.g.
  ``minLength``'s "should be non-empty" / "is too short");
* any validator class but Draft 6, 7, 2019-09 and 2020-12 (Draft 3/4 differ in ``integer``,
  ``minimum`` and ``items``), or one whose keyword functions or type checker are not the very
  functions read here (a class made with ``validators.extend`` or ``create``);
* a validator with a format checker (then ``format`` asserts);
* a schema ``compile_fast`` refuses, a nested ``$schema``, and any keyword value of a shape not
  handled below.

Each keyword runs on its own, as in jsonschema: a failed ``type`` does not stop ``minimum``, and
``properties``/``items``/``additionalProperties``/``required`` only look at objects/arrays.
Property-tested against ``iter_errors`` in tests/judge/test_fastschema.py.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable
from importlib import metadata
from typing import Any

from ._fastschema import compile_fast

try:  # the very helpers jsonschema's keywords call, so equality and uniqueness mean the same
    from jsonschema import _keywords as _kw
    from jsonschema import _legacy_keywords as _legacy
    from jsonschema import _types
    from jsonschema import validators as _validators
    from jsonschema._utils import equal as _equal
    from jsonschema._utils import extras_msg as _extras_msg
    from jsonschema._utils import uniq as _uniq

    _VERSION: str | None = metadata.version("jsonschema")
except (ImportError, metadata.PackageNotFoundError):  # pragma: no cover - always fall back
    _VERSION = None

__all__ = ["compile_errors"]

Path = tuple[Any, ...]
Error = tuple[Path, str]
# an emitter appends the errors of one (sub)schema for one instance at one path
Emit = Callable[[Any, Path, list[Error]], None]

# versions whose keyword sources were read and whose messages the property tests pinned
VERIFIED_VERSIONS = frozenset({"4.26.0"})

_ANNOTATIONS = {"description", "title", "default", "examples", "$comment"}
_ASSERTING = (
    "type properties required additionalProperties enum const minimum maximum exclusiveMinimum "
    "exclusiveMaximum minLength maxLength minItems maxItems uniqueItems pattern format"
).split()


class _Refuse(Exception):
    pass


def _is_number(v: Any) -> bool:
    return isinstance(v, numbers.Number) and not isinstance(v, bool)


# jsonschema's draft 6+ type checker (_types.draft6_type_checker), one function per name
_TYPES: dict[str, Callable[[Any], bool]] = {
    "array": lambda v: isinstance(v, list),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: (
        not isinstance(v, bool)
        and (isinstance(v, int) or (isinstance(v, float) and v.is_integer()))
    ),
    "null": lambda v: v is None,
    "number": _is_number,
    "object": lambda v: isinstance(v, dict),
    "string": lambda v: isinstance(v, str),
}


def _items_mode(cls: Any) -> str | None:
    """'2020' or 'legacy' items semantics if ``cls`` is exactly a class read here, else None."""
    if _VERSION not in VERIFIED_VERSIONS:
        return None
    modes = {
        _validators.Draft6Validator: "legacy",
        _validators.Draft7Validator: "legacy",
        _validators.Draft201909Validator: "legacy",
        _validators.Draft202012Validator: "2020",
    }
    mode = modes.get(cls)
    if mode is None or cls.TYPE_CHECKER is not _types.draft202012_type_checker:
        return None
    for key in _ASSERTING:
        if cls.VALIDATORS.get(key) is not getattr(_kw, key):
            return None
    items = _kw.items if mode == "2020" else _legacy.items_draft6_draft7_draft201909
    if cls.VALIDATORS.get("items") is not items:
        return None
    if any(key in cls.VALIDATORS for key in _ANNOTATIONS | {"$schema"}):
        return None
    return mode


def _length(key: str, bound: Any, lists: bool) -> Emit:
    """minLength/maxLength (strings, code points) and minItems/maxItems (arrays)."""
    if isinstance(bound, bool) or not isinstance(bound, (int, float)):
        raise _Refuse(key)
    kind = list if lists else str
    if key.startswith("min"):
        word = "should be non-empty" if bound == 1 else "is too short"

        def too_short(v: Any, path: Path, out: list[Error]) -> None:
            if isinstance(v, kind) and len(v) < bound:
                out.append((path, f"{v!r} {word}"))

        return too_short
    word = "is expected to be empty" if bound == 0 else "is too long"

    def too_long(v: Any, path: Path, out: list[Error]) -> None:
        if isinstance(v, kind) and len(v) > bound:
            out.append((path, f"{v!r} {word}"))

    return too_long


def _bound(key: str, bound: Any) -> Emit:
    if isinstance(bound, bool) or not isinstance(bound, (int, float)):
        raise _Refuse(key)
    b = repr(bound)
    # the exact comparison jsonschema makes, so NaN and mixed int/float behave alike
    fails: Callable[[Any], bool]
    if key == "minimum":
        fails, text = (lambda v: v < bound), f"is less than the minimum of {b}"
    elif key == "maximum":
        fails, text = (lambda v: v > bound), f"is greater than the maximum of {b}"
    elif key == "exclusiveMinimum":
        fails, text = (lambda v: v <= bound), f"is less than or equal to the minimum of {b}"
    else:
        fails, text = (lambda v: v >= bound), f"is greater than or equal to the maximum of {b}"

    def out_of_bounds(v: Any, path: Path, out: list[Error]) -> None:
        if _is_number(v) and fails(v):
            out.append((path, f"{v!r} {text}"))

    return out_of_bounds


def _type(typ: Any) -> Emit:
    names = [typ] if isinstance(typ, str) else typ
    if not isinstance(names, list) or not all(isinstance(n, str) and n in _TYPES for n in names):
        raise _Refuse("type")
    checks = tuple(_TYPES[n] for n in names)
    reprs = ", ".join(repr(n) for n in names)

    def wrong_type(v: Any, path: Path, out: list[Error]) -> None:
        for check in checks:
            if check(v):
                return
        out.append((path, f"{v!r} is not of type {reprs}"))

    return wrong_type


def _object(schema: dict[str, Any], mode: str) -> list[Emit]:
    """properties, required and additionalProperties, each on its own as jsonschema runs them."""
    emits: list[Emit] = []
    props = schema.get("properties", {})
    if not isinstance(props, dict) or not all(isinstance(k, str) for k in props):
        raise _Refuse("properties")
    if "properties" in schema:
        subs = [(k, e) for k, e in ((k, _compile(s, mode)) for k, s in props.items()) if e]

        def properties(v: Any, path: Path, out: list[Error]) -> None:
            if isinstance(v, dict):
                for name, sub in subs:
                    if name in v:
                        sub(v[name], (*path, name), out)

        emits.append(properties)
    if "required" in schema:
        required = schema["required"]
        if not isinstance(required, list) or not all(isinstance(k, str) for k in required):
            raise _Refuse("required")

        def missing(v: Any, path: Path, out: list[Error]) -> None:
            if isinstance(v, dict):
                for name in required:
                    if name not in v:
                        out.append((path, f"{name!r} is a required property"))

        emits.append(missing)
    extra = schema.get("additionalProperties", True)
    if extra is False:

        def not_allowed(v: Any, path: Path, out: list[Error]) -> None:
            if isinstance(v, dict):
                extras = [k for k in v if k not in props]
                if extras:
                    text = "Additional properties are not allowed (%s %s unexpected)"
                    out.append((path, text % _extras_msg(sorted(extras, key=str))))

        emits.append(not_allowed)
    elif isinstance(extra, dict):
        sub = _compile(extra, mode)
        if sub is not None:

            def additional(v: Any, path: Path, out: list[Error], sub: Emit = sub) -> None:
                if isinstance(v, dict):
                    for k, x in v.items():
                        if k not in props:
                            sub(x, (*path, k), out)

            emits.append(additional)
    elif extra is not True:
        raise _Refuse("additionalProperties")
    return emits


def _items(items: Any, mode: str) -> Emit | None:
    if mode == "2020" and items is False:
        # _keywords.items with no prefixItems: prefix 0, so "items" and the whole array
        def no_items(v: Any, path: Path, out: list[Error]) -> None:
            if isinstance(v, list) and v:
                rest = v if len(v) != 1 else v[0]
                out.append((path, f"Expected at most 0 items but found {len(v)} extra: {rest!r}"))

        return no_items
    if not isinstance(items, (dict, bool)):
        raise _Refuse("items")
    sub = _compile(items, mode)  # legacy False: each item gets "False schema does not allow"
    if sub is None:
        return None

    def each_item(v: Any, path: Path, out: list[Error], sub: Emit = sub) -> None:
        if isinstance(v, list):
            for i, x in enumerate(v):
                sub(x, (*path, i), out)

    return each_item


def _compile(schema: Any, mode: str, root: bool = False) -> Emit | None:
    """The emitter of one (sub)schema; None when it can yield no error at all."""
    if schema is True:
        return None
    if schema is False:
        # jsonschema's descend() yields this before it prepends its own path element, so the
        # error sits at the parent's path (every descent here adds exactly one element)
        def false_schema(v: Any, path: Path, out: list[Error]) -> None:
            out.append((path[:-1], f"False schema does not allow {v!r}"))

        return false_schema
    if not isinstance(schema, dict) or (not root and "$schema" in schema):
        raise _Refuse("schema")
    emits: list[Emit] = []
    if "type" in schema:
        emits.append(_type(schema["type"]))
    if "enum" in schema:
        enums = schema["enum"]
        if not isinstance(enums, list):
            raise _Refuse("enum")
        text = f"is not one of {enums!r}"

        def not_in_enum(v: Any, path: Path, out: list[Error]) -> None:
            if all(not _equal(each, v) for each in enums):
                out.append((path, f"{v!r} {text}"))

        emits.append(not_in_enum)
    if "const" in schema:
        const = schema["const"]
        text_const = f"{const!r} was expected"

        def not_const(v: Any, path: Path, out: list[Error]) -> None:
            if not _equal(v, const):
                out.append((path, text_const))

        emits.append(not_const)
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if key in schema:
            emits.append(_bound(key, schema[key]))
    for key in ("minLength", "maxLength", "minItems", "maxItems"):
        if key in schema:
            emits.append(_length(key, schema[key], lists=key.endswith("Items")))
    if schema.get("uniqueItems"):
        if schema["uniqueItems"] is not True:
            raise _Refuse("uniqueItems")

        def not_unique(v: Any, path: Path, out: list[Error]) -> None:
            if isinstance(v, list) and not _uniq(v):
                out.append((path, f"{v!r} has non-unique elements"))

        emits.append(not_unique)
    if "pattern" in schema:
        pattern = schema["pattern"]
        if not isinstance(pattern, str):
            raise _Refuse("pattern")
        regex, text_pattern = re.compile(pattern), f"does not match {pattern!r}"

        def no_match(v: Any, path: Path, out: list[Error]) -> None:
            if isinstance(v, str) and not regex.search(v):
                out.append((path, f"{v!r} {text_pattern}"))

        emits.append(no_match)
    if "items" in schema:
        each = _items(schema["items"], mode)
        if each is not None:
            emits.append(each)
    emits.extend(_object(schema, mode))
    if not emits:
        return None
    if len(emits) == 1:
        return emits[0]
    chain = tuple(emits)

    def all_keywords(v: Any, path: Path, out: list[Error]) -> None:
        for emit in chain:
            emit(v, path, out)

    return all_keywords


def compile_errors(schema: Any, validator: Any = None) -> Callable[[Any], list[Error]] | None:
    """``instance -> [(path, message)]`` equal (as a multiset) to ``validator.iter_errors``,
    or None. ``validator`` defaults to ``validator_for(schema)(schema)``."""
    if _VERSION not in VERIFIED_VERSIONS or compile_fast(schema) is None:
        return None
    if validator is None:
        validator = _validators.validator_for(schema)(schema)
    if getattr(validator, "format_checker", None) is not None:
        return None
    mode = _items_mode(type(validator))
    if mode is None:
        return None
    try:
        emit = _compile(schema, mode, root=True)
    except (_Refuse, re.error, TypeError, ValueError):
        return None

    def errors(instance: Any) -> list[Error]:
        out: list[Error] = []
        if emit is not None:
            emit(instance, (), out)
        return out

    return errors
