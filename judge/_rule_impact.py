"""Which changed rule-set settings likely explain a flip between two rule sets (pure).

A rule change moves a verdict by adding or removing failure codes (or by making a tier apply or
not: a SKIP on one side). :data:`SETTING_CODES` says, for every setting of
:class:`~rejudge.judge.RuleSettings`, which codes its change can add or remove; a flip is
attributed to the changed settings that govern a code present on one side only. Every setting
is in the table (``tests/judge/test_rule_impact.py`` fails when a new one is not), so a rule
change is never left unexplained for want of an entry: ``partial_weights`` governs nothing on
purpose (partial scores never decide a verdict).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from . import _taxonomy as tx
from .tiers._calls import OUTPUT_MISSING
from .tiers._state import STATE_WRONG

__all__ = ["SETTING_CODES", "TIER_APPLIES", "likely_settings"]

#: a pseudo code for a verdict that is SKIP on one side only: the tier applied on the other
TIER_APPLIES = "(tier applies)"

# what decides whether a judged call matches its golden one, argument by argument
_VALUE = (tx.PARAM_WRONG_VALUE, tx.PARAM_WRONG_FORMAT, tx.INCORRECT_VALUE)
# which extra calls pass
_EXTRAS = (tx.TOOL_UNEXPECTED, tx.CALL_WHEN_NONE_EXPECTED, tx.TOOL_WRONG)
# which calls are judged at all, on either side: every code about a call
_CALLS = (
    tx.FUNCTION_NOT_FOUND,
    tx.CALL_WHEN_NONE_EXPECTED,
    tx.TOOL_MISSING,
    tx.TOOL_WRONG,
    tx.TOOL_UNEXPECTED,
    tx.ORDER_WRONG,
    tx.WRONG_ARGUMENT_COUNT,
    tx.PARAM_MISSING,
    tx.PARAM_HALLUCINATED_ID,
    tx.PARAM_WRONG_FORMAT,
    tx.SCHEMA_INVALID,
    tx.PARAM_WRONG_VALUE,
    tx.PARAM_UNEXPECTED,
    tx.EXECUTION_FAILED,
)

#: rule-set setting (the top-level key under ``settings``) -> the codes its change can add or
#: remove
SETTING_CODES: dict[str, tuple[str, ...]] = {
    "default_param_rule": _VALUE,
    "param_rules": _VALUE,
    "free_text_rule": _VALUE,
    "string_normalization": _VALUE,
    "matchers": _VALUE,
    "whitelist": _EXTRAS,
    "tolerance": (*_EXTRAS, tx.PARAM_MISSING, tx.EXECUTION_FAILED),
    # diagnostic only: a partial score never decides a verdict
    "partial_weights": (),
    # server tools joining the calls: any call may match, be missing or be extra
    "server_tools": _CALLS,
    # τ-bench's reading of a conversation (tau-bench@1 and its successors)
    "terminal_tools": _CALLS,
    "judged_calls": _CALLS,
    "failed_calls": _CALLS,
    "outputs_from": (OUTPUT_MISSING,),
    # the state tier: where it applies, and what τ-bench's reward requires by version
    "state_applies": (TIER_APPLIES,),
    "reward": (OUTPUT_MISSING, STATE_WRONG),
}


def _setting(path: str) -> str:
    # "settings.tolerance.duplicate_read_only_calls" -> "tolerance"
    parts = path.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "settings" else parts[0]


def likely_settings(
    codes_a: Iterable[str] | None,
    codes_b: Iterable[str] | None,
    changed: Sequence[str],
    *,
    verdict_a: str | None = None,
    verdict_b: str | None = None,
) -> list[str]:
    """The changed setting paths (as :func:`rejudge.judge.diff_rule_sets` names them) that
    govern a code present on one side only, or the tier's applying when one side is SKIP."""
    moved = set(codes_a or []) ^ set(codes_b or [])
    if (verdict_a == "SKIP") != (verdict_b == "SKIP"):
        moved.add(TIER_APPLIES)
    return [path for path in changed if moved & set(SETTING_CODES.get(_setting(path), ()))]
