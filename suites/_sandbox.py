"""Sandboxes: schema-checked dispatch to ``tool_<name>`` methods, JSON-clean results.

A stateful domain writes a :class:`SchemaWorld` (a :class:`~rejudge.model.World` whose tools
are methods ``tool_<name>(state, ...)`` over a :class:`~rejudge.model.WorldState`) and records
in a :class:`WorldSandbox`: one world state plus ``execute``. The recorder's sandbox and the
judge's ``state`` tier therefore run the same code, and a re-executed call gives back the bytes
the model was shown. :class:`SchemaSandbox` is the same dispatch for a sandbox that keeps its
own state (no world).

Execution never raises for bad input: an unknown tool, arguments that break the tool's JSON
Schema, or a :class:`ToolError` raised by the method become a failed result whose content is
``{"error": ...}`` (what the model sees). Results are round-tripped through canonical JSON, so
they are plain data and identical calls give byte-identical results.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

import jsonschema
from rejudge.suites._domain import ToolResult
from rejudge.suites._errors import ToolError

from rejudge.model import CallResult, ToolRegistry, World, WorldData, WorldState, canonical_json

__all__ = [
    "SchemaSandbox",
    "SchemaWorld",
    "ToolError",
    "WorldSandbox",
    "deep_freeze",
    "thaw",
]


class _Checker:
    """A registry's argument check: one compiled JSON Schema validator per tool, made once."""

    def __init__(self, registry: ToolRegistry) -> None:
        self.registry = registry
        self._validators: dict[str, Any] = {}

    def _validator(self, name: str) -> Any:
        if name not in self._validators:
            spec = self.registry.tool(name)
            assert spec is not None
            cls = jsonschema.validators.validator_for(spec.parameters)
            self._validators[name] = cls(spec.parameters)
        return self._validators[name]

    def problem(self, name: str, method: Any, arguments: Any) -> str | None:
        """Why the call cannot run (the sentence the model is shown), or None if it can."""
        if self.registry.tool(name) is None or method is None:
            return f"unknown tool {name!r}"
        if not isinstance(arguments, dict):
            return "arguments must be a JSON object"
        errors = sorted(self._validator(name).iter_errors(arguments), key=lambda e: list(e.path))
        if errors:
            first = errors[0]
            where = ".".join(str(p) for p in first.absolute_path)
            prefix = f"{where}: " if where else ""
            return f"invalid arguments for {name}: {prefix}{first.message}"
        return None


def _clean(value: Any) -> Any:
    # plain JSON, keys in canonical order: what the model is shown, byte for byte
    return json.loads(canonical_json(thaw(value)))


class SchemaSandbox:
    """Base sandbox that keeps its own state. Subclasses set ``self.registry`` via
    ``__init__`` and define tool methods ``tool_<name>(...)``."""

    def __init__(self, registry: ToolRegistry) -> None:
        self.registry = registry
        self._checker = _Checker(registry)
        self.log: list[tuple[str, dict[str, Any], ToolResult]] = []

    def execute(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        result = self._execute(name, arguments)
        self.log.append((name, copy.deepcopy(arguments), result))
        return result

    def _execute(self, name: str, arguments: Any) -> ToolResult:
        method = getattr(self, f"tool_{name}", None)
        problem = self._checker.problem(name, method, arguments)
        if problem is not None:
            return ToolResult(ok=False, error=problem)
        try:
            assert method is not None  # problem() names a missing method
            value = method(**copy.deepcopy(arguments))
        except ToolError as exc:
            return ToolResult(ok=False, error=str(exc))
        return ToolResult(ok=True, result=_clean(value))


class SchemaWorld(World):
    """A world whose tools are methods ``tool_<name>(state, **arguments)``, checked against a
    tool registry's JSON Schemas first. A failed call's content is ``{"error": sentence}``,
    the message content a sandbox shows the model; a tool that raises something other than a
    :class:`ToolError` (a bug) fails with its exception named, and changes nothing."""

    def __init__(self, data: WorldData, registry: ToolRegistry) -> None:
        super().__init__(data)
        self.registry = registry
        self._checker = _Checker(registry)
        # asked once per judged trace by the state tier: worked out once
        self._tool_names = frozenset(
            t.name for t in registry.tools if hasattr(self, f"tool_{t.name}")
        )

    def tool_names(self) -> frozenset[str]:
        return self._tool_names

    def call(self, state: WorldState, name: str, arguments: dict[str, Any]) -> CallResult:
        method = getattr(self, f"tool_{name}", None)
        problem = self._checker.problem(name, method, arguments)
        if problem is not None:
            return CallResult(False, {"error": problem})
        try:
            assert method is not None  # problem() names a missing method
            value = method(state, **copy.deepcopy(arguments))
        except ToolError as exc:
            return CallResult(False, {"error": str(exc)})
        return CallResult(True, _clean(value))

    def failure(self, name: str, exc: Exception) -> CallResult:
        return CallResult(False, {"error": f"{name} failed: {type(exc).__name__}: {exc}"})


class WorldSandbox:
    """The recorder's sandbox for a world: one fresh world state and ``execute``. Every call
    goes through :meth:`World.execute`, so a failed call changes nothing."""

    def __init__(self, world: World, state: WorldState | None = None) -> None:
        self.world = world
        self.state = state if state is not None else world.new_state()
        self.log: list[tuple[str, dict[str, Any], ToolResult]] = []

    def execute(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        outcome = self.world.execute(self.state, name, arguments)
        if outcome.ok:
            result = ToolResult(ok=True, result=outcome.content)
        else:
            content = outcome.content
            error = content.get("error") if isinstance(content, dict) else None
            result = ToolResult(ok=False, error=str(error if error is not None else content))
        self.log.append((name, copy.deepcopy(arguments), result))
        return result


def deep_freeze(value: Any) -> Any:
    """A read-only view of JSON-like data (mappings become MappingProxyType, lists tuples)."""
    from types import MappingProxyType

    if isinstance(value, Mapping):
        return MappingProxyType({k: deep_freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(deep_freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """A fresh, mutable deep copy of (possibly frozen) JSON-like data."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(v) for v in value]
    return value
