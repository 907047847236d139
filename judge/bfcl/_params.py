"""One parameter of one possible answer: its type dispatch and acceptable values, read once
(:class:`AnswerParam`), and the check of a model's value against them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from .. import _taxonomy as tx
from ._outcome import BfclFixes
from ._values import (
    CONVERTED_NESTED,
    JAVA_TYPES,
    JS_TYPES,
    PY_NESTED,
    PY_TYPES,
    Equal,
    Unsupported,
    is_member,
    java_value,
    js_value,
    standardize,
    standardized,
)

__all__ = ["AnswerParam"]


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
        if not is_member(standardized(item), [standardized(o) for o in options], eq):
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


class AnswerParam:
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
        # type[Any], not type: ``type(value) is expected`` must leave ``value`` Any, not object
        self.expected: type[Any] | None = None
        self.nested: type[Any] | None = None
        self.int_to_float = False
        if language in ("java", "javascript"):
            # element types are read after the value is known to be a string (see check)
            self.table: dict[str, type] = JAVA_TYPES if language == "java" else JS_TYPES
            if bfcl_type not in self.table:
                self.why = f"unsupported {language} type {bfcl_type!r}"
            else:
                self.expected = self.table[bfcl_type]
        else:
            self.table = PY_TYPES
            if bfcl_type not in PY_TYPES:
                self.why = f"unsupported type {bfcl_type!r}"
            else:
                self.expected = PY_TYPES[bfcl_type]
                if bfcl_type in PY_NESTED:
                    if items not in PY_TYPES:
                        self.why = f"unsupported element type {items!r}"
                    else:
                        self.nested = PY_TYPES[items]
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
                [standardized(a) for a in answer]
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
            # a key of self.table: otherwise __init__ set self.why and we returned above
            java_type = cast(str, bfcl_type)
            try:
                if bfcl_type in CONVERTED_NESTED:
                    items = self.items
                    if items not in self.table:
                        raise Unsupported(f"unsupported element type {items!r}")
                    nested = self.table[items]
                    value = convert(value, java_type, items)
                else:
                    value = convert(value, java_type)
            except Unsupported as exc:
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
                mine = [standardized(v) for v in value]
                for answer in self.std_lists:
                    if eq(mine, answer):
                        return None
                return (
                    "value_error:list/tuple",
                    tx.PARAM_WRONG_VALUE,
                    lambda: f"{param!r}: {value!r} is none of {options!r}",
                )
        if is_member(value, options, eq):
            return None
        return (
            "value_error:others",
            tx.PARAM_WRONG_VALUE,
            lambda: f"{param!r}: {value!r} is none of {options!r}",
        )
