"""What makes two evaluations comparable, and why a case's verdict flipped: each rule once.

``rejudge compare`` (over judgment rows), the dashboard's compare page (over SQL counts) and its
side-by-side page (over two judgments) all ask these two questions; they answer them here, so
the CLI and the dashboard can never disagree about a comparison.

- **Flip causes**: the judgment inputs that differ, in the order a reviewer reads them: trace
  changed, case changed (the case or its golden), rules changed, tier changed, registry changed,
  engine changed. An input counts only when both judgments know it (a row read without its
  hashes names no cause rather than a false one).
- **Comparability**: two evaluations measure the same thing unless their case sets differ, a
  case's content differs, their tool registries differ, or their harness modes differ
  (oracle-assisted and production-parity results are never pooled). Different traces (two
  models), rules or tiers are what a comparison is for: differences, not reasons to refuse.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "FLIP_CAUSES",
    "UNKNOWN_CAUSE",
    "flip_causes",
    "flip_cause",
    "comparability_reasons",
]

#: (judgment field, the cause it names when it differs), in the order causes are listed
FLIP_CAUSES: tuple[tuple[str, str], ...] = (
    ("trace_hash", "trace changed"),
    ("case_hash", "case changed"),
    ("rule_set_hash", "rules changed"),
    ("tier", "tier changed"),
    ("registry_hash", "registry changed"),
    ("engine_version", "engine changed"),
)
#: the cause of a flip whose judgments share every known input
UNKNOWN_CAUSE = "unknown"


def flip_causes(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> list[str]:
    """Every input that differs between two judgments (known on both sides), in order."""
    if not a or not b:
        return []
    out = []
    for field, label in FLIP_CAUSES:
        va, vb = a.get(field), b.get(field)
        if va is not None and vb is not None and va != vb:
            out.append(label)
    return out


def flip_cause(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> str | None:
    """The first cause of :func:`flip_causes`; None when one side is missing or no known input
    differs."""
    causes = flip_causes(a, b)
    return causes[0] if causes else None


def comparability_reasons(
    *,
    only_a: int,
    only_b: int,
    changed_cases: int,
    registries_differ: bool,
    harness_a: str | None,
    harness_b: str | None,
) -> list[str]:
    """Why A and B do not measure the same thing; empty when they do."""
    reasons: list[str] = []
    if only_a or only_b:
        reasons.append(f"case sets differ: {only_a} only in A, {only_b} only in B")
    if changed_cases:
        reasons.append(f"{changed_cases} case(s) differ in content (golden or case changed)")
    if registries_differ:
        reasons.append("tool registries differ")
    if harness_a and harness_b and harness_a != harness_b:
        reasons.append(
            f"harness modes differ ({harness_a} vs {harness_b}); results are never pooled"
        )
    return reasons
