"""The retail world: registry, fixtures that never change, a deterministic sandbox whose
confirmed actions change the orders (and only a trace's own state, never the fixtures)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rejudge.suites import get_domain, golden_trace, load_suite, thaw
from rejudge.suites._domain import package_data
from rejudge.suites.domains.retail import fixtures, retail_registry
from rejudge.suites.domains.retail.sandbox import RetailSandbox

from rejudge.model import canonical_json

READ = ["get_user", "get_order", "list_orders", "get_product", "check_stock", "get_return_policy"]
REQUEST = [
    "request_address_update",
    "request_cancel",
    "request_return",
    "request_exchange",
    "request_refund",
]
CONFIRM = ["confirm_action", "abort_action"]


def fixture_snapshot() -> str:
    return canonical_json(thaw(fixtures()))


def test_registry_has_the_thirteen_tools_with_strict_schemas() -> None:
    registry = retail_registry()
    assert registry.tool_names() == READ + REQUEST + CONFIRM
    for spec in registry.tools:
        params = spec.parameters
        assert params["type"] == "object"
        assert params["additionalProperties"] is False
        assert set(params["required"]) <= set(params["properties"])
        assert spec.read_only == (spec.name in READ)
        assert spec.kind == (
            "read" if spec.name in READ else "request" if spec.name in REQUEST else "confirmation"
        )
    address = registry.tool("request_address_update")
    assert address is not None
    nested = address.parameters["properties"]["address"]
    assert nested["additionalProperties"] is False
    assert nested["required"] == ["street", "city", "postal_code", "country"]
    status = registry.tool("list_orders")
    assert status is not None
    assert status.parameters["properties"]["status"]["enum"] == [
        "pending",
        "shipped",
        "delivered",
        "cancelled",
    ]


def test_registry_fixture_ids_and_openai_format() -> None:
    registry = retail_registry()
    assert registry.fixture_ids["user_id"] == ["U101", "U102", "U103"]
    assert registry.fixture_ids["order_id"] == [f"W44{i}" for i in range(1, 9)]
    products = [f"P2{i:02d}" for i in range(1, 11)]
    for key in ("product_id", "item_id", "replacement_item_id"):
        assert registry.fixture_ids[key] == products
    tools = registry.openai_tools()
    assert len(tools) == 13 and all(t["type"] == "function" for t in tools)
    assert registry.hash.startswith("sha256:") and registry.hash == retail_registry().hash


def test_fixtures_cover_every_order_state() -> None:
    world = fixtures()
    states = {order["status"] for order in world["orders"].values()}
    assert states == {"pending", "shipped", "delivered", "cancelled"}
    for order in world["orders"].values():
        assert order["user_id"] in world["users"]
        for item in order["items"]:
            assert item["item_id"] in world["products"]
        total = round(sum(i["quantity"] * i["unit_price"] for i in order["items"]), 2)
        assert total == order["total"], order["order_id"]
    with pytest.raises(TypeError):
        world["orders"]["W441"]["status"] = "cancelled"  # type: ignore[index]


def sandbox() -> RetailSandbox:
    box = get_domain("retail").new_sandbox()
    assert isinstance(box, RetailSandbox)
    return box


def test_reads_answer_from_fixtures_and_unknown_ids_are_tool_errors() -> None:
    box = sandbox()
    order = box.execute("get_order", {"order_id": "W442"})
    assert order.ok and order.result["status"] == "shipped"
    stock = box.execute("check_stock", {"product_id": "P206"})
    assert stock.ok and stock.result == {"product_id": "P206", "quantity": 0, "in_stock": False}
    assert "stock" not in box.execute("get_product", {"product_id": "P206"}).result
    delivered = box.execute("list_orders", {"user_id": "U102", "status": "delivered"})
    assert [o["order_id"] for o in delivered.result["orders"]] == ["W444", "W446"]
    for name, args, fragment in [
        ("get_user", {"user_id": "U999"}, "user U999 not found"),
        ("get_order", {"order_id": "W999"}, "order W999 not found"),
        ("check_stock", {"product_id": "P299"}, "product P299 not found"),
        ("get_order", {"order_id": "441"}, "invalid arguments"),
        ("get_order", {}, "'order_id' is a required property"),
        ("get_order", {"order_id": "W441", "extra": 1}, "invalid arguments"),
        ("launch_rocket", {}, "unknown tool"),
        ("confirm_action", {"action_id": "ACT-0001"}, "no pending action"),
    ]:
        result = box.execute(name, args)
        assert not result.ok and fragment in (result.error or ""), (name, result)
        assert result.as_message_content() == {"error": result.error}


def test_mutations_follow_the_store_rules() -> None:
    box = sandbox()
    refused = {
        ("request_cancel", "W442"): "is shipped",
        ("request_address_update", "W443"): "is delivered",
        ("request_return", "W441"): "is pending",
        ("request_refund", "W441"): "is pending",
    }
    address = {"street": "1 A St", "city": "B", "postal_code": "C1", "country": "GB"}
    for (tool, order_id), fragment in refused.items():
        args: dict[str, Any] = {"order_id": order_id}
        if tool == "request_address_update":
            args["address"] = address
        if tool in ("request_return", "request_refund"):
            args["reason"] = "x"
        if tool == "request_return":
            args["item_id"] = "P207"
        result = box.execute(tool, args)
        assert not result.ok and fragment in (result.error or ""), (tool, result)
    window = box.execute("request_return", {"order_id": "W446", "item_id": "P203", "reason": "x"})
    assert not window.ok and "outside the 30-day return window" in (window.error or "")
    gift = box.execute("request_return", {"order_id": "W448", "item_id": "P210", "reason": "x"})
    assert not gift.ok and "cannot be returned" in (gift.error or "")
    wrong_item = box.execute(
        "request_return", {"order_id": "W443", "item_id": "P201", "reason": "x"}
    )
    assert not wrong_item.ok and "has no item P201" in (wrong_item.error or "")
    no_stock = box.execute(
        "request_exchange",
        {"order_id": "W444", "item_id": "P201", "replacement_item_id": "P206", "reason": "x"},
    )
    assert not no_stock.ok and "out of stock" in (no_stock.error or "")
    too_much = box.execute("request_refund", {"order_id": "W445", "amount": 50, "reason": "x"})
    assert not too_much.ok and "exceeds" in (too_much.error or "")
    # no failed request consumed an action id
    first = box.execute("request_cancel", {"order_id": "W447"})
    assert first.ok and first.result["action_id"] == "ACT-0001"


def test_request_confirm_abort_lifecycle() -> None:
    box = sandbox()
    cancel = box.execute("request_cancel", {"order_id": "W441"})
    refund = box.execute("request_refund", {"order_id": "W445", "reason": "cancelled"})
    assert (cancel.result["action_id"], refund.result["action_id"]) == ("ACT-0001", "ACT-0002")
    assert cancel.result["status"] == "pending" and refund.result["details"]["amount"] == 34.99
    confirmed = box.execute("confirm_action", {"action_id": "ACT-0001"})
    assert confirmed.ok and confirmed.result["status"] == "confirmed"
    again = box.execute("abort_action", {"action_id": "ACT-0001"})
    assert not again.ok and "already confirmed" in (again.error or "")
    aborted = box.execute("abort_action", {"action_id": "ACT-0002", "reason": "changed mind"})
    assert aborted.ok and aborted.result["status"] == "aborted"
    # the confirmed cancellation is applied to this trace's state; the withdrawn refund is not
    order = box.execute("get_order", {"order_id": "W441"}).result
    assert (order["status"], order["cancelled_at"]) == ("cancelled", "2025-06-15")
    assert box.execute("get_order", {"order_id": "W445"}).result["refunded_amount"] == 0.0
    assert box.state.changes().keys() == {"orders", "requests"}
    refused = box.execute("request_cancel", {"order_id": "W441"})
    assert not refused.ok and "is cancelled" in (refused.error or "")
    assert fixtures()["orders"]["W441"]["status"] == "pending"
    # a fresh sandbox starts with no actions and counts from ACT-0001 again
    fresh = sandbox()
    assert not fresh.execute("confirm_action", {"action_id": "ACT-0002"}).ok
    assert fresh.execute("request_cancel", {"order_id": "W447"}).result["action_id"] == "ACT-0001"


def test_what_each_confirmed_action_writes() -> None:
    box = sandbox()
    address = {
        "street": "5 Canal Street",
        "city": "Manchester",
        "postal_code": "M1",
        "country": "GB",
    }
    calls: list[tuple[str, dict[str, Any]]] = [
        ("request_address_update", {"order_id": "W447", "address": address}),
        ("request_refund", {"order_id": "W445", "amount": 10, "reason": "late"}),
        ("request_return", {"order_id": "W443", "item_id": "P204", "reason": "mind"}),
        ("request_exchange", {"order_id": "W444", "item_id": "P201"}),
        ("request_cancel", {"order_id": "W441", "reason": "no longer needed"}),
    ]
    calls[3][1].update(replacement_item_id="P202", reason="small")
    for name, args in calls:
        assert box.execute(name, args).ok, name
    # pending: one record per request, what it would do (the free-text reason left out)
    assert box.state.get("actions", "ACT-0005") == {"type": "cancel", "order_id": "W441"}
    for n in range(1, 5):
        assert box.execute("confirm_action", {"action_id": f"ACT-000{n}"}).ok
    assert box.execute("abort_action", {"action_id": "ACT-0005"}).ok
    changes = box.state.changes()
    assert "actions" not in changes  # every request resolved: none is pending
    assert box.state.keys("requests") == [f"ACT-000{n}" for n in range(1, 6)]  # the ledger
    assert box.state.get("orders", "W447")["shipping_address"] == address
    assert box.state.get("orders", "W445")["refunded_amount"] == 10
    assert changes["refunds"] == {"W445/1": {"order_id": "W445", "amount": 10, "currency": "EUR"}}
    assert changes["returns"] == {"W443/P204": {"order_id": "W443", "item_id": "P204"}}
    assert changes["exchanges"] == {
        "W444/P201": {"order_id": "W444", "item_id": "P201", "replacement_item_id": "P202"}
    }
    assert box.state.get("orders", "W441")["status"] == "pending"  # aborted: never applied
    # a second partial refund sees what the first one refunded
    too_much = box.execute("request_refund", {"order_id": "W445", "amount": 30, "reason": "x"})
    assert not too_much.ok and "refundable amount 24.99" in (too_much.error or "")


def test_a_failed_request_writes_nothing() -> None:
    box = sandbox()
    assert not box.execute("request_cancel", {"order_id": "W442"}).ok
    assert not box.execute("confirm_action", {"action_id": "ACT-0001"}).ok
    assert box.state.changes() == {}


def test_fixtures_unchanged_after_every_retail_case() -> None:
    before = fixture_snapshot()
    on_disk = json.loads(package_data("domains", "retail", "fixtures.json").read_text("utf-8"))
    source = load_suite("retail")
    domain = get_domain("retail")
    for case in source.cases:
        box = domain.new_sandbox(case.metadata)
        trace = golden_trace(case, box)
        # results handed out are copies: scribbling on them changes nothing
        for call in trace.calls:
            if isinstance(call.result, dict):
                call.result.clear()
        assert fixture_snapshot() == before, case.id
    assert canonical_json(on_disk) == before


# ----------------------------------------------------------------------------- determinism

ids = st.sampled_from
ARGS = st.one_of(
    st.tuples(
        st.just("get_user"), st.fixed_dictionaries({"user_id": ids(["U101", "U103", "U999"])})
    ),
    st.tuples(
        st.just("get_order"),
        st.fixed_dictionaries({"order_id": ids(["W441", "W446", "W999", "bad"])}),
    ),
    st.tuples(
        st.just("list_orders"),
        st.fixed_dictionaries(
            {"user_id": ids(["U101", "U102"])},
            optional={"status": ids(["pending", "delivered", "lost"])},
        ),
    ),
    st.tuples(
        st.just("check_stock"), st.fixed_dictionaries({"product_id": ids(["P201", "P206", "P299"])})
    ),
    st.tuples(st.just("get_return_policy"), st.just({})),
    st.tuples(
        st.just("request_cancel"),
        st.fixed_dictionaries({"order_id": ids(["W441", "W442", "W447"])}),
    ),
    st.tuples(
        st.just("request_return"),
        st.fixed_dictionaries(
            {
                "order_id": ids(["W443", "W448"]),
                "item_id": ids(["P204", "P205"]),
                "reason": st.text(min_size=1, max_size=8),
            }
        ),
    ),
    st.tuples(
        st.just("request_refund"),
        st.fixed_dictionaries(
            {"order_id": ids(["W445", "W448"]), "reason": st.just("r")},
            optional={"amount": st.floats(min_value=0.01, max_value=200, allow_nan=False)},
        ),
    ),
    st.tuples(
        st.just("request_address_update"),
        st.fixed_dictionaries(
            {
                "order_id": ids(["W441", "W447"]),
                "address": st.fixed_dictionaries(
                    {
                        "street": st.just("1 Main St"),
                        "city": st.just("York"),
                        "postal_code": st.just("Y1"),
                        "country": ids(["GB", "gb"]),
                    }
                ),
            }
        ),
    ),
    st.tuples(
        st.just("confirm_action"),
        st.fixed_dictionaries({"action_id": ids(["ACT-0001", "ACT-0002", "x"])}),
    ),
    st.tuples(
        st.just("abort_action"), st.fixed_dictionaries({"action_id": ids(["ACT-0001", "ACT-0003"])})
    ),
)


def run(calls: list[tuple[str, dict[str, Any]]]) -> str:
    box = sandbox()
    results = [box.execute(name, json.loads(json.dumps(args))) for name, args in calls]
    return canonical_json([[r.ok, r.result, r.error] for r in results])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ARGS, max_size=12))
def test_same_calls_give_byte_identical_results_and_never_touch_fixtures(
    calls: list[tuple[str, dict[str, Any]]],
) -> None:
    before = fixture_snapshot()
    first = run(calls)
    assert run(calls) == first
    assert fixture_snapshot() == before
