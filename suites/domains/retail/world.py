"""The retail world (``retail``, data version 1): seed 001's fixtures as tables, its 13 tools
acting on a copy-on-write state.

Tables. ``users``, ``orders``, ``products`` are the fixtures' records as they are; ``store``
holds the return policy and the calendar (the fixtures' reference date, "today" for the return
window). What the tools write:

- ``actions``: the pending requests, one record per action id, holding what the request would
  do (its type, order and details, the customer's free-text reason left out: the golden matches
  reasons with ``contains``, and a reason changes nothing). confirm_action and abort_action
  remove it;
- confirming applies it: a cancellation sets the order's ``status`` to ``cancelled`` (and its
  ``cancelled_at`` to today), an address update replaces the order's ``shipping_address``, a
  refund adds to the order's ``refunded_amount`` and is recorded in ``refunds``
  (``W445/1``, ``W445/2``... per order), a return or an exchange is recorded in ``returns`` /
  ``exchanges`` under ``order/item``;
- ``requests`` is the ledger (:attr:`~rejudge.model.World.ledger_tables`): every request made,
  with its reason and final status, so ids count on (``ACT-0001``, ``ACT-0002``...) and a
  second confirm or abort is refused in the same words as before. It is not compared.

Every result is what the stateless sandbox gave before the world had state, byte for byte,
until a confirmed action changes a record a later call reads (tests/suites/
test_stateful_worlds.py re-executes every recorded call of the shipped cassettes).
"""

from __future__ import annotations

import copy
import json
from datetime import date, timedelta
from functools import cache
from typing import Any, ClassVar

from rejudge.suites._domain import package_data, read_json_data
from rejudge.suites._errors import ToolError
from rejudge.suites._sandbox import SchemaWorld, deep_freeze

from rejudge.model import ToolRegistry, ToolSpec, WorldData, WorldState, world_key
from rejudge.registry import REGISTRY

__all__ = [
    "NAME",
    "VERSION",
    "VERSION_2",
    "RetailWorld",
    "RetailWorld2",
    "retail_world_2",
    "fixtures",
    "load_data",
    "retail_world",
    "tool_specs",
]

NAME = "retail"
#: the fixtures' version: a change to fixtures.json or to what a tool writes is a new one
VERSION = "1"
#: the same fixtures, with the effects a confirmed return or exchange has on what later reads
#: show (:class:`RetailWorld2`)
VERSION_2 = "2"


@cache
def _raw() -> dict[str, Any]:
    path = package_data("domains", "retail", "fixtures.json")
    raw: dict[str, Any] = read_json_data(path, "the retail world's initial data")
    return raw


@cache
def fixtures() -> Any:
    """The retail fixtures, frozen (read-only mappings and tuples); the initial data."""
    return deep_freeze(_raw())


@cache
def load_data() -> WorldData:
    raw = _raw()
    tables = {
        "users": raw["users"],
        "orders": raw["orders"],
        "products": raw["products"],
        "store": {
            "return_policy": raw["return_policy"],
            "calendar": {"reference_date": raw["reference_date"]},
        },
        "actions": {},
        "returns": {},
        "exchanges": {},
        "refunds": {},
        "requests": {},
    }
    return WorldData.of(NAME, VERSION, tables)


class RetailWorld(SchemaWorld):
    """Reads answer from the state; request_* tools check the store's rules and create a
    pending action; confirm_action applies it, abort_action withdraws it."""

    name: ClassVar[str] = NAME
    version: ClassVar[str] = VERSION
    ledger_tables: ClassVar[frozenset[str]] = frozenset({"requests"})

    # ------------------------------------------------------------------ lookups

    @staticmethod
    def _find(state: WorldState, table: str, key: str, what: str) -> Any:
        record = state.get(table, key)
        if record is None:
            raise ToolError(f"{what} {key} not found")
        return record

    def _order_item(self, order: Any, item_id: str) -> Any:
        for item in order["items"]:
            if item["item_id"] == item_id:
                return item
        listed = ", ".join(item["item_id"] for item in order["items"])
        raise ToolError(f"order {order['order_id']} has no item {item_id} (its items: {listed})")

    @staticmethod
    def _policy(state: WorldState) -> Any:
        return state.get("store", "return_policy")

    @staticmethod
    def _today(state: WorldState) -> str:
        return str(state.get("store", "calendar")["reference_date"])

    def _within_window(self, state: WorldState, order: Any) -> bool:
        delivered = date.fromisoformat(order["delivered_at"])
        days = self._policy(state)["return_window_days"]
        return date.fromisoformat(self._today(state)) <= delivered + timedelta(days=days)

    @staticmethod
    def _require_status(order: Any, allowed: tuple[str, ...], what: str) -> None:
        if order["status"] not in allowed:
            raise ToolError(
                f"order {order['order_id']} is {order['status']}; {what} needs an order that is "
                + " or ".join(allowed)
            )

    # ------------------------------------------------------------------ actions

    def _new_action(
        self, state: WorldState, kind: str, order_id: str, details: dict[str, Any]
    ) -> dict[str, Any]:
        # requests are never deleted, so their count is the last id handed out
        action_id = f"ACT-{len(state.keys('requests')) + 1:04d}"
        action = {
            "action_id": action_id,
            "type": kind,
            "status": "pending",
            "order_id": order_id,
            "details": details,
        }
        state.put("requests", action_id, action)
        effect = {k: copy.deepcopy(v) for k, v in details.items() if k != "reason"}
        state.put("actions", action_id, {"type": kind, "order_id": order_id, **effect})
        return {
            **action,
            "message": f"{kind} request for order {order_id} is pending; confirm_action "
            f"{action_id} applies it, abort_action {action_id} withdraws it",
        }

    def _resolve(
        self, state: WorldState, action_id: str, status: str, reason: str | None = None
    ) -> dict[str, Any]:
        if not state.has("requests", action_id):
            raise ToolError(f"no pending action {action_id}")
        action = state.edit("requests", action_id)
        if action["status"] != "pending":
            raise ToolError(f"action {action_id} is already {action['status']}")
        action["status"] = status
        if reason is not None:
            action["abort_reason"] = reason
        state.delete("actions", action_id)
        return dict(action)

    def _apply(self, state: WorldState, action: dict[str, Any]) -> None:
        """What a confirmed action does to the orders (a confirm is never refused for what an
        earlier confirm changed: it answered the same before the world had state)."""
        order_id, details = action["order_id"], action["details"]
        kind = action["type"]
        if kind == "cancel":
            order = state.edit("orders", order_id)
            order["status"] = "cancelled"
            order["cancelled_at"] = self._today(state)
        elif kind == "address_update":
            state.edit("orders", order_id)["shipping_address"] = copy.deepcopy(details["address"])
        elif kind == "refund":
            order = state.edit("orders", order_id)
            order["refunded_amount"] = round(order["refunded_amount"] + details["amount"], 2)
            done = sum(1 for key in state.keys("refunds") if key.startswith(f"{order_id}/"))
            state.put(
                "refunds",
                f"{order_id}/{done + 1}",
                {
                    "order_id": order_id,
                    "amount": details["amount"],
                    "currency": details["currency"],
                },
            )
        else:  # return, exchange: the item goes back (and, for an exchange, its replacement out)
            record = {"order_id": order_id, **{k: v for k, v in details.items() if k != "reason"}}
            # (item ids are strings: nothing here is shared with the ledger's record)
            state.put(f"{kind}s", f"{order_id}/{details['item_id']}", record)

    # ------------------------------------------------------------------ reads

    def tool_get_user(self, state: WorldState, user_id: str) -> Any:
        return self._find(state, "users", user_id, "user")

    def tool_get_order(self, state: WorldState, order_id: str) -> Any:
        return self._find(state, "orders", order_id, "order")

    def tool_list_orders(self, state: WorldState, user_id: str, status: str | None = None) -> Any:
        user = self._find(state, "users", user_id, "user")
        orders = [state.get("orders", oid) for oid in user["order_ids"]]
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

    def tool_get_product(self, state: WorldState, product_id: str) -> Any:
        product = self._find(state, "products", product_id, "product")
        return {k: v for k, v in product.items() if k != "stock"}

    def tool_check_stock(self, state: WorldState, product_id: str) -> Any:
        product = self._find(state, "products", product_id, "product")
        return {
            "product_id": product_id,
            "quantity": product["stock"],
            "in_stock": product["stock"] > 0,
        }

    def tool_get_return_policy(self, state: WorldState) -> Any:
        return self._policy(state)

    # ------------------------------------------------------------------ requests

    def tool_request_address_update(
        self, state: WorldState, order_id: str, address: dict[str, Any]
    ) -> Any:
        order = self._find(state, "orders", order_id, "order")
        self._require_status(order, ("pending",), "an address change")
        return self._new_action(state, "address_update", order_id, {"address": address})

    def tool_request_cancel(
        self, state: WorldState, order_id: str, reason: str | None = None
    ) -> Any:
        order = self._find(state, "orders", order_id, "order")
        self._require_status(order, ("pending",), "a cancellation")
        return self._new_action(state, "cancel", order_id, {"reason": reason})

    def tool_request_return(
        self, state: WorldState, order_id: str, item_id: str, reason: str
    ) -> Any:
        order = self._find(state, "orders", order_id, "order")
        self._require_status(order, ("delivered",), "a return")
        item = self._order_item(order, item_id)
        if not self._find(state, "products", item_id, "product")["returnable"]:
            raise ToolError(
                f"{item['name']} ({item_id}) cannot be returned under the return policy"
            )
        if not self._within_window(state, order):
            raise ToolError(
                f"order {order_id} was delivered on {order['delivered_at']}, outside the "
                f"{self._policy(state)['return_window_days']}-day return window"
            )
        return self._new_action(state, "return", order_id, {"item_id": item_id, "reason": reason})

    def tool_request_exchange(
        self, state: WorldState, order_id: str, item_id: str, replacement_item_id: str, reason: str
    ) -> Any:
        order = self._find(state, "orders", order_id, "order")
        self._require_status(order, ("delivered",), "an exchange")
        self._order_item(order, item_id)
        replacement = self._find(state, "products", replacement_item_id, "product")
        if replacement_item_id == item_id:
            raise ToolError("the replacement must be a different product than the returned item")
        if not self._within_window(state, order):
            raise ToolError(
                f"order {order_id} is outside the return window; it cannot be exchanged"
            )
        if replacement["stock"] <= 0:
            raise ToolError(f"replacement {replacement_item_id} is out of stock")
        details = {"item_id": item_id, "replacement_item_id": replacement_item_id, "reason": reason}
        return self._new_action(state, "exchange", order_id, details)

    def tool_request_refund(
        self, state: WorldState, order_id: str, reason: str, amount: float | None = None
    ) -> Any:
        order = self._find(state, "orders", order_id, "order")
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
        return self._new_action(state, "refund", order_id, details)

    # ------------------------------------------------------------------ confirmation

    def tool_confirm_action(self, state: WorldState, action_id: str) -> Any:
        action = self._resolve(state, action_id, "confirmed")
        self._apply(state, action)
        return action

    def tool_abort_action(
        self, state: WorldState, action_id: str, reason: str | None = None
    ) -> Any:
        return self._resolve(state, action_id, "aborted", reason)


class RetailWorld2(RetailWorld):
    """Version 2: every write a tool accepts changes what a later read returns. In version 1 a
    confirmed return or exchange was recorded only in tables no tool reads; here

    - a confirmed return refunds the item (``unit_price`` x ``quantity``, at most what is
      left of the order's total) into the order's ``refunded_amount``, recorded in
      ``refunds`` as a refund is, and marks the order's item ``"returned"``;
    - a confirmed exchange takes the replacement from stock (``check_stock`` shows one less)
      and marks the order's item ``"exchanged"`` with its replacement; a replacement out of
      stock by then is refused and changes nothing;
    - an item returned or exchanged cannot be requested again (it would refund twice), and
      an order refunded in full takes no further refund (a confirm that moved no money would
      show in no read).

    A pending request is visible to the tools that resolve it (confirm_action, abort_action).
    The returned item is not put back in stock: it goes to inspection, which the world has no
    step for."""

    version: ClassVar[str] = VERSION_2

    def _order_item(self, order: Any, item_id: str) -> Any:
        item = super()._order_item(order, item_id)
        if item.get("status") in ("returned", "exchanged"):
            raise ToolError(f"item {item_id} of order {order['order_id']} was {item['status']}")
        return item

    def tool_request_refund(
        self, state: WorldState, order_id: str, reason: str, amount: float | None = None
    ) -> Any:
        order = self._find(state, "orders", order_id, "order")
        if order["payment_status"] == "captured" and order["refunded_amount"] >= order["total"]:
            raise ToolError(f"order {order_id} is refunded in full; nothing is left to refund")
        return super().tool_request_refund(state, order_id, reason, amount)

    def _apply(self, state: WorldState, action: dict[str, Any]) -> None:
        kind, order_id, details = action["type"], action["order_id"], action["details"]
        if kind == "refund":
            # two refunds requested before either was confirmed: the later one may ask for
            # more than the first left, and a confirm that moves no money shows in no read
            order = state.get("orders", order_id)
            left = round(order["total"] - order["refunded_amount"], 2)
            if details["amount"] > left or left <= 0:
                raise ToolError(
                    f"refund {details['amount']} exceeds what is left to refund ({left}) "
                    f"of order {order_id}"
                )
        if kind == "exchange":
            replacement = state.get("products", details["replacement_item_id"])
            if replacement["stock"] <= 0:
                raise ToolError(f"replacement {details['replacement_item_id']} is out of stock")
        super()._apply(state, action)
        if kind not in ("return", "exchange"):
            return
        order = state.edit("orders", order_id)
        item = next(i for i in order["items"] if i["item_id"] == details["item_id"])
        if kind == "exchange":
            state.edit("products", details["replacement_item_id"])["stock"] -= 1
            item["status"], item["replacement_item_id"] = (
                "exchanged",
                details["replacement_item_id"],
            )
            return
        item["status"] = "returned"
        left = round(order["total"] - order["refunded_amount"], 2)
        amount = min(round(item["unit_price"] * item["quantity"], 2), left)
        order["refunded_amount"] = round(order["refunded_amount"] + amount, 2)
        done = sum(1 for key in state.keys("refunds") if key.startswith(f"{order_id}/"))
        state.put(
            "refunds",
            f"{order_id}/{done + 1}",
            {"order_id": order_id, "amount": amount, "currency": order["currency"]},
        )


@cache
def tool_specs() -> tuple[str, tuple[ToolSpec, ...]]:
    """The 13 tools' schemas (tools.json): the registry's version and its specs."""
    path = package_data("domains", "retail", "tools.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    return str(data["version"]), tuple(ToolSpec.model_validate(tool) for tool in data["tools"])


@cache
def retail_world() -> RetailWorld:
    """The world on the shipped fixtures, built once per process (what the registry keeps).
    Its argument check needs only the tools' schemas, so it is given a registry of them alone
    (the domain's registry also names this world, whose data hash needs the data first)."""
    version, tools = tool_specs()
    return RetailWorld(load_data(), ToolRegistry(domain=NAME, version=version, tools=list(tools)))


@cache
def retail_world_2() -> RetailWorld2:
    """Version 2 on the same fixtures (only the tools' effects differ), built once."""
    base = retail_world()
    data = WorldData(NAME, VERSION_2, base.data.tables, base.data.hash)
    return RetailWorld2(data, base.registry)


# the bare name stays version 1: the retail domain's registry and sandbox (the shipped suites,
# their recordings and judgments) name it; version 2 is chosen by its key
REGISTRY.register_factory("world", NAME, retail_world)
REGISTRY.register_factory("world", world_key(NAME, VERSION), retail_world)
REGISTRY.register_factory("world", world_key(NAME, VERSION_2), retail_world_2)
