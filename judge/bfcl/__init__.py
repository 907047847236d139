"""BFCL's AST checker, as the ``bfcl-ast`` tier (:mod:`judge.tiers.bfcl_ast`) uses it.

- :mod:`.outcome`: what a check finds (errors with BFCL's error type and a taxonomy code) and the
  rule-set switches that fix bfcl-eval's mistakes;
- :mod:`.values`: string standardization, equality, Java and JavaScript literals;
- :mod:`.params`: one parameter of a possible answer, read once, and its check;
- :mod:`.checker`: one call against one answer, a whole output against a case.
"""

from __future__ import annotations

from .checker import check_output
from .outcome import FAITHFUL, FIXED, BfclError, BfclFixes, BfclOutcome, fixes_for
from .values import java_value, js_value, standardize

__all__ = [
    "BfclError",
    "BfclFixes",
    "BfclOutcome",
    "FAITHFUL",
    "FIXED",
    "check_output",
    "fixes_for",
    "java_value",
    "js_value",
    "standardize",
]
