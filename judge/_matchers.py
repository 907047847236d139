"""Parameter matchers: how one expected (golden) value is compared with what the model sent.

Five rules ship (seed 001's parameter rules):

``exact``
    Recursive, type-aware equality. Numbers compare by value (``1 == 1.0``), booleans are never
    numbers (``True != 1``), strings compare byte for byte.
``normalized_str``
    Strings are trimmed and lower-cased (Unicode kept; punctuation and internal whitespace stay
    significant unless the rule set's string-normalization switches say otherwise). Non-strings
    compare as ``exact``.
``normalized_date``
    ISO 8601 only. A date compares with a date, a datetime with a datetime; aware datetimes are
    normalized to UTC; naive against aware, a date against a datetime, a non-string or a
    non-ISO text (``"tomorrow"``) is a format error. Natural language is never parsed.
``contains``
    The golden string must be a substring of the actual string (after nothing: case matters).
``any``
    The value must be present, non-null and non-empty (a blank string, ``[]`` and ``{}`` are
    empty). The golden value is ignored.

Structure is shared by every rule: lists compare as sets (order- and duplicate-insensitive: every
golden element has an equal actual element and vice versa), objects compare key by key with the
same rule applied recursively, and leaves use the rule's own comparison.

Matchers are registered by name (:func:`register_matcher`), so rule sets can name extra ones; a
rule set may also declare an alias of a built-in with options (see :mod:`judge.rulesets`).
"""

from __future__ import annotations

import datetime as _dt
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "MatchResult",
    "MatchOptions",
    "Matcher",
    "BUILTIN_RULES",
    "register_matcher",
    "get_matcher",
    "matcher_names",
    "match_value",
    "values_equal",
    "is_empty",
    "OK",
    "WRONG_VALUE",
    "WRONG_FORMAT",
    "RULE_ERROR",
]

OK = "ok"
WRONG_VALUE = "PARAM_WRONG_VALUE"
WRONG_FORMAT = "PARAM_WRONG_FORMAT"
RULE_ERROR = "RULE_ERROR"


@dataclass(frozen=True)
class MatchResult:
    """The outcome of one comparison. ``code`` is a taxonomy code when ``ok`` is False."""

    ok: bool
    code: str | None = None
    detail: str = ""


_MATCH = MatchResult(True)


@dataclass(frozen=True)
class MatchOptions:
    """String normalization switches (from the rule set) used by ``normalized_str``."""

    trim: bool = True
    lowercase: bool = True
    collapse_whitespace: bool = False
    unicode_form: str | None = None  # NFC / NFKC / NFD / NFKD or None (keep as is)
    extra: Mapping[str, Any] = field(default_factory=dict)


DEFAULT_OPTIONS = MatchOptions()

Matcher = Callable[[Any, Any, MatchOptions], MatchResult]


# --------------------------------------------------------------------------- helpers


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_empty(value: Any) -> bool:
    """True for None, blank strings and empty containers (the ``any`` rule's notion of empty)."""
    if value is None:
        return True
    if isinstance(value, str):
        return value.strip() == ""
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        return len(value) == 0
    return False


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if _is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


LeafCompare = Callable[[Any, Any, MatchOptions], MatchResult]


def _structural(golden: Any, actual: Any, leaf: LeafCompare, options: MatchOptions) -> MatchResult:
    """Recursive comparison: lists as sets, objects key by key, leaves through ``leaf``."""
    if isinstance(golden, dict):
        if not isinstance(actual, dict):
            return MatchResult(False, WRONG_VALUE, f"expected an object, got {_kind(actual)}")
        missing = sorted(set(golden) - set(actual), key=str)
        extra = sorted(set(actual) - set(golden), key=str)
        if missing or extra:
            return MatchResult(
                False, WRONG_VALUE, f"object keys differ (missing {missing}, extra {extra})"
            )
        for key in sorted(golden, key=str):
            sub = _structural(golden[key], actual[key], leaf, options)
            if not sub.ok:
                return MatchResult(False, sub.code, f"{key}: {sub.detail}")
        return _MATCH
    if isinstance(golden, (list, tuple)):
        if not isinstance(actual, (list, tuple)):
            return MatchResult(False, WRONG_VALUE, f"expected an array, got {_kind(actual)}")
        # set semantics: each golden element is found in actual and each actual one in golden
        worst: MatchResult | None = None
        for g in golden:
            found = False
            for a in actual:
                r = _structural(g, a, leaf, options)
                if r.ok:
                    found = True
                    break
                if worst is None or (r.code == WRONG_FORMAT and worst.code != WRONG_FORMAT):
                    worst = r
            if not found:
                code = worst.code if worst is not None and len(actual) == 1 else WRONG_VALUE
                return MatchResult(False, code, f"element {g!r} not found in the actual list")
        for a in actual:
            if not any(_structural(g, a, leaf, options).ok for g in golden):
                return MatchResult(False, WRONG_VALUE, f"unexpected element {a!r} in the list")
        return _MATCH
    if isinstance(actual, (dict, list, tuple)):
        return MatchResult(False, WRONG_VALUE, f"expected {_kind(golden)}, got {_kind(actual)}")
    return leaf(golden, actual, options)


def _leaf_exact(golden: Any, actual: Any, options: MatchOptions) -> MatchResult:
    if isinstance(golden, bool) or isinstance(actual, bool):
        if isinstance(golden, bool) and isinstance(actual, bool) and golden is actual:
            return _MATCH
        return MatchResult(False, WRONG_VALUE, f"expected {golden!r}, got {actual!r}")
    if _is_number(golden) and _is_number(actual):
        if golden == actual:
            return _MATCH
        return MatchResult(False, WRONG_VALUE, f"expected {golden!r}, got {actual!r}")
    if type(golden) is type(actual) and golden == actual:
        return _MATCH
    if isinstance(golden, str) and isinstance(actual, str) and golden == actual:
        return _MATCH
    return MatchResult(False, WRONG_VALUE, f"expected {golden!r}, got {actual!r}")


def normalize_string(value: str, options: MatchOptions) -> str:
    if options.unicode_form:
        value = unicodedata.normalize(options.unicode_form, value)  # type: ignore[arg-type]
    if options.trim:
        value = value.strip()
    if options.collapse_whitespace:
        value = " ".join(value.split())
    if options.lowercase:
        value = value.lower()
    return value


def _leaf_normalized_str(golden: Any, actual: Any, options: MatchOptions) -> MatchResult:
    if isinstance(golden, str):
        if not isinstance(actual, str):
            return MatchResult(False, WRONG_VALUE, f"expected a string, got {_kind(actual)}")
        if normalize_string(golden, options) == normalize_string(actual, options):
            return _MATCH
        return MatchResult(False, WRONG_VALUE, f"expected {golden!r}, got {actual!r} (normalized)")
    return _leaf_exact(golden, actual, options)


def _leaf_contains(golden: Any, actual: Any, options: MatchOptions) -> MatchResult:
    if isinstance(golden, str):
        if not isinstance(actual, str):
            return MatchResult(False, WRONG_VALUE, f"expected a string, got {_kind(actual)}")
        if golden in actual:
            return _MATCH
        return MatchResult(False, WRONG_VALUE, f"{golden!r} is not a substring of {actual!r}")
    return _leaf_exact(golden, actual, options)


_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATE_BASIC_RE = re.compile(r"^\d{8}$")


def parse_iso(value: Any) -> tuple[str, Any] | None:
    """Parse an ISO 8601 date or datetime: ``("date", date)`` / ``("datetime", dt)`` or None."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text or not text[0].isdigit():
        return None
    try:
        if _DATE_RE.match(text) or _DATE_BASIC_RE.match(text):
            return "date", _dt.date.fromisoformat(text)
        if "T" not in text and " " not in text:
            return None
        return "datetime", _dt.datetime.fromisoformat(text)
    except (ValueError, OverflowError):
        return None


def _leaf_date(golden: Any, actual: Any, options: MatchOptions) -> MatchResult:
    g = parse_iso(golden)
    if g is None:
        if isinstance(golden, str):
            return MatchResult(False, RULE_ERROR, f"golden value {golden!r} is not an ISO date")
        return _leaf_exact(golden, actual, options)
    a = parse_iso(actual)
    if a is None:
        return MatchResult(False, WRONG_FORMAT, f"{actual!r} is not an ISO 8601 date or datetime")
    if g[0] != a[0]:
        return MatchResult(False, WRONG_FORMAT, f"expected a {g[0]}, got a {a[0]} ({actual!r})")
    if g[0] == "date":
        if g[1] == a[1]:
            return _MATCH
        return MatchResult(False, WRONG_VALUE, f"expected {golden!r}, got {actual!r}")
    g_aware = g[1].tzinfo is not None and g[1].utcoffset() is not None
    a_aware = a[1].tzinfo is not None and a[1].utcoffset() is not None
    if g_aware != a_aware:
        return MatchResult(
            False, WRONG_FORMAT, f"naive and aware datetimes cannot be compared ({actual!r})"
        )
    gv, av = g[1], a[1]
    if g_aware:
        gv = gv.astimezone(_dt.UTC)
        av = av.astimezone(_dt.UTC)
    if gv == av:
        return _MATCH
    return MatchResult(False, WRONG_VALUE, f"expected {golden!r}, got {actual!r}")


def _exact(golden: Any, actual: Any, options: MatchOptions) -> MatchResult:
    if type(golden) is str and type(actual) is str:  # the common case, short-circuited
        if golden == actual:
            return _MATCH
        return MatchResult(False, WRONG_VALUE, f"expected {golden!r}, got {actual!r}")
    return _structural(golden, actual, _leaf_exact, options)


def _normalized_str(golden: Any, actual: Any, options: MatchOptions) -> MatchResult:
    return _structural(golden, actual, _leaf_normalized_str, options)


def _normalized_date(golden: Any, actual: Any, options: MatchOptions) -> MatchResult:
    return _structural(golden, actual, _leaf_date, options)


def _contains(golden: Any, actual: Any, options: MatchOptions) -> MatchResult:
    return _structural(golden, actual, _leaf_contains, options)


def _any(golden: Any, actual: Any, options: MatchOptions) -> MatchResult:
    if is_empty(actual):
        return MatchResult(False, WRONG_VALUE, f"expected a non-empty value, got {actual!r}")
    return _MATCH


BUILTIN_RULES: tuple[str, ...] = ("exact", "normalized_str", "normalized_date", "contains", "any")

_MATCHERS: dict[str, Matcher] = {
    "exact": _exact,
    "normalized_str": _normalized_str,
    "normalized_date": _normalized_date,
    "contains": _contains,
    "any": _any,
}


def register_matcher(name: str, matcher: Matcher, *, replace: bool = False) -> None:
    """Make ``matcher`` available to rule sets under ``name``.

    A matcher takes ``(golden, actual, options)`` and returns a :class:`MatchResult`; it must be
    pure (no I/O, clock or randomness). Built-in names cannot be replaced, so an old rule-set
    version keeps its meaning.
    """
    if name in BUILTIN_RULES:
        raise ValueError(f"matcher {name!r} is built in and cannot be replaced")
    if name in _MATCHERS and not replace:
        raise ValueError(f"matcher {name!r} is already registered (pass replace=True)")
    _MATCHERS[name] = matcher


def get_matcher(name: str) -> Matcher | None:
    return _MATCHERS.get(name)


def matcher_names() -> list[str]:
    return sorted(_MATCHERS)


def match_value(
    rule: str, golden: Any, actual: Any, options: MatchOptions = DEFAULT_OPTIONS
) -> MatchResult:
    """Compare with the named rule. Never raises: a broken or unknown rule gives ``RULE_ERROR``."""
    matcher = _MATCHERS.get(rule)
    if matcher is None:
        return MatchResult(False, RULE_ERROR, f"unknown parameter rule {rule!r}")
    try:
        return matcher(golden, actual, options)
    except RecursionError:
        return MatchResult(False, RULE_ERROR, f"value too deeply nested for rule {rule!r}")
    except Exception as exc:  # a user matcher failed: record why, never raise
        return MatchResult(False, RULE_ERROR, f"rule {rule!r} failed: {type(exc).__name__}: {exc}")


def values_equal(golden: Any, actual: Any) -> bool:
    """``exact`` equality as a plain bool."""
    return match_value("exact", golden, actual).ok
