"""The calculator behind the τ worlds' ``calculate`` tools: arithmetic on a parsed expression,
never an eval of what a model wrote. Each world chooses the operations it allows and words the
refusals its own way (τ-bench's and τ²'s airline share :func:`rejudge.suites.worlds._airline.
arithmetic`, τ²'s retail allows no powers and has its own words).
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from typing import Any

from rejudge.suites._errors import ToolError

__all__ = ["FOUR_OPERATIONS", "WITH_POWERS", "evaluate"]

#: the four operations and a sign
FOUR_OPERATIONS: Mapping[type, Callable[..., Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}
#: and ``//`` and ``**``, which the airline calculator's characters spell
WITH_POWERS: Mapping[type, Callable[..., Any]] = {
    **FOUR_OPERATIONS,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
}

#: a power above this exponent is refused (a model's ``9**9**9`` would never end)
MAX_EXPONENT = 64


def evaluate(node: ast.AST, operations: Mapping[type, Callable[..., Any]]) -> Any:
    """The value of a parsed expression of numbers and ``operations`` (ints stay exact until
    the caller rounds). Raises :class:`ToolError` ``invalid expression`` for anything else and
    ``exponent too large`` for a power above :data:`MAX_EXPONENT`; Python's own errors
    (ZeroDivisionError, OverflowError, a complex power's TypeError) pass through."""
    if isinstance(node, ast.Expression):
        return evaluate(node.body, operations)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in operations:
        return operations[type(node.op)](evaluate(node.operand, operations))
    if isinstance(node, ast.BinOp) and type(node.op) in operations:
        left, right = evaluate(node.left, operations), evaluate(node.right, operations)
        if isinstance(node.op, ast.Pow) and abs(right) > MAX_EXPONENT:
            raise ToolError("exponent too large")
        return operations[type(node.op)](left, right)
    raise ToolError("invalid expression")
