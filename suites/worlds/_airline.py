"""What τ-bench's airline world (``tau_airline``) and τ²'s (``tau2_airline``) do to the letter
alike: τ²'s airline tools descend from τ-bench's, and both worlds' recordings show the same
constants, airport list, reservation and certificate numbering, calculator, how a booking is
paid and a cancellation refunded, and the way a change of baggage or flights is checked, paid
and written.

Only behaviour is here, never wording: τ-bench words a refusal in lower case and τ² capitalises
it, and each prints its own records, so a shared rule raises a :class:`ToolError` with its
reason in lower case and each world words it its own way.
"""

from __future__ import annotations

import ast
import datetime as dt
from collections.abc import Callable
from typing import Any

from rejudge.suites._errors import ToolError
from rejudge.suites.worlds._calculator import WITH_POWERS, evaluate

from rejudge.model import WorldState

__all__ = [
    "AIRPORTS",
    "CALCULATOR_CHARACTERS",
    "CERTIFICATE_ID",
    "CREATED_AT",
    "FIRST_RESERVATION_ID",
    "INSURANCE_PER_PASSENGER",
    "PRICE_PER_NONFREE_BAG",
    "arithmetic",
    "book_payments",
    "cancel",
    "change_baggages",
    "change_flights",
    "free_certificate_id",
    "new_reservation_id",
    "priced_booking",
    "next_day",
]

#: the fixed "now" every new reservation is stamped with (all recorded bookings show it)
CREATED_AT = "2024-05-15T15:00:00"
#: the id a first new reservation gets; the next ones bump the last letters (HATHAU, HATHAV:
#: τ-bench's recordings show three bookings in one conversation)
FIRST_RESERVATION_ID = "HATHAT"
#: the id a sent certificate gets (every recorded one shows it)
CERTIFICATE_ID = "certificate_3221322"
INSURANCE_PER_PASSENGER = 30
PRICE_PER_NONFREE_BAG = 50

#: the airport list: a constant of the tool (not derived from the flights), (IATA code, city)
#: in the order the recordings show it
AIRPORTS: tuple[tuple[str, str], ...] = (
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


def _bump(code: str) -> str:
    """The next id after ``code`` in A..Z letters (HATHAT -> HATHAU, HATHAZ -> HATHBA)."""
    letters = list(code)
    for i in range(len(letters) - 1, -1, -1):
        if letters[i] != "Z":
            letters[i] = chr(ord(letters[i]) + 1)
            return "".join(letters)
        letters[i] = "A"
    return "A" + "".join(letters)


def new_reservation_id(state: WorldState) -> str:
    """The id a new reservation gets: the first of HATHAT, HATHAU, ... not taken yet."""
    code = FIRST_RESERVATION_ID
    while state.has("reservations", code):
        code = _bump(code)
    return code


def free_certificate_id(payment_methods: dict[str, Any]) -> str:
    """The id a sent certificate gets in a profile holding ``payment_methods``: the recorded
    one, or (not recorded) the next free number after it."""
    certificate_id = CERTIFICATE_ID
    while certificate_id in payment_methods:
        certificate_id = f"certificate_{int(certificate_id.split('_')[1]) + 1}"
    return certificate_id


def next_day(date: str) -> str:
    """The day after ``date`` (an ISO date), or "" for a date no flight has: a one-stop
    search's second leg then finds nothing."""
    try:
        return (dt.date.fromisoformat(date) + dt.timedelta(days=1)).isoformat()
    except ValueError:
        return ""


# ---------------------------------------------------------------------- calculator

#: what ``calculate`` accepts: digits, the four operations, brackets, a point and spaces (a
#: newline is refused: one recorded call shows it)
CALCULATOR_CHARACTERS = frozenset("0123456789+-*/(). ")


def arithmetic(expression: str) -> Any:
    """The value of ``expression`` (already checked against :data:`CALCULATOR_CHARACTERS`) as
    Python computes it. Raises :class:`ToolError` (the refusal in lower case: each world words it), or Python's own SyntaxError (its text as
    τ²'s reads: "'(' was never closed (<string>, line 1)"), ArithmeticError ("division by
    zero"), ValueError or TypeError (a complex power)."""
    # (its characters hold no letter, so no name nor True/False reaches the calculator)
    tree = ast.parse(expression.strip(), filename="<string>", mode="eval")
    return evaluate(tree, WITH_POWERS)


# ---------------------------------------------------------------------- booking


def priced_booking(
    flights: list[dict[str, Any]],
    seats: int,
    insurance: str,
    nonfree_baggages: int,
    price_flight: PriceFlight,
) -> tuple[list[dict[str, Any]], int | float]:
    """A new booking's flight entries and its total: each flight's seat price (``price_flight``
    checks it bookable, in order, and gives its price and entry) for every one of ``seats``
    passengers, the insurance per passenger when taken, and each non-free bag."""
    booked: list[dict[str, Any]] = []
    total: int | float = 0
    for item in flights:
        price, shown = price_flight(item, seats)
        booked.append(shown)
        total += price * seats
    if insurance == "yes":
        total += INSURANCE_PER_PASSENGER * seats
    total += PRICE_PER_NONFREE_BAG * nonfree_baggages
    return booked, total


def book_payments(
    state: WorldState,
    user_id: str,
    user: dict[str, Any],
    payments: list[dict[str, Any]],
    total: int | float,
) -> str:
    """Pay a new booking of ``total`` with ``payments`` (``{payment_id, amount}``) from the
    profile ``user`` of ``user_id``, and give it its id: every method must be the user's, a gift
    card or certificate must hold its amount, and the amounts must add up to ``total``. A gift
    card is charged; a certificate is spent whole (it leaves the profile). The new id is added
    to the user's reservations; the world writes the reservation itself."""
    for payment in payments:
        method = user.get("payment_methods", {}).get(payment["payment_id"])
        if method is None:
            raise ToolError(f"payment method {payment['payment_id']} not found")
        # a gift card and a certificate hold what is left in "amount"; a credit card has no limit
        has_balance = method.get("source") in ("gift_card", "certificate")
        if has_balance and method["amount"] < payment["amount"]:
            raise ToolError(f"not enough balance in payment method {payment['payment_id']}")
    paid = sum(payment["amount"] for payment in payments)
    if paid != total:
        raise ToolError(f"payment amount does not add up, total price is {total}, but paid {paid}")
    reservation_id = new_reservation_id(state)
    owner = state.edit("users", user_id)
    for payment in payments:
        method = owner["payment_methods"][payment["payment_id"]]
        if method.get("source") == "gift_card":
            method["amount"] -= payment["amount"]
        elif method.get("source") == "certificate":
            del owner["payment_methods"][payment["payment_id"]]
    owner["reservations"].append(reservation_id)
    return reservation_id


def cancel(state: WorldState, reservation_id: str) -> dict[str, Any]:
    """Cancel an existing reservation: every payment is refunded to where it came from, as a
    negative entry of the history. The edited reservation."""
    reservation: dict[str, Any] = state.edit("reservations", reservation_id)
    refunds = [
        {"payment_id": payment["payment_id"], "amount": -payment["amount"]}
        for payment in reservation["payment_history"]
    ]
    reservation["payment_history"].extend(refunds)
    reservation["status"] = "cancelled"
    return reservation


# ---------------------------------------------------------------------- changes
#
# A change that costs money is paid with one method of the reservation owner's profile: a
# certificate cannot pay for it, a gift card must hold the amount (and is charged it), a credit
# card always can. Every check runs before the first write. Each world looks up the reservation
# and its owner itself (each words "not found" its own way) and prints the changed reservation.

#: a world's lookup of a user, refusing (in its words) one that is not there
UserOf = Callable[[WorldState, str], dict[str, Any]]


def _check_change_payment(
    state: WorldState, user_of: UserOf, user_id: str, payment_id: str, amount: int | float
) -> None:
    # a change names no id when its method is missing (a booking does)
    method = user_of(state, user_id).get("payment_methods", {}).get(payment_id)
    if method is None:
        raise ToolError("payment method not found")
    if method.get("source") == "certificate":
        raise ToolError("certificate cannot be used to update reservation")
    if method.get("source") == "gift_card" and method["amount"] < amount:
        raise ToolError("gift card balance is not enough")


def _charge(
    state: WorldState, reservation: dict[str, Any], payment_id: str, amount: int | float
) -> None:
    """Charge ``amount`` (a refund when negative) to an already checked method."""
    user = state.edit("users", reservation["user_id"])
    method = user["payment_methods"][payment_id]
    if method.get("source") == "gift_card":
        method["amount"] -= amount
    reservation["payment_history"].append({"payment_id": payment_id, "amount": amount})


def change_baggages(
    state: WorldState,
    user_of: UserOf,
    reservation_id: str,
    current: dict[str, Any],
    total_baggages: int,
    nonfree_baggages: int,
    payment_id: str,
) -> dict[str, Any]:
    """Reservation ``reservation_id`` (as it is, ``current``) with its bags changed, paid with
    ``payment_id``: the edited reservation."""
    # fewer paid bags than before is no refund: only added ones are charged
    price = PRICE_PER_NONFREE_BAG * max(0, nonfree_baggages - current["nonfree_baggages"])
    _check_change_payment(state, user_of, current["user_id"], payment_id, price)
    reservation: dict[str, Any] = state.edit("reservations", reservation_id)
    reservation["total_baggages"] = total_baggages
    reservation["nonfree_baggages"] = nonfree_baggages
    if price != 0:
        _charge(state, reservation, payment_id, price)
    return reservation


#: a requested flight (``{flight_number, date}``) the reservation does not hold in its cabin:
#: checked bookable for the seats, its price per seat and the entry it becomes (each world
#: checks and words it its own way)
PriceFlight = Callable[[dict[str, Any], int], tuple[int | float, dict[str, Any]]]
#: a flight the reservation holds, in its cabin: the entry it stays as (its price paid kept)
KeepFlight = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]


def _held(current: dict[str, Any], item: dict[str, Any]) -> dict[str, Any] | None:
    return next(
        (
            old
            for old in current["flights"]
            if old["flight_number"] == item["flight_number"] and old["date"] == item["date"]
        ),
        None,
    )


def change_flights(
    state: WorldState,
    user_of: UserOf,
    reservation_id: str,
    current: dict[str, Any],
    cabin: str,
    flights: list[dict[str, Any]],
    payment_id: str,
    *,
    price_flight: PriceFlight,
    keep_flight: KeepFlight,
    writes_cabin: bool,
) -> dict[str, Any]:
    """Reservation ``reservation_id`` (as it is, ``current``) with its flights changed to
    ``flights`` in ``cabin``, the difference paid (or refunded) with ``payment_id``: the edited
    reservation.

    ``writes_cabin`` is False for τ-bench, whose recordings show the old cabin after a change
    of cabin, though the new flights are priced in the new one."""
    seats = len(current["passengers"])
    new_flights, new_total = [], 0
    for item in flights:
        kept = _held(current, item)
        if kept is not None and cabin == current["cabin"]:
            # a flight the reservation already holds, in its cabin, keeps the price paid (not
            # today's) and is not checked again: it may have left or be full by now
            price, shown = kept["price"], keep_flight(item, kept)
        else:
            price, shown = price_flight(item, seats)
        new_flights.append(shown)
        new_total += price
    old_total = sum(flight["price"] for flight in current["flights"])
    difference = (new_total - old_total) * seats
    _check_change_payment(state, user_of, current["user_id"], payment_id, difference)
    reservation: dict[str, Any] = state.edit("reservations", reservation_id)
    reservation["flights"] = new_flights
    if writes_cabin:
        reservation["cabin"] = cabin
    if difference != 0:
        _charge(state, reservation, payment_id, difference)
    return reservation
