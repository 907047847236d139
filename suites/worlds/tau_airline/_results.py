"""How the airline tools word what they give back, and the lookups every tool shares.

τ-bench's tools return strings: a record as ``json.dumps`` writes it by default (``", "`` and
``": "`` separators, non-ASCII escaped, keys in the record's own order), a plain sentence, or an
``Error: ...`` text. Results are compared with the recordings byte for byte, so every tool goes
through these helpers rather than formatting on its own.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from rejudge.suites._errors import ToolError

from rejudge.model import CallResult, WorldState

__all__ = [
    "ToolFailure",
    "dumps",
    "entry",
    "error",
    "ok",
    "priced_flight",
    "reservation_of",
    "user_of",
]


#: a tool's refusal, raised from deep in a tool and turned into ``Error: <message>`` (the
#: suites' ToolError: what a sandbox tool raises for the model to see as its result)
ToolFailure = ToolError


def dumps(value: Any) -> str:
    # json.dumps' defaults are what τ-bench's tools used: keep them (no sort, no compaction)
    return json.dumps(value)


def ok(value: Any) -> CallResult:
    return CallResult(True, value if isinstance(value, str) else dumps(value))


def error(message: str) -> CallResult:
    return CallResult(False, f"Error: {message}")


def user_of(state: WorldState, user_id: str) -> dict[str, Any]:
    user: dict[str, Any] | None = state.get("users", user_id)
    if user is None:
        raise ToolFailure("user not found")
    return user


def reservation_of(state: WorldState, reservation_id: str) -> dict[str, Any]:
    reservation: dict[str, Any] | None = state.get("reservations", reservation_id)
    if reservation is None:
        raise ToolFailure("reservation not found")
    return reservation


def priced_flight(
    state: WorldState, item: dict[str, Any], cabin: str, seats: int
) -> tuple[int | float, dict[str, Any]]:
    """One requested flight (``{flight_number, date}``) checked bookable for ``seats`` seats in
    ``cabin``, with its price per seat and the reservation entry it becomes.

    The entry is the request as the model wrote it with ``price``, ``origin`` and
    ``destination`` set: a key the model sent keeps its place (the recordings show
    ``{"origin", "destination", "flight_number", "date", "price"}`` when the model sent the
    first two), the others follow in that order.
    """
    number, date = item["flight_number"], item["date"]
    flight = state.get("flights", number)
    if flight is None:
        raise ToolFailure(f"flight {number} not found")
    day = flight.get("dates", {}).get(date)
    if day is None or day.get("status") != "available":
        raise ToolFailure(f"flight {number} not available on date {date}")
    if cabin not in day.get("prices", {}):
        raise ToolFailure(f"cabin {cabin} not found")
    if day["available_seats"][cabin] < seats:
        raise ToolFailure(f"not enough seats on flight {number}")
    price = day["prices"][cabin]
    return price, entry(item, price, flight)


def entry(item: dict[str, Any], price: int | float, flight: dict[str, Any]) -> dict[str, Any]:
    """A reservation's flight entry: the request, then its price and its route."""
    shown = copy.deepcopy(item)
    shown["price"] = price
    shown["origin"] = flight["origin"]
    shown["destination"] = flight["destination"]
    return shown
