"""MCP servers as tool worlds: snapshot a server's tools into a suite folder, and find the
server an MCP suite records against.

``snapshot_mcp_suite`` connects (the handshake, ``tools/list``), turns the tools into a
registry (:func:`rejudge.suites.domains.mcp.registry_from_mcp_tools`) and writes a suite folder
-- ``suite.json`` (domain ``mcp``, how to reach the server), ``registry.json`` (the snapshot) and
``cases.jsonl`` (one skipped skeleton case per tool, for a person to fill) -- validated like
every suite. The folder is written under a temporary name and renamed when complete, so a
server that fails half-way (or a tool list that cannot be a registry) leaves nothing behind.
Recording itself is :func:`rejudge.services.record_suite` with the MCP world as its domain.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rejudge.errors import ConflictError, InvalidInputError
from rejudge.recorder import McpServer, McpWorld, ToolServerError, list_mcp_tools
from rejudge.suites import (
    FORMAT_VERSION,
    SUITE_REGISTRY_FILE,
    SuiteManifest,
    SuiteSource,
    validate_suite,
    write_suite,
)
from rejudge.suites.domains.mcp import MCP_DOMAIN, registry_from_mcp_tools, skeleton_cases

__all__ = ["McpSuiteSnapshot", "snapshot_mcp_suite", "mcp_world_for_suite"]


@dataclass(frozen=True)
class McpSuiteSnapshot:
    """``rejudge suite from-mcp --json`` (its fields, in order)."""

    suite: str
    folder: str
    server: dict[str, Any]
    protocol_version: str
    registry_hash: str
    tools: list[dict[str, Any]]
    cases: int
    problems: list[str]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _check_name(name: str) -> None:
    from rejudge.suites._case_format import manifest_problems

    problems = manifest_problems({"name": name, "domain": MCP_DOMAIN, "format_version": 1})
    if problems:
        raise InvalidInputError(
            f"suite name {name!r} is not usable: {problems[0][1]} (lower-case letters, digits, "
            "'.', '_' and '-')",
            field="name",
        )


def snapshot_mcp_suite(server: McpServer, name: str, folder: Path | str) -> McpSuiteSnapshot:
    """Snapshot ``server``'s tools into a new suite folder ``folder`` named ``name``."""
    _check_name(name)
    target = Path(folder)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ConflictError(
            f"{target} already exists; snapshot into a new folder (a suite is never overwritten)",
            file=str(target),
        )
    snapshot = asyncio.run(list_mcp_tools(server))
    source = server.describe()
    registry = registry_from_mcp_tools(snapshot.tools, version="1", source=source)
    cases = skeleton_cases(registry)
    server_meta = {
        **server.as_metadata(),
        "server": {"name": snapshot.server_name, "version": snapshot.server_version},
        "protocol_version": snapshot.protocol_version,
    }
    manifest = SuiteManifest(
        name=name,
        domain=MCP_DOMAIN,
        format_version=FORMAT_VERSION,
        description=(
            f"tools of the MCP server {snapshot.server_name or source} "
            f"{snapshot.server_version}".rstrip()
        ),
        metadata={"mcp": server_meta},
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        staging.chmod(0o755)  # mkdtemp's 0700 would hide the suite from its other readers
        write_suite(staging, manifest, cases)
        (staging / SUITE_REGISTRY_FILE).write_text(
            json.dumps(registry.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n",
            encoding="utf-8",
        )
        problems = [str(p).replace(str(staging), str(target)) for p in validate_suite(staging)]
        if target.exists():
            target.rmdir()  # empty (checked above)
        staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return McpSuiteSnapshot(
        suite=name,
        folder=str(target),
        server=server_meta,
        protocol_version=snapshot.protocol_version,
        registry_hash=registry.hash,
        tools=[{"name": t.name, "read_only": t.read_only, "kind": t.kind} for t in registry.tools],
        cases=len(cases),
        problems=problems,
    )


def mcp_world_for_suite(
    suite: SuiteSource,
    *,
    server: McpServer | None = None,
    timeout_s: float | None = None,
    probe: bool = True,
) -> McpWorld:
    """The world an MCP suite records in: ``server`` when given, else the server the suite
    was snapshotted from (its manifest's ``metadata.mcp``). ``probe`` connects once first and
    checks that the server still offers every tool of the suite."""
    if suite.domain != MCP_DOMAIN:
        raise InvalidInputError(
            f"suite {suite.name!r} is a {suite.domain} suite; only an MCP suite (domain "
            f"{MCP_DOMAIN!r}, e.g. one snapshotted from a server) records against an MCP server",
            field="mcp",
        )
    if server is None:
        meta = (suite.manifest.metadata if suite.manifest else {}).get("mcp")
        extra = {"timeout_s": timeout_s} if timeout_s is not None else {}
        server = McpServer.from_metadata(meta, **extra)
    if probe:
        # one handshake before any trace: a server that is down or changed is one error now,
        # not a run of AGENT_ERROR traces that a resume would then skip
        snapshot = asyncio.run(list_mcp_tools(server))
        offered = {str(t.get("name")) for t in snapshot.tools}
        missing = [name for name in suite.registry.tool_names() if name not in offered]
        if missing:
            raise ToolServerError(
                f"{server.describe()} no longer offers {', '.join(map(repr, missing))}, which "
                f"suite {suite.name!r} has; snapshot the server into a new suite",
                field="mcp",
            )
    return McpWorld(server)
