"""The ``outcome`` tier: FuncBenchGen's success rule and per-call failure types (seed 003).

It applies to cases whose metadata carries a generated graph (``graph``, ``target``,
``target_value``, ``n_core``, ``inputs``, ``tools``; see ``suites.generators.funcbench``), and
reads nothing else: no domain import, only the case, the registry and the trace.

**PASS** needs all of:

1. the final answer text contains the target value as a number (``544``, ``544.``,
   ``is 544``; not ``1544`` or ``5.544``);
2. some tool call (within the cap) returned the target value — structured evidence, so a number
   merely guessed or copied into the answer never passes (DESIGN §2: text alone never scores);
3. at least ``n_core`` calls were made;
4. at most ``call_cap = 2 × n_core`` calls were made. More is a **timeout**: the trace FAILs with
   ``CALL_CAP_EXCEEDED``, ``details.timeout`` is true, and calls beyond the cap are listed with
   status ``after_cap`` but neither classified nor used as evidence. (A trace the harness cut
   off at its own round budget is ``AGENT_ERROR`` by the engine's rule, before any tier runs;
   ``rejudge sweep`` counts those as timeouts in its paper-shaped table.)

**Per-call failure types**, first match wins, in this order:

- ``ARGUMENTS_UNPARSABLE`` — the argument text was not a JSON object;
- ``FUNCTION_NOT_FOUND`` — not one of the case's functions (``metadata.tools``);
- ``WRONG_ARGUMENT_COUNT`` — the argument names differ from the parameters (missing or extra);
- ``UNKNOWN_VALUE`` — an argument value the model could not know at that point: neither a
  stated input nor a value returned by an earlier call (non-integers are never known);
- ``INCORRECT_VALUE`` — every value was known, but one is not that parameter's true value.

Known values grow with every integer a call returned (right or wrong: the model was told it).
A call with no recorded result (an imported trace) adds its true output when its arguments were
all correct.

A FAIL lists every failure type seen plus the outcome causes (``OUTCOME_WRONG`` when the target
was not both returned and stated, ``TOOL_MISSING`` with fewer than ``n_core`` calls,
``CALL_CAP_EXCEEDED``); ``details.first_failure`` is the type of the first failing call (the
paper attributes each failed run to one type). On a PASS, failing calls along the way are only
counted in ``details``. ``details`` also holds ``efficiency`` (``n_core / calls`` on a PASS),
``redundant_calls`` (exact repeats of an earlier call plus calls to CIN/DIN functions, each call
counted once), and the per-call statuses are in ``diff``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rejudge.model import Case, ToolRegistry

from .. import _taxonomy as tx
from .._context import JudgeContext, safe_value
from ._base import TierResult, register_tier

__all__ = ["OutcomeTier", "OUTCOME", "CALL_CAP_EXCEEDED", "FAILURE_TYPES", "as_int", "numbers_in"]

CALL_CAP_EXCEEDED = "CALL_CAP_EXCEEDED"
tx.register_code(
    CALL_CAP_EXCEEDED, 175, "(outcome tier) more calls than the cap of 2 x n_core: a timeout"
)

# the per-call failure types, in classification order
FAILURE_TYPES: tuple[str, ...] = (
    tx.ARGUMENTS_UNPARSABLE,
    tx.FUNCTION_NOT_FOUND,
    tx.WRONG_ARGUMENT_COUNT,
    tx.UNKNOWN_VALUE,
    tx.INCORRECT_VALUE,
)

_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?!\d)")


def numbers_in(text: str | None) -> set[float]:
    """Every number written in ``text`` (digit runs with an optional decimal part)."""
    if not text:
        return set()
    return {float(m) for m in _NUMBER.findall(text)}


def as_int(value: Any) -> int | None:
    """An argument as an integer: ints and integral floats count, booleans and strings do not
    (the FuncBenchGen sandbox compares a call's arguments with their true values so too)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _result_int(value: Any) -> int | None:
    """A call's recorded result as an integer. Results normalized from a cassette are the tool
    message's text (``"341"``), results straight from a sandbox are numbers."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    return as_int(value)


def _key(name: str, args: dict[str, Any]) -> str:
    try:
        return name + json.dumps(args, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return name + repr(sorted(args.items(), key=lambda kv: str(kv[0])))


def _final_text(ctx: JudgeContext) -> str | None:
    trace = ctx.trace
    if trace.final_text is not None:
        return trace.final_text
    if trace.rounds and not trace.rounds[-1].calls:
        return trace.rounds[-1].text
    return None


class OutcomeTier:
    name = "outcome"
    description = "FuncBenchGen: target value reached within 2 x n_core calls; per-call failures"
    partial_family = "execution"
    applies_to = "FuncBenchGen cases (generated with a dependency graph and a target value)"

    def applies(self, case: Case, registry: ToolRegistry) -> bool:
        meta = case.metadata
        return isinstance(meta.get("graph"), dict) and "target_value" in meta

    def evaluate(self, ctx: JudgeContext) -> TierResult:
        case = ctx.case
        if not self.applies(case, ctx.registry):
            return TierResult(
                codes=[tx.RULE_ERROR],
                reasons=["the outcome tier needs a funcbench case (metadata with its graph)"],
            )
        meta = case.metadata
        graph = meta["graph"]
        nodes: dict[str, dict[str, Any]] = {n["name"]: n for n in graph["nodes"]}
        values: dict[str, int] = {k: int(v) for k, v in graph["values"].items()}
        tools = set(meta.get("tools") or nodes)
        n_core = int(meta["n_core"])
        cap = int(meta.get("call_cap") or 2 * n_core)
        target_value = int(meta["target_value"])
        known: set[int] = {values[v] for v in meta.get("inputs", []) if v in values}

        diff: list[dict[str, Any]] = []
        reasons: list[str] = []
        counts: dict[str, int] = {}
        first_failure: str | None = None
        seen: set[str] = set()
        repeats = irrelevant = redundant = 0
        target_returned = False
        correct_core: set[str] = set()
        named_ok = 0
        value_ok = 0
        observed = 0
        calls = ctx.calls
        raw_calls = ctx.trace.calls
        for ac, raw in zip(calls, raw_calls, strict=False):
            entry: dict[str, Any] = {"call": ac.index, "round": ac.round, "name": ac.name}
            if ac.args is not None:
                entry["arguments"] = safe_value(ac.args)
            if ac.index >= cap:
                entry["status"] = "after_cap"
                diff.append(entry)
                continue
            if raw.ok is not None:
                observed += 1
            node = nodes.get(ac.name) if ac.name in tools else None
            code: str | None = None
            detail = ""
            correct = False
            if ac.args is None:
                code, detail = tx.ARGUMENTS_UNPARSABLE, ac.parse_error or "unparsable arguments"
            elif node is None:
                code, detail = tx.FUNCTION_NOT_FOUND, f"{ac.name!r} is not one of the functions"
            else:
                params = {p["name"]: p for p in node["params"]}
                if set(ac.args) != set(params):
                    code = tx.WRONG_ARGUMENT_COUNT
                    detail = f"takes {len(params)} ({', '.join(params)}), got {len(ac.args)}"
                else:
                    named_ok += 1
                    unknown = [p for p in params if as_int(ac.args[p]) not in known]
                    wrong = [p for p in params if as_int(ac.args[p]) != values[params[p]["var"]]]
                    if unknown:
                        code = tx.UNKNOWN_VALUE
                        detail = ", ".join(f"{p}={ac.args[p]!r} not known yet" for p in unknown)
                    elif wrong:
                        code = tx.INCORRECT_VALUE
                        detail = ", ".join(
                            f"{p}={ac.args[p]!r} is known but is not the {params[p]['type']} value"
                            for p in wrong
                        )
                    else:
                        value_ok += 1
                        correct = True
                entry["role"] = node["role"]
            # the evidence this call leaves: the value it returned
            returned = _result_int(raw.result) if raw.ok else None
            if returned is None and raw.ok is None and correct and node is not None:
                returned = values[node["output"]]
            if returned is not None:
                known.add(returned)
                entry["returned"] = returned
                if returned == target_value:
                    target_returned = True
            if correct and node is not None and node["role"] == "core":
                correct_core.add(ac.name)
            # redundancy: exact repeats and calls to irrelevant functions
            is_repeat = False
            if ac.args is not None:
                key = _key(ac.name, ac.args)
                is_repeat = key in seen
                seen.add(key)
            is_irrelevant = node is not None and node["role"] in ("cin", "din")
            repeats += is_repeat
            irrelevant += is_irrelevant
            redundant += is_repeat or is_irrelevant
            if is_repeat:
                entry["repeat"] = True
            if code is not None:
                counts[code] = counts.get(code, 0) + 1
                first_failure = first_failure or code
                entry["status"] = code
                entry["detail"] = detail
                reasons.append(f"call {ac.index + 1} ({ac.name}): {code}: {detail}")
            else:
                entry["status"] = "ok"
            diff.append(entry)

        n_calls = len(calls)
        final_text = _final_text(ctx)
        answer_found = float(target_value) in numbers_in(final_text)
        timeout = n_calls > cap
        success = answer_found and target_returned and n_core <= n_calls <= cap
        codes: list[str] = []
        if not success:
            codes.extend(counts)
            if timeout:
                codes.append(CALL_CAP_EXCEEDED)
                reasons.append(f"timeout: {n_calls} calls, more than the cap of {cap}")
            if n_calls < n_core:
                codes.append(tx.TOOL_MISSING)
                reasons.append(f"{n_calls} call(s), fewer than the {n_core} core functions")
            if not (answer_found and target_returned):
                codes.append(tx.OUTCOME_WRONG)
                if not target_returned:
                    reasons.append(f"no call returned the target value {target_value}")
                if not answer_found:
                    reasons.append(
                        f"the final answer does not state the target value {target_value}"
                    )
        else:
            reasons = [f"target {meta.get('target')} = {target_value} reached in {n_calls} calls"]
        scored = min(n_calls, cap)
        partial = {
            "tools": len(correct_core) / n_core if n_core else 0.0,
            "arguments": value_ok / named_ok if named_ok else 0.0,
            "schema": named_ok / scored if scored else 0.0,
            "observed": observed / scored if scored else 0.0,
            "success": 1.0 if success else 0.0,
        }
        details = {
            "success": success,
            "calls": n_calls,
            "n_core": n_core,
            "call_cap": cap,
            "timeout": timeout,
            "target": meta.get("target"),
            "target_value": target_value,
            "answer_found": answer_found,
            "target_returned": target_returned,
            "efficiency": round(n_core / n_calls, 6) if success and n_calls else None,
            "redundant_calls": redundant,
            "repeated_calls": repeats,
            "irrelevant_calls": irrelevant,
            "core_functions_solved": len(correct_core),
            "failure_types": dict(sorted(counts.items())),
            "first_failure": first_failure,
        }
        return TierResult(codes=codes, diff=diff, reasons=reasons, partial=partial, details=details)


OUTCOME = OutcomeTier()
register_tier(OUTCOME)
