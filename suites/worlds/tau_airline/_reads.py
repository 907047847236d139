"""The airline tools that change nothing: lookups, flight searches, and the agent's scratch tools
(``think``, ``calculate``, ``transfer_to_human_agents``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from rejudge.suites._errors import ToolError
from rejudge.suites.worlds._airline import (
    AIRPORTS,
    CALCULATOR_CHARACTERS,
    arithmetic,
    next_day,
)

from rejudge.model import CallResult, WorldState

from ._results import error, ok, reservation_of, user_of

__all__ = ["READ_TOOLS"]


def get_user_details(state: WorldState, user_id: str) -> CallResult:
    return ok(user_of(state, user_id))


def get_reservation_details(state: WorldState, reservation_id: str) -> CallResult:
    return ok(reservation_of(state, reservation_id))


def list_all_airports(state: WorldState) -> CallResult:
    return ok(dict(AIRPORTS))


# ---------------------------------------------------------------------- flight searches


def _on_date(flight: dict[str, Any], date: str) -> dict[str, Any] | None:
    """The flight as a search shows it on ``date``, or None if it cannot be booked that day:
    its fields without the ``dates`` map, followed by that day's status, seats and prices."""
    day = flight.get("dates", {}).get(date)
    if day is None or day.get("status") != "available":
        return None
    shown = {key: value for key, value in flight.items() if key != "dates"}
    shown.update(day)
    return shown


def _departing(state: WorldState, origin: str | None) -> Iterator[dict[str, Any]]:
    # the table's own order, which is the order results are listed in
    for _, flight in state.items("flights"):
        if flight.get("origin") == origin:
            yield flight


def search_direct_flight(state: WorldState, origin: str, destination: str, date: str) -> CallResult:
    found = []
    for flight in _departing(state, origin):
        if flight.get("destination") == destination:
            shown = _on_date(flight, date)
            if shown is not None:
                found.append(shown)
    return ok(found)


def search_onestop_flight(
    state: WorldState, origin: str, destination: str, date: str
) -> CallResult:
    """Pairs of flights through one airport: the second leg leaves from where the first lands,
    on the day it lands (the next day when its arrival time ends in ``+1``), at or after the
    time it lands (a 0-minute connection counts, as in the recordings). Each leg carries its
    ``date``."""
    found = []
    for first in _departing(state, origin):
        if first.get("destination") == destination:
            continue
        leg1 = _on_date(first, date)
        if leg1 is None:
            continue
        arrival = str(first.get("scheduled_arrival_time_est", ""))
        overnight = arrival.endswith("+1")
        arrival = arrival.removesuffix("+1")
        date2 = next_day(date) if overnight else date
        for second in _departing(state, first.get("destination")):
            if second.get("destination") != destination:
                continue
            if second.get("scheduled_departure_time_est", "") < arrival:
                continue
            # τ-bench shows the second leg as it is on the day searched, even when it flies
            # the next day: the recordings pair next-day dates with that day's seats and
            # prices. Its status is checked on that day too (no recording tells that from
            # checking the next day: the two never differ in the searches made)
            leg2 = _on_date(second, date)
            if leg2 is None:
                continue
            found.append([{**leg1, "date": date}, {**leg2, "date": date2}])
    return ok(found)


# ---------------------------------------------------------------------- scratch tools


def think(state: WorldState, thought: str) -> CallResult:
    # the thought is only logged: the model gets an empty string back
    return ok("")


def transfer_to_human_agents(state: WorldState, summary: str) -> CallResult:
    # ends the conversation in τ-bench; here it is a reply and nothing else
    return ok("Transfer successful")


def calculate(state: WorldState, expression: str) -> CallResult:
    if not set(expression) <= CALCULATOR_CHARACTERS:
        return error("invalid characters in expression")
    try:
        value = float(arithmetic(expression))
    except ToolError as exc:
        return error(str(exc))
    except SyntaxError:
        return error("invalid expression")
    except ZeroDivisionError:
        return error("division by zero")
    except (ArithmeticError, ValueError, TypeError) as exc:  # overflow, a complex power
        return error(f"cannot calculate: {exc}")
    # the recordings show a float rounded to two places: "255.0" for "152 + 103"
    return ok(str(round(value, 2)))


READ_TOOLS: dict[str, Callable[..., CallResult]] = {
    "get_user_details": get_user_details,
    "get_reservation_details": get_reservation_details,
    "list_all_airports": list_all_airports,
    "search_direct_flight": search_direct_flight,
    "search_onestop_flight": search_onestop_flight,
    "think": think,
    "transfer_to_human_agents": transfer_to_human_agents,
    "calculate": calculate,
}
