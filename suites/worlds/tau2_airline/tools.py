"""τ²-bench's airline tools, written here from its documented behaviour and recorded results.

Nothing of τ²'s code is copied: each behaviour was read off the 2,176 recorded calls and results
of the five shared airline runs (``suites/importers/data/tau2-bench/*airline*.json``: τ² at
8d005b0, c5b2d228 and ade3949, whose airline tools and database are the same), τ²'s airline
policy, and what τ-bench's airline tools (from which τ²'s descend) were documented to do. The
re-execution test holds each one to the recordings byte for byte. What they show:

- a record prints as τ²'s model of it (:mod:`.records`): a reservation ends with ``status``,
  a search lists ``flight_number, origin, destination, status, ...`` with ``date`` null for a
  direct search and the leg's day for a one-stop search; a flight's status is the bare word;
- a refusal is ``Error: <Reason>`` (capitalised, unlike τ-bench's) and changes nothing;
- a booking is ``HATHAT`` stamped ``2024-05-15T15:00:00``; a certificate is
  ``certificate_3221322``; ``calculate`` refuses any character but digits, operators,
  brackets, a point and a space (a newline included).

Arguments are checked against :data:`SIGNATURES` before a tool runs (τ² validates them as typed
models); a missing, unknown or mistyped argument is refused in this world's own words.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rejudge.suites.worlds.tau2_airline.reads import (
    calculate,
    get_flight_status,
    get_reservation_details,
    get_user_details,
    list_all_airports,
    search_direct_flight,
    search_onestop_flight,
    transfer_to_human_agents,
)
from rejudge.suites.worlds.tau2_airline.records import _Refused
from rejudge.suites.worlds.tau2_airline.writes import (
    book_reservation,
    cancel_reservation,
    send_certificate,
    update_reservation_baggages,
    update_reservation_flights,
    update_reservation_passengers,
)

from rejudge.model import CallResult, WorldState

__all__ = ["READ_TOOLS", "SIGNATURES", "TERMINAL_TOOLS", "TOOLS", "check_arguments", "run"]

#: tools that only read the database, or have no effect at all
READ_TOOLS = frozenset(
    {
        "calculate",
        "get_flight_status",
        "get_reservation_details",
        "get_user_details",
        "list_all_airports",
        "search_direct_flight",
        "search_onestop_flight",
    }
)
#: the tool that ends the conversation (changes nothing)
TERMINAL_TOOLS = frozenset({"transfer_to_human_agents"})

TOOLS: dict[str, Callable[..., str]] = {
    fn.__name__: fn
    for fn in (
        book_reservation,
        calculate,
        cancel_reservation,
        get_flight_status,
        get_reservation_details,
        get_user_details,
        list_all_airports,
        search_direct_flight,
        search_onestop_flight,
        send_certificate,
        transfer_to_human_agents,
        update_reservation_baggages,
        update_reservation_flights,
        update_reservation_passengers,
    )
}

_FLIGHT = {"flight_number": "string", "date": "string"}
_PASSENGER = {"first_name": "string", "last_name": "string", "dob": "string"}
_PAYMENT = {"payment_id": "string", "amount": "integer"}
_ROUTE = {"origin": "string", "destination": "string", "date": "string"}

#: tool -> parameter -> JSON type, or (fields) for an array of objects; every parameter is
#: required. The names and types are those of every recorded call and ground-truth action.
SIGNATURES: dict[str, dict[str, Any]] = {
    "book_reservation": {
        "user_id": "string",
        "origin": "string",
        "destination": "string",
        "flight_type": "string",
        "cabin": "string",
        "flights": _FLIGHT,
        "passengers": _PASSENGER,
        "payment_methods": _PAYMENT,
        "total_baggages": "integer",
        "nonfree_baggages": "integer",
        "insurance": "string",
    },
    "calculate": {"expression": "string"},
    "cancel_reservation": {"reservation_id": "string"},
    "get_flight_status": {"flight_number": "string", "date": "string"},
    "get_reservation_details": {"reservation_id": "string"},
    "get_user_details": {"user_id": "string"},
    "list_all_airports": {},
    "search_direct_flight": _ROUTE,
    "search_onestop_flight": _ROUTE,
    "send_certificate": {"user_id": "string", "amount": "number"},
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
        "flights": _FLIGHT,
        "payment_id": "string",
    },
    "update_reservation_passengers": {"reservation_id": "string", "passengers": _PASSENGER},
}
assert set(SIGNATURES) == set(TOOLS), "every tool has a signature, and only tools do"


def _is(value: Any, kind: str) -> bool:
    # JSON's types as Python holds them: a boolean is no number
    if isinstance(value, bool):
        return False
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int)
    return isinstance(value, int | float)


def check_arguments(tool: str, arguments: dict[str, Any]) -> str | None:
    """Why ``arguments`` cannot be passed to ``tool``, or None if they can. An object in an
    array may carry more fields than its model's: they are dropped, as τ²'s models drop them."""
    signature = SIGNATURES[tool]
    unexpected = sorted(set(arguments) - set(signature))
    if unexpected:
        return f"Unexpected argument {unexpected[0]!r} for {tool}"
    for name, kind in signature.items():
        if name not in arguments:
            return f"Missing argument {name!r} for {tool}"
        value = arguments[name]
        if isinstance(kind, dict):
            if not isinstance(value, list) or not all(isinstance(i, dict) for i in value):
                return f"Argument {name!r} must be an array of objects"
            for item in value:
                for field, field_kind in kind.items():
                    if not _is(item.get(field), field_kind):
                        return f"Argument {name!r}: every item needs {field!r} as {field_kind}"
        elif not _is(value, kind):
            return f"Argument {name!r} must be {'an' if kind == 'integer' else 'a'} {kind}"
    return None


def run(state: WorldState, name: str, arguments: dict[str, Any]) -> CallResult:
    """Run one tool; a refusal is a failed result in τ²'s wording (the world rolls it back)."""
    problem = check_arguments(name, arguments)
    if problem is not None:
        return CallResult(False, f"Error: {problem}")
    try:
        return CallResult(True, TOOLS[name](state, **arguments))
    except _Refused as exc:
        return CallResult(False, f"Error: {exc}")
