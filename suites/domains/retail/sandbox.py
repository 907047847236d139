"""The retail sandbox: reads from frozen fixtures, requests become pending action stubs."""

from __future__ import annotations

import json
from datetime import date, timedelta
from functools import cache
from typing import Any

from rejudge.store import ToolRegistry
from rejudge.suites._domain import package_data
from rejudge.suites._sandbox import SchemaSandbox, ToolError, deep_freeze, thaw

__all__ = ["RetailSandbox", "fixtures"]


@cache
def fixtures() -> Any:
    """The retail fixtures, frozen (read-only mappings and tuples); shared by every sandbox."""
    raw = json.loads(package_data("domains", "retail", "fixtures.json").read_text(encoding="utf-8"))
    return deep_freeze(raw)


class RetailSandbox(SchemaSandbox):
    """One trace's retail world. Pending actions live here; the fixtures are never written."""

    def __init__(self, registry: ToolRegistry) -> None:
        super().__init__(registry)
        self.world = fixtures()
        self.actions: dict[str, dict[str, Any]] = {}
        self._counter = 0

    # ------------------------------------------------------------------ lookups

    def _user(self, user_id: str) -> Any:
        user = self.world["users"].get(user_id)
        if user is None:
            raise ToolError(f"user {user_id} not found")
        return user

    def _order(self, order_id: str) -> Any:
        order = self.world["orders"].get(order_id)
        if order is None:
            raise ToolError(f"order {order_id} not found")
        return order

    def _product(self, product_id: str) -> Any:
        product = self.world["products"].get(product_id)
        if product is None:
            raise ToolError(f"product {product_id} not found")
        return product

    def _order_item(self, order: Any, item_id: str) -> Any:
        for item in order["items"]:
            if item["item_id"] == item_id:
                return item
        listed = ", ".join(item["item_id"] for item in order["items"])
        raise ToolError(f"order {order['order_id']} has no item {item_id} (its items: {listed})")

    def _within_window(self, order: Any) -> bool:
        policy = self.world["return_policy"]
        delivered = date.fromisoformat(order["delivered_at"])
        today = date.fromisoformat(self.world["reference_date"])
        return today <= delivered + timedelta(days=policy["return_window_days"])

    def _require_status(self, order: Any, allowed: tuple[str, ...], what: str) -> None:
        if order["status"] not in allowed:
            raise ToolError(
                f"order {order['order_id']} is {order['status']}; {what} needs an order that is "
                + " or ".join(allowed)
            )

    def _new_action(self, kind: str, order_id: str, details: dict[str, Any]) -> dict[str, Any]:
        self._counter += 1
        action_id = f"ACT-{self._counter:04d}"
        action = {
            "action_id": action_id,
            "type": kind,
            "status": "pending",
            "order_id": order_id,
            "details": details,
        }
        self.actions[action_id] = action
        return {
            **thaw(action),
            "message": f"{kind} request for order {order_id} is pending; confirm_action "
            f"{action_id} applies it, abort_action {action_id} withdraws it",
        }

    def _resolve(self, action_id: str, status: str, reason: str | None = None) -> dict[str, Any]:
        action = self.actions.get(action_id)
        if action is None:
            raise ToolError(f"no pending action {action_id}")
        if action["status"] != "pending":
            raise ToolError(f"action {action_id} is already {action['status']}")
        action["status"] = status
        if reason is not None:
            action["abort_reason"] = reason
        return thaw(action)

    # ------------------------------------------------------------------ reads

    def tool_get_user(self, user_id: str) -> Any:
        return self._user(user_id)

    def tool_get_order(self, order_id: str) -> Any:
        return self._order(order_id)

    def tool_list_orders(self, user_id: str, status: str | None = None) -> Any:
        user = self._user(user_id)
        orders = [self.world["orders"][oid] for oid in user["order_ids"]]
        return {
            "user_id": user_id,
            "orders": [
                {
                    "order_id": o["order_id"],
                    "status": o["status"],
                    "placed_at": o["placed_at"],
                    "total": o["total"],
                    "currency": o["currency"],
                    "items": [item["item_id"] for item in o["items"]],
                }
                for o in orders
                if status is None or o["status"] == status
            ],
        }

    def tool_get_product(self, product_id: str) -> Any:
        product = thaw(self._product(product_id))
        product.pop("stock", None)
        return product

    def tool_check_stock(self, product_id: str) -> Any:
        product = self._product(product_id)
        return {
            "product_id": product_id,
            "quantity": product["stock"],
            "in_stock": product["stock"] > 0,
        }

    def tool_get_return_policy(self) -> Any:
        return self.world["return_policy"]

    # ------------------------------------------------------------------ requests

    def tool_request_address_update(self, order_id: str, address: dict[str, Any]) -> Any:
        order = self._order(order_id)
        self._require_status(order, ("pending",), "an address change")
        return self._new_action("address_update", order_id, {"address": address})

    def tool_request_cancel(self, order_id: str, reason: str | None = None) -> Any:
        order = self._order(order_id)
        self._require_status(order, ("pending",), "a cancellation")
        return self._new_action("cancel", order_id, {"reason": reason})

    def tool_request_return(self, order_id: str, item_id: str, reason: str) -> Any:
        order = self._order(order_id)
        self._require_status(order, ("delivered",), "a return")
        item = self._order_item(order, item_id)
        if not self._product(item_id)["returnable"]:
            raise ToolError(
                f"{item['name']} ({item_id}) cannot be returned under the return policy"
            )
        if not self._within_window(order):
            raise ToolError(
                f"order {order_id} was delivered on {order['delivered_at']}, outside the "
                f"{self.world['return_policy']['return_window_days']}-day return window"
            )
        return self._new_action("return", order_id, {"item_id": item_id, "reason": reason})

    def tool_request_exchange(
        self, order_id: str, item_id: str, replacement_item_id: str, reason: str
    ) -> Any:
        order = self._order(order_id)
        self._require_status(order, ("delivered",), "an exchange")
        self._order_item(order, item_id)
        replacement = self._product(replacement_item_id)
        if replacement_item_id == item_id:
            raise ToolError("the replacement must be a different product than the returned item")
        if not self._within_window(order):
            raise ToolError(
                f"order {order_id} is outside the return window; it cannot be exchanged"
            )
        if replacement["stock"] <= 0:
            raise ToolError(f"replacement {replacement_item_id} is out of stock")
        return self._new_action(
            "exchange",
            order_id,
            {"item_id": item_id, "replacement_item_id": replacement_item_id, "reason": reason},
        )

    def tool_request_refund(self, order_id: str, reason: str, amount: float | None = None) -> Any:
        order = self._order(order_id)
        self._require_status(order, ("cancelled", "delivered"), "a refund")
        if order["payment_status"] != "captured":
            raise ToolError(f"order {order_id} was never charged; there is nothing to refund")
        remaining = round(order["total"] - order["refunded_amount"], 2)
        if amount is not None and amount > remaining:
            raise ToolError(
                f"refund {amount} exceeds the refundable amount {remaining} of order {order_id}"
            )
        details = {
            "amount": remaining if amount is None else amount,
            "currency": order["currency"],
            "reason": reason,
        }
        return self._new_action("refund", order_id, details)

    # ------------------------------------------------------------------ confirmation

    def tool_confirm_action(self, action_id: str) -> Any:
        return self._resolve(action_id, "confirmed")

    def tool_abort_action(self, action_id: str, reason: str | None = None) -> Any:
        return self._resolve(action_id, "aborted", reason)
