"""τ-bench's tools as a rejudge registry: from OpenAI function schemas (``--tools``), or
inferred from a file's calls and actions when none is given (marked ``version="inferred"``).

Which tools only read is a fact of τ-bench's environments, not of the schemas: the names below
are the reads and side-effect-free tools of tau_bench/envs/airline and envs/retail; those become
``read_only`` and every case's whitelist.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from rejudge.errors import InvalidInputError
from rejudge.model import ToolRegistry, ToolSpec

__all__ = ["TAU_DOMAIN", "TAU_READ_ONLY_TOOLS", "tau_registry", "inferred_registry"]

TAU_DOMAIN = "tau-bench"

#: tools τ-bench's environments define that only read the database or have no side effect
#: (tau_bench/envs/*/tools: airline and retail); every other tool changes the state or ends
#: the conversation
TAU_READ_ONLY_TOOLS: frozenset[str] = frozenset(
    {
        # airline
        "get_user_details",
        "get_reservation_details",
        "search_direct_flight",
        "search_onestop_flight",
        "list_all_airports",
        "get_flight_status",  # τ²-bench's airline only
        # retail
        "find_user_id_by_email",
        "find_user_id_by_name_zip",
        "get_order_details",
        "get_product_details",
        "list_all_product_types",
        # both: no side effect
        "think",
        "calculate",
    }
)


def tau_registry(tools: Any, *, source: str = "tools") -> ToolRegistry:
    """A registry from OpenAI function schemas (``[{type: function, function: {...}}]``)."""
    if not isinstance(tools, list) or not tools:
        raise InvalidInputError(
            f"{source}: expected a JSON list of OpenAI function schemas "
            '([{"type": "function", "function": {"name": ..., "parameters": ...}}])',
            file=source,
        )
    specs: list[ToolSpec] = []
    for i, item in enumerate(tools):
        fn = item.get("function") if isinstance(item, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise InvalidInputError(
                f"{source}: entry {i} is not an OpenAI function schema (no function.name)",
                file=source,
            )
        specs.append(
            ToolSpec(
                name=fn["name"],
                description=str(fn.get("description") or ""),
                parameters=fn.get("parameters") or {"type": "object", "properties": {}},
                read_only=fn["name"] in TAU_READ_ONLY_TOOLS,
                kind="read" if fn["name"] in TAU_READ_ONLY_TOOLS else "write",
            )
        )
    return ToolRegistry(domain=TAU_DOMAIN, version="1", tools=specs)


def inferred_registry(entries: list[dict[str, Any]]) -> ToolRegistry:
    """The tools the file's calls and actions name, each with the argument names seen (no
    types: nothing in the file says them)."""
    seen: dict[str, set[str]] = defaultdict(set)
    for entry in entries:
        for action in entry["info"]["task"].get("actions") or []:
            if isinstance(action, dict) and isinstance(action.get("name"), str):
                seen[action["name"]].update((action.get("kwargs") or {}).keys())
        for msg in entry.get("traj") or []:
            for call in (msg.get("tool_calls") or []) if isinstance(msg, dict) else []:
                fn = call.get("function") or {}
                name = fn.get("name")
                if not isinstance(name, str):
                    continue
                try:
                    args = json.loads(fn.get("arguments") or "{}")
                except (TypeError, ValueError):
                    args = {}
                seen[name].update(args.keys() if isinstance(args, dict) else [])
    specs = [
        ToolSpec(
            name=name,
            description="(inferred from the calls of a τ-bench file; no schema was given)",
            parameters={"type": "object", "properties": {k: {} for k in sorted(keys)}},
            read_only=name in TAU_READ_ONLY_TOOLS,
            kind="read" if name in TAU_READ_ONLY_TOOLS else "write",
        )
        for name, keys in sorted(seen.items())
    ]
    return ToolRegistry(domain=TAU_DOMAIN, version="inferred", tools=specs)
