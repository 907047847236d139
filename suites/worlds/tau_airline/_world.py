"""The airline world: τ-bench's database and its 14 tools, executed on a copy-on-write state."""

from __future__ import annotations

from typing import Any, ClassVar

from rejudge.model import CallResult, World, WorldState

from ._arguments import SIGNATURES, check_arguments
from ._bookings import BOOKING_TOOLS
from ._data import NAME, VERSION
from ._reads import READ_TOOLS
from ._results import ToolFailure, error
from ._updates import UPDATE_TOOLS

__all__ = ["AirlineWorld"]

_TOOLS = {**READ_TOOLS, **BOOKING_TOOLS, **UPDATE_TOOLS}
assert set(_TOOLS) == set(SIGNATURES), "every tool has a signature, and only tools do"


class AirlineWorld(World):
    """τ-bench's airline world at commit 7362a17. Every result is the string τ-bench's tool
    gave back: a record as JSON, a sentence, or ``Error: ...`` (a failed call, which changes
    nothing)."""

    name: ClassVar[str] = NAME
    version: ClassVar[str] = VERSION
    # τ-bench ends the episode on this tool, and skips it when it replays the ground truth
    terminal_tools: ClassVar[frozenset[str]] = frozenset({"transfer_to_human_agents"})

    def tool_names(self) -> frozenset[str]:
        return frozenset(_TOOLS)

    def call(self, state: WorldState, name: str, arguments: dict[str, Any]) -> CallResult:
        tool = _TOOLS.get(name)
        if tool is None:
            return error(f"unknown tool {name!r}")
        problem = check_arguments(name, arguments)
        if problem is not None:
            return error(problem)
        try:
            return tool(state, **arguments)
        except ToolFailure as refusal:
            return error(str(refusal))

    def failure(self, name: str, exc: Exception) -> CallResult:
        # τ-bench words any exception a tool raises as "Error: " and the exception's text
        return error(str(exc))
