"""How the retail world's records look and are looked up, shared by its reads and writes.

An order is kept in τ²'s model form (:func:`order_form`: the seven optional fields after
``payment_history``, null until a write sets them), because every recorded order result shows
them; a lookup that finds nothing, or a rule a tool enforces, raises :class:`_Refused`, which the
world answers as ``Error: <message>`` and rolls back.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rejudge.suites.worlds._tau2 import _Refused, dump, record

from rejudge.model import WorldState

__all__ = [
    "CANCEL_REASONS",
    "ORDER_FIELDS",
    "adjust_gift_card",
    "can_pay",
    "check_items",
    "dump",
    "order_form",
    "order_record",
    "payment_method",
    "swap_prices",
    "user_record",
    "available_variant",
]

#: fields τ²'s order model carries beyond the database file's, in the order its dump gives them
ORDER_FIELDS = (
    "cancel_reason",
    "exchange_items",
    "exchange_new_items",
    "exchange_payment_method_id",
    "exchange_price_difference",
    "return_items",
    "return_payment_method_id",
)


CANCEL_REASONS = ("no longer needed", "ordered by mistake")


def order_form(order: dict[str, Any]) -> dict[str, Any]:
    """An order as τ²'s model holds it: the file's fields, then every optional one (null)."""
    return {**order, **{k: order.get(k) for k in ORDER_FIELDS}}


def user_record(state: WorldState, user_id: str) -> dict[str, Any]:
    return record(state, "users", user_id, "User not found")


def order_record(state: WorldState, order_id: str) -> dict[str, Any]:
    return record(state, "orders", order_id, "Order not found")


def payment_method(state: WorldState, user_id: str, method_id: str) -> dict[str, Any]:
    method: dict[str, Any] | None = user_record(state, user_id)["payment_methods"].get(method_id)
    if method is None:
        raise _Refused("Payment method not found")
    return method


def check_items(order: dict[str, Any], item_ids: list[str], missing: str = "{} not found") -> None:
    """Refuse item ids the order does not hold (as many times as named); ``missing`` words the
    refusal with the first such id (τ²'s words differ per tool)."""
    held = Counter(item["item_id"] for item in order["items"])
    for item_id, count in Counter(item_ids).items():
        if held[item_id] < count:
            raise _Refused(missing.format(item_id))


def available_variant(state: WorldState, product_id: str, item_id: str) -> dict[str, Any]:
    product = state.get("products", product_id) or {}
    variant: dict[str, Any] | None = product.get("variants", {}).get(item_id)
    if variant is None or not variant["available"]:
        raise _Refused(f"New item {item_id} not found or available")
    return variant


def swap_prices(
    state: WorldState,
    order: dict[str, Any],
    item_ids: list[str],
    new_item_ids: list[str],
    *,
    same_item_ok: bool = False,
) -> float:
    """The price difference of replacing ``item_ids`` by ``new_item_ids`` (same products).
    ``same_item_ok``: an item may be replaced by itself (τ²'s exchange allows it: a damaged
    item for a new one of the same variant; its modification does not)."""
    if len(item_ids) != len(new_item_ids):
        raise _Refused("The number of items to be exchanged should match")
    diff = 0.0
    for old_id, new_id in zip(item_ids, new_item_ids, strict=True):
        item = next(i for i in order["items"] if i["item_id"] == old_id)
        if new_id == old_id and not same_item_ok:
            raise _Refused("The new item id should be different from the old item id")
        new = available_variant(state, item["product_id"], new_id)
        diff += new["price"] - item["price"]
    return diff


def can_pay(method: dict[str, Any], amount: float, what: str = "the price difference") -> None:
    if method["source"] == "gift_card" and method.get("balance", 0) < amount:
        raise _Refused(f"Insufficient gift card balance to pay for {what}")


def adjust_gift_card(state: WorldState, user_id: str, method_id: str, delta: float) -> None:
    user = state.edit("users", user_id)
    method = user["payment_methods"][method_id]
    if method["source"] == "gift_card":
        method["balance"] = round(method["balance"] + delta, 2)
