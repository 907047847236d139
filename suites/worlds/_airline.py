"""What τ-bench's airline world (``tau_airline``) and τ²'s (``tau2_airline``) do to the letter
alike: τ²'s airline tools descend from τ-bench's, and both worlds' recordings show the same
constants, airport list, reservation and certificate numbering, and calculator.

Only behaviour is here, never wording: τ-bench words a refusal in lower case and τ² capitalises
it, and each prints its own records, so the calculator raises a :class:`ToolError` with its
reason and each world words it its own way.
"""

from __future__ import annotations

import ast
import datetime as dt
import operator
from collections.abc import Callable
from typing import Any

from rejudge.suites._errors import ToolError

from rejudge.model import WorldState

__all__ = [
    "AIRPORTS",
    "CALCULATOR_CHARACTERS",
    "CERTIFICATE_ID",
    "CREATED_AT",
    "FIRST_RESERVATION_ID",
    "INSURANCE_PER_PASSENGER",
    "PRICE_PER_NONFREE_BAG",
    "arithmetic",
    "free_certificate_id",
    "new_reservation_id",
    "next_day",
]

#: the fixed "now" every new reservation is stamped with (all recorded bookings show it)
CREATED_AT = "2024-05-15T15:00:00"
#: the id a first new reservation gets; the next ones bump the last letters (HATHAU, HATHAV:
#: τ-bench's recordings show three bookings in one conversation)
FIRST_RESERVATION_ID = "HATHAT"
#: the id a sent certificate gets (every recorded one shows it)
CERTIFICATE_ID = "certificate_3221322"
INSURANCE_PER_PASSENGER = 30
PRICE_PER_NONFREE_BAG = 50

#: the airport list: a constant of the tool (not derived from the flights), (IATA code, city)
#: in the order the recordings show it
AIRPORTS: tuple[tuple[str, str], ...] = (
    ("SFO", "San Francisco"),
    ("JFK", "New York"),
    ("LAX", "Los Angeles"),
    ("ORD", "Chicago"),
    ("DFW", "Dallas"),
    ("DEN", "Denver"),
    ("SEA", "Seattle"),
    ("ATL", "Atlanta"),
    ("MIA", "Miami"),
    ("BOS", "Boston"),
    ("PHX", "Phoenix"),
    ("IAH", "Houston"),
    ("LAS", "Las Vegas"),
    ("MCO", "Orlando"),
    ("EWR", "Newark"),
    ("CLT", "Charlotte"),
    ("MSP", "Minneapolis"),
    ("DTW", "Detroit"),
    ("PHL", "Philadelphia"),
    ("LGA", "LaGuardia"),
)


def _bump(code: str) -> str:
    """The next id after ``code`` in A..Z letters (HATHAT -> HATHAU, HATHAZ -> HATHBA)."""
    letters = list(code)
    for i in range(len(letters) - 1, -1, -1):
        if letters[i] != "Z":
            letters[i] = chr(ord(letters[i]) + 1)
            return "".join(letters)
        letters[i] = "A"
    return "A" + "".join(letters)


def new_reservation_id(state: WorldState) -> str:
    """The id a new reservation gets: the first of HATHAT, HATHAU, ... not taken yet."""
    code = FIRST_RESERVATION_ID
    while state.has("reservations", code):
        code = _bump(code)
    return code


def free_certificate_id(payment_methods: dict[str, Any]) -> str:
    """The id a sent certificate gets in a profile holding ``payment_methods``: the recorded
    one, or (not recorded) the next free number after it."""
    certificate_id = CERTIFICATE_ID
    while certificate_id in payment_methods:
        certificate_id = f"certificate_{int(certificate_id.split('_')[1]) + 1}"
    return certificate_id


def next_day(date: str) -> str:
    """The day after ``date`` (an ISO date), or "" for a date no flight has: a one-stop
    search's second leg then finds nothing."""
    try:
        return (dt.date.fromisoformat(date) + dt.timedelta(days=1)).isoformat()
    except ValueError:
        return ""


# ---------------------------------------------------------------------- calculator

#: what ``calculate`` accepts: digits, the four operations, brackets, a point and spaces (a
#: newline is refused: one recorded call shows it)
CALCULATOR_CHARACTERS = frozenset("0123456789+-*/(). ")

_OPS: dict[type, Callable[..., Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}


def _evaluate(node: ast.AST) -> Any:
    # arithmetic only: a calculator, never an eval of what a model wrote (ints stay exact until
    # the end; ``**`` and ``//`` are what the allowed characters spell)
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_evaluate(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > 64:
            raise ToolError("exponent too large")
        return _OPS[type(node.op)](left, right)
    raise ToolError("invalid expression")


def arithmetic(expression: str) -> Any:
    """The value of ``expression`` (already checked against :data:`CALCULATOR_CHARACTERS`) as
    Python computes it. Raises :class:`ToolError` (the refusal in lower case: each world words it), or Python's own SyntaxError (its text as
    τ²'s reads: "'(' was never closed (<string>, line 1)"), ArithmeticError ("division by
    zero"), ValueError or TypeError (a complex power)."""
    return _evaluate(ast.parse(expression.strip(), filename="<string>", mode="eval"))
