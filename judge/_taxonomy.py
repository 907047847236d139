"""The failure taxonomy: every cause of a FAIL has a code, and codes have a fixed precedence.

A judgment lists *every* cause of its FAIL, each code once, sorted by precedence (lowest rank
first). The first code is the primary cause used by reports' "top failures"; the rest are kept.

Precedence follows the order in which a reviewer would fix things: first whether the model
produced usable calls at all, then whether it called the right tools (and only them, in order),
then whether each argument was right, then whether the calls ran.

====  ========================  ===========================================================
rank  code                      meaning
====  ========================  ===========================================================
7     EPISODE_UNFINISHED        the episode hit its step limit before the conversation ended
10    ARGUMENTS_UNPARSABLE      a call's argument text was not a JSON object
20    FUNCTION_NOT_FOUND        a call names a tool the registry does not have
30    CALL_WHEN_NONE_EXPECTED   a negative case (no call expected) made a non-tolerated call
40    TOOL_MISSING              an expected call was never made
50    TOOL_WRONG                a different tool was called where the expected one belonged
60    TOOL_UNEXPECTED           an extra call that no rule tolerates
70    ORDER_WRONG               expected calls made, but not in the required order
80    WRONG_ARGUMENT_COUNT      (outcome tier) a call had the wrong number of arguments
90    PARAM_MISSING             an expected argument is absent
100   PARAM_HALLUCINATED_ID     an identifier argument names no fixture-backed entity
110   PARAM_WRONG_FORMAT        an argument has the wrong shape/format (schema, date format)
120   SCHEMA_INVALID            a call is invalid against the registered JSON Schema
130   PARAM_WRONG_VALUE         an argument is well-formed but not the expected value
140   PARAM_UNEXPECTED          (contract tiers) an argument key the golden call does not have
150   UNKNOWN_VALUE             (outcome tier) an argument value the model could not know yet
160   INCORRECT_VALUE           (outcome tier) a known but wrong value was used
170   EXECUTION_FAILED          an expected call did not execute successfully
180   OUTCOME_WRONG             (outcome tier) the target value was not reached
900   RULE_ERROR                a rule could not be evaluated (bad golden value, broken matcher)
990   JUDGE_ERROR               the judge itself failed on this input (a bug; see reasons)
====  ========================  ===========================================================

Tiers added later (``outcome``, ``bfcl-ast``) may register extra codes with
:func:`register_code`; an unknown code sorts after every known one, alphabetically.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "CODES",
    "EPISODE_UNFINISHED",
    "ARGUMENTS_UNPARSABLE",
    "FUNCTION_NOT_FOUND",
    "CALL_WHEN_NONE_EXPECTED",
    "TOOL_MISSING",
    "TOOL_WRONG",
    "TOOL_UNEXPECTED",
    "ORDER_WRONG",
    "WRONG_ARGUMENT_COUNT",
    "PARAM_MISSING",
    "PARAM_HALLUCINATED_ID",
    "PARAM_WRONG_FORMAT",
    "SCHEMA_INVALID",
    "PARAM_WRONG_VALUE",
    "PARAM_UNEXPECTED",
    "UNKNOWN_VALUE",
    "INCORRECT_VALUE",
    "EXECUTION_FAILED",
    "OUTCOME_WRONG",
    "RULE_ERROR",
    "JUDGE_ERROR",
    "register_code",
    "rank",
    "order_codes",
    "describe",
]

EPISODE_UNFINISHED = "EPISODE_UNFINISHED"
ARGUMENTS_UNPARSABLE = "ARGUMENTS_UNPARSABLE"
FUNCTION_NOT_FOUND = "FUNCTION_NOT_FOUND"
CALL_WHEN_NONE_EXPECTED = "CALL_WHEN_NONE_EXPECTED"
TOOL_MISSING = "TOOL_MISSING"
TOOL_WRONG = "TOOL_WRONG"
TOOL_UNEXPECTED = "TOOL_UNEXPECTED"
ORDER_WRONG = "ORDER_WRONG"
WRONG_ARGUMENT_COUNT = "WRONG_ARGUMENT_COUNT"
PARAM_MISSING = "PARAM_MISSING"
PARAM_HALLUCINATED_ID = "PARAM_HALLUCINATED_ID"
PARAM_WRONG_FORMAT = "PARAM_WRONG_FORMAT"
SCHEMA_INVALID = "SCHEMA_INVALID"
PARAM_WRONG_VALUE = "PARAM_WRONG_VALUE"
PARAM_UNEXPECTED = "PARAM_UNEXPECTED"
UNKNOWN_VALUE = "UNKNOWN_VALUE"
INCORRECT_VALUE = "INCORRECT_VALUE"
EXECUTION_FAILED = "EXECUTION_FAILED"
OUTCOME_WRONG = "OUTCOME_WRONG"
RULE_ERROR = "RULE_ERROR"
JUDGE_ERROR = "JUDGE_ERROR"

# code -> (rank, one-line description)
CODES: dict[str, tuple[int, str]] = {
    EPISODE_UNFINISHED: (7, "the episode hit its step limit before the conversation ended"),
    ARGUMENTS_UNPARSABLE: (10, "a call's argument text was not a JSON object"),
    FUNCTION_NOT_FOUND: (20, "a call names a tool the registry does not have"),
    CALL_WHEN_NONE_EXPECTED: (30, "a negative case made a call that no rule tolerates"),
    TOOL_MISSING: (40, "an expected call was never made"),
    TOOL_WRONG: (50, "a different tool was called where the expected one belonged"),
    TOOL_UNEXPECTED: (60, "an extra call that no rule tolerates"),
    ORDER_WRONG: (70, "the expected calls were made out of the required order"),
    WRONG_ARGUMENT_COUNT: (80, "a call had the wrong number of arguments"),
    PARAM_MISSING: (90, "an expected argument is absent"),
    PARAM_HALLUCINATED_ID: (100, "an identifier names no fixture-backed entity"),
    PARAM_WRONG_FORMAT: (110, "an argument has the wrong format"),
    SCHEMA_INVALID: (120, "a call is invalid against the registered JSON Schema"),
    PARAM_WRONG_VALUE: (130, "an argument is not the expected value"),
    PARAM_UNEXPECTED: (140, "an argument key the golden call does not have"),
    UNKNOWN_VALUE: (150, "an argument value the model could not know yet"),
    INCORRECT_VALUE: (160, "a known but wrong value was used"),
    EXECUTION_FAILED: (170, "an expected call did not execute successfully"),
    OUTCOME_WRONG: (180, "the target outcome was not reached"),
    RULE_ERROR: (900, "a rule could not be evaluated"),
    JUDGE_ERROR: (990, "the judge failed on this input"),
}


def register_code(code: str, rank_value: int, description: str) -> None:
    """Add a code for a new tier. Existing codes keep their rank (old verdicts stay stable)."""
    if code in CODES and CODES[code][0] != rank_value:
        raise ValueError(f"taxonomy code {code!r} already exists with rank {CODES[code][0]}")
    CODES[code] = (rank_value, description)


def rank(code: str) -> int:
    entry = CODES.get(code)
    return entry[0] if entry is not None else 10_000


def _precedence(code: str) -> tuple[int, str]:
    entry = CODES.get(code)
    return (entry[0] if entry is not None else 10_000, code)


def order_codes(codes: Iterable[str]) -> list[str]:
    """Unique codes in precedence order (unknown codes last, alphabetically)."""
    unique = set(codes)
    if len(unique) < 2:  # most judgments: nothing to order (runs once per judgment)
        return list(unique)
    return sorted(unique, key=_precedence)


def describe(code: str) -> str:
    entry = CODES.get(code)
    return entry[1] if entry is not None else "unregistered code"
