"""The ``state`` tier: a trace is judged by what its calls did to the world.

τ-bench's reward, made a tier. The trace's calls are re-executed, in their recorded order, on a
fresh state of the registry's world; the case's golden calls on another. PASS when the two
final states are equal and every required output was told to the user. Tools that end the
conversation (the registry's ``terminal_tools``, the world's own) are not state changes and run
on neither side. A failed call changes nothing (the world rolls its writes back), so an error
the agent recovered from costs it nothing, as in τ-bench.

What the tier requires of a case follows the rule set's ``reward`` (τ-bench's reward by
version) or the case's own reward basis (τ²'s), as :mod:`._reward` says: by default the final
state and the required outputs; under ``outputs-else-db`` (τ-bench at 7362a17) a case with
required outputs by them alone (a differing state is then a warning); a τ² basis may add the
action check (``TOOL_MISSING``) or name a part this tier cannot check (a SKIP saying so, unless
a part it checks fails).

What a FAIL says:

- ``STATE_WRONG``: the final states differ; the diff lists every differing record and field,
  expected (the golden calls' state) vs actual (the trace's), in words a person can read;
- ``OUTPUT_MISSING``: a required output appears in no reply the agent sent without a tool call
  (lowercased, commas removed: how τ-bench reads them);
- ``WORLD_MISMATCH``: a re-executed call gave back another result than the one recorded. The
  evidence came from another world (other data, another version of the tools), so the state
  comparison would be about a conversation that never happened; the trace is flagged
  (anomaly ``evidence_from_another_world``), never judged silently;

Both sides start from the state the case starts in (:meth:`World.case_state`: a case's setup
calls, such as the genome browser's opened tabs, run on each), and the world's ledger tables
(ids handed out, requests resolved: bookkeeping, not an outcome) are left out of the
comparison.

A golden call that fails on the fresh world is a warning (the case may be wrong for this
world): it changes nothing, as when τ-bench executes its ground truth.

The tier applies only where there is something to observe (rule-set setting ``state_applies``,
default ``observable``): the golden calls' net effect changes the world (they are re-executed
on a fresh state and compared with it; a read, or a tool that ends the conversation, changes
nothing), or the case requires outputs, or it is negative (the state must stay as it was).
Elsewhere the verdict is SKIP with :data:`NOTHING_TO_OBSERVE`: comparing two unchanged states
would pass an agent that did nothing. A rule set that follows a benchmark whose reward checks
the database of a read-only task too (τ-bench's) sets ``state_applies: always``.

The tier needs a case whose registry names a world. The world is looked up by name in
:mod:`rejudge.registry` (the judge never imports a domain) and checked against the registry's
data hash before any judging: a world of another version, or one whose data cannot be read,
is an error naming what to do, never a verdict that would be stored under the wrong key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from rejudge.errors import RejudgeError
from rejudge.model import Case, ToolRegistry, canonical_json
from rejudge.model._world import (
    StateDifference,
    World,
    WorldMismatchError,
    WorldState,
    diff_states,
    world_key,
)
from rejudge.registry import REGISTRY

from .. import _taxonomy as tx
from ._base import TierResult, register_tier
from ._calls import OUTPUT_MISSING, missing_outputs, reply_texts
from ._reward import UNCHECKED_PARTS, action_matches, compare_args_of, state_checks

__all__ = [
    "NOTHING_TO_OBSERVE",
    "STATE",
    "STATE_WRONG",
    "WORLD_MISMATCH",
    "ANOMALY_OTHER_WORLD",
    "StateTier",
    "world_of",
    "world_versions",
]

STATE_WRONG = "STATE_WRONG"
WORLD_MISMATCH = "WORLD_MISMATCH"
ANOMALY_OTHER_WORLD = "evidence_from_another_world"

tx.register_code(
    WORLD_MISMATCH, 5, "a re-executed call gave another result than recorded: another world"
)
tx.register_code(STATE_WRONG, 175, "the calls left the world in another state than the golden")

#: how many differences a judgment spells out in its reasons (all are in the diff)
_REASONS_SHOWN = 12
#: the SKIP reason of a case with nothing to observe (``state_applies: observable``)
NOTHING_TO_OBSERVE = (
    "tier does not apply: the golden calls change nothing and no output is required"
)
#: the SKIP reason of a case whose registry names no world
NO_WORLD = "tier does not apply: state judges cases whose tool registry names a world with state"


def world_versions(name: str) -> list[str]:
    """Every ``name@version`` key registered for the world ``name``, sorted."""
    return [key for key in REGISTRY.names("world") if key.startswith(f"{name}@")]


def world_of(registry: ToolRegistry) -> World:
    """The registry's world, in the version the registry names, checked against the data hash
    the registry was made with."""
    ref = registry.world
    if ref is None:
        raise ValueError(f"registry of domain {registry.domain!r} names no world")
    # a world registered by its bare name only (a plugin's) is found by that name
    world: World | None = REGISTRY.find("world", world_key(ref.name, ref.version))
    if world is None:
        world = REGISTRY.get("world", ref.name)
    try:
        world.check(ref)
    except WorldMismatchError as exc:
        known = world_versions(ref.name)
        if not known:
            raise
        raise WorldMismatchError(
            f"{exc} (versions of world {ref.name!r} known here: {', '.join(known)})"
        ) from None
    return world


def _same_result(recorded: Any, content: Any) -> bool:
    if recorded == content and type(recorded) is type(content):
        return True
    try:
        return canonical_json(recorded) == canonical_json(content)
    except (TypeError, ValueError):
        return False


def _failure_text(content: Any) -> Any:
    # what a sandbox records of a failed call: a schema world's {"error": sentence} as the
    # sentence (rejudge.suites.WorldSandbox), any other world's content as it is
    if isinstance(content, dict) and set(content) == {"error"}:
        return content["error"]
    return content


def _mismatch(call: Any, result: Any) -> bool:
    """Whether a re-executed call gave back other than what the trace recorded. A call with
    nothing recorded (``ok`` None and no result: an import that kept no results) is not
    compared. A recorded None is compared too: a call recorded as failed must fail again with
    the same error; one recorded as succeeding with no result must give none again."""
    if call.result is not None:
        return not _same_result(call.result, result.content)
    if call.ok is None:
        return False  # never executed, or its result was not kept: nothing to compare
    if call.ok:
        return result.content is not None or not result.ok
    if result.ok:
        return True
    return call.error is not None and not _same_result(call.error, _failure_text(result.content))


def _recorded(call: Any) -> Any:
    # what the trace holds of a call's outcome, for a reason: its result, else its error
    if call.result is not None or call.ok is None:
        return call.result
    return call.result if call.ok else f"failed: {call.error}"


def _short(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else canonical_json(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class StateTier:
    name: str = "state"
    description: str = (
        "judged by what the calls did: the trace's calls and the golden calls re-executed on "
        "fresh copies of the case's world, final states compared, required outputs per reply"
    )
    partial_family: str = "contract"
    #: the verdict needs golden calls (or a negative case: the state must stay as it was)
    needs_golden_calls: ClassVar[bool] = True
    uses_registry_index: ClassVar[bool] = False
    applies_to: ClassVar[str] = (
        "cases of a world with something to observe: golden calls that change it, required "
        "outputs, or a negative case (rule-set setting state_applies)"
    )

    def applies(self, case: Case, registry: ToolRegistry) -> bool:
        """Whether the tier judges the case under the default ``state_applies: observable``."""
        return self.inapplicable(case, registry, None) is None

    def inapplicable(self, case: Case, registry: ToolRegistry, settings: Any) -> str | None:
        """Why the tier does not judge ``case`` under the rule set's ``settings`` (None: it
        does; no settings means the default). Called by the engine before judging."""
        if registry.world is None:
            return NO_WORLD
        if settings is not None:
            try:
                checks = state_checks(case, settings.reward)
            except ValueError:
                checks = None  # a bad reward basis: evaluate records it as a judge error
            if checks is not None and not (checks.db or checks.outputs or checks.actions):
                return (
                    f"tier does not apply: {checks.basis} has no part this tier checks "
                    "(the database, the required outputs or the actions)"
                )
        if getattr(settings, "state_applies", "observable") == "always":
            return None
        if case.negative or case.required_outputs or not case.golden.calls:
            # a case with no golden call that is not negative is the engine's "not scorable"
            return None
        try:
            world = world_of(registry)
        except RejudgeError:
            return None  # ``require`` refuses it with the message that says what to do
        return None if _golden_side(world, case, registry).changes_world else NOTHING_TO_OBSERVE

    def require(self, registry: ToolRegistry) -> None:
        """Raise when the registry's world cannot be had as the registry was made (called by
        the engine before judging, outside its catch: no verdict is stored for it)."""
        world_of(registry)

    def evaluate(self, ctx: Any) -> TierResult:
        # every call as recorded (not the rule set's view): a dropped call still ran
        trace, case, registry = ctx.stored_trace, ctx.case, ctx.registry
        world = world_of(registry)
        checks = state_checks(case, ctx.settings.reward)
        terminal = set(registry.terminal_tools) | set(world.terminal_tools)
        known = world.tool_names()
        codes: list[str] = []
        reasons: list[str] = []
        diff: list[dict[str, Any]] = []
        anomalies: list[str] = []

        actual = world.case_state(case.metadata)
        executed = 0
        number = 0
        for r_index, rnd in enumerate(trace.rounds):
            for call in rnd.calls:
                number += 1
                where = f"round {r_index + 1}, call {number} {call.name!r}"
                if call.name in terminal or call.arguments is None:
                    continue  # ends the conversation / never ran: changes nothing
                if call.name not in known:
                    codes.append(tx.FUNCTION_NOT_FOUND)
                    reasons.append(f"{where}: the world {world.name!r} has no such tool")
                    continue
                result = world.execute(actual, call.name, dict(call.arguments))
                executed += 1
                if _mismatch(call, result):
                    codes.append(WORLD_MISMATCH)
                    if ANOMALY_OTHER_WORLD not in anomalies:
                        anomalies.append(ANOMALY_OTHER_WORLD)
                    reasons.append(
                        f"{where}: re-executed on {world.name} {world.version} it gives "
                        f"{_short(result.content)!r}, but the trace recorded "
                        f"{_short(_recorded(call))!r}: the evidence came from another world"
                    )

        golden_side = _golden_side(world, case, registry)
        expected, warnings = golden_side.state, list(golden_side.warnings)

        ledger = world.ledger_tables
        # what each side changed, worked out once (canonical JSON against the base records):
        # the diff, both state hashes and the partial score all read it
        changes = (golden_side.changes, actual.changes(ledger))
        differences = diff_states(expected, actual, ledger, changes=changes)
        if differences and not checks.db:
            # evidence, not a cause: the reward this case is judged by does not read the DB
            warnings.append(
                f"final state differs from the golden calls' in {len(differences)} field(s); "
                f"not a cause under {checks.basis}, which does not check the database"
            )
        elif differences:
            codes.append(STATE_WRONG)
            tables = sorted({f"{d.table}/{d.key}" for d in differences})
            reasons.append(
                f"final state differs from the golden calls' in {len(differences)} field(s) of "
                f"{len(tables)} record(s): "
                + ", ".join(tables[:6])
                + (" …" if len(tables) > 6 else "")
            )
            reasons.extend(d.describe() for d in differences[:_REASONS_SHOWN])
            if len(differences) > _REASONS_SHOWN:
                reasons.append(f"… and {len(differences) - _REASONS_SHOWN} more (see the diff)")
            diff.extend({"kind": "state", **d.as_dict()} for d in differences)

        details: dict[str, Any] = {
            "world": world_key(world.name, world.version),
            "state_hash_expected": expected.state_hash(ledger, changes=changes[0]),
            "state_hash_actual": actual.state_hash(ledger, changes=changes[1]),
            "re_executed_calls": executed,
            "state_differences": len(differences),
        }
        if checks.outputs:
            for out in missing_outputs(list(case.required_outputs), reply_texts(trace)):
                codes.append(OUTPUT_MISSING)
                reasons.append(f"required output {out!r} is in no reply sent without a tool call")
        if checks.actions:
            for g_index, missing in _missing_actions(ctx.stored_case, trace):
                codes.append(tx.TOOL_MISSING)
                reasons.append(
                    f"golden action {g_index + 1} {missing!r} was never called with its "
                    "compared arguments"
                )
        verdict = None
        if checks.unchecked and not codes and trace.status != "step_limit":
            # a part of the reward this tier cannot check: no PASS it cannot stand behind (an
            # unfinished episode is rewarded 0 whatever that part says: the engine FAILs it)
            verdict = "SKIP"
            reasons.insert(
                0,
                "tier does not decide: the reward of this case also needs "
                + " and ".join(UNCHECKED_PARTS[p] for p in checks.unchecked),
            )
        if not checks.default:
            details["reward_checks"] = checks.basis

        share = _agreeing_share(changes, differences)
        return TierResult(
            codes=tx.order_codes(codes),
            diff=diff,
            reasons=reasons,
            warnings=warnings,
            partial={"tools": share, "arguments": share, "schema": 1.0},
            details=details,
            anomalies=anomalies,
            verdict=verdict,
        )


@dataclass(frozen=True)
class _GoldenSide:
    """The golden calls executed on a fresh state of the case's world: read, never changed."""

    state: WorldState
    warnings: tuple[str, ...]
    #: what the state differs in from the world's base data (the case's setup included)
    changes: dict[str, dict[str, Any]]
    #: whether the golden calls' net effect changes the state the case starts in
    changes_world: bool


# id(case) -> (case, registry, world, its golden side): a case's golden calls give the same
# state for every trace (the world is pure), so they run once per case, not once per trace and
# once more to decide applicability; the objects are held, so an id is not reused while cached
_GOLDEN: dict[int, tuple[Case, ToolRegistry, World, _GoldenSide]] = {}


def _golden_side(world: World, case: Case, registry: ToolRegistry) -> _GoldenSide:
    hit = _GOLDEN.get(id(case))
    if hit is not None and hit[0] is case and hit[1] is registry and hit[2] is world:
        return hit[3]
    terminal = set(registry.terminal_tools) | set(world.terminal_tools)
    expected = world.case_state(case.metadata)
    warnings: list[str] = []
    for g_index, golden in enumerate(case.golden.calls):
        if golden.tool in terminal:
            continue  # ends the conversation: changes nothing
        for _ in range(golden.count):
            result = world.execute(expected, golden.tool, dict(golden.params))
            if not result.ok and not registry_read_only(registry, golden.tool):
                # a warning, not a cause: τ-bench executes the ground truth the same way,
                # and a failed write changes nothing on either side
                warnings.append(
                    f"golden call {g_index + 1} {golden.tool!r} fails on the world: "
                    f"{_short(result.content)!r}"
                )
    changes = expected.changes(world.ledger_tables)
    # against the state the case starts in: a case's setup (opened tabs, queued edits) is not
    # something the golden calls did
    start = world.case_state(case.metadata).changes(world.ledger_tables)
    moved = canonical_json(changes) != canonical_json(start)
    side = _GoldenSide(expected, tuple(warnings), changes, moved)
    if len(_GOLDEN) > 4096:
        _GOLDEN.clear()
    _GOLDEN[id(case)] = (case, registry, world, side)
    return side


def _missing_actions(case: Case, trace: Any) -> list[tuple[int, str]]:
    """The golden calls no call of the trace counts as (τ²'s action check: any order, any
    outcome, each golden call on its own)."""
    made = [(c.name, c.arguments or {}) for rnd in trace.rounds for c in rnd.calls]
    compare = compare_args_of(case)
    return [
        (i, g.tool)
        for i, g in enumerate(case.golden.calls)
        if not any(action_matches(g.tool, g.params, compare[i], n, a) for n, a in made)
    ]


def registry_read_only(registry: ToolRegistry, tool: str) -> bool:
    spec = registry.tool(tool)
    return spec is not None and spec.read_only


def _agreeing_share(
    changes: tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]],
    differences: list[StateDifference],
) -> float:
    """The share of changed records (either side) that the two states agree on: a diagnostic.
    A record changed on both sides alike is no difference; any other changed record is one."""
    if not differences:
        return 1.0
    keys = {(t, k) for side in changes for t, recs in side.items() for k in recs}
    differing = {(d.table, d.key) for d in differences}
    return round((len(keys) - len(differing)) / len(keys), 6) if keys else 0.0


STATE = StateTier()
register_tier(STATE)
