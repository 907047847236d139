"""The retail world's reads (and its two tools without a database effect: ``calculate``,
``transfer_to_human_agents``). Results are the records as ``json.dumps`` gives them."""

from __future__ import annotations

import ast

from rejudge.suites._errors import ToolError
from rejudge.suites.worlds._calculator import FOUR_OPERATIONS, evaluate
from rejudge.suites.worlds._tau2 import _Refused
from rejudge.suites.worlds.tau2_retail.records import dump, order_record, user_record

from rejudge.model import WorldState

__all__ = [
    "calculate",
    "find_user_id_by_email",
    "find_user_id_by_name_zip",
    "get_order_details",
    "get_product_details",
    "get_user_details",
    "list_all_product_types",
    "transfer_to_human_agents",
]


def find_user_id_by_email(state: WorldState, email: str) -> str:
    for user_id, user in state.items("users"):
        if user["email"].lower() == email.lower():
            return user_id
    raise _Refused("User not found")


def find_user_id_by_name_zip(state: WorldState, first_name: str, last_name: str, zip: str) -> str:
    for user_id, user in state.items("users"):
        name = user["name"]
        if (
            name["first_name"].lower() == first_name.lower()
            and name["last_name"].lower() == last_name.lower()
            and user["address"]["zip"] == zip
        ):
            return user_id
    raise _Refused("User not found")


def get_user_details(state: WorldState, user_id: str) -> str:
    return dump(user_record(state, user_id))


def get_order_details(state: WorldState, order_id: str) -> str:
    return dump(order_record(state, order_id))


def get_product_details(state: WorldState, product_id: str) -> str:
    product = state.get("products", product_id)
    if product is None:
        raise _Refused("Product not found")
    return dump(product)


def list_all_product_types(state: WorldState) -> str:
    names = {product["name"]: product_id for product_id, product in state.items("products")}
    return dump(dict(sorted(names.items())))


def calculate(state: WorldState, expression: str) -> str:
    try:
        value = evaluate(ast.parse(expression, mode="eval"), FOUR_OPERATIONS)
    except ToolError:
        # anything but numbers and the four operations (a name, a power)
        raise _Refused("Invalid characters in expression") from None
    except (SyntaxError, ZeroDivisionError) as exc:
        raise _Refused(f"{type(exc).__name__}: {exc}") from None
    return str(round(float(value), 2))


def transfer_to_human_agents(state: WorldState, summary: str) -> str:
    return "Transfer successful"
