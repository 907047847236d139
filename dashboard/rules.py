"""Rule-set diffs for the rule-impact page. Which changed settings likely explain a flip is the
judge's (:func:`rejudge.judge.likely_settings`, over its table of every setting's codes)."""

from __future__ import annotations

from typing import Any

from rejudge.judge import diff_rule_sets

from rejudge.model import RuleSet

__all__ = ["rule_diff"]


def rule_diff(a: RuleSet, b: RuleSet) -> list[dict[str, Any]]:
    """Every setting that differs (the judge's own diff, as ``rejudge rules diff`` shows it)."""
    return diff_rule_sets(a, b)
