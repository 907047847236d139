"""A base for sandboxes: schema-checked dispatch to ``tool_<name>`` methods, JSON-clean results.

A domain subclasses :class:`SchemaSandbox` and writes one method per tool. ``execute`` never
raises for bad input: an unknown tool, arguments that break the tool's JSON Schema, or a
:class:`ToolError` raised by the method become ``ToolResult(ok=False, error=...)``. Results are
round-tripped through canonical JSON, so they are plain data and identical calls give
byte-identical results.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

import jsonschema
from rejudge.store import ToolRegistry, canonical_json
from rejudge.suites._domain import ToolResult
from rejudge.suites._errors import ToolError

__all__ = ["SchemaSandbox", "ToolError", "deep_freeze", "thaw"]


class SchemaSandbox:
    """Base sandbox. Subclasses set ``self.registry`` via ``__init__`` and define tool methods."""

    def __init__(self, registry: ToolRegistry) -> None:
        self.registry = registry
        self._validators: dict[str, Any] = {}
        self.log: list[tuple[str, dict[str, Any], ToolResult]] = []

    def _validator(self, name: str) -> Any:
        if name not in self._validators:
            spec = self.registry.tool(name)
            assert spec is not None
            cls = jsonschema.validators.validator_for(spec.parameters)
            self._validators[name] = cls(spec.parameters)
        return self._validators[name]

    def execute(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        result = self._execute(name, arguments)
        self.log.append((name, copy.deepcopy(arguments), result))
        return result

    def _execute(self, name: str, arguments: Any) -> ToolResult:
        spec = self.registry.tool(name)
        method = getattr(self, f"tool_{name}", None)
        if spec is None or method is None:
            return ToolResult(ok=False, error=f"unknown tool {name!r}")
        if not isinstance(arguments, dict):
            return ToolResult(ok=False, error="arguments must be a JSON object")
        errors = sorted(self._validator(name).iter_errors(arguments), key=lambda e: list(e.path))
        if errors:
            first = errors[0]
            where = ".".join(str(p) for p in first.absolute_path)
            prefix = f"{where}: " if where else ""
            return ToolResult(
                ok=False, error=f"invalid arguments for {name}: {prefix}{first.message}"
            )
        try:
            value = method(**copy.deepcopy(arguments))
        except ToolError as exc:
            return ToolResult(ok=False, error=str(exc))
        return ToolResult(ok=True, result=json.loads(canonical_json(thaw(value))))


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
