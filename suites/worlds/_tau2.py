"""What τ²'s two worlds here (``tau2_airline``, ``tau2_retail``) do alike, because τ² does it
alike for every domain: a record prints as ``json.dumps`` with its defaults, a tool's refusal is
``Error: <message>``, and before a tool runs the world answers a tool it does not have, or
arguments that are no object, in τ²'s words.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from typing import Any

from rejudge.model import CallResult, World, WorldState

__all__ = ["Tau2World", "dump", "record"]


class _Refused(Exception):
    """A tool's own refusal: the world answers ``Error: <message>``."""

    # private: control flow inside the world package, never raised out of it (the world turns
    # it into a failed result), so it is no RejudgeError of the library's tree


def dump(value: Any) -> str:
    return json.dumps(value)


def record(state: WorldState, table: str, key: str, refusal: str) -> dict[str, Any]:
    """Row ``key`` of ``table``, or a refusal in the given words when there is none."""
    found: dict[str, Any] | None = state.get(table, key)
    if found is None:
        raise _Refused(refusal)
    return found


class Tau2World(World):
    """A τ² world: the call's checks every τ² domain makes, then :meth:`run`."""

    def call(self, state: WorldState, name: str, arguments: dict[str, Any]) -> CallResult:
        if name not in self.tool_names():
            return CallResult(False, f"Error: Tool '{name}' not found.")
        if not isinstance(arguments, dict):
            return CallResult(False, f"Error: the arguments of {name} are not an object")
        return self.run(state, name, arguments)

    @abstractmethod
    def run(self, state: WorldState, name: str, arguments: dict[str, Any]) -> CallResult:
        """Run tool ``name`` (one the world has) on ``arguments`` (an object)."""
