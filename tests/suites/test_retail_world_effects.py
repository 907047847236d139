"""retail@2: every write a tool accepts changes what a later read returns (hypothesis over the
world's tools), a confirmed exchange takes the replacement from stock and a confirmed return
refunds; retail@1 stays as it was (the shipped suites name it)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rejudge.model import World, WorldState
from rejudge.registry import REGISTRY

ORDERS = [f"W{n}" for n in range(441, 449)]
PRODUCTS = [f"P{n}" for n in range(201, 211)]
USERS = ["U101", "U102", "U103"]
WRITES = {
    "request_address_update",
    "request_cancel",
    "request_return",
    "request_exchange",
    "request_refund",
    "confirm_action",
    "abort_action",
}

_ADDRESS = {"street": "1 Main St", "city": "Springfield", "postal_code": "12345", "country": "US"}


def _items() -> list[tuple[str, str]]:
    """Every (order, item) pair of the fixtures: requests about an order's own items, so
    that accepted returns and exchanges are drawn often."""
    world: World = REGISTRY.get("world", "retail@1")
    state = world.new_state()
    return [
        (o, i["item_id"])
        for o in ORDERS
        for i in world.execute(state, "get_order", {"order_id": o}).content["items"]
    ]


def _call() -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    order, product = st.sampled_from(ORDERS), st.sampled_from(PRODUCTS)
    owned = st.sampled_from(_items())
    action = st.integers(1, 4).map(lambda n: f"ACT-{n:04d}")
    return st.one_of(
        st.tuples(st.just("request_cancel"), st.fixed_dictionaries({"order_id": order})),
        st.tuples(
            st.just("request_address_update"),
            st.fixed_dictionaries({"order_id": order, "address": st.just(_ADDRESS)}),
        ),
        st.tuples(
            st.just("request_return"),
            owned.map(lambda p: {"order_id": p[0], "item_id": p[1], "reason": "x"}),
        ),
        st.tuples(
            st.just("request_exchange"),
            st.tuples(owned, product).map(
                lambda p: {
                    "order_id": p[0][0],
                    "item_id": p[0][1],
                    "replacement_item_id": p[1],
                    "reason": "x",
                }
            ),
        ),
        st.tuples(
            st.just("request_refund"),
            st.fixed_dictionaries({"order_id": order, "reason": st.just("x")}),
        ),
        # confirmations drawn more often: they are what applies a request
        st.tuples(st.just("confirm_action"), st.fixed_dictionaries({"action_id": action})),
        st.tuples(st.just("confirm_action"), st.fixed_dictionaries({"action_id": action})),
        st.tuples(st.just("abort_action"), st.fixed_dictionaries({"action_id": action})),
    )


def _replay(world: World, calls: list[tuple[str, dict[str, Any]]]) -> WorldState:
    state = world.new_state()
    for name, args in calls:
        world.execute(state, name, args)
    return state


def _reads(world: World, calls: list[tuple[str, dict[str, Any]]], ids: int) -> list[Any]:
    """What every read shows after ``calls``, and what confirming each of the first ``ids``
    action ids would give (on a fresh replay each: the probes change nothing that is kept)."""
    state = _replay(world, calls)
    shown: list[Any] = [world.execute(state, "get_order", {"order_id": o}).content for o in ORDERS]
    shown += [world.execute(state, "check_stock", {"product_id": p}).content for p in PRODUCTS]
    shown += [world.execute(state, "list_orders", {"user_id": u}).content for u in USERS]
    for n in range(1, ids + 1):
        probe = _replay(world, calls)
        shown.append(world.execute(probe, "confirm_action", {"action_id": f"ACT-{n:04d}"}))
    return shown


@settings(max_examples=150, deadline=None)
@given(st.lists(_call(), min_size=1, max_size=6))
def test_every_accepted_write_is_visible_to_a_later_read(calls) -> None:
    world: World = REGISTRY.get("world", "retail@2")
    state = world.new_state()
    done: list[tuple[str, dict[str, Any]]] = []
    for name, args in calls:
        # a confirmation is judged by the tables a read can show (not the actions ledger): a
        # confirm whose effect is already in place (the same address twice) writes nothing
        hidden = frozenset({"actions"}) if name == "confirm_action" else frozenset()
        before = state.changes(ignore=hidden)
        result = world.execute(state, name, args)
        changed = state.changes(ignore=hidden) != before
        assert name in WRITES
        if result.ok and changed:
            # a confirmation must show in the reads themselves (confirming the action again
            # would tell it from no confirmation trivially); a request or a withdrawal shows
            # in what confirming its action gives
            requested = sum(1 for n, _ in done + [(name, args)] if n.startswith("request_"))
            ids = 0 if name == "confirm_action" else requested
            assert _reads(world, done, ids) != _reads(world, [*done, (name, args)], ids), (
                done,
                name,
                args,
            )
        done.append((name, args))


def _confirm(world: World, state: WorldState, name: str, args: dict[str, Any]) -> Any:
    requested = world.execute(state, name, args)
    assert requested.ok, requested.content
    confirmed = world.execute(
        state, "confirm_action", {"action_id": requested.content["action_id"]}
    )
    assert confirmed.ok, confirmed.content
    return confirmed


def _exchangeable(world: World) -> tuple[str, str, str]:
    state = world.new_state()
    for order in ORDERS:
        for item in world.execute(state, "get_order", {"order_id": order}).content["items"]:
            for other in PRODUCTS:
                args = {
                    "order_id": order,
                    "item_id": item["item_id"],
                    "replacement_item_id": other,
                    "reason": "x",
                }
                if world.execute(world.new_state(), "request_exchange", args).ok:
                    return order, item["item_id"], other
    raise AssertionError("no exchange the fixtures allow")


def test_an_exchange_takes_the_replacement_from_stock_only_in_version_2() -> None:
    for key, taken in (("retail@1", 0), ("retail@2", 1)):
        world: World = REGISTRY.get("world", key)
        order, item, other = _exchangeable(world)
        state = world.new_state()
        stock = world.execute(state, "check_stock", {"product_id": other}).content["quantity"]
        args = {"order_id": order, "item_id": item, "replacement_item_id": other, "reason": "x"}
        _confirm(world, state, "request_exchange", args)
        after = world.execute(state, "check_stock", {"product_id": other}).content["quantity"]
        assert after == stock - taken, key


def test_a_return_refunds_the_item_only_in_version_2() -> None:
    for key in ("retail@1", "retail@2"):
        world: World = REGISTRY.get("world", key)
        state = world.new_state()
        found = None
        for order in ORDERS:
            record = world.execute(state, "get_order", {"order_id": order}).content
            for item in record["items"]:
                args = {"order_id": order, "item_id": item["item_id"], "reason": "x"}
                if world.execute(world.new_state(), "request_return", args).ok:
                    found = (record, item, args)
                    break
            if found:
                break
        assert found is not None
        record, item, args = found
        _confirm(world, state, "request_return", args)
        now = world.execute(state, "get_order", {"order_id": record["order_id"]}).content
        price = round(item["unit_price"] * item["quantity"], 2)
        expected = record["refunded_amount"] + (price if key == "retail@2" else 0)
        assert now["refunded_amount"] == expected, key
        again = world.execute(state, "request_return", args)
        assert again.ok == (key == "retail@1"), again.content  # no second refund in version 2


def test_version_2_shares_version_1_s_data_and_the_bare_name_stays_version_1() -> None:
    first, second = REGISTRY.get("world", "retail@1"), REGISTRY.get("world", "retail@2")
    assert REGISTRY.get("world", "retail") is first
    assert second.data.hash == first.data.hash and second.ref != first.ref
