"""The ``bfcl-ast`` tier: the Berkeley Function Calling Leaderboard's AST checker, listing every error.

It reads what the BFCL importer put in ``case.metadata["bfcl"]``: the category ``kind``, the
``language``, the possible answers (``ground_truth``: a list of ``{function: {param: [acceptable
values]}}``) and each offered function's BFCL-dialect ``signature`` (types and required list).
It judges the model's first response (the trace's first round), as BFCL does: later rounds only
answer the call-only stub results and are ignored (with a warning).

Semantics (rule set ``bfcl@1`` reproduces bfcl-eval's verdicts; see docs/bfcl.md):

- **simple**: exactly one call; **multiple**: as many calls as answers (one) and the right
  function chosen; **parallel** / **parallel_multiple**: as many calls as answers, matched in any
  order; **irrelevance**: no call passes (so does an undecodable output); **relevance**: any
  decodable call passes.
- **per call**: the name (original or wire spelling), required parameters present, no parameter
  outside the signature or the possible answer, each value's type (int accepted for float at
  the top level, tuples as lists, one level of element types), each value among the acceptable
  ones (strings standardized: spaces and ``,./-_*^`` removed, lowercased, ``'`` as ``"``; lists
  element-wise; dicts and lists of dicts key by key), and every answer parameter not given marked
  optional (``""`` among its acceptable values).
- **Java / JavaScript**: values arrive as strings of source syntax and are converted first, the
  way BFCL's type converters read them.

Unlike bfcl-eval, every error is listed (each with BFCL's error type and a taxonomy code), not
only the first; the first one listed is the error type bfcl-eval reports. ``bfcl@2`` fixes the
places where bfcl-eval's checker is wrong (see :class:`BfclFixes`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from store.schemas import Case, RuleSet, ToolRegistry

from .. import taxonomy as tx
from .base import TierResult, register_tier

__all__ = [
    "BfclAstTier",
    "BfclFixes",
    "BfclError",
    "BfclOutcome",
    "FAITHFUL",
    "FIXED",
    "fixes_for",
    "check_output",
    "output_from_trace",
    "standardize",
]

TIER_NAME = "bfcl-ast"


# --------------------------------------------------------------------------- rule-set switches


@dataclass(frozen=True)
class BfclFixes:
    """Corrections of bfcl-eval's checker; all off in ``bfcl@1``, all on in ``bfcl@2``."""

    # parallel calls: a maximum matching of answers to calls, not bfcl-eval's first-fit greedy
    # pairing (which fails an output whose calls could all be matched in another pairing)
    bipartite_parallel: bool = False
    # an integer is accepted for a float inside lists too, not only at the top level
    int_for_float_in_lists: bool = False
    # booleans are not numbers: True never equals 1 (Python's == says it does)
    bools_are_not_numbers: bool = False
    # irrelevance: a call attempt whose arguments do not parse is still a call (bfcl-eval
    # counts any undecodable output as "no call", so a broken call passes)
    malformed_call_is_a_call: bool = False


FAITHFUL = BfclFixes()
FIXED = BfclFixes(
    bipartite_parallel=True,
    int_for_float_in_lists=True,
    bools_are_not_numbers=True,
    malformed_call_is_a_call=True,
)


def fixes_for(rule_set: RuleSet | None) -> BfclFixes:
    """``bfcl@2`` and later fix bfcl-eval's mistakes; every other rule set judges faithfully."""
    if rule_set is None or rule_set.name != "bfcl":
        return FAITHFUL
    version = rule_set.version
    fixes = _FIXES_OF.get(version)
    if fixes is None:
        try:
            fixes = FIXED if int(str(version).split(".")[0]) >= 2 else FAITHFUL
        except ValueError:
            fixes = FAITHFUL
        if len(_FIXES_OF) < 1000:
            _FIXES_OF[version] = fixes
    return fixes


# bfcl rule-set version -> its fixes (judging reads it once per judgment)
_FIXES_OF: dict[str, BfclFixes] = {}


# --------------------------------------------------------------------------- errors


@dataclass(eq=False, slots=True)
class BfclError:
    type: str  # bfcl-eval's error type, e.g. "value_error:string"
    code: str  # taxonomy code
    text: str | Callable[[], str]  # the message, or a function that formats it when asked
    answer: int | None = None  # index of the possible-answer entry concerned
    call: int | None = None  # index of the model call concerned
    param: str | None = None

    @property
    def message(self) -> str:
        return self.text if isinstance(self.text, str) else self.text()

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.type, self.code, self.answer, self.call, self.param)

    def as_dict(self, message: str | None = None) -> dict[str, Any]:
        """The diff item; ``message`` is this error's message when the caller formatted it."""
        out: dict[str, Any] = {
            "type": self.type,
            "code": self.code,
            "message": self.message if message is None else message,
        }
        if self.answer is not None:
            out["answer"] = self.answer
        if self.call is not None:
            out["call"] = self.call
        if self.param is not None:
            out["param"] = self.param
        return out


@dataclass(slots=True)
class BfclOutcome:
    valid: bool
    errors: list[BfclError] = field(default_factory=list)
    # answer index -> call index for the calls that match
    matched: dict[int, int] = field(default_factory=dict)
    expected: int = 0

    @property
    def error_type(self) -> str | None:
        """The error type bfcl-eval reports (its first error), None when valid."""
        return None if self.valid or not self.errors else self.errors[0].type


# --------------------------------------------------------------------------- values


def standardize(text: str) -> str:
    """BFCL's string standardization: drop spaces and ``,./-_*^``, lowercase, ``'`` -> ``"``."""
    return _STD_DROP.sub("", text).lower().replace("'", '"')


_STD_DROP = re.compile(r"[ ,./\-_*^]")


def _strict_equal(a: Any, b: Any) -> bool:
    """Equality where booleans are not numbers (otherwise Python's, 1 == 1.0 included)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_strict_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_strict_equal(a[k], b[k]) for k in a)
    return bool(a == b)


def _python_equal(a: Any, b: Any) -> bool:
    return bool(a == b)


Equal = Callable[[Any, Any], bool]


def _member(value: Any, options: Any, eq: Equal) -> bool:
    if not isinstance(options, list):
        return False
    if eq is _python_equal:
        return value in options  # Python's own membership test, as bfcl-eval uses
    return any(eq(value, option) for option in options)


def _std(value: Any) -> Any:
    return standardize(value) if type(value) is str else value


_PY_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": str,
}
_JAVA_TYPES: dict[str, type] = {
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
_JS_TYPES: dict[str, type] = {
    "String": str,
    "integer": int,
    "float": float,
    "Bigint": int,
    "Boolean": bool,
    "dict": dict,
    "array": list,
    "any": str,
}
_PY_NESTED = ("array", "tuple")
_CONVERTED_NESTED = ("Array", "ArrayList", "array")


class _Unsupported(Exception):
    """A type bfcl-eval cannot convert (it raises); recorded as a rule error."""


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
    if java_type not in _JAVA_TYPES:
        raise _Unsupported(f"unsupported Java type {java_type!r}")
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
    raise _Unsupported(f"BFCL cannot convert Java type {java_type!r}")


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
    if js_type not in _JS_TYPES:
        raise _Unsupported(f"unsupported JavaScript type {js_type!r}")
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


# --------------------------------------------------------------------------- one parameter


def _first_type(answers: Any) -> type | None:
    """The type of the first acceptable value that is not the optional marker ``""``."""
    if isinstance(answers, (list, tuple, str, dict)):
        for answer in answers:
            if answer != "":
                return type(answer)
    return None


def _dict_matches(value: Any, answer: Any, eq: Equal) -> tuple[bool, str, str]:
    """(matches, error type, detail) of one dict against one acceptable dict."""
    if not isinstance(value, dict) or not isinstance(answer, dict):
        return False, "value_error:dict_value", "not a dictionary"
    for key, item in value.items():
        if key not in answer:
            return False, "value_error:dict_key", f"unexpected key {key!r}"
        options = answer[key]
        if not isinstance(options, (list, str, dict, tuple)):
            return False, "value_error:dict_value", f"key {key!r}: unusable acceptable values"
        if not _member(_std(item), [_std(o) for o in options], eq):
            return False, "value_error:dict_value", f"key {key!r}: {item!r} not acceptable"
    for key, options in answer.items():
        if key not in value and "" not in options:
            return False, "value_error:dict_key", f"missing key {key!r}"
    return True, "", ""


_ParamError = tuple[str, str, Callable[[], str]]
_NOTHING: frozenset[Any] = frozenset()
_NONE: list[Any] = []  # shared, never appended to


def _unsupported(param: str, why: str) -> _ParamError:
    return "bfcl_error:unsupported_type", tx.RULE_ERROR, lambda: f"{param!r}: {why}"


class _Param:
    """One parameter of one possible answer, with everything that does not depend on the model's
    value worked out once per case: the type dispatch, the acceptable values' first type, their
    standardized strings and lists. ``check`` gives what a fresh reading of the signature and
    the acceptable values would (same errors, same order of tests, same messages)."""

    __slots__ = (
        "param",
        "bfcl_type",
        "items",
        "language",
        "table",
        "why",
        "expected",
        "nested",
        "int_to_float",
        "options",
        "answer_type",
        "variable",
        "raw_strings",
        "strings",
        "std_lists",
        "item_facts",
        "quick_type",
        "quick",
    )

    def __init__(self, param: str, psig: dict[str, Any], answers: Any, language: str) -> None:
        self.param = param
        self.bfcl_type = bfcl_type = psig.get("type")
        self.items = items = psig.get("items")
        self.language = language
        self.why: str | None = None
        self.expected: type | None = None
        self.nested: type | None = None
        self.int_to_float = False
        if language in ("java", "javascript"):
            # element types are read after the value is known to be a string (see check)
            self.table: dict[str, type] = _JAVA_TYPES if language == "java" else _JS_TYPES
            if bfcl_type not in self.table:
                self.why = f"unsupported {language} type {bfcl_type!r}"
            else:
                self.expected = self.table[bfcl_type]
        else:
            self.table = _PY_TYPES
            if bfcl_type not in _PY_TYPES:
                self.why = f"unsupported type {bfcl_type!r}"
            else:
                self.expected = _PY_TYPES[bfcl_type]
                if bfcl_type in _PY_NESTED:
                    if items not in _PY_TYPES:
                        self.why = f"unsupported element type {items!r}"
                    else:
                        self.nested = _PY_TYPES[items]
                self.int_to_float = bfcl_type == "float"
        self.options = options = answers if isinstance(answers, list) else []
        self.answer_type = answer_type = _first_type(answers)
        expected = self.expected
        self.variable = variable = answer_type is not None and answer_type is not expected
        # what only some types' checks read is worked out for those types alone: a case is
        # often judged once (a result file per model), so reading it must cost little
        self.raw_strings = self.strings = self.quick = _NOTHING
        self.std_lists = self.item_facts = _NONE
        if expected is str:
            strings = [a for a in options if type(a) is str]
            # an exact acceptable string is acceptable standardized too: no need to standardize
            self.raw_strings = frozenset(strings)
            self.strings = frozenset([standardize(a) for a in strings])
        elif expected is list:
            self.std_lists = [
                [_std(a) for a in answer]
                for answer in options
                if isinstance(answer, (list, str, dict, tuple))
            ]
            # per acceptable value: (is a list, its first type) for the element-type check
            self.item_facts = [
                (True, _first_type(item)) if type(item) is list else (False, None)
                for item in options
            ]
        # A value of the expected scalar type that is itself one of the acceptable values
        # passes under either equality (same type on both sides, so booleans never meet
        # numbers), without the type and value checks: the common case of a right answer.
        self.quick_type: type | None = None
        if language == "python" and self.why is None and not variable:
            if expected is str:
                self.quick_type, self.quick = str, self.raw_strings
            elif expected is int or expected is float or expected is bool:
                self.quick_type = expected
                self.quick = frozenset([a for a in options if type(a) is expected and a == a])

    def check(self, value: Any, fixes: BfclFixes, eq: Equal) -> _ParamError | None:
        """None when the value is acceptable, else (error type, taxonomy code, message)."""
        param = self.param
        bfcl_type = self.bfcl_type
        if self.why is not None:
            return _unsupported(param, self.why)
        nested = self.nested
        if self.language in ("java", "javascript"):
            language = self.language
            if type(value) is not str:
                kind = "java" if language == "java" else "js"
                return (
                    f"type_error:{kind}",
                    tx.PARAM_WRONG_FORMAT,
                    lambda: (
                        f"{param!r}: expected a string of {language} syntax, "
                        f"got {type(value).__name__}"
                    ),
                )
            convert = java_value if language == "java" else js_value
            try:
                if bfcl_type in _CONVERTED_NESTED:
                    items = self.items
                    if items not in self.table:
                        raise _Unsupported(f"unsupported element type {items!r}")
                    nested = self.table[items]
                    value = convert(value, bfcl_type, items)
                else:
                    value = convert(value, bfcl_type)
            except _Unsupported as exc:
                return _unsupported(param, str(exc))
        elif self.int_to_float and type(value) is int:
            value = float(value)
        expected = self.expected
        answer_type = self.answer_type
        # BFCL's type check (one level of element types)
        if type(value) is expected:
            if nested is not None:
                for is_list, item_type in self.item_facts:
                    if not is_list:
                        break
                    if all(
                        (fixes.int_for_float_in_lists and nested is float and type(v) is int)
                        or type(v) is nested
                        or (item_type is not None and type(v) is item_type)
                        for v in value
                    ):
                        break
                else:
                    etype = (
                        "type_error:nested"
                        if answer_type is not None and type(value) is answer_type
                        else "type_error:simple"
                    )
                    return (
                        etype,
                        tx.PARAM_WRONG_FORMAT,
                        lambda: (
                            f"{param!r}: expected type {bfcl_type}, "
                            f"got {type(value).__name__} ({value!r})"
                        ),
                    )
            variable = self.variable
        elif answer_type is not None and type(value) is answer_type:
            variable = True
        else:
            return (
                "type_error:simple",
                tx.PARAM_WRONG_FORMAT,
                lambda: (
                    f"{param!r}: expected type {bfcl_type}, got {type(value).__name__} ({value!r})"
                ),
            )
        options = self.options
        if not variable:
            if expected is str:
                if value in self.raw_strings or standardize(value) in self.strings:
                    return None
                return (
                    "value_error:string",
                    tx.PARAM_WRONG_VALUE,
                    lambda: f"{param!r}: {value!r} is none of {options!r} (standardized)",
                )
            if expected is dict:
                details = ("value_error:dict_value", "no acceptable dict")
                for answer in options:
                    if answer == "":
                        continue
                    ok, etype, detail = _dict_matches(value, answer, eq)
                    if ok:
                        return None
                    details = (etype, detail)
                etype, detail = details
                return etype, tx.PARAM_WRONG_VALUE, lambda: f"{param!r}: {detail}"
            if expected is list and nested is dict:
                sized = [a for a in options if isinstance(a, (list, str))]
                same_len = [a for a in sized if len(a) == len(value)]
                for answer in same_len:
                    if all(_dict_matches(v, a, eq)[0] for v, a in zip(value, answer, strict=True)):
                        return None
                etype = "value_error:list_dict_count" if not same_len else "value_error:dict_value"
                return (
                    etype,
                    tx.PARAM_WRONG_VALUE,
                    lambda: f"{param!r}: {value!r} matches no acceptable list",
                )
            if expected is list:
                mine = [_std(v) for v in value]
                for answer in self.std_lists:
                    if eq(mine, answer):
                        return None
                return (
                    "value_error:list/tuple",
                    tx.PARAM_WRONG_VALUE,
                    lambda: f"{param!r}: {value!r} is none of {options!r}",
                )
        if _member(value, options, eq):
            return None
        return (
            "value_error:others",
            tx.PARAM_WRONG_VALUE,
            lambda: f"{param!r}: {value!r} is none of {options!r}",
        )


# --------------------------------------------------------------------------- one call


_WRONG_NAME = "simple_function_checker:wrong_func_name"


class _Answer:
    """One possible-answer entry of a case, read once: the expected function, its acceptable
    values, its signature and the per-parameter checks (each built on first use)."""

    __slots__ = ("index", "name", "wire", "acceptable", "functions", "language", "_sig", "_params")

    def __init__(
        self, index: int, answer: dict[str, Any], functions: dict[str, Any], language: str
    ) -> None:
        (name, acceptable), *_ = answer.items()
        self.index = index
        self.name: str = name
        self.wire = name.replace(".", "_") if "." in name else name
        self.acceptable: dict[str, Any] = acceptable if isinstance(acceptable, dict) else {}
        self.functions = functions
        self.language = language
        # (signature, its properties, its required list, the parameters an answer cannot
        # leave out); None until a call names the function
        self._sig: tuple[Any, dict[str, Any], list[Any], list[str]] | None = None
        self._params: dict[str, _Param] = {}

    def signature(self) -> tuple[Any, dict[str, Any], list[Any], list[str]]:
        sig = self._sig
        if sig is None:
            found = self.functions.get(self.name)
            if isinstance(found, dict):
                props = found.get("properties") or {}
                required = found.get("required") or []
            else:
                props, required = {}, []
            mandatory = [
                p
                for p, options in self.acceptable.items()
                if not (isinstance(options, list) and "" in options)
            ]
            sig = self._sig = (found, props, required, mandatory)
        return sig

    def param(self, param: str, psig: dict[str, Any]) -> _Param:
        plan = self._params.get(param)
        if plan is None:
            plan = self._params[param] = _Param(param, psig, self.acceptable[param], self.language)
        return plan

    def passes(self, call: tuple[str, dict[str, Any]], fixes: BfclFixes, eq: Equal) -> bool:
        """``not self.check(call, ...)``, stopping at the first error: pairing parallel calls
        needs only whether each pair matches; errors are listed for the pairs reported."""
        name, args = call
        if name != self.name and name != self.wire:
            return False
        sig, props, required, mandatory = self.signature()
        if not isinstance(sig, dict):
            return False
        for param in required:
            if param not in args:
                return False
        acceptable = self.acceptable
        params = self._params
        for param, value in args.items():
            if param not in props or param not in acceptable:
                return False
            plan = params.get(param) or self.param(param, props[param])
            if type(value) is plan.quick_type and value in plan.quick:
                continue
            if plan.check(value, fixes, eq) is not None:
                return False
        for param in mandatory:
            if param not in args:
                return False
        return True

    def check(
        self, call: tuple[str, dict[str, Any]], call_index: int, fixes: BfclFixes, eq: Equal
    ) -> list[BfclError]:
        """Every error of one call against this answer, in bfcl-eval's order."""
        name, args = call
        expected_name = self.name
        answer_index = self.index
        if name != expected_name and name != self.wire:
            return [
                BfclError(
                    _WRONG_NAME,
                    tx.TOOL_WRONG,
                    lambda: f"expected function {expected_name!r}, got {name!r}",
                    answer_index,
                    call_index,
                )
            ]
        sig, props, required, mandatory = self.signature()
        if not isinstance(sig, dict):
            return [
                BfclError(
                    "bfcl_error:unknown_function",
                    tx.RULE_ERROR,
                    f"no signature for {expected_name!r} in the case",
                    answer_index,
                    call_index,
                )
            ]
        errors: list[BfclError] = []
        missing_required = [p for p in required if p not in args]
        for param in missing_required:
            errors.append(
                BfclError(
                    "simple_function_checker:missing_required",
                    tx.PARAM_MISSING,
                    f"missing required parameter {param!r}",
                    answer_index,
                    call_index,
                    param,
                )
            )
        acceptable = self.acceptable
        params = self._params
        for param, value in args.items():
            if param not in props or param not in acceptable:
                errors.append(
                    BfclError(
                        "simple_function_checker:unexpected_param",
                        tx.PARAM_UNEXPECTED,
                        f"unexpected parameter {param!r}",
                        answer_index,
                        call_index,
                        param,
                    )
                )
                continue
            plan = params.get(param) or self.param(param, props[param])
            if type(value) is plan.quick_type and value in plan.quick:
                continue
            found = plan.check(value, fixes, eq)
            if found is not None:
                errors.append(
                    BfclError(found[0], found[1], found[2], answer_index, call_index, param)
                )
        for param in mandatory:
            if param in args or param in missing_required:
                continue
            errors.append(
                BfclError(
                    "simple_function_checker:missing_optional",
                    tx.PARAM_MISSING,
                    f"parameter {param!r} not given and not optional",
                    answer_index,
                    call_index,
                    param,
                )
            )
        return errors


# --------------------------------------------------------------------------- whole outputs


def _count_error(prefix: str, n_expected: int, n_calls: int) -> BfclError:
    code = tx.TOOL_MISSING if n_calls < n_expected else tx.TOOL_UNEXPECTED
    return BfclError(
        f"{prefix}:wrong_count",
        code,
        f"wrong number of functions: expected {n_expected}, got {n_calls}",
    )


def _greedy(ok: Callable[[int, int], bool], n_exp: int, n_calls: int) -> dict[int, int]:
    """bfcl-eval's pairing: each answer in turn takes the first free call that matches it.

    bfcl-eval stops at the first answer that finds no call (its verdict: not every answer
    paired); this goes on past such answers and returns every pair it made, for the errors.
    """
    matched: dict[int, int] = {}
    used: set[int] = set()
    for i in range(n_exp):
        for j in range(n_calls):
            if j not in used and ok(i, j):
                matched[i] = j
                used.add(j)
                break
    return matched


def _bipartite(ok: Callable[[int, int], bool], n_exp: int, n_calls: int) -> dict[int, int]:
    call_owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j in range(n_calls):
            if j not in seen and ok(i, j):
                seen.add(j)
                if j not in call_owner or augment(call_owner[j], seen):
                    call_owner[j] = i
                    return True
        return False

    for i in range(n_exp):
        augment(i, set())
    return {i: j for j, i in call_owner.items()}


class _Case:
    """A case's ``metadata["bfcl"]`` read once: kind, language and the possible answers' checks.

    Kept per metadata object (cases are frozen, their metadata is never changed), so every
    output judged against a case reuses its answers' standardized values and type dispatch."""

    __slots__ = ("meta", "kind", "language", "functions", "answers", "_offered")

    def __init__(self, meta: dict[str, Any]) -> None:
        self.meta = meta  # held, so the object's id cannot be reused while cached
        self.kind = meta.get("kind", "simple")
        self.language = meta.get("language", "python")
        self.functions: Any = meta.get("functions") or {}
        self.answers = [
            _Answer(i, a, self.functions, self.language)
            for i, a in enumerate(
                a for a in meta.get("ground_truth") or [] if isinstance(a, dict) and a
            )
        ]
        self._offered: frozenset[str] | None = None

    def offered(self, name: str) -> bool:
        """Whether ``name`` is an offered function (original or wire spelling)."""
        offered = self._offered
        if offered is None:
            offered = self._offered = frozenset(
                w for f in self.functions for w in ((f, f.replace(".", "_")) if "." in f else (f,))
            )
        return name in offered


# id(metadata) -> its reading; it keeps the metadata alive, so it is bounded: BFCL v4 has
# 3,641 AST cases, so every case of a full result folder stays read; more are read again
_CASES: dict[int, _Case] = {}
_CASES_MAX = 10_000


def _case_of(meta: dict[str, Any]) -> _Case:
    hit = _CASES.get(id(meta))
    if hit is not None and hit.meta is meta:
        return hit
    if len(_CASES) >= _CASES_MAX:
        _CASES.clear()
    plan = _CASES[id(meta)] = _Case(meta)
    return plan


_PREFIX = {
    "simple": "simple_function_checker",
    "multiple": "multiple_function_checker",
    "parallel": "parallel_function_checker_no_order",
}


def check_output(
    meta: dict[str, Any],
    output: list[tuple[str, dict[str, Any]]] | None,
    fixes: BfclFixes = FAITHFUL,
) -> BfclOutcome:
    """Judge one model output (``None``: undecodable) against a case's ``metadata["bfcl"]``."""
    plan = _case_of(meta)
    kind = plan.kind
    eq: Equal = _strict_equal if fixes.bools_are_not_numbers else _python_equal
    if output is None:
        if kind == "irrelevance":
            if fixes.malformed_call_is_a_call:
                return BfclOutcome(
                    False,
                    [
                        BfclError(
                            "irrelevance_error:decoder_success",
                            tx.CALL_WHEN_NONE_EXPECTED,
                            "a call was attempted (its arguments do not parse) where none belongs",
                        )
                    ],
                )
            return BfclOutcome(True)
        if kind == "relevance":
            return BfclOutcome(
                False,
                [
                    BfclError(
                        "relevance_error:decoder_failed",
                        tx.ARGUMENTS_UNPARSABLE,
                        "the output does not decode as function calls",
                    )
                ],
            )
        return BfclOutcome(
            False,
            [
                BfclError(
                    "ast_decoder:decoder_failed",
                    tx.ARGUMENTS_UNPARSABLE,
                    "the output does not decode as function calls",
                )
            ],
        )
    if kind == "irrelevance":
        if not output:
            return BfclOutcome(True)
        return BfclOutcome(
            False,
            [
                BfclError(
                    "irrelevance_error:decoder_success",
                    tx.CALL_WHEN_NONE_EXPECTED,
                    f"called {name!r} although no function fits the request",
                    call=j,
                )
                for j, (name, _args) in enumerate(output)
            ],
        )
    if kind == "relevance":
        if output:
            return BfclOutcome(True)
        return BfclOutcome(
            False,
            [
                BfclError(
                    "relevance_error:decoder_failed", tx.TOOL_MISSING, "no function was called"
                )
            ],
        )

    answers = plan.answers
    n_exp, n_calls = len(answers), len(output)
    errors: list[BfclError] = []
    checker = "parallel" if kind in ("parallel", "parallel_multiple") else kind
    prefix = _PREFIX.get(checker, "simple_function_checker")
    count_ok = n_calls == n_exp if checker != "simple" else n_calls == 1
    if not count_ok:
        errors.append(_count_error(prefix, n_exp if checker != "simple" else 1, n_calls))

    matched: dict[int, int]
    if checker == "parallel":
        errors_of: dict[tuple[int, int], list[BfclError]] = {}
        ok_of: dict[tuple[int, int], bool] = {}

        def errs(i: int, j: int) -> list[BfclError]:
            key = (i, j)
            hit = errors_of.get(key)
            if hit is None:
                hit = errors_of[key] = answers[i].check(output[j], j, fixes, eq)
            return hit

        def ok(i: int, j: int) -> bool:
            key = (i, j)
            hit = ok_of.get(key)
            if hit is None:
                hit = ok_of[key] = answers[i].passes(output[j], fixes, eq)
            return hit

        if fixes.bipartite_parallel:
            matched = _bipartite(ok, n_exp, n_calls)
            valid = count_ok and len(matched) == n_exp
        else:
            # bfcl-eval's verdict is whether its pairing (stopping at the first answer left
            # without a call) pairs every answer; the pairing carried on past such answers
            # makes the same choices up to there, so one pass gives the verdict and the
            # pairs the errors are listed for
            matched = _greedy(ok, n_exp, n_calls)
            valid = count_ok and len(matched) == n_exp
        if not valid:
            first_unmatched = next((i for i in range(n_exp) if i not in matched), None)
            if count_ok and first_unmatched is not None:
                errors.append(
                    BfclError(
                        f"{prefix}:cannot_find_match",
                        tx.PARAM_WRONG_VALUE,
                        f"no call matches possible answer {first_unmatched}",
                        answer=first_unmatched,
                    )
                )
            errors.extend(_explain_unmatched(matched, n_exp, n_calls, errs, plan, output))
        return BfclOutcome(valid, _dedupe(errors), matched, n_exp)

    # simple and multiple: the first call is checked against the one answer
    matched = {}
    if n_exp == 0:
        return BfclOutcome(False, errors or [_count_error(prefix, 0, n_calls)], {}, 0)
    if n_calls:
        first = answers[0].check(output[0], 0, fixes, eq)
        if not first:
            matched[0] = 0
        errors.extend(_with_unknown(first, plan, output[0][0]))
        for j in range(1, n_calls):
            errors.append(
                BfclError(
                    "simple_function_checker:unexpected_call",
                    tx.TOOL_UNEXPECTED,
                    f"extra call {output[j][0]!r}",
                    call=j,
                )
            )
    valid = count_ok and not errors
    return BfclOutcome(valid, errors, matched, n_exp)


def _with_unknown(errors: list[BfclError], plan: _Case, name: str) -> list[BfclError]:
    # a call naming another function has that one error and no other (see _Answer.check)
    if errors and errors[0].type == _WRONG_NAME and not plan.offered(name):
        return [
            *errors,
            BfclError(
                "simple_function_checker:wrong_func_name",
                tx.FUNCTION_NOT_FOUND,
                f"{name!r} is not a function this case offers",
                call=errors[0].call,
            ),
        ]
    return errors


def _explain_unmatched(
    matched: dict[int, int],
    n_exp: int,
    n_calls: int,
    errs: Callable[[int, int], list[BfclError]],
    plan: _Case,
    output: list[tuple[str, dict[str, Any]]],
) -> list[BfclError]:
    """For each unmatched answer, the errors of its closest unmatched call (or TOOL_MISSING)."""
    out: list[BfclError] = []
    free = [j for j in range(n_calls) if j not in matched.values()]
    for i in range(n_exp):
        if i in matched:
            continue

        def distance(j: int, i: int = i) -> tuple[int, int, int]:
            found = errs(i, j)
            wrong_name = bool(found) and found[0].type == _WRONG_NAME
            return (1 if wrong_name else 0, len(found), j)

        if free:
            j = min(free, key=distance)
            free.remove(j)
            out.extend(_with_unknown(errs(i, j), plan, output[j][0]))
        else:
            out.append(
                BfclError(
                    "parallel_function_checker_no_order:missing_call",
                    tx.TOOL_MISSING,
                    f"no call for possible answer {i}",
                    answer=i,
                )
            )
    for j in free:
        out.append(
            BfclError(
                "parallel_function_checker_no_order:extra_call",
                tx.TOOL_UNEXPECTED,
                f"extra call {output[j][0]!r}",
                call=j,
            )
        )
    return out


def _dedupe(errors: list[BfclError]) -> list[BfclError]:
    seen: set[tuple[Any, ...]] = set()
    out: list[BfclError] = []
    for e in errors:
        if e.key not in seen:
            seen.add(e.key)
            out.append(e)
    return out


# --------------------------------------------------------------------------- traces


def output_from_trace(
    trace: Any, name_map: dict[str, str]
) -> tuple[list[tuple[str, dict[str, Any]]] | None, int]:
    """The model's first response as BFCL's decoded output, and how many later calls were left.

    ``None`` when a call of that response did not decode (bfcl-eval fails the whole output).
    """
    rounds = trace.rounds
    if not rounds:
        return [], 0
    later = 0
    if len(rounds) > 1:
        later = sum(len(r.calls) for r in rounds[1:])
    output: list[tuple[str, dict[str, Any]]] = []
    for call in rounds[0].calls:
        arguments = call.arguments
        if call.parse_error is not None or not isinstance(arguments, dict):
            return None, later
        name = call.name
        output.append((name_map.get(name, name), arguments))
    return output, later


# --------------------------------------------------------------------------- the tier


@dataclass(frozen=True)
class BfclAstTier:
    name: str = TIER_NAME
    description: str = "BFCL's AST checker (bfcl-eval semantics), listing every error"
    partial_family: str = "contract"
    #: every result is plain JSON by construction (messages are text, indexes ints, ratios
    #: finite floats, the category text), so the batch path may store the body without a
    #: pydantic round-trip (``judge.engine.judge_body``)
    plain_json_results: ClassVar[bool] = True
    #: reads the case's BFCL metadata and the raw trace, never the compiled registry index
    #: (per-tool JSON Schema validators): batch judging need not build it (~3,000 BFCL tools)
    uses_registry_index: ClassVar[bool] = False

    def applies(self, case: Case, registry: ToolRegistry) -> bool:
        return isinstance(case.metadata.get("bfcl"), dict)

    def evaluate(self, ctx: Any) -> TierResult:
        meta = ctx.case.metadata.get("bfcl")
        if not isinstance(meta, dict):
            return TierResult(
                codes=[tx.RULE_ERROR],
                reasons=[
                    "the case has no BFCL metadata; import it with `rejudge suite import-bfcl`"
                ],
            )
        fixes = fixes_for(ctx.rule_set)
        output, later = output_from_trace(ctx.trace, ctx.registry.name_map)
        outcome = check_output(meta, output, fixes)
        valid = outcome.valid
        expected = outcome.expected
        matched = outcome.matched
        schema = 1.0 if output is not None else 0.0
        relevance = meta.get("kind") in ("irrelevance", "relevance")
        partial: dict[str, float]
        if relevance:
            score = 1.0 if valid else 0.0
            partial = {"tools": score, "arguments": score, "schema": schema}
        elif valid and not outcome.errors:
            # no error names another function: every possible answer's function was called
            partial = {
                "tools": 1.0 if expected and output else 0.0,
                "arguments": len(matched) / expected if expected else 0.0,
                "schema": schema,
            }
        # the importer writes the category name; anything else is stored as its text
        category = meta.get("category")
        if category is not None and type(category) is not str:
            category = str(category)
        details: dict[str, Any] = {
            "bfcl_category": category,
            "bfcl_valid": valid,
            "bfcl_error_type": None,
            "matched": _matched_json(matched) if matched else {},
            "fixes": "bfcl@2" if fixes is FIXED else "bfcl@1",
        }
        warnings = (
            [f"{later} call(s) after the first response were ignored (BFCL judges one response)"]
            if later
            else []
        )
        errors = outcome.errors
        if valid and not errors:  # most correct outputs: nothing to list
            return TierResult([], [], [], warnings, partial, details, [])
        # one pass over the errors: each message formatted once (the diff and the reasons
        # share it), and the possible answers whose function was not the one called
        diff: list[dict[str, Any]] = []
        messages: list[str] = []
        codes: list[str] = []
        named: set[int | None] = set()
        for e in errors:
            text = e.text
            message = text if type(text) is str else e.message
            messages.append(message)
            codes.append(e.code)
            diff.append(e.as_dict(message))
            if e.type.endswith("wrong_func_name"):
                named.add(e.answer)
        if not valid and errors:
            details["bfcl_error_type"] = errors[0].type
        if not relevance:
            # ratios of counts, so always finite; an error's answer index is always one of
            # range(expected) when it has one
            partial = {
                "tools": (expected - len(named) + (None in named)) / expected
                if expected and output
                else 0.0,
                "arguments": len(matched) / expected if expected else 0.0,
                "schema": schema,
            }
        if valid:  # bfcl-eval's verdict; errors listed alongside it stay in the diff
            return TierResult([], diff, [], warnings, partial, details, [])
        return TierResult(
            codes or [tx.PARAM_WRONG_VALUE], diff, messages, warnings, partial, details, []
        )


# "0".."63": the matched pairs' answer indexes as JSON object keys without str() per index
_INDEX_KEYS = tuple(str(i) for i in range(64))


def _matched_json(matched: dict[int, int]) -> dict[str, int]:
    """``{str(answer): call}`` in answer order."""
    keys = _INDEX_KEYS
    n = len(keys)
    return {keys[k] if 0 <= k < n else str(k): matched[k] for k in sorted(matched)}


register_tier(BfclAstTier())
