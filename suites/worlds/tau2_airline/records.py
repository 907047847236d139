"""How τ²'s airline records look and are looked up, shared by the world's reads and writes.

τ² holds its database as typed models and prints a record as the model's JSON (``json.dumps``
with its default separators, fields in the model's order). Every recorded result shows that
form, so the world keeps records in it (:func:`reservation_form`), and a state compares as τ²'s
database hash does:

- a reservation ends with ``status`` (null until it is cancelled), and its flights read
  ``flight_number, origin, destination, date, price`` (the file says ``origin, destination,
  flight_number, ...``);
- money a user holds (a gift card, a certificate) is a float (``149.0``); what a reservation
  paid is an int;
- an object an agent sends (a passenger, a flight, a payment) keeps only its model's fields:
  an extra key is dropped, as a typed model drops it.

A lookup that finds nothing, or a rule a tool enforces, raises :class:`_Refused`, which the
world answers as ``Error: <message>`` and rolls back.
"""

from __future__ import annotations

from typing import Any

from rejudge.suites.worlds._tau2 import _Refused, dump, record

from rejudge.model import WorldState

__all__ = [
    "dump",
    "flight_record",
    "passenger",
    "reservation_form",
    "reservation_record",
    "user_record",
]

_FLIGHT_FIELDS = ("flight_number", "origin", "destination", "date", "price")
_PASSENGER_FIELDS = ("first_name", "last_name", "dob")


def reservation_form(reservation: dict[str, Any]) -> dict[str, Any]:
    """A reservation as τ²'s model holds it: flights in model field order, ``status`` last."""
    form = dict(reservation)
    form["flights"] = [{k: f[k] for k in _FLIGHT_FIELDS} for f in reservation["flights"]]
    form["status"] = reservation.get("status")
    return form


def passenger(item: dict[str, Any]) -> dict[str, Any]:
    """A passenger as sent, its model's three fields only."""
    missing = [k for k in _PASSENGER_FIELDS if not isinstance(item.get(k), str)]
    if missing:
        raise _Refused(f"Passenger is missing {missing[0]}")
    return {k: item[k] for k in _PASSENGER_FIELDS}


def user_record(state: WorldState, user_id: str) -> dict[str, Any]:
    return record(state, "users", user_id, f"User {user_id} not found")


def reservation_record(state: WorldState, reservation_id: str) -> dict[str, Any]:
    return record(state, "reservations", reservation_id, f"Reservation {reservation_id} not found")


def flight_record(state: WorldState, flight_number: str) -> dict[str, Any]:
    return record(state, "flights", flight_number, f"Flight {flight_number} not found")
