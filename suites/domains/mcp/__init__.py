"""The ``mcp`` domain: a tool world that lives behind an MCP server.

An MCP suite carries its tools as a snapshot (``registry.json``, written from the server's
``tools/list`` by :func:`registry_from_mcp_tools`), and its calls run on the server itself:
recording executes them with ``tools/call`` (:mod:`rejudge.recorder`'s MCP executor) and replay
answers them from the cassette. So this domain has no registry of its own and no sandbox; both
say what to do instead.
"""

from __future__ import annotations

from typing import Any

from rejudge.suites._domain import register_domain
from rejudge.suites._errors import SuiteError
from rejudge.suites.domains.mcp._tools import (
    MCP_DOMAIN,
    McpToolsError,
    registry_from_mcp_tools,
    skeleton_cases,
    tool_kind,
    tool_result_from_mcp,
)

from rejudge.model import ToolRegistry

__all__ = [
    "MCP_DOMAIN",
    "McpDomain",
    "McpToolsError",
    "registry_from_mcp_tools",
    "skeleton_cases",
    "tool_kind",
    "tool_result_from_mcp",
]


class McpDomain:
    name = MCP_DOMAIN
    case_id_pattern: str | None = None

    def registry(self) -> ToolRegistry:
        raise SuiteError(
            "an MCP suite carries its own registry (registry.json in the suite folder, a "
            "snapshot of the server's tools/list); snapshot the server into a suite first"
        )

    def new_sandbox(self, case_metadata: dict[str, Any] | None = None) -> Any:
        raise SuiteError(
            "an MCP suite's calls run on its MCP server, not in a sandbox: record it against "
            "the server (its calls go through tools/call), or replay a recorded run"
        )


register_domain(MCP_DOMAIN, McpDomain)
