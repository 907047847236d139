"""The retail world (seed 001): 13 tools over frozen fixtures, with a request/confirm sandbox.

Reads answer from the fixtures (users U101-U103, orders W441-W448, products P201-P210, a return
policy). Each request_* tool checks the store's rules and creates a pending action stub
(``ACT-0001``, ``ACT-0002``... per sandbox); confirm_action and abort_action resolve it. The
fixtures never change: they are loaded once, frozen, and every sandbox starts fresh.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import Any

from rejudge.store import Case, ToolRegistry, ToolSpec
from rejudge.suites._domain import package_data, register_domain
from rejudge.suites.domains.retail.sandbox import RetailSandbox, fixtures

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
    data = json.loads(package_data("domains", "retail", "tools.json").read_text(encoding="utf-8"))
    world = fixtures()
    return ToolRegistry(
        domain="retail",
        version=data["version"],
        tools=[ToolSpec.model_validate(tool) for tool in data["tools"]],
        fixture_ids={key: sorted(world[table]) for key, table in FIXTURE_KEYS.items()},
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
