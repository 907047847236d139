"""The airline tools that change an existing reservation: its baggage, its flights, its
passengers.

A change of baggage or flights is checked, paid and written as τ²'s is
(:mod:`rejudge.suites.worlds._airline`); every check runs before the first write.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from rejudge.suites.worlds._airline import change_baggages, change_flights

from rejudge.model import CallResult, WorldState

from ._results import ToolFailure, entry, ok, priced_flight, reservation_of, user_of

__all__ = ["UPDATE_TOOLS"]


def update_reservation_baggages(
    state: WorldState,
    reservation_id: str,
    total_baggages: int,
    nonfree_baggages: int,
    payment_id: str,
) -> CallResult:
    current = reservation_of(state, reservation_id)
    return ok(
        change_baggages(
            state, user_of, reservation_id, current, total_baggages, nonfree_baggages, payment_id
        )
    )


def _keep(item: dict[str, Any], kept: dict[str, Any], state: WorldState) -> dict[str, Any]:
    # the entry is rebuilt from the request, as a new one is (its keys in the model's order)
    route = state.get("flights", item["flight_number"]) or kept
    return entry(item, kept["price"], route)


def update_reservation_flights(
    state: WorldState,
    reservation_id: str,
    cabin: str,
    flights: list[dict[str, Any]],
    payment_id: str,
) -> CallResult:
    current = reservation_of(state, reservation_id)
    changed = change_flights(
        state,
        user_of,
        reservation_id,
        current,
        cabin,
        flights,
        payment_id,
        price_flight=lambda item, seats: priced_flight(state, item, cabin, seats),
        keep_flight=lambda item, kept: _keep(item, kept, state),
        # τ-bench never writes the new cabin: the recordings show the old one after a change
        # of cabin, though the new flights are priced in the new one
        writes_cabin=False,
    )
    return ok(changed)


def update_reservation_passengers(
    state: WorldState, reservation_id: str, passengers: list[dict[str, Any]]
) -> CallResult:
    current = reservation_of(state, reservation_id)
    if len(passengers) != len(current["passengers"]):
        raise ToolFailure("number of passengers does not match")
    reservation = state.edit("reservations", reservation_id)
    reservation["passengers"] = copy.deepcopy(passengers)
    return ok(reservation)


UPDATE_TOOLS: dict[str, Callable[..., CallResult]] = {
    "update_reservation_baggages": update_reservation_baggages,
    "update_reservation_flights": update_reservation_flights,
    "update_reservation_passengers": update_reservation_passengers,
}
