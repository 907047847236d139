"""The genome sandbox: one browser session, a state of the genome world executed call by call.

The recorder's agent loop and ``rejudge suite selftest`` run calls here; the judge's ``state``
tier re-executes them on the same world (:mod:`rejudge.suites.domains.genome.world`), so what
the model was shown and what the judge re-derives are one implementation. The properties below
read the session as plain data (for tests and a person at a prompt); writing goes through
:meth:`execute` only.
"""

from __future__ import annotations

from typing import Any

from rejudge.suites._sandbox import WorldSandbox
from rejudge.suites.domains.genome._tools_base import (
    DEFAULT_VIEW_WIDTH,
    GENE_PADDING,
    MIN_VIEW_WIDTH,
    SESSION,
)
from rejudge.suites.domains.genome.world import GenomeWorld, genome_world

from rejudge.model import ToolRegistry, WorldState

__all__ = ["GenomeSandbox", "DEFAULT_VIEW_WIDTH", "MIN_VIEW_WIDTH", "GENE_PADDING"]


class GenomeSandbox(WorldSandbox):
    """One browser session over the shared, immutable synthetic genome."""

    world: GenomeWorld

    def __init__(
        self, registry: ToolRegistry | None = None, state: WorldState | None = None
    ) -> None:
        # the registry is the domain's (the world checks arguments against the same schemas)
        del registry
        super().__init__(genome_world(), state)

    @property
    def tabs(self) -> dict[str, Any]:
        return dict(self.state.items("tabs"))

    @property
    def active_tab(self) -> str:
        return str(self.state.get("browser", SESSION)["active_tab"])

    @property
    def annotations(self) -> dict[str, Any]:
        return dict(self.state.items("annotations"))

    @property
    def queue(self) -> list[dict[str, Any]]:
        return [action for _key, action in self.state.items("queue")]

    @property
    def files(self) -> dict[str, str]:
        """Each written file's text, by name."""
        return {name: record["text"] for name, record in self.state.items("files")}
