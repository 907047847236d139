"""What an external verdict checked, in one line for a table cell (no Streamlit here).

τ-bench records its reward with the breakdown that gave it (``reward_info``: the reward, the
per-check rewards such as ``r_actions`` / ``r_outputs``, the expected actions); other sources
record their own JSON, shown compactly.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["external_checked"]

_CUT = 160


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= _CUT else text[: _CUT - 1] + "…"


def external_checked(detail: Mapping[str, Any] | None) -> str:
    """``reward 0.0 · r_actions 0.0 · expected actions: book_reservation`` for τ-bench's
    detail; compact JSON for any other; ``—`` when the source recorded none."""
    if not detail:
        return "—"
    info = detail.get("reward_info")
    if not isinstance(info, Mapping):
        return _short(detail)
    parts = []
    if "reward" in info:
        parts.append(f"reward {info['reward']}")
    checks = info.get("info")
    if isinstance(checks, Mapping):
        parts += [f"{k} {v}" for k, v in checks.items() if k.startswith("r_")]
    actions = info.get("actions")
    if isinstance(actions, list):
        names = [str(a.get("name", "?")) for a in actions if isinstance(a, Mapping)]
        parts.append("expected actions: " + (", ".join(names) or "none"))
    return " · ".join(parts) or _short(info)
