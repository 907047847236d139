"""The judgment's golden-vs-actual diff as two tables: call by call, then argument by argument.

The call-matching tiers write one entry per expected slot (``kind: expected``: golden ``tool``,
``actual_tool``, ``round``, ``status``, ``codes``, ``params`` with per-argument ``name``, ``rule``,
``golden``, ``actual``, ``status``, ``code``) and one per extra call (``kind: extra``). Entries of
other shapes (other tiers) still show, with their own keys.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["diff_tables", "cell"]


def cell(value: Any) -> Any:
    """A value a table shows as is: scalars stay, structures become compact JSON."""
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return value


def diff_tables(diff: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    calls: list[dict[str, Any]] = []
    arguments: list[dict[str, Any]] = []
    for position, entry in enumerate(diff):
        if not isinstance(entry, dict):
            continue
        if "kind" not in entry and "params" not in entry:
            calls.append({k: cell(v) for k, v in entry.items()})
            continue
        golden_tool = entry.get("tool") if entry.get("kind") != "extra" else None
        label = golden_tool or entry.get("actual_tool") or f"#{position}"
        round_index = entry.get("round")
        calls.append(
            {
                "kind": entry.get("kind", ""),
                "golden tool": golden_tool or "—",
                "actual tool": entry.get("actual_tool") or "—",
                "round": "—" if round_index is None else int(round_index),
                "status": entry.get("status", ""),
                "codes": ", ".join(entry.get("codes") or []),
                "executed ok": entry.get("ok"),
            }
        )
        if entry.get("kind") == "extra" and entry.get("arguments") is not None:
            for name, value in sorted((entry.get("arguments") or {}).items()):
                arguments.append(
                    {
                        "call": label,
                        "argument": name,
                        "rule": "—",
                        "golden": "—",
                        "actual": cell(value),
                        "status": "extra call",
                        "code": "",
                    }
                )
        for param in entry.get("params") or []:
            arguments.append(
                {
                    "call": label,
                    "argument": param.get("name"),
                    "rule": param.get("rule"),
                    "golden": cell(param.get("golden")),
                    "actual": cell(param.get("actual")) if "actual" in param else "(absent)",
                    "status": param.get("status"),
                    "code": param.get("code") or "",
                }
            )
    return calls, arguments
