"""BFCL's AST checker, as the ``bfcl-ast`` tier (:mod:`judge.tiers.bfcl_ast`) uses it.

- :mod:`.outcome`: what a check finds (errors with BFCL's error type and a taxonomy code) and the
  rule-set switches that fix bfcl-eval's mistakes;
- :mod:`.values`: string standardization, equality, Java and JavaScript literals;
- :mod:`.params`: one parameter of a possible answer, read once, and its check;
- :mod:`.checker`: one call against one answer, a whole output against a case.
"""

from __future__ import annotations

from rejudge.judge.bfcl import _checker, _outcome, _params, _values

# each name re-exported as itself (``X as X``: what a type checker needs); the package's list
# is its modules' lists, so a name added to one is exported (tests/test_public_api.py)
from rejudge.judge.bfcl._checker import check_output as check_output
from rejudge.judge.bfcl._outcome import FAITHFUL as FAITHFUL
from rejudge.judge.bfcl._outcome import FIXED as FIXED
from rejudge.judge.bfcl._outcome import BfclError as BfclError
from rejudge.judge.bfcl._outcome import BfclFixes as BfclFixes
from rejudge.judge.bfcl._outcome import BfclOutcome as BfclOutcome
from rejudge.judge.bfcl._outcome import fixes_for as fixes_for
from rejudge.judge.bfcl._params import AnswerParam as AnswerParam
from rejudge.judge.bfcl._values import CONVERTED_NESTED as CONVERTED_NESTED
from rejudge.judge.bfcl._values import JAVA_TYPES as JAVA_TYPES
from rejudge.judge.bfcl._values import JS_TYPES as JS_TYPES
from rejudge.judge.bfcl._values import PY_NESTED as PY_NESTED
from rejudge.judge.bfcl._values import PY_TYPES as PY_TYPES
from rejudge.judge.bfcl._values import Equal as Equal
from rejudge.judge.bfcl._values import Unsupported as Unsupported
from rejudge.judge.bfcl._values import is_member as is_member
from rejudge.judge.bfcl._values import java_value as java_value
from rejudge.judge.bfcl._values import js_value as js_value
from rejudge.judge.bfcl._values import python_equal as python_equal
from rejudge.judge.bfcl._values import standardize as standardize
from rejudge.judge.bfcl._values import standardized as standardized
from rejudge.judge.bfcl._values import strict_equal as strict_equal

__all__ = sorted([*_checker.__all__, *_outcome.__all__, *_params.__all__, *_values.__all__])
