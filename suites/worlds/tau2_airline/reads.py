"""τ²'s airline reads, and its two tools without a database effect (``calculate``,
``transfer_to_human_agents``). Results are records as ``json.dumps`` gives them, or a bare word
(a flight's status)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rejudge.suites._errors import ToolError
from rejudge.suites.worlds._airline import (
    AIRPORTS,
    CALCULATOR_CHARACTERS,
    arithmetic,
    next_day,
)
from rejudge.suites.worlds._tau2 import _Refused
from rejudge.suites.worlds.tau2_airline.records import (
    dump,
    flight_record,
    reservation_record,
    user_record,
)

from rejudge.model import WorldState

__all__ = [
    "calculate",
    "get_flight_status",
    "get_reservation_details",
    "get_user_details",
    "list_all_airports",
    "search_direct_flight",
    "search_onestop_flight",
    "transfer_to_human_agents",
]


def get_user_details(state: WorldState, user_id: str) -> str:
    return dump(user_record(state, user_id))


def get_reservation_details(state: WorldState, reservation_id: str) -> str:
    return dump(reservation_record(state, reservation_id))


def list_all_airports(state: WorldState) -> str:
    return dump([{"iata": iata, "city": city} for iata, city in AIRPORTS])


def get_flight_status(state: WorldState, flight_number: str, date: str) -> str:
    day = flight_record(state, flight_number)["dates"].get(date)
    if day is None:
        raise _Refused(f"Flight {flight_number} not found on date {date}")
    return str(day["status"])


# ---------------------------------------------------------------------- flight searches


def _bookable(flight: dict[str, Any], date: str, shown_date: str | None) -> dict[str, Any] | None:
    """The flight as a search lists it on ``date`` (its route and times, that day's seats
    and prices, ``date`` as ``shown_date``), or None unless it can be booked that day."""
    day = flight["dates"].get(date)
    if day is None or day["status"] != "available":
        return None
    return {
        "flight_number": flight["flight_number"],
        "origin": flight["origin"],
        "destination": flight["destination"],
        "status": "available",
        "scheduled_departure_time_est": flight["scheduled_departure_time_est"],
        "scheduled_arrival_time_est": flight["scheduled_arrival_time_est"],
        "date": shown_date,
        "available_seats": day["available_seats"],
        "prices": day["prices"],
    }


def _departing(state: WorldState, origin: str) -> Iterator[dict[str, Any]]:
    # the table's own order, which is the order results are listed in
    for _, flight in state.items("flights"):
        if flight["origin"] == origin:
            yield flight


def search_direct_flight(state: WorldState, origin: str, destination: str, date: str) -> str:
    # a direct search shows no date on its flights (null), as recorded
    found = [
        shown
        for flight in _departing(state, origin)
        if flight["destination"] == destination
        and (shown := _bookable(flight, date, None)) is not None
    ]
    return dump(found)


def search_onestop_flight(state: WorldState, origin: str, destination: str, date: str) -> str:
    """Pairs of flights through one airport: the second leg leaves where the first lands, on
    the day it lands (the next day when its arrival time ends in ``+1``) and not before it
    lands; each leg shows the day it flies."""
    found = []
    for first in _departing(state, origin):
        if first["destination"] == destination:
            continue
        leg1 = _bookable(first, date, date)
        if leg1 is None:
            continue
        arrival = str(first["scheduled_arrival_time_est"])
        date2 = next_day(date) if arrival.endswith("+1") else date
        arrival = arrival.removesuffix("+1")
        for second in _departing(state, first["destination"]):
            if second["destination"] != destination:
                continue
            if second["scheduled_departure_time_est"] < arrival:
                continue
            leg2 = _bookable(second, date2, date2)
            if leg2 is not None:
                found.append([leg1, leg2])
    return dump(found)


# ---------------------------------------------------------------------- tools without effect


def calculate(state: WorldState, expression: str) -> str:
    if not set(expression) <= CALCULATOR_CHARACTERS:
        raise _Refused("Invalid characters in expression")
    try:
        return str(round(float(arithmetic(expression)), 2))
    except ToolError as exc:
        raise _Refused(str(exc).capitalize()) from None
    except (SyntaxError, ArithmeticError, ValueError, TypeError) as exc:
        # any other error is its bare text, as τ²'s ("division by zero")
        raise _Refused(str(exc)) from None


def transfer_to_human_agents(state: WorldState, summary: str) -> str:
    return "Transfer successful"
