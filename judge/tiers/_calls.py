"""The call-matching tiers: ``contract``, ``execution``, ``completion``, ``completion-contract``
and ``golden``. One algorithm, five configurations.

Algorithm (deterministic):

1. Expand golden calls into slots (``count`` instances each) and analyse every actual call
   (name map, parse, JSON Schema validity, unknown fixture ids).
2. Pair slots with calls that *fully* match (compatible tool, every parameter passes) by maximum
   bipartite matching, candidates in call order; when order matters, swap interchangeable pairs
   so the pairing is increasing in call order if any full pairing is.
3. Pair the remaining slots with remaining compatible calls that match partly (fewest failing
   parameters, then earliest): their parameter failures are the causes.
4. Classify the remaining calls: tolerated (by the tier's rules: whitelist, duplicate read,
   read-only, another instance, declared follow-up) or not.
5. Remaining slots pair, in order, with remaining non-tolerated calls of known tools as
   TOOL_WRONG; slots left are TOOL_MISSING; calls left are TOOL_UNEXPECTED
   (CALL_WHEN_NONE_EXPECTED in a negative case; FUNCTION_NOT_FOUND for unknown tools).
6. Cross-cutting causes: ARGUMENTS_UNPARSABLE, SCHEMA_INVALID (every call, every tier),
   PARAM_HALLUCINATED_ID, ORDER_WRONG (when ordered), EXECUTION_FAILED (when execution counts and
   the case is not call-only).

Tier configurations:

=====================  =======  ===========  ================  =========  ===========
tier                   order    arguments    extras            execution  equivalents
=====================  =======  ===========  ================  =========  ===========
contract               always   exact keys   none              no         no
execution              always   exact keys   none              yes        no
completion             never    completion   completion rules  yes        yes
completion-contract    never    completion   completion rules  no         yes
golden                 case     golden keys  whitelist         no         no
=====================  =======  ===========  ================  =========  ===========
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from rejudge.model import Case, ToolRegistry

from .. import _taxonomy as tx
from .._context import ActualCall, JudgeContext, ParamCheck, Slot, safe_value, same_arguments
from ._base import TierResult, register_tier

__all__ = [
    "CallMatchingTier",
    "CONTRACT",
    "EXECUTION",
    "COMPLETION",
    "COMPLETION_CONTRACT",
    "GOLDEN",
    "OUTPUT_MISSING",
    "missing_outputs",
    "reply_texts",
]

OUTPUT_MISSING = "OUTPUT_MISSING"
tx.register_code(
    OUTPUT_MISSING, 172, "a value the case requires the agent to tell the user is not in its text"
)


def missing_outputs(required: list[str], texts: Sequence[str | None]) -> list[str]:
    """The required outputs that appear in none of the agent's texts. Compared as τ-bench
    compares them: case-insensitive, thousands separators ignored (``"1,000"`` states 1000)."""
    said = " ".join(t for t in texts if t).lower().replace(",", "")
    return [out for out in required if str(out).lower().replace(",", "") not in said]


def reply_texts(trace: Any) -> list[str]:
    """The agent's replies to the user: the texts of rounds that made no tool call (τ-bench
    reads only those; text sent alongside a call never reached the user as a reply)."""
    texts = [r.text for r in trace.rounds if not r.calls and r.text]
    if trace.final_text and (not trace.rounds or trace.rounds[-1].calls):
        texts.append(trace.final_text)  # a final text not kept in any round (older traces)
    return texts


@dataclass(frozen=True)
class CallMatchingTier:
    name: str
    description: str
    param_mode: str  # contract | golden | completion
    order: str  # always | case | never
    extras: str  # none | whitelist | completion
    require_execution: bool
    use_equivalents: bool
    partial_family: str
    #: every result is plain JSON by construction (values pass through ``safe_value``), so the
    #: engine may assemble the stored body without a pydantic round-trip (``judge_body``)
    plain_json_results: ClassVar[bool] = True
    #: the verdict needs golden calls: a case with none that is not negative is not scorable
    needs_golden_calls: ClassVar[bool] = True
    applies_to: ClassVar[str] = "every case with golden calls, and negative cases"

    #: a trace is read only through its calls (round index, name, arguments, raw arguments of
    #: an unparsed call, parse error, ok, error), its status, error and case id (the engine's
    #: reads), and its texts only through :meth:`outputs_missing`: the batch judge keys its
    #: per-batch memo on exactly these (judge/_call_memo.py). A subclass that reads more of a
    #: trace must set this False.
    judged_by_calls: ClassVar[bool] = True

    def applies(self, case: Case, registry: ToolRegistry) -> bool:
        return True

    def outputs_missing(
        self, case: Case, settings: Any, stored_trace: Any, trace: Any
    ) -> tuple[list[str], str]:
        """The case's required outputs the agent never told the user, and where they were
        looked for. A task that asks for an answer is judged on it by the tiers that judge the
        task, not by the contract tiers (they judge the calls' form only). ``trace``: the
        rule set's view of ``stored_trace`` (the same rounds' texts, maybe fewer calls)."""
        if not case.required_outputs or self.param_mode == "contract":
            return [], ""
        if settings.outputs_from == "replies":
            texts: list[str | None] = list(reply_texts(stored_trace))
            where = "in no reply sent without a tool call"
        else:
            texts = [rnd.text for rnd in trace.rounds] + [trace.final_text]
            where = "never told to the user"
        return missing_outputs(list(case.required_outputs), texts), where

    # ------------------------------------------------------------------ evaluate

    def evaluate(self, ctx: JudgeContext) -> TierResult:
        slots, calls, case = ctx.slots, ctx.calls, ctx.case
        ordered = self.order == "always" or (self.order == "case" and case.golden.order_sensitive)
        execution_counts = self.require_execution and not case.call_only
        cache: dict[tuple[int, int], list[ParamCheck]] = {}

        def compatible(slot: Slot, call: ActualCall) -> bool:
            if not call.known:
                return False
            if self.use_equivalents:
                return ctx.equivalent(slot.tool, call.name)
            return slot.tool == call.name

        def checks(slot: Slot, call: ActualCall) -> list[ParamCheck]:
            key = (slot.index, call.index)
            hit = cache.get(key)
            if hit is None:
                hit = ctx.check_params(slot, call, self.param_mode)
                cache[key] = hit
            return hit

        def failing(slot: Slot, call: ActualCall) -> int:
            return sum(1 for c in checks(slot, call) if not c.ok)

        if self.require_execution and not ordered:
            candidates = sorted(calls, key=lambda c: (c.ok is not True, c.index))
        else:
            candidates = list(calls)

        # 2. maximum matching over full matches (Kuhn's augmenting paths)
        adjacency: dict[int, list[ActualCall]] = {
            s.index: [c for c in candidates if compatible(s, c) and failing(s, c) == 0]
            for s in slots
        }
        slot_of: dict[int, int] = {}  # call index -> slot index
        call_of: dict[int, int] = {}  # slot index -> call index

        def augment(s_idx: int, seen: set[int]) -> bool:
            for call in adjacency[s_idx]:
                if call.index in seen:
                    continue
                seen.add(call.index)
                other = slot_of.get(call.index)
                if other is None or augment(other, seen):
                    slot_of[call.index] = s_idx
                    call_of[s_idx] = call.index
                    return True
            return False

        in_order = _in_order_embedding(slots, adjacency) if ordered else None
        if in_order is not None:
            # every slot fully matched in call order (earliest fit finds one if any exists)
            for s_idx, c_idx in in_order.items():
                call_of[s_idx] = c_idx
                slot_of[c_idx] = s_idx
        else:
            for slot in slots:
                if adjacency[slot.index]:
                    augment(slot.index, set())
            if ordered:
                _make_increasing(slots, call_of, slot_of, adjacency)
        full = set(call_of)

        # 3. partial matches
        by_index = {c.index: c for c in calls}
        pos = {c.index: i for i, c in enumerate(candidates)}
        for slot in slots:
            if slot.index in call_of:
                continue
            options = [c for c in candidates if c.index not in slot_of and compatible(slot, c)]
            if not options:
                continue
            best = min(options, key=lambda c: (failing(slot, c), pos[c.index]))
            call_of[slot.index] = best.index
            slot_of[best.index] = slot.index

        # 4. leftovers: tolerated or not
        leftovers = [c for c in calls if c.index not in slot_of]
        tolerated: dict[int, str] = {}
        for call in leftovers:
            why = self._tolerated(ctx, call, call_of, by_index)
            if why is not None:
                tolerated[call.index] = why

        # 5. wrong tools, missing, unexpected
        open_slots = [s for s in slots if s.index not in call_of]
        offenders = [c for c in leftovers if c.index not in tolerated]
        wrong_pairs: dict[int, int] = {}  # slot -> call
        pairable = [c for c in offenders if c.known]
        for slot, call in zip(open_slots, pairable, strict=False):
            wrong_pairs[slot.index] = call.index
        wrong_calls = set(wrong_pairs.values())

        codes: list[str] = []
        reasons: list[str] = []
        warnings: list[str] = []
        diff: list[dict[str, Any]] = []
        implicated: set[str] = set()
        negative = case.negative

        # per-slot entries
        for slot in slots:
            entry: dict[str, Any] = {
                "kind": "expected",
                "slot": slot.index,
                "golden_index": slot.golden_index,
                "instance": slot.instance,
                "tool": slot.tool,
            }
            if slot.index in call_of:
                call = by_index[call_of[slot.index]]
                pchecks = checks(slot, call)
                entry.update(_call_fields(call))
                entry["params"] = [c.as_dict() for c in pchecks]
                bad = [c for c in pchecks if not c.ok]
                entry["status"] = "match" if not bad else "mismatch"
                slot_codes = [c.code for c in bad if c.code]
                for c in bad:
                    reasons.append(
                        f"{_where(slot)}: argument {c.name!r} {c.status} ({c.code})"
                        + (f": {c.detail}" if c.detail else "")
                    )
                if execution_counts and call.ok is not True:
                    slot_codes.append(tx.EXECUTION_FAILED)
                    state = "was not executed" if call.ok is None else "failed"
                    reasons.append(
                        f"{_where(slot)}: call #{call.index} {state}"
                        + (f": {call.error}" if call.error else "")
                    )
                elif call.ok is False:
                    warnings.append(f"{_where(slot)}: call #{call.index} failed ({call.error})")
                if bad or tx.EXECUTION_FAILED in slot_codes:
                    implicated.add(slot.tool)
                entry["codes"] = tx.order_codes(slot_codes)
                codes.extend(slot_codes)
            elif slot.index in wrong_pairs:
                call = by_index[wrong_pairs[slot.index]]
                entry.update(_call_fields(call))
                entry["status"] = "wrong_tool"
                entry["codes"] = [tx.TOOL_WRONG]
                codes.append(tx.TOOL_WRONG)
                implicated.update({slot.tool, call.name})
                reasons.append(f"{_where(slot)}: called {call.name!r} (call #{call.index}) instead")
            else:
                entry["status"] = "missing"
                entry["actual_index"] = None
                entry["codes"] = [tx.TOOL_MISSING]
                codes.append(tx.TOOL_MISSING)
                implicated.add(slot.tool)
                reasons.append(f"{_where(slot)}: expected call never made")
            diff.append(entry)

        # extra calls
        for call in leftovers:
            entry = {"kind": "extra", **_call_fields(call)}
            entry["arguments"] = safe_value(call.args) if call.args is not None else None
            if call.index in tolerated:
                entry["status"] = "tolerated"
                entry["tolerated_as"] = tolerated[call.index]
                entry["codes"] = []
            elif call.index in wrong_calls:
                entry["status"] = "wrong_tool"
                entry["codes"] = [tx.TOOL_WRONG]
            else:
                extra_codes: list[str] = []
                if not call.known:
                    extra_codes.append(tx.FUNCTION_NOT_FOUND)
                elif not negative:
                    extra_codes.append(tx.TOOL_UNEXPECTED)
                if negative:
                    extra_codes.append(tx.CALL_WHEN_NONE_EXPECTED)
                entry["status"] = "unexpected"
                entry["codes"] = extra_codes
                codes.extend(extra_codes)
                implicated.add(call.name)
                what = "no call was expected" if negative else "not tolerated"
                reasons.append(f"call #{call.index} {call.name!r}: unexpected, {what}")
            diff.append(entry)

        # 6. cross-cutting causes, call by call
        for call in calls:
            completion_tolerated = self.extras == "completion" and call.index in tolerated
            if not call.parsed and call.known:
                codes.append(tx.ARGUMENTS_UNPARSABLE)
                implicated.add(call.name)
                reasons.append(
                    f"call #{call.index} {call.name!r}: arguments unparsable ({call.parse_error})"
                )
            if call.known and call.parsed and call.schema_errors:
                codes.append(tx.SCHEMA_INVALID)
                implicated.add(call.name)
                reasons.append(
                    f"call #{call.index} {call.name!r}: schema invalid: {'; '.join(call.schema_errors)}"
                )
            if not call.known and call.index in slot_of:  # cannot happen; defensive
                codes.append(tx.FUNCTION_NOT_FOUND)
            if call.unknown_ids:
                ids = ", ".join(f"{k}={v!r}" for k, v in call.unknown_ids)
                if completion_tolerated:
                    warnings.append(
                        f"call #{call.index} {call.name!r}: unknown ids ({ids}), tolerated"
                    )
                else:
                    codes.append(tx.PARAM_HALLUCINATED_ID)
                    implicated.add(call.name)
                    reasons.append(f"call #{call.index} {call.name!r}: unknown fixture ids {ids}")
        for ident, problem in sorted(ctx.index.schema_problems.items()):
            if any(c.name == ident for c in calls):
                warnings.append(f"tool {ident!r}: {problem}; its calls were not schema-checked")

        missing, where = self.outputs_missing(case, ctx.settings, ctx.stored_trace, ctx.trace)
        for out in missing:
            codes.append(OUTPUT_MISSING)
            reasons.append(f"required output {out!r} {where}")

        if ordered:
            sequence = [call_of[s.index] for s in slots if s.index in call_of]
            if any(b < a for a, b in zip(sequence, sequence[1:], strict=False)):
                codes.append(tx.ORDER_WRONG)
                reasons.append(
                    "expected calls made out of order: golden order "
                    f"{[s.tool for s in slots]}, actual order "
                    f"{[by_index[i].name for i in sorted(sequence)]}"
                )

        # partial score components (diagnostic)
        partial = self._partial(ctx, slots, call_of, by_index, checks, offenders)
        details: dict[str, Any] = {
            "expected_calls": len(slots),
            "actual_calls": len(calls),
            "matched": len(call_of),
            "fully_matched": len(full & set(call_of)),
            "tolerated": len(tolerated),
            "ordered": ordered,
            "execution_required": execution_counts,
            "implicated_tools": sorted(implicated),
        }
        if self.extras == "whitelist":
            details["whitelist"] = ctx.effective_whitelist()
        return TierResult(
            codes=tx.order_codes(codes),
            diff=diff,
            reasons=reasons,
            warnings=warnings,
            partial=partial,
            details=details,
        )

    # ------------------------------------------------------------------ tolerance

    def _tolerated(
        self,
        ctx: JudgeContext,
        call: ActualCall,
        call_of: dict[int, int],
        by_index: dict[int, ActualCall],
    ) -> str | None:
        if self.extras == "none" or not call.known:
            return None
        tol = ctx.settings.tolerance
        if self.extras == "whitelist":
            if not (call.read_only and call.clean) or call.ok is False:
                return None
            if call.ok is None and not tol.unexecuted_whitelisted_reads:
                return None
            if call.name in ctx.whitelist_set():
                return "whitelist"
            if tol.duplicate_read_only_calls:
                for ci in call_of.values():
                    other = by_index[ci]
                    if other.name == call.name and same_arguments(other, call):
                        return "duplicate"
            return None
        # completion rules
        case = ctx.case
        if case.negative:
            allowed = case.golden.allowed_extra
            if (
                tol.completion_read_only_extras
                and call.read_only
                and (allowed is None or call.name in allowed)
            ):
                return "read_only"
            return None
        if tol.completion_repeat_instances and any(
            ctx.equivalent(s.tool, call.name) for s in ctx.slots
        ):
            return "repeat_instance"
        if tol.completion_follow_ups:
            slot_tool = {ci: ctx.slots[si].tool for si, ci in call_of.items()}
            for ci in sorted(slot_tool):
                if ci >= call.index:
                    break
                if call.name in ctx.follow_ups(by_index[ci].name) | ctx.follow_ups(slot_tool[ci]):
                    return "follow_up"
        if tol.completion_read_only_extras and call.read_only:
            return "read_only"
        return None

    # ------------------------------------------------------------------ partial score

    def _partial(
        self,
        ctx: JudgeContext,
        slots: list[Slot],
        call_of: dict[int, int],
        by_index: dict[int, ActualCall],
        checks: Any,
        offenders: list[ActualCall],
    ) -> dict[str, float]:
        keys = (
            ("tools", "arguments", "schema")
            if self.partial_family == "contract"
            else ("tools", "arguments", "schema", "observed", "success")
        )
        if not slots:
            clean = not offenders and all(c.schema_valid for c in ctx.calls)
            return dict.fromkeys(keys, 1.0 if clean else 0.0)
        n = len(slots)
        tools = args = schema = observed = success = 0.0
        for slot in slots:
            ci = call_of.get(slot.index)
            if ci is None:
                continue
            call = by_index[ci]
            tools += 1
            pc = [c for c in checks(slot, call) if c.status != "unexpected"]
            args += (sum(1 for c in pc if c.ok) / len(pc)) if pc else 1.0
            schema += 1.0 if call.schema_valid else 0.0
            observed += 1.0 if call.ok is not None else 0.0
            success += 1.0 if call.ok is True else 0.0
        values = {
            "tools": tools / n,
            "arguments": args / n,
            "schema": schema / n,
            "observed": observed / n,
            "success": success / n,
        }
        return {k: round(values[k], 6) for k in keys}


def _in_order_embedding(
    slots: list[Slot], adjacency: dict[int, list[ActualCall]]
) -> dict[int, int] | None:
    """Slots matched to strictly increasing calls (earliest fit), or None if impossible."""
    out: dict[int, int] = {}
    last = -1
    for slot in slots:
        nxt = min((c.index for c in adjacency[slot.index] if c.index > last), default=None)
        if nxt is None:
            return None
        out[slot.index] = nxt
        last = nxt
    return out


def _make_increasing(
    slots: list[Slot],
    call_of: dict[int, int],
    slot_of: dict[int, int],
    adjacency: dict[int, list[ActualCall]],
) -> None:
    """Swap fully-matching pairs so the pairing follows call order where it can."""
    allowed = {s: {c.index for c in cs} for s, cs in adjacency.items()}
    matched = [s.index for s in slots if s.index in call_of]
    changed = True
    guard = 0
    while changed and guard < 1000:
        changed = False
        guard += 1
        for i, si in enumerate(matched):
            for sj in matched[i + 1 :]:
                ci, cj = call_of[si], call_of[sj]
                if ci > cj and cj in allowed[si] and ci in allowed[sj]:
                    call_of[si], call_of[sj] = cj, ci
                    slot_of[cj], slot_of[ci] = si, sj
                    changed = True


def _where(slot: Slot) -> str:
    suffix = f"[{slot.instance}]" if slot.instance else ""
    return f"golden #{slot.golden_index}{suffix} {slot.tool!r}"


def _call_fields(call: ActualCall) -> dict[str, Any]:
    out: dict[str, Any] = {
        "actual_index": call.index,
        "actual_tool": call.name,
        "round": call.round,
        "ok": call.ok,
    }
    if call.wire_name != call.name:
        out["wire_name"] = call.wire_name
    if call.parse_error:
        out["parse_error"] = call.parse_error
    if call.schema_errors:
        out["schema_errors"] = list(call.schema_errors)
    if call.unknown_ids:
        out["unknown_ids"] = [{"param": k, "value": safe_value(v)} for k, v in call.unknown_ids]
    return out


# each tier is said as what it adds to or takes from another (as its description says it)
CONTRACT = CallMatchingTier(
    name="contract",
    description="native function contract: exact sequence, exact keys, values, schema, no extras",
    param_mode="contract",
    order="always",
    extras="none",
    require_execution=False,
    use_equivalents=False,
    partial_family="contract",
)
EXECUTION = replace(
    CONTRACT,
    name="execution",
    description="contract plus every expected call executed successfully (unless call-only)",
    require_execution=True,
    partial_family="execution",
)
COMPLETION = replace(
    EXECUTION,
    name="completion",
    description="task completion: capabilities covered in any order, tolerated extras, executed",
    param_mode="completion",
    order="never",
    extras="completion",
    use_equivalents=True,
)
COMPLETION_CONTRACT = replace(
    COMPLETION,
    name="completion-contract",
    description="task completion without the execution requirement",
    require_execution=False,
    partial_family="contract",
)
GOLDEN = replace(
    CONTRACT,
    name="golden",
    description="golden calls with per-parameter rules, order_sensitive, read-only whitelist",
    param_mode="golden",
    order="case",
    extras="whitelist",
)

for _tier in (CONTRACT, EXECUTION, COMPLETION, COMPLETION_CONTRACT, GOLDEN):
    register_tier(_tier, replace=True)
