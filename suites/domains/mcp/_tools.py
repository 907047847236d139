"""An MCP server's tools as a rejudge tool world: pure conversions, no connection.

``tools/list`` becomes a :class:`ToolRegistry`: each tool's ``inputSchema`` is its parameters'
JSON Schema, and its annotations say what it does to the world (the MCP spec's hints, with the
spec's defaults: ``destructiveHint`` true and ``idempotentHint`` false unless the server says
otherwise, both meaningful only when ``readOnlyHint`` is not true):

========================================  ==========  =====================
annotations                               read_only   kind
========================================  ==========  =====================
``readOnlyHint: true``                    True        ``read``
``destructiveHint: false``, idempotent    False       ``idempotent``
``destructiveHint: false``                False       ``additive``
anything else (destructive by default)    False       ``destructive``
no annotations at all                     False       ``unannotated``
========================================  ==========  =====================

A tool without annotations changes state (the judge treats it as such) until the suite's
``registry.json`` says otherwise: the snapshot is the suite's to edit.

``tools/call`` answers become :class:`ToolResult`: a result with ``isError`` or a JSON-RPC
error is an error the model sees (``ok=False``, the server's own text); otherwise the tool's
``structuredContent`` when it sent one, else its content (one text block is parsed as JSON when
it is JSON). The same function reads a live answer and a recorded one, so replay gives the
model byte-identical results.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import jsonschema
from rejudge.suites._domain import ToolResult
from rejudge.suites._errors import SuiteError

from rejudge.errors import InvalidInputError
from rejudge.model import Case, Golden, GoldenCall, ToolRegistry, ToolSpec

__all__ = [
    "MCP_DOMAIN",
    "McpToolsError",
    "registry_from_mcp_tools",
    "tool_kind",
    "skeleton_cases",
    "tool_result_from_mcp",
]

MCP_DOMAIN = "mcp"


class McpToolsError(SuiteError, InvalidInputError):
    """A server's ``tools/list`` cannot be a tool registry (a tool listed twice, a tool without
    a name, an input schema that is no JSON Schema of an object)."""


def tool_kind(annotations: Mapping[str, Any] | None) -> tuple[bool, str]:
    """``(read_only, kind)`` for a tool's MCP annotations (the table in the module doc)."""
    if not annotations:
        return False, "unannotated"
    if annotations.get("readOnlyHint") is True:
        return True, "read"
    if annotations.get("destructiveHint", True) is not False:
        return False, "destructive"
    return False, "idempotent" if annotations.get("idempotentHint") is True else "additive"


def _schema_problem(schema: Any) -> str | None:
    if not isinstance(schema, dict):
        return "its inputSchema is not a JSON object"
    if schema.get("type") != "object":
        return f"its inputSchema has type {schema.get('type')!r}; MCP requires 'object'"
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
        return f"its inputSchema is not a valid JSON Schema at {where}: {exc.message}"
    return None


def registry_from_mcp_tools(
    tools: Sequence[Mapping[str, Any]], *, version: str = "1", source: str = "the server"
) -> ToolRegistry:
    """The registry of a ``tools/list`` answer (its ``tools`` items, as JSON); raises
    :class:`McpToolsError` naming the first tool that cannot be used, and builds nothing."""
    specs: list[ToolSpec] = []
    seen: set[str] = set()
    for position, tool in enumerate(tools):
        name = tool.get("name") if isinstance(tool, Mapping) else None
        if not isinstance(name, str) or not name:
            raise McpToolsError(f"{source} lists a tool without a name (item {position})")
        if name in seen:
            raise McpToolsError(f"{source} lists the tool {name!r} twice", field=name)
        seen.add(name)
        problem = _schema_problem(tool.get("inputSchema"))
        if problem:
            raise McpToolsError(f"{source}'s tool {name!r}: {problem}", field=name)
        annotations = tool.get("annotations")
        read_only, kind = tool_kind(annotations if isinstance(annotations, Mapping) else None)
        description = tool.get("description") or (annotations or {}).get("title") or ""
        specs.append(
            ToolSpec(
                name=name,
                description=str(description),
                parameters=dict(tool["inputSchema"]),
                read_only=read_only,
                kind=kind,
            )
        )
    if not specs:
        raise McpToolsError(f"{source} lists no tools; there is nothing to call")
    return ToolRegistry(domain=MCP_DOMAIN, version=version, tools=specs)


# --------------------------------------------------------------------------- skeleton

_PLACEHOLDER = {"string": "TODO", "integer": 0, "number": 0, "boolean": False}


def _placeholder(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return "TODO"
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "object":
        return _required_params(schema)
    if kind == "array":
        return []
    if kind in ("integer", "number") and isinstance(schema.get("minimum"), int | float):
        return schema["minimum"]
    return _PLACEHOLDER.get(str(kind), "TODO")


def _required_params(schema: Mapping[str, Any]) -> dict[str, Any]:
    props = schema.get("properties") or {}
    return {key: _placeholder(props.get(key)) for key in schema.get("required") or []}


def _case_id(name: str) -> str:
    return re.sub(r"[^a-z0-9._-]+", "-", name.lower()).strip("-") or "tool"


def skeleton_cases(registry: ToolRegistry) -> list[Case]:
    """One case per tool for a person to fill: an instruction to write, the golden call with
    the tool's required parameters as placeholders, skipped until it is filled in."""
    cases = []
    for spec in registry.tools:
        cases.append(
            Case(
                id=f"{_case_id(spec.name)}-001",
                dimension="D1",
                category=spec.kind or "tool",
                instruction=f"TODO: a request that needs {spec.name}",
                golden=Golden(
                    calls=[GoldenCall(tool=spec.name, params=_required_params(spec.parameters))]
                ),
                skip=True,
                skip_reason=(
                    "skeleton: write the instruction and the golden call's parameters, then set "
                    "skip to false"
                ),
            )
        )
    return cases


# --------------------------------------------------------------------------- results


def _error_text(content: Any) -> str:
    if isinstance(content, list):
        texts = [str(b.get("text")) for b in content if isinstance(b, dict) and "text" in b]
        if texts:
            return "\n".join(texts)
    return json.dumps(content, ensure_ascii=False, sort_keys=True)


def _content_value(content: Any) -> Any:
    if not isinstance(content, list):
        return content
    if len(content) == 1 and isinstance(content[0], dict) and content[0].get("type") == "text":
        text = str(content[0].get("text", ""))
        try:
            return json.loads(text)
        except ValueError:
            return text
    return [
        b.get("text") if isinstance(b, dict) and b.get("type") == "text" else b for b in content
    ]


def tool_result_from_mcp(message: Mapping[str, Any]) -> ToolResult:
    """The result the model is shown for one ``tools/call`` JSON-RPC response message."""
    error = message.get("error")
    if isinstance(error, Mapping):
        return ToolResult(
            ok=False, error=f"MCP error {error.get('code')}: {error.get('message') or ''}".strip()
        )
    result = message.get("result")
    if not isinstance(result, Mapping):
        return ToolResult(ok=False, error="the MCP server answered without a result")
    if result.get("isError") is True:
        return ToolResult(ok=False, error=_error_text(result.get("content")))
    if "structuredContent" in result and result["structuredContent"] is not None:
        return ToolResult(ok=True, result=result["structuredContent"])
    return ToolResult(ok=True, result=_content_value(result.get("content", [])))
