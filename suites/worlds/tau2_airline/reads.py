"""τ²'s airline reads, and its two tools without a database effect (``calculate``,
``transfer_to_human_agents``). Results are records as ``json.dumps`` gives them, or a bare word
(a flight's status)."""

from __future__ import annotations

import ast
import datetime as dt
import operator
from collections.abc import Callable, Iterator
from typing import Any

from rejudge.suites.worlds.tau2_airline.records import (
    _Refused,
    dump,
    flight_record,
    reservation_record,
    user_record,
)

from rejudge.model import WorldState

__all__ = [
    "AIRPORTS",
    "calculate",
    "get_flight_status",
    "get_reservation_details",
    "get_user_details",
    "list_all_airports",
    "search_direct_flight",
    "search_onestop_flight",
    "transfer_to_human_agents",
]

#: the airport list is a constant of the tool (not derived from the flights), in the order the
#: three recorded calls show it
AIRPORTS = [
    {"iata": iata, "city": city}
    for iata, city in (
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
]


def get_user_details(state: WorldState, user_id: str) -> str:
    return dump(user_record(state, user_id))


def get_reservation_details(state: WorldState, reservation_id: str) -> str:
    return dump(reservation_record(state, reservation_id))


def list_all_airports(state: WorldState) -> str:
    return dump(AIRPORTS)


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


def _next_day(date: str) -> str:
    try:
        return (dt.date.fromisoformat(date) + dt.timedelta(days=1)).isoformat()
    except ValueError:
        return ""  # a date no flight has: the second leg then finds nothing


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
        date2 = _next_day(date) if arrival.endswith("+1") else date
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

_ALLOWED = frozenset("0123456789+-*/(). ")
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


def _arith(node: ast.AST) -> Any:
    # arithmetic only: a calculator, never an eval of what a model wrote
    if isinstance(node, ast.Expression):
        return _arith(node.body)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_arith(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _arith(node.left), _arith(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > 64:
            raise _Refused("Exponent too large")
        return _OPS[type(node.op)](left, right)
    raise _Refused("Invalid expression")


def calculate(state: WorldState, expression: str) -> str:
    # only digits, the four operations, brackets, a point and spaces (a newline is refused:
    # one recorded call shows it)
    if not set(expression) <= _ALLOWED:
        raise _Refused("Invalid characters in expression")
    try:
        # "<string>": a syntax error reads as τ²'s does ("'(' was never closed (<string>,
        # line 1)"), and any error is its bare text ("division by zero")
        value = _arith(ast.parse(expression.strip(), filename="<string>", mode="eval"))
        return str(round(float(value), 2))
    except (SyntaxError, ArithmeticError, ValueError, TypeError) as exc:
        raise _Refused(str(exc)) from None


def transfer_to_human_agents(state: WorldState, summary: str) -> str:
    return "Transfer successful"
