"""The retail domain (seed 001): 13 tools over a world with state, a request/confirm workflow.

Reads answer from the world (users U101-U103, orders W441-W448, products P201-P210, a return
policy). Each request_* tool checks the store's rules and creates a pending action
(``ACT-0001``, ``ACT-0002``... per trace); confirm_action applies it to the order, abort_action
withdraws it (:mod:`rejudge.suites.domains.retail.world`). The fixtures are the world's initial
data: loaded once, never written; every sandbox starts from them. The registry names the world,
so the judge's ``state`` tier applies to retail cases.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

from rejudge.suites._domain import register_domain
from rejudge.suites.domains.retail.sandbox import RetailSandbox, fixtures
from rejudge.suites.domains.retail.world import load_data, tool_specs

from rejudge.model import Case, ToolRegistry

__all__ = ["RetailDomain", "RetailSandbox", "retail_registry", "fixtures", "CASE_ID_PATTERN"]

CASE_ID_PATTERN = r"fc-d(?P<dim>[1-4])-(?P<num>[0-9]{3})"
# parameter names whose values must be fixture ids
FIXTURE_KEYS = {
    "user_id": "users",
    "order_id": "orders",
    "product_id": "products",
    "item_id": "products",
    "replacement_item_id": "products",
}


@cache
def retail_registry() -> ToolRegistry:
    version, tools = tool_specs()
    world = fixtures()
    return ToolRegistry(
        domain="retail",
        version=version,
        tools=list(tools),
        fixture_ids={key: sorted(world[table]) for key, table in FIXTURE_KEYS.items()},
        world=load_data().ref,
    )


class RetailDomain:
    name = "retail"
    case_id_pattern: str | None = CASE_ID_PATTERN

    def registry(self) -> ToolRegistry:
        return retail_registry()

    def new_sandbox(self, case_metadata: dict[str, Any] | None = None) -> RetailSandbox:
        return RetailSandbox(retail_registry())

    def check_case(self, case: Case, registry: ToolRegistry) -> Iterator[tuple[str, str]]:
        """Seed 001's context rule: exactly db_fixture ("standard") and non-empty notes."""
        context = case.context
        if set(context) != {"db_fixture", "notes"}:
            yield "context", "context must hold exactly db_fixture and notes"
        if context.get("db_fixture") != "standard":
            yield "context.db_fixture", 'db_fixture must be "standard"'
        notes = context.get("notes")
        if not isinstance(notes, str) or not notes.strip():
            yield "context.notes", "notes must be a non-empty string"


register_domain("retail", RetailDomain)
