"""The airline world: τ-bench's database and its 14 tools, executed on a copy-on-write state,
and the check a call's arguments go through before its tool runs.

The argument table restates τ-bench's 14 function schemas (``tools.json``; a test holds the two
in step): each parameter's JSON type, and for an array the fields its items must carry. τ-bench
itself passes the arguments to its Python functions as they come, so a missing or unknown
keyword, or a value of another type, ends in a Python exception there; none occurs in the
recordings, so the check words its refusal plainly instead (``Error: missing argument
'insurance' for book_reservation``), and a tool body can rely on the types it is given.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from rejudge.model import CallResult, World, WorldState

from ._bookings import BOOKING_TOOLS
from ._data import NAME, VERSION
from ._reads import READ_TOOLS
from ._results import ToolFailure, error
from ._updates import UPDATE_TOOLS

__all__ = ["SIGNATURES", "AirlineWorld", "check_arguments"]

_FLIGHT = {"flight_number": "string", "date": "string"}
_PASSENGER = {"first_name": "string", "last_name": "string", "dob": "string"}
_PAYMENT = {"payment_id": "string", "amount": "number"}

# tool -> parameter -> JSON type, or ("array", {field: type}) for a list of objects; every
# parameter is required (as in every one of the 14 schemas)
SIGNATURES: dict[str, dict[str, Any]] = {
    "book_reservation": {
        "user_id": "string",
        "origin": "string",
        "destination": "string",
        "flight_type": "string",
        "cabin": "string",
        "flights": ("array", _FLIGHT),
        "passengers": ("array", _PASSENGER),
        "payment_methods": ("array", _PAYMENT),
        "total_baggages": "integer",
        "nonfree_baggages": "integer",
        "insurance": "string",
    },
    "calculate": {"expression": "string"},
    "cancel_reservation": {"reservation_id": "string"},
    "get_reservation_details": {"reservation_id": "string"},
    "get_user_details": {"user_id": "string"},
    "list_all_airports": {},
    "search_direct_flight": {"origin": "string", "destination": "string", "date": "string"},
    "search_onestop_flight": {"origin": "string", "destination": "string", "date": "string"},
    "send_certificate": {"user_id": "string", "amount": "number"},
    "think": {"thought": "string"},
    "transfer_to_human_agents": {"summary": "string"},
    "update_reservation_baggages": {
        "reservation_id": "string",
        "total_baggages": "integer",
        "nonfree_baggages": "integer",
        "payment_id": "string",
    },
    "update_reservation_flights": {
        "reservation_id": "string",
        "cabin": "string",
        "flights": ("array", _FLIGHT),
        "payment_id": "string",
    },
    "update_reservation_passengers": {
        "reservation_id": "string",
        "passengers": ("array", _PASSENGER),
    },
}


def _is(value: Any, kind: str) -> bool:
    # JSON's types as Python holds them: a boolean is no number, an integer is a number
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    raise ValueError(kind)


_ARTICLE = {"string": "a string", "integer": "an integer", "number": "a number"}


def _check_items(name: str, value: Any, fields: dict[str, str]) -> str | None:
    if not isinstance(value, list):
        return f"argument {name!r} must be an array, not {_json_type(value)}"
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            return f"argument {name!r}: item {i} must be an object, not {_json_type(item)}"
        for field, kind in fields.items():
            if field not in item:
                return f"argument {name!r}: item {i} is missing {field!r}"
            if not _is(item[field], kind):
                return f"argument {name!r}: item {i}'s {field!r} must be {_ARTICLE[kind]}"
    return None


def _json_type(value: Any) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string"}
    if value is None:
        return "null"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return names.get(type(value), type(value).__name__)


def check_arguments(tool: str, arguments: Any) -> str | None:
    """Why ``arguments`` cannot be passed to ``tool`` (a sentence), or None if they can.
    Items of an array may carry fields beyond the required ones (τ-bench keeps them)."""
    signature = SIGNATURES[tool]
    if not isinstance(arguments, dict):
        return f"arguments must be an object, not {_json_type(arguments)}"
    unexpected = sorted(set(arguments) - set(signature))
    if unexpected:
        return f"unexpected argument {unexpected[0]!r} for {tool}"
    for name, kind in signature.items():
        if name not in arguments:
            return f"missing argument {name!r} for {tool}"
        value = arguments[name]
        if isinstance(kind, tuple):
            problem = _check_items(name, value, kind[1])
            if problem is not None:
                return problem
        elif not _is(value, kind):
            return f"argument {name!r} must be {_ARTICLE[kind]}, not {_json_type(value)}"
    return None


_TOOLS: dict[str, Callable[..., CallResult]] = {**READ_TOOLS, **BOOKING_TOOLS, **UPDATE_TOOLS}
assert set(_TOOLS) == set(SIGNATURES), "every tool has a signature, and only tools do"
_TOOL_NAMES = frozenset(_TOOLS)


class AirlineWorld(World):
    """τ-bench's airline world at commit 7362a17. Every result is the string τ-bench's tool
    gave back: a record as JSON, a sentence, or ``Error: ...`` (a failed call, which changes
    nothing)."""

    name: ClassVar[str] = NAME
    version: ClassVar[str] = VERSION
    # τ-bench ends the episode on this tool, and skips it when it replays the ground truth
    terminal_tools: ClassVar[frozenset[str]] = frozenset({"transfer_to_human_agents"})

    def tool_names(self) -> frozenset[str]:
        return _TOOL_NAMES

    def call(self, state: WorldState, name: str, arguments: dict[str, Any]) -> CallResult:
        tool = _TOOLS.get(name)
        if tool is None:
            return error(f"unknown tool {name!r}")
        problem = check_arguments(name, arguments)
        if problem is not None:
            return error(problem)
        try:
            return tool(state, **arguments)
        except ToolFailure as refusal:
            return error(str(refusal))

    def failure(self, name: str, exc: Exception) -> CallResult:
        # τ-bench words any exception a tool raises as "Error: " and the exception's text
        return error(str(exc))
