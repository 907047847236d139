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
    INSURANCE_PER_PASSENGER,
    PRICE_PER_NONFREE_BAG,
    free_certificate_id,
    new_reservation_id,
)
from rejudge.suites.worlds.tau2_airline.records import (
    _Refused,
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


def _method(user: dict[str, Any], payment_id: str) -> dict[str, Any]:
    method = user["payment_methods"].get(payment_id)
    if method is None:
        raise _Refused(f"Payment method {payment_id} not found")
    return method


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
    booked, total = [], 0
    for item in flights:
        price, shown = _priced(state, item, cabin, len(people))
        booked.append(shown)
        total += price * len(people)
    if insurance == "yes":
        total += INSURANCE_PER_PASSENGER * len(people)
    total += PRICE_PER_NONFREE_BAG * nonfree_baggages

    payments = [{"payment_id": p["payment_id"], "amount": p["amount"]} for p in payment_methods]
    for payment in payments:
        method = _method(user, payment["payment_id"])
        if (
            method["source"] in ("gift_card", "certificate")
            and method["amount"] < payment["amount"]
        ):
            raise _Refused(f"Not enough balance in payment method {payment['payment_id']}")
    paid = sum(payment["amount"] for payment in payments)
    if paid != total:
        raise _Refused(f"Payment amount does not add up, total price is {total}, but paid {paid}")

    reservation_id = new_reservation_id(state)
    owner = state.edit("users", user_id)
    for payment in payments:
        method = owner["payment_methods"][payment["payment_id"]]
        if method["source"] == "gift_card":
            method["amount"] -= payment["amount"]
        elif method["source"] == "certificate":
            # a certificate is spent whole: it leaves the profile
            del owner["payment_methods"][payment["payment_id"]]
    owner["reservations"].append(reservation_id)
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
    reservation = state.edit("reservations", reservation_id)
    # every payment is refunded to where it came from, a negative entry of the history
    refunds = [
        {"payment_id": payment["payment_id"], "amount": -payment["amount"]}
        for payment in reservation["payment_history"]
    ]
    reservation["payment_history"].extend(refunds)
    reservation["status"] = "cancelled"
    return dump(reservation)


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


def _check_payment(state: WorldState, user_id: str, payment_id: str, amount: int) -> None:
    # a change names no id when its method is missing (a booking does)
    method = user_record(state, user_id)["payment_methods"].get(payment_id)
    if method is None:
        raise _Refused("Payment method not found")
    if method["source"] == "certificate":
        raise _Refused("Certificate cannot be used to update reservation")
    if method["source"] == "gift_card" and method["amount"] < amount:
        raise _Refused("Gift card balance is not enough")


def _charge(state: WorldState, reservation: dict[str, Any], payment_id: str, amount: int) -> None:
    """Charge ``amount`` (a refund when negative) to an already checked method."""
    user = state.edit("users", reservation["user_id"])
    method = user["payment_methods"][payment_id]
    if method["source"] == "gift_card":
        method["amount"] -= amount
    reservation["payment_history"].append({"payment_id": payment_id, "amount": amount})


def update_reservation_baggages(
    state: WorldState,
    reservation_id: str,
    total_baggages: int,
    nonfree_baggages: int,
    payment_id: str,
) -> str:
    current = reservation_record(state, reservation_id)
    # fewer paid bags than before is no refund: only added ones are charged
    price = PRICE_PER_NONFREE_BAG * max(0, nonfree_baggages - current["nonfree_baggages"])
    _check_payment(state, current["user_id"], payment_id, price)
    reservation = state.edit("reservations", reservation_id)
    reservation["total_baggages"] = total_baggages
    reservation["nonfree_baggages"] = nonfree_baggages
    if price != 0:
        _charge(state, reservation, payment_id, price)
    return dump(reservation)


def update_reservation_flights(
    state: WorldState,
    reservation_id: str,
    cabin: str,
    flights: list[dict[str, Any]],
    payment_id: str,
) -> str:
    current = reservation_record(state, reservation_id)
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
            # a flight the reservation holds, in its cabin, keeps the price paid and is not
            # checked again (it may have left or be full by now)
            price, shown = kept["price"], dict(kept)
        else:
            price, shown = _priced(state, item, cabin, seats)
        new_flights.append(shown)
        new_total += price
    old_total = sum(flight["price"] for flight in current["flights"])
    difference = (new_total - old_total) * seats
    _check_payment(state, current["user_id"], payment_id, difference)
    reservation = state.edit("reservations", reservation_id)
    reservation["flights"] = new_flights
    reservation["cabin"] = cabin
    if difference != 0:
        _charge(state, reservation, payment_id, difference)
    return dump(reservation)


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
