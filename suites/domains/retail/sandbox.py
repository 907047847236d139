"""The retail sandbox: one fresh state of the retail world, executed call by call.

The recorder's agent loop and ``rejudge suite selftest`` run calls here; the judge's ``state``
tier re-executes them on the same world (:mod:`rejudge.suites.domains.retail.world`), so what
the model was shown and what the judge re-derives are one implementation.
"""

from __future__ import annotations

from typing import Any

from rejudge.suites._sandbox import WorldSandbox
from rejudge.suites.domains.retail.world import RetailWorld, fixtures, retail_world

from rejudge.model import ToolRegistry

__all__ = ["RetailSandbox", "fixtures"]


class RetailSandbox(WorldSandbox):
    """One trace's retail world: a fresh state of the shipped fixtures."""

    world: RetailWorld

    def __init__(self, registry: ToolRegistry | None = None) -> None:
        # the registry is the domain's (the world checks arguments against the same schemas)
        del registry
        super().__init__(retail_world())

    def changes(self) -> dict[str, dict[str, Any]]:
        """What this trace's confirmed and pending actions wrote, table by table."""
        return self.state.changes()
