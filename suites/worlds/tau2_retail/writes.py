"""The retail world's writes: each checks the policy's rules first (a refusal changes nothing),
then edits the records it changes and gives back the changed record."""

from __future__ import annotations

from rejudge.suites.worlds._tau2 import _Refused
from rejudge.suites.worlds.tau2_retail.records import (
    CANCEL_REASONS,
    adjust_gift_card,
    can_pay,
    check_items,
    dump,
    order_record,
    payment_method,
    swap_prices,
    user_record,
)

from rejudge.model import WorldState

__all__ = [
    "cancel_pending_order",
    "exchange_delivered_order_items",
    "modify_pending_order_address",
    "modify_pending_order_items",
    "modify_pending_order_payment",
    "modify_user_address",
    "return_delivered_order_items",
]


def cancel_pending_order(
    state: WorldState, order_id: str, reason: str, *, revision: int = 1
) -> str:
    if order_record(state, order_id)["status"] != "pending":
        raise _Refused("Non-pending order cannot be cancelled")
    if reason not in CANCEL_REASONS:
        raise _Refused("Invalid reason")
    order = state.edit("orders", order_id)
    refunds = [
        {
            "transaction_type": "refund",
            "amount": p["amount"],
            "payment_method_id": p["payment_method_id"],
        }
        for p in order["payment_history"]
        # revision 2: τ² refunds every entry of the history, a refund already made included
        # (after a payment change it refunds the old method twice); kept, because its
        # database check runs the same code on the agent's calls and the ground truth
        if revision >= 2 or p["transaction_type"] == "payment"
    ]
    for refund in refunds:
        # a gift card is refunded at once; other methods take days, outside the database
        adjust_gift_card(state, order["user_id"], refund["payment_method_id"], refund["amount"])
    order["payment_history"].extend(refunds)
    order["status"] = "cancelled"
    order["cancel_reason"] = reason
    return dump(order)


def _checked_swap(
    state: WorldState,
    order_id: str,
    status: str,
    refusal: str,
    item_ids: list[str],
    new_item_ids: list[str],
    payment_method_id: str,
    *,
    same_item_ok: bool = False,
    paying_for: str = "the price difference",
    missing: str = "{} not found",
) -> float:
    """The price difference of swapping an order's items, after the checks an exchange and a
    modification share: the order in ``status``, the items its own, the payment able to pay."""
    order = order_record(state, order_id)
    if order["status"] != status:
        raise _Refused(refusal)
    check_items(order, item_ids, missing)
    diff = swap_prices(state, order, item_ids, new_item_ids, same_item_ok=same_item_ok)
    can_pay(payment_method(state, order["user_id"], payment_method_id), diff, paying_for)
    return diff


def exchange_delivered_order_items(
    state: WorldState,
    order_id: str,
    item_ids: list[str],
    new_item_ids: list[str],
    payment_method_id: str,
    *,
    revision: int = 1,
) -> str:
    # revision 2: τ² exchanges an item for the same variant (a damaged item replaced); revision
    # 1 refused it, as τ²'s modification does
    diff = _checked_swap(
        state,
        order_id,
        "delivered",
        "Non-delivered order cannot be exchanged",
        item_ids,
        new_item_ids,
        payment_method_id,
        same_item_ok=revision >= 2,
        missing="Number of {} not found." if revision >= 2 else "{} not found",
    )
    order = state.edit("orders", order_id)
    order["status"] = "exchange requested"
    order["exchange_items"] = sorted(item_ids)
    order["exchange_new_items"] = sorted(new_item_ids)
    order["exchange_payment_method_id"] = payment_method_id
    order["exchange_price_difference"] = round(diff, 2)
    return dump(order)


def modify_pending_order_address(
    state: WorldState,
    order_id: str,
    address1: str,
    address2: str,
    city: str,
    state_: str,
    country: str,
    zip: str,
) -> str:
    if not order_record(state, order_id)["status"].startswith("pending"):
        raise _Refused("Non-pending order cannot be modified")
    order = state.edit("orders", order_id)
    order["address"] = _address(address1, address2, city, state_, country, zip)
    return dump(order)


def modify_pending_order_items(
    state: WorldState,
    order_id: str,
    item_ids: list[str],
    new_item_ids: list[str],
    payment_method_id: str,
    *,
    revision: int = 1,
) -> str:
    diff = _checked_swap(
        state,
        order_id,
        "pending",
        "Non-pending order cannot be modified",
        item_ids,
        new_item_ids,
        payment_method_id,
        paying_for="the new item" if revision >= 2 else "the price difference",
    )
    order = state.edit("orders", order_id)
    order["payment_history"].append(
        {
            "transaction_type": "payment" if diff > 0 else "refund",
            "amount": abs(diff),  # unrounded, as recorded
            "payment_method_id": payment_method_id,
        }
    )
    adjust_gift_card(state, order["user_id"], payment_method_id, -diff)
    # τ² as recorded: each replaced item gets its new id, but the price and options of the
    # *last* new item of the call (two recorded multi-item modifications show every replaced
    # item with one price and one set of options); the payment above uses the right prices
    last = next(i for i in order["items"] if i["item_id"] == item_ids[-1])
    variant = state.get("products", last["product_id"])["variants"][new_item_ids[-1]]
    for old_id, new_id in zip(item_ids, new_item_ids, strict=True):
        item = next(i for i in order["items"] if i["item_id"] == old_id)
        item["item_id"], item["price"] = new_id, variant["price"]
        item["options"] = dict(variant["options"])
    order["status"] = "pending (item modified)"
    return dump(order)


def modify_pending_order_payment(
    state: WorldState, order_id: str, payment_method_id: str, *, revision: int = 1
) -> str:
    order = order_record(state, order_id)
    if not order["status"].startswith("pending"):
        raise _Refused("Non-pending order cannot be modified")
    if revision >= 2:
        # τ² looks the new method up before it reads the payments, and wants the order's
        # history to be that one payment (a modification's refund makes it two entries)
        payment_method(state, order["user_id"], payment_method_id)
        payments = list(order["payment_history"])
    else:
        payments = [p for p in order["payment_history"] if p["transaction_type"] == "payment"]
    if len(payments) != 1:
        raise _Refused("There should be exactly one payment for a pending order")
    paid = payments[0]
    if paid["payment_method_id"] == payment_method_id:
        raise _Refused("The new payment method should be different from the current one")
    amount = paid["amount"]
    method = payment_method(state, order["user_id"], payment_method_id)
    can_pay(method, amount, "the order" if revision >= 2 else "the price difference")
    order = state.edit("orders", order_id)
    order["payment_history"].extend(
        [
            {
                "transaction_type": "payment",
                "amount": amount,
                "payment_method_id": payment_method_id,
            },
            {
                "transaction_type": "refund",
                "amount": amount,
                "payment_method_id": paid["payment_method_id"],
            },
        ]
    )
    adjust_gift_card(state, order["user_id"], payment_method_id, -amount)
    adjust_gift_card(state, order["user_id"], paid["payment_method_id"], amount)
    return dump(order)


def modify_user_address(
    state: WorldState,
    user_id: str,
    address1: str,
    address2: str,
    city: str,
    state_: str,
    country: str,
    zip: str,
) -> str:
    user_record(state, user_id)
    user = state.edit("users", user_id)
    user["address"] = _address(address1, address2, city, state_, country, zip)
    return dump(user)


def _address(
    address1: str, address2: str, city: str, state: str, country: str, zip: str
) -> dict[str, str]:
    # the database's (and the recorded results') field order
    return {
        "address1": address1,
        "address2": address2,
        "city": city,
        "country": country,
        "state": state,
        "zip": zip,
    }


def return_delivered_order_items(
    state: WorldState,
    order_id: str,
    item_ids: list[str],
    payment_method_id: str,
    *,
    revision: int = 1,
) -> str:
    order = order_record(state, order_id)
    if order["status"] != "delivered":
        raise _Refused("Non-delivered order cannot be returned")
    method = payment_method(state, order["user_id"], payment_method_id)
    original = order["payment_history"][0]["payment_method_id"]
    if method["source"] != "gift_card" and payment_method_id != original:
        # τ²'s words (a gift card is accepted all the same); revision 1 wrote them from the policy
        tail = "" if revision >= 2 else " or a gift card"
        raise _Refused("Payment method should be the original payment method" + tail)
    check_items(order, item_ids, "Some item not found" if revision >= 2 else "{} not found")
    order = state.edit("orders", order_id)
    order["status"] = "return requested"
    order["return_items"] = sorted(item_ids)
    order["return_payment_method_id"] = payment_method_id
    return dump(order)


#: tool name -> implementation; an argument named ``state`` is passed as ``state_``
