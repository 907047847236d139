"""τ²'s airline writes: each checks every rule first (a refusal changes nothing), then edits the
records it changes and gives back the changed reservation (or, for a certificate, a sentence).

Money: a booking or a change is paid with methods of the reservation owner's profile. A gift
card must hold the amount and is charged it; a certificate pays a booking whole (it leaves the
profile) and cannot pay a change; a credit card always can. What a reservation paid, and every
refund, is an entry of its payment history (a refund negative).
"""

from __future__ import annotations

from typing import Any

from rejudge.suites.worlds._airline import (
    CREATED_AT,
    book_payments,
    cancel,
    change_baggages,
    change_flights,
    free_certificate_id,
    priced_booking,
)
from rejudge.suites.worlds._tau2 import _Refused
from rejudge.suites.worlds.tau2_airline.records import (
    dump,
    flight_record,
    passenger,
    reservation_record,
    user_record,
)

from rejudge.model import WorldState

__all__ = [
    "book_reservation",
    "cancel_reservation",
    "send_certificate",
    "update_reservation_baggages",
    "update_reservation_flights",
    "update_reservation_passengers",
]


def _priced(
    state: WorldState, item: dict[str, Any], cabin: str, seats: int
) -> tuple[int, dict[str, Any]]:
    """One requested flight (``{flight_number, date}``) checked bookable for ``seats`` seats in
    ``cabin``: its price per seat and the reservation entry it becomes."""
    number, date = item["flight_number"], item["date"]
    flight = flight_record(state, number)
    day = flight["dates"].get(date)
    if day is None or day["status"] != "available":
        raise _Refused(f"Flight {number} not available on date {date}")
    if day["available_seats"].get(cabin, 0) < seats:
        raise _Refused(f"Not enough seats on flight {number}")
    price = day["prices"][cabin]
    return price, _entry(flight, date, price)


def _entry(flight: dict[str, Any], date: str, price: int) -> dict[str, Any]:
    return {
        "flight_number": flight["flight_number"],
        "origin": flight["origin"],
        "destination": flight["destination"],
        "date": date,
        "price": price,
    }


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
) -> str:
    user = user_record(state, user_id)
    people = [passenger(p) for p in passengers]
    booked, total = priced_booking(
        flights, len(people), insurance, nonfree_baggages, lambda i, n: _priced(state, i, cabin, n)
    )

    # a payment keeps only its model's two fields
    payments = [{"payment_id": p["payment_id"], "amount": p["amount"]} for p in payment_methods]
    reservation_id = book_payments(state, user_id, user, payments, total)
    for shown in booked:
        # the seats are taken (and stay taken when the reservation is cancelled: the oracle,
        # τ²'s own environment, shows both)
        flight = state.edit("flights", shown["flight_number"])
        flight["dates"][shown["date"]]["available_seats"][cabin] -= len(people)
    reservation = {
        "reservation_id": reservation_id,
        "user_id": user_id,
        "origin": origin,
        "destination": destination,
        "flight_type": flight_type,
        "cabin": cabin,
        "flights": booked,
        "passengers": people,
        "payment_history": payments,
        "created_at": CREATED_AT,
        "total_baggages": total_baggages,
        "nonfree_baggages": nonfree_baggages,
        "insurance": insurance,
        "status": None,
    }
    state.put("reservations", reservation_id, reservation)
    return dump(reservation)


def cancel_reservation(state: WorldState, reservation_id: str) -> str:
    reservation_record(state, reservation_id)
    return dump(cancel(state, reservation_id))


def send_certificate(state: WorldState, user_id: str, amount: int | float) -> str:
    user_record(state, user_id)
    user = state.edit("users", user_id)
    certificate_id = free_certificate_id(user["payment_methods"])
    user["payment_methods"][certificate_id] = {
        "source": "certificate",
        "id": certificate_id,
        "amount": float(amount),  # money a user holds is a float
    }
    return f"Certificate {certificate_id} added to user {user_id} with amount {amount}."


# ---------------------------------------------------------------------- changes
# (checked, paid and written as τ-bench's are: rejudge.suites.worlds._airline; its lower-case
# refusals are capitalised by tools.run)


def update_reservation_baggages(
    state: WorldState,
    reservation_id: str,
    total_baggages: int,
    nonfree_baggages: int,
    payment_id: str,
) -> str:
    current = reservation_record(state, reservation_id)
    return dump(
        change_baggages(
            state,
            user_record,
            reservation_id,
            current,
            total_baggages,
            nonfree_baggages,
            payment_id,
        )
    )


def update_reservation_flights(
    state: WorldState,
    reservation_id: str,
    cabin: str,
    flights: list[dict[str, Any]],
    payment_id: str,
) -> str:
    current = reservation_record(state, reservation_id)
    changed = change_flights(
        state,
        user_record,
        reservation_id,
        current,
        cabin,
        flights,
        payment_id,
        price_flight=lambda item, seats: _priced(state, item, cabin, seats),
        # a held flight stays as it was booked (τ²'s model form)
        keep_flight=lambda _item, kept: dict(kept),
        writes_cabin=True,
    )
    return dump(changed)


def update_reservation_passengers(
    state: WorldState, reservation_id: str, passengers: list[dict[str, Any]]
) -> str:
    current = reservation_record(state, reservation_id)
    people = [passenger(p) for p in passengers]
    if len(people) != len(current["passengers"]):
        raise _Refused("Number of passengers does not match")
    reservation = state.edit("reservations", reservation_id)
    reservation["passengers"] = people
    return dump(reservation)
