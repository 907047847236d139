"""The two sides' model outputs as text, and a line diff of them (no Streamlit here).

What a person compares first between two runs of a case is what the model said: each round's
text and the final answer, in order, under the round's number (counted from 0, as everywhere).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

__all__ = ["output_text", "text_diff"]


def output_text(body: Mapping[str, Any]) -> str:
    """A trace's model text, round by round, then its final answer when it is kept apart."""
    lines: list[str] = []
    rounds = body.get("rounds") or []
    for position, rnd in enumerate(rounds):
        text = rnd.get("text")
        if text:
            lines.append(f"[round {int(rnd.get('index', position))}]")
            lines.extend(str(text).splitlines() or [""])
    final = body.get("final_text")
    if final and not (rounds and rounds[-1].get("text") == final):
        lines.append("[final answer]")
        lines.extend(str(final).splitlines())
    return "\n".join(lines)


def text_diff(a: str, b: str) -> str:
    """A unified diff of ``a`` (A) and ``b`` (B); empty when they are the same."""
    if a == b:
        return ""
    return "\n".join(
        difflib.unified_diff(a.splitlines(), b.splitlines(), "A", "B", lineterm="", n=2)
    )
