"""The ``bfcl-ast`` tier: the Berkeley Function Calling Leaderboard's AST checker, listing every error.

It reads what the BFCL importer put in ``case.metadata["bfcl"]``: the category ``kind``, the
``language``, the possible answers (``ground_truth``: a list of ``{function: {param: [acceptable
values]}}``) and each offered function's BFCL-dialect ``signature`` (types and required list).
It judges the model's first response (the trace's first round), as BFCL does: later rounds only
answer the call-only stub results and are ignored (with a warning).

Semantics (rule set ``bfcl@1`` reproduces bfcl-eval's verdicts; see docs/bfcl.md):

- **simple**: exactly one call; **multiple**: as many calls as answers (one) and the right
  function chosen; **parallel** / **parallel_multiple**: as many calls as answers, matched in any
  order; **irrelevance**: no call passes (so does an undecodable output); **relevance**: any
  decodable call passes.
- **per call**: the name (original or wire spelling), required parameters present, no parameter
  outside the signature or the possible answer, each value's type (int accepted for float at
  the top level, tuples as lists, one level of element types), each value among the acceptable
  ones (strings standardized: spaces and ``,./-_*^`` removed, lowercased, ``'`` as ``"``; lists
  element-wise; dicts and lists of dicts key by key), and every answer parameter not given marked
  optional (``""`` among its acceptable values).
- **Java / JavaScript**: values arrive as strings of source syntax and are converted first, the
  way BFCL's type converters read them.

Unlike bfcl-eval, every error is listed (each with BFCL's error type and a taxonomy code), not
only the first; the first one listed is the error type bfcl-eval reports. ``bfcl@2`` fixes the
places where bfcl-eval's checker is wrong (see :class:`BfclFixes`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from rejudge.model import Case, ToolRegistry

from .. import _taxonomy as tx
from ..bfcl import (
    FAITHFUL,
    FIXED,
    BfclError,
    BfclFixes,
    BfclOutcome,
    check_output,
    fixes_for,
    java_value,
    js_value,
    standardize,
)
from ._base import TierResult, register_tier

__all__ = [
    "BfclAstTier",
    "BfclFixes",
    "BfclError",
    "BfclOutcome",
    "FAITHFUL",
    "FIXED",
    "fixes_for",
    "check_output",
    "java_value",
    "js_value",
    "output_from_trace",
    "standardize",
]

TIER_NAME = "bfcl-ast"


# --------------------------------------------------------------------------- traces


def output_from_trace(
    trace: Any, name_map: dict[str, str]
) -> tuple[list[tuple[str, dict[str, Any]]] | None, int]:
    """The model's first response as BFCL's decoded output, and how many later calls were left.

    ``None`` when a call of that response did not decode (bfcl-eval fails the whole output).
    """
    rounds = trace.rounds
    if not rounds:
        return [], 0
    later = 0
    if len(rounds) > 1:
        later = sum(len(r.calls) for r in rounds[1:])
    output: list[tuple[str, dict[str, Any]]] = []
    for call in rounds[0].calls:
        arguments = call.arguments
        if call.parse_error is not None or not isinstance(arguments, dict):
            return None, later
        name = call.name
        output.append((name_map.get(name, name), arguments))
    return output, later


# --------------------------------------------------------------------------- the tier


@dataclass(frozen=True)
class BfclAstTier:
    name: str = TIER_NAME
    description: str = "BFCL's AST checker (bfcl-eval semantics), listing every error"
    partial_family: str = "contract"
    #: every result is plain JSON by construction (messages are text, indexes ints, ratios
    #: finite floats, the category text), so the batch path may store the body without a
    #: pydantic round-trip (``judge.engine.judge_body``)
    plain_json_results: ClassVar[bool] = True
    #: reads the case's BFCL metadata and the raw trace, never the compiled registry index
    #: (per-tool JSON Schema validators): batch judging need not build it (~3,000 BFCL tools)
    uses_registry_index: ClassVar[bool] = False
    applies_to: ClassVar[str] = "BFCL cases (imported with their possible answers)"

    def applies(self, case: Case, registry: ToolRegistry) -> bool:
        return isinstance(case.metadata.get("bfcl"), dict)

    def evaluate(self, ctx: Any) -> TierResult:
        meta = ctx.case.metadata.get("bfcl")
        if not isinstance(meta, dict):
            return TierResult(
                codes=[tx.RULE_ERROR],
                reasons=[
                    "the case has no BFCL metadata; import it from BFCL's data with the BFCL suite importer"
                ],
            )
        fixes = fixes_for(ctx.rule_set)
        output, later = output_from_trace(ctx.trace, ctx.registry.name_map)
        outcome = check_output(meta, output, fixes)
        valid = outcome.valid
        expected = outcome.expected
        matched = outcome.matched
        schema = 1.0 if output is not None else 0.0
        relevance = meta.get("kind") in ("irrelevance", "relevance")
        partial: dict[str, float]
        if relevance:
            score = 1.0 if valid else 0.0
            partial = {"tools": score, "arguments": score, "schema": schema}
        elif valid and not outcome.errors:
            # no error names another function: every possible answer's function was called
            partial = {
                "tools": 1.0 if expected and output else 0.0,
                "arguments": len(matched) / expected if expected else 0.0,
                "schema": schema,
            }
        # the importer writes the category name; anything else is stored as its text
        category = meta.get("category")
        if category is not None and type(category) is not str:
            category = str(category)
        details: dict[str, Any] = {
            "bfcl_category": category,
            "bfcl_valid": valid,
            "bfcl_error_type": None,
            "matched": _matched_json(matched) if matched else {},
            "fixes": "bfcl@2" if fixes is FIXED else "bfcl@1",
        }
        warnings = (
            [f"{later} call(s) after the first response were ignored (BFCL judges one response)"]
            if later
            else []
        )
        errors = outcome.errors
        if valid and not errors:  # most correct outputs: nothing to list
            return TierResult([], [], [], warnings, partial, details, [])
        # one pass over the errors: each message formatted once (the diff and the reasons
        # share it), and the possible answers whose function was not the one called
        diff: list[dict[str, Any]] = []
        messages: list[str] = []
        codes: list[str] = []
        named: set[int | None] = set()
        for e in errors:
            text = e.text
            message = text if type(text) is str else e.message
            messages.append(message)
            codes.append(e.code)
            diff.append(e.as_dict(message))
            if e.type.endswith("wrong_func_name"):
                named.add(e.answer)
        if not valid and errors:
            details["bfcl_error_type"] = errors[0].type
        if not relevance:
            # ratios of counts, so always finite; an error's answer index is always one of
            # range(expected) when it has one
            partial = {
                "tools": (expected - len(named) + (None in named)) / expected
                if expected and output
                else 0.0,
                "arguments": len(matched) / expected if expected else 0.0,
                "schema": schema,
            }
        if valid:  # bfcl-eval's verdict; errors listed alongside it stay in the diff
            return TierResult([], diff, [], warnings, partial, details, [])
        return TierResult(
            codes or [tx.PARAM_WRONG_VALUE], diff, messages, warnings, partial, details, []
        )


# "0".."63": the matched pairs' answer indexes as JSON object keys without str() per index
_INDEX_KEYS = tuple(str(i) for i in range(64))


def _matched_json(matched: dict[int, int]) -> dict[str, int]:
    """``{str(answer): call}`` in answer order."""
    keys = _INDEX_KEYS
    n = len(keys)
    return {keys[k] if 0 <= k < n else str(k): matched[k] for k in sorted(matched)}


register_tier(BfclAstTier())
