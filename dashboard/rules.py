"""Rule-set diffs for the rule-impact page, and which settings govern which failure codes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rejudge.judge import diff_rule_sets

from rejudge.model import RuleSet

__all__ = ["rule_diff", "likely_rules", "GOVERNING"]

_VALUE_RULES = (
    "settings.default_param_rule",
    "settings.param_rules",
    "settings.free_text_rule",
    "settings.string_normalization",
    "settings.matchers",
)
_EXTRA_RULES = ("settings.whitelist", "settings.tolerance")

# failure code -> the rule-set settings whose change can add or remove it
GOVERNING: dict[str, tuple[str, ...]] = {
    "PARAM_WRONG_VALUE": _VALUE_RULES,
    "PARAM_WRONG_FORMAT": _VALUE_RULES,
    "PARAM_MISSING": ("settings.tolerance",),
    "TOOL_UNEXPECTED": _EXTRA_RULES,
    "CALL_WHEN_NONE_EXPECTED": _EXTRA_RULES,
    "TOOL_WRONG": _EXTRA_RULES,
    "EXECUTION_FAILED": ("settings.tolerance",),
}


def rule_diff(a: RuleSet, b: RuleSet) -> list[dict[str, Any]]:
    """Every setting that differs (the judge's own diff, as ``rejudge rules diff`` shows it)."""
    return diff_rule_sets(a, b)


def likely_rules(
    codes_a: Iterable[str] | None, codes_b: Iterable[str] | None, changed: Sequence[str]
) -> list[str]:
    """Changed settings that govern a code present on one side only."""
    moved = set(codes_a or []) ^ set(codes_b or [])
    prefixes = {p for code in moved for p in GOVERNING.get(code, ())}
    return [path for path in changed if any(path.startswith(p) for p in prefixes)]
