"""The airline tools that change an existing reservation: its baggage, its flights, its
passengers.

A change that costs money is paid with one method of the reservation owner's profile: a
certificate cannot pay for it, a gift card must hold the amount (and is charged it), a credit
card always can. Every check runs before the first write.
"""

from __future__ import annotations

import copy
from typing import Any

from rejudge.suites.worlds._airline import PRICE_PER_NONFREE_BAG

from rejudge.model import CallResult, WorldState

from ._results import ToolFailure, entry, ok, payment_method, priced_flight, reservation_of, user_of

__all__ = ["UPDATE_TOOLS"]


def _check_payment(state: WorldState, user_id: str, payment_id: str, amount: int | float) -> None:
    method = payment_method(user_of(state, user_id), payment_id)
    if method is None:
        raise ToolFailure("payment method not found")
    if method.get("source") == "certificate":
        raise ToolFailure("certificate cannot be used to update reservation")
    if method.get("source") == "gift_card" and method["amount"] < amount:
        raise ToolFailure("gift card balance is not enough")


def _charge(
    state: WorldState, reservation: dict[str, Any], payment_id: str, amount: int | float
) -> None:
    """Charge ``amount`` (a refund when negative) to an already checked method."""
    user = state.edit("users", reservation["user_id"])
    method = user["payment_methods"][payment_id]
    if method.get("source") == "gift_card":
        method["amount"] -= amount
    reservation["payment_history"].append({"payment_id": payment_id, "amount": amount})


def update_reservation_baggages(
    state: WorldState,
    reservation_id: str,
    total_baggages: int,
    nonfree_baggages: int,
    payment_id: str,
) -> CallResult:
    current = reservation_of(state, reservation_id)
    # fewer paid bags than before is no refund: only added ones are charged
    price = PRICE_PER_NONFREE_BAG * max(0, nonfree_baggages - current["nonfree_baggages"])
    _check_payment(state, current["user_id"], payment_id, price)
    reservation = state.edit("reservations", reservation_id)
    reservation["total_baggages"] = total_baggages
    reservation["nonfree_baggages"] = nonfree_baggages
    if price != 0:
        _charge(state, reservation, payment_id, price)
    return ok(reservation)


def update_reservation_flights(
    state: WorldState,
    reservation_id: str,
    cabin: str,
    flights: list[dict[str, Any]],
    payment_id: str,
) -> CallResult:
    current = reservation_of(state, reservation_id)
    seats = len(current["passengers"])
    new_flights, new_total = [], 0
    for item in flights:
        kept = next(
            (
                old
                for old in current["flights"]
                if old["flight_number"] == item["flight_number"] and old["date"] == item["date"]
            ),
            None,
        )
        if kept is not None and cabin == current["cabin"]:
            # a flight the reservation already holds, in its cabin, keeps the price paid (not
            # today's) and is not checked again: it may have left or be full by now
            route = state.get("flights", item["flight_number"]) or kept
            price, shown = kept["price"], entry(item, kept["price"], route)
        else:
            price, shown = priced_flight(state, item, cabin, seats)
        new_flights.append(shown)
        new_total += price
    old_total = sum(flight["price"] for flight in current["flights"])
    difference = (new_total - old_total) * seats
    _check_payment(state, current["user_id"], payment_id, difference)
    reservation = state.edit("reservations", reservation_id)
    reservation["flights"] = new_flights
    # τ-bench never writes the new cabin: the recordings show the old one after a change of
    # cabin, though the new flights are priced in the new one
    if difference != 0:
        _charge(state, reservation, payment_id, difference)
    return ok(reservation)


def update_reservation_passengers(
    state: WorldState, reservation_id: str, passengers: list[dict[str, Any]]
) -> CallResult:
    current = reservation_of(state, reservation_id)
    if len(passengers) != len(current["passengers"]):
        raise ToolFailure("number of passengers does not match")
    reservation = state.edit("reservations", reservation_id)
    reservation["passengers"] = copy.deepcopy(passengers)
    return ok(reservation)


UPDATE_TOOLS = {
    "update_reservation_baggages": update_reservation_baggages,
    "update_reservation_flights": update_reservation_flights,
    "update_reservation_passengers": update_reservation_passengers,
}
