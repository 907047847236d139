"""BFCL's AST checker, as the ``bfcl-ast`` tier (:mod:`judge.tiers.bfcl_ast`) uses it.

- :mod:`.outcome`: what a check finds (errors with BFCL's error type and a taxonomy code) and the
  rule-set switches that fix bfcl-eval's mistakes;
- :mod:`.values`: string standardization, equality, Java and JavaScript literals;
- :mod:`.params`: one parameter of a possible answer, read once, and its check;
- :mod:`.checker`: one call against one answer, a whole output against a case.
"""

from __future__ import annotations

from rejudge.judge.bfcl._checker import (
    check_output,
)
from rejudge.judge.bfcl._outcome import (
    FAITHFUL,
    FIXED,
    BfclError,
    BfclFixes,
    BfclOutcome,
    fixes_for,
)
from rejudge.judge.bfcl._params import (
    AnswerParam,
)
from rejudge.judge.bfcl._values import (
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
    python_equal,
    standardize,
    standardized,
    strict_equal,
)

__all__ = [
    "AnswerParam",
    "BfclError",
    "BfclFixes",
    "BfclOutcome",
    "CONVERTED_NESTED",
    "Equal",
    "FAITHFUL",
    "FIXED",
    "JAVA_TYPES",
    "JS_TYPES",
    "PY_NESTED",
    "PY_TYPES",
    "Unsupported",
    "check_output",
    "fixes_for",
    "is_member",
    "java_value",
    "js_value",
    "python_equal",
    "standardize",
    "standardized",
    "strict_equal",
]
