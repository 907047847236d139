"""The retail tools' argument schemas, as OpenAI function schemas.

τ²'s results documents do not carry the tool definitions (``info.environment_info.tool_defs``
is null in every shared run), so these are derived from what was recorded: the argument names
and JSON types every one of the 873 recorded calls (and the tasks' 553 ground-truth actions)
used, all of them required, and short descriptions written here from the retail policy. The
re-execution test checks that every recorded call fits them.
"""

from __future__ import annotations

from typing import Any

__all__ = ["TOOL_SCHEMAS"]

_S = {"type": "string"}
_IDS = {"type": "array", "items": {"type": "string"}}
_ADDRESS = {k: _S for k in ("address1", "address2", "city", "state", "country", "zip")}
#: an exchange's and a modification's arguments alike: which items become which variants, and
#: the method that pays (or is refunded) the difference
_SWAP = {"order_id": _S, "item_ids": _IDS, "new_item_ids": _IDS, "payment_method_id": _S}


def _fn(name: str, description: str, **properties: Any) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": list(properties),
            },
        },
    }


TOOL_SCHEMAS: list[dict[str, Any]] = [
    _fn(
        "calculate",
        "Evaluate an arithmetic expression; the result is rounded to cents.",
        expression=_S,
    ),
    _fn(
        "cancel_pending_order",
        "Cancel a pending order; reason is 'no longer needed' or 'ordered by mistake'. "
        "Every payment is refunded (a gift card at once).",
        order_id=_S,
        reason={"type": "string", "enum": ["no longer needed", "ordered by mistake"]},
    ),
    _fn(
        "exchange_delivered_order_items",
        "Request an exchange of delivered items for other variants of the same products; the "
        "price difference is paid or refunded with the given payment method.",
        **_SWAP,
    ),
    _fn("find_user_id_by_email", "Find a user's id by their email address.", email=_S),
    _fn(
        "find_user_id_by_name_zip",
        "Find a user's id by first name, last name and zip code.",
        first_name=_S,
        last_name=_S,
        zip=_S,
    ),
    _fn("get_order_details", "An order's details (status, items, payments).", order_id=_S),
    _fn(
        "get_product_details",
        "A product's variants, with options, availability and price.",
        product_id=_S,
    ),
    _fn("get_user_details", "A user's profile, payment methods and orders.", user_id=_S),
    _fn("list_all_product_types", "Every product type's name and product id."),
    _fn(
        "modify_pending_order_address",
        "Change the shipping address of a pending order.",
        order_id=_S,
        **_ADDRESS,
    ),
    _fn(
        "modify_pending_order_items",
        "Replace items of a pending order by other variants of the same products (once per "
        "order); the price difference is paid or refunded with the given payment method.",
        **_SWAP,
    ),
    _fn(
        "modify_pending_order_payment",
        "Pay a pending order with another of the user's payment methods.",
        order_id=_S,
        payment_method_id=_S,
    ),
    _fn("modify_user_address", "Change a user's default address.", user_id=_S, **_ADDRESS),
    _fn(
        "return_delivered_order_items",
        "Request a return of delivered items, refunded to the original payment method or a gift card.",
        order_id=_S,
        item_ids=_IDS,
        payment_method_id=_S,
    ),
    _fn(
        "transfer_to_human_agents",
        "Transfer the user to a human agent, with a summary of the issue; ends the conversation.",
        summary=_S,
    ),
]
