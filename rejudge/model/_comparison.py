"""What makes two evaluations comparable, and why a case's verdict flipped: each rule once.

``rejudge compare`` (over judgment rows), the dashboard's compare page (over SQL counts) and its
side-by-side page (over two judgments) all ask these two questions; they answer them here, so
the CLI and the dashboard can never disagree about a comparison.

- **Flip causes**: the judgment inputs that differ, in the order a reviewer reads them: trace
  changed, case changed (the case or its golden), rules changed, tier changed, registry changed,
  engine changed, and for the model-graded tier rubric changed, judge model changed, judge
  parameters changed. An input counts only when both judgments know it (a row read without its
  hashes names no cause rather than a false one).
- **Comparability**: two evaluations measure the same thing unless their case sets differ, a
  case's content differs, their tool registries differ, or their harness modes differ
  (oracle-assisted and production-parity results are never pooled). Different traces (two
  models), rules or tiers are what a comparison is for: differences, not reasons to refuse.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "FLIP_CAUSES",
    "JUDGE_FLIP_CAUSES",
    "UNKNOWN_CAUSE",
    "flip_causes",
    "flip_cause",
    "comparability_reasons",
    "Flip",
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
#: the model-graded tier's judge, read from its judgments' details (no column holds them: the
#: store's SQL flip reads take :data:`FLIP_CAUSES` alone); after every other cause
JUDGE_FLIP_CAUSES: tuple[tuple[str, str], ...] = (
    ("rubric_hash", "rubric changed"),
    ("judge_model", "judge model changed"),
    ("judge_params", "judge parameters changed"),
)
#: the cause of a flip whose judgments share every known input
UNKNOWN_CAUSE = "unknown"


def flip_causes(
    a: Mapping[str, Any] | None,
    b: Mapping[str, Any] | None,
    order: Sequence[tuple[str, str]] = FLIP_CAUSES + JUDGE_FLIP_CAUSES,
) -> list[str]:
    """Every input that differs between two judgments (known on both sides), in ``order``
    (:data:`FLIP_CAUSES` then :data:`JUDGE_FLIP_CAUSES` unless a caller names its own)."""
    if not a or not b:
        return []
    out = []
    for name, label in order:
        va, vb = a.get(name), b.get(name)
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


@dataclass(frozen=True)
class Flip:
    """One (case, repetition) whose verdict differs between A and B, with why.

    ``rejudge compare`` builds it from two judgment rows (:meth:`between`), the dashboard's
    comparison read model from SQL (``rejudge.store``); both through :func:`flip_causes`. The
    dashboard's extra columns (the case's dimension and category, partial scores and trace
    ids) are optional and not part of the JSON, which is ``rejudge compare --json``'s flip.
    """

    case: str
    repetition: int
    from_verdict: str | None
    to_verdict: str | None
    cause: str
    causes: list[str] = field(default_factory=list)
    taxonomy_from: list[str] = field(default_factory=list)
    taxonomy_to: list[str] = field(default_factory=list)
    # what the dashboard shows beside a flip (not in the JSON)
    dimension: str | None = None
    category: str | None = None
    partial_from: float | None = None
    partial_to: float | None = None
    trace_from: int | None = None
    trace_to: int | None = None

    @classmethod
    def between(
        cls,
        case: str,
        repetition: int,
        a: Mapping[str, Any],
        b: Mapping[str, Any],
        order: Sequence[tuple[str, str]] = FLIP_CAUSES + JUDGE_FLIP_CAUSES,
        **extra: Any,
    ) -> Flip:
        """The flip of two judgments (rows with ``verdict``, ``taxonomy`` and input hashes)."""
        causes = flip_causes(a, b, order)
        return cls(
            case=case,
            repetition=repetition,
            from_verdict=a.get("verdict"),
            to_verdict=b.get("verdict"),
            cause=causes[0] if causes else UNKNOWN_CAUSE,
            causes=causes,
            taxonomy_from=list(a.get("taxonomy") or []),
            taxonomy_to=list(b.get("taxonomy") or []),
            **extra,
        )

    def to_json(self) -> dict[str, Any]:
        """``rejudge compare --json``'s flip."""
        return {
            "case": self.case,
            "repetition": self.repetition,
            "from": self.from_verdict,
            "to": self.to_verdict,
            "cause": self.cause,
            "causes": list(self.causes),
            "taxonomy_from": list(self.taxonomy_from),
            "taxonomy_to": list(self.taxonomy_to),
        }
