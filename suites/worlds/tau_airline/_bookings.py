"""The airline tools that create or end things: booking a reservation, cancelling one, and
sending a user a certificate.

Every check runs before the first write, so a refused call returns its ``Error: ...`` with the
state untouched (and :meth:`rejudge.model.World.execute` rolls back anything a bug left).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from rejudge.suites.worlds._airline import (
    CREATED_AT,
    book_payments,
    cancel,
    free_certificate_id,
    priced_booking,
)

from rejudge.model import CallResult, WorldState

from ._results import ok, priced_flight, reservation_of, user_of

__all__ = ["BOOKING_TOOLS"]


def book_reservation(
    state: WorldState,
    user_id: str,
    origin: str,
    destination: str,
    flight_type: str,
    cabin: str,
    flights: list[dict[str, Any]],
    passengers: list[dict[str, Any]],
    payment_methods: list[dict[str, Any]],
    total_baggages: int,
    nonfree_baggages: int,
    insurance: str,
) -> CallResult:
    user = user_of(state, user_id)
    booked, total = priced_booking(
        flights,
        len(passengers),
        insurance,
        nonfree_baggages,
        lambda item, seats: priced_flight(state, item, cabin, seats),
    )

    reservation_id = book_payments(state, user_id, user, payment_methods, total)
    reservation = {
        "reservation_id": reservation_id,
        "user_id": user_id,
        "origin": origin,
        "destination": destination,
        "flight_type": flight_type,
        "cabin": cabin,
        "flights": booked,
        "passengers": copy.deepcopy(passengers),
        "payment_history": copy.deepcopy(payment_methods),
        "created_at": CREATED_AT,
        "total_baggages": total_baggages,
        "nonfree_baggages": nonfree_baggages,
        "insurance": insurance,
    }
    state.put("reservations", reservation_id, reservation)
    return ok(reservation)


def cancel_reservation(state: WorldState, reservation_id: str) -> CallResult:
    reservation_of(state, reservation_id)
    return ok(cancel(state, reservation_id))


def send_certificate(state: WorldState, user_id: str, amount: int | float) -> CallResult:
    user_of(state, user_id)
    user = state.edit("users", user_id)
    certificate_id = free_certificate_id(user["payment_methods"])
    user["payment_methods"][certificate_id] = {
        "source": "certificate",
        "amount": amount,
        "id": certificate_id,
    }
    return ok(f"Certificate {certificate_id} added to user {user_id} with amount {amount}.")


BOOKING_TOOLS: dict[str, Callable[..., CallResult]] = {
    "book_reservation": book_reservation,
    "cancel_reservation": cancel_reservation,
    "send_certificate": send_certificate,
}
