"""The retail and genome worlds give back, byte for byte, every tool result the shipped
cassettes recorded; their registries name them, so the state tier judges their suites.

The proof of faithfulness: every call of every shipped SmolLM2 retail and genome trace is
re-executed, in order, on a fresh world state set up for its case, and the text sent back to the
model (``result_text``, what ``rejudge replay`` re-sends) must equal the tool message the
cassette's next request carried; a call whose result was never sent (the round budget ended the
trace) is compared with the trace's recorded result instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rejudge.judge import judge, load_rule_set
from rejudge.judge.tiers import NOTHING_TO_OBSERVE, get_tier
from rejudge.recorder import read_cassette, trace_of
from rejudge.recorder._loop import result_text
from rejudge.suites import ToolResult, load_suite, selftest_suite

from rejudge.model import Round, ToolCall, Trace, World
from rejudge.registry import BUILTINS, REGISTRY
from tests.conftest import CASSETTES, SHIPPED_WORLD_RUNS

WORLD_OF = {"retail": "retail", "genome-simple": "genome", "genome-complex": "genome"}


def _sent_tool_messages(interactions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool messages of the trace's last request: the conversation as the model last saw
    it, every result sent back so far, in order."""
    bodies = [json.loads(i["request"]["body"]) for i in interactions if i["request"].get("body")]
    if not bodies:
        return []
    return [m for m in bodies[-1]["messages"] if m.get("role") == "tool"]


def _as_tool_result(world_result: Any) -> ToolResult:
    if world_result.ok:
        return ToolResult(ok=True, result=world_result.content)
    return ToolResult(ok=False, error=world_result.content["error"])


def _re_executed(run: str) -> list[tuple[str, str, str]]:
    """(where, what the world gives back now, what was sent or recorded) per executed call."""
    suite = load_suite(SHIPPED_WORLD_RUNS[run])
    cases = {c.id: c for c in suite.cases}
    world: World = REGISTRY.get("world", WORLD_OF[SHIPPED_WORLD_RUNS[run]])
    out = []
    for path in sorted((CASSETTES / run).glob("*.yaml")):
        cassette = read_cassette(path)
        case = cases[str(cassette.meta["case"])]
        trace = trace_of(cassette, case_id=case.id, repetition=0)
        sent = _sent_tool_messages(cassette.interactions)
        state = world.case_state(case.metadata)
        for index, call in enumerate(trace.calls):
            if call.arguments is None:
                continue  # the loop refused unparsable arguments; the world never saw them
            now = result_text(_as_tool_result(world.execute(state, call.name, call.arguments)))
            if index < len(sent):
                assert sent[index]["tool_call_id"] == call.id, (path.name, index)
                then = sent[index]["content"]
            else:
                then = result_text(
                    ToolResult(ok=bool(call.ok), result=call.result, error=call.error)
                )
            out.append((f"{path.name} call {index + 1} {call.name}", now, then))
    return out


@pytest.mark.parametrize("run", sorted(SHIPPED_WORLD_RUNS))
def test_every_recorded_call_gives_back_its_recorded_bytes(run: str) -> None:
    calls = _re_executed(run)
    assert [where for where, now, then in calls if now != then] == []
    if run in ("smollm2-retail", "smollm2-genome-simple", "smollm2-genome-complex"):
        assert calls, f"{run} holds executed calls: the proof must not be empty"


def test_the_proof_covers_every_executed_call_of_the_shipped_runs() -> None:
    total = sum(len(_re_executed(run)) for run in SHIPPED_WORLD_RUNS)
    # 31 calls recorded, 4 with arguments the model cut off (never executed): 27 re-executed
    assert total == 27


# ----------------------------------------------------------------------------- registries


@pytest.mark.parametrize("suite", ["retail", "genome-simple", "genome-complex"])
def test_the_built_in_registries_name_their_world(suite: str) -> None:
    registry = load_suite(suite).registry
    assert registry.world is not None
    world = REGISTRY.get("world", registry.world.name)
    world.check(registry.world)  # the data it names is the data loaded
    assert registry.world.name in BUILTINS["world"]
    assert world.tool_names() == frozenset(registry.tool_names())


# ----------------------------------------------------------------------------- the state tier


def _trace(case_id: str, *calls: tuple[str, dict[str, Any], Any]) -> Trace:
    rounds = [
        Round(
            index=i,
            calls=[
                ToolCall(
                    id=f"c{i}",
                    name=name,
                    arguments=args,
                    arguments_raw=json.dumps(args),
                    result=result,
                    ok=True,
                )
            ],
            finish_reason="tool_calls",
        )
        for i, (name, args, result) in enumerate(calls)
    ]
    rounds.append(Round(index=len(rounds), text="done", finish_reason="stop"))
    return Trace(case_id=case_id, rounds=rounds, final_text="done")


def test_cancelling_the_wrong_order_fails_the_state_tier_with_a_readable_diff() -> None:
    source = load_suite("retail")
    case = next(c for c in source.cases if c.id == "fc-d4-004")  # cancel W441, then confirm
    world = REGISTRY.get("world", "retail")
    state = world.new_state()
    requested = world.execute(state, "request_cancel", {"order_id": "W447"}).content
    confirmed = world.execute(state, "confirm_action", {"action_id": "ACT-0001"}).content
    trace = _trace(
        case.id,
        ("request_cancel", {"order_id": "W447"}, requested),
        ("confirm_action", {"action_id": "ACT-0001"}, confirmed),
    )
    j = judge(trace, case, source.registry, "state", load_rule_set("standard@2"))
    assert j.verdict == "FAIL" and j.taxonomy == ["STATE_WRONG"]
    assert 'orders/W441: status: expected "cancelled", actual "pending"' in j.reasons
    assert 'orders/W447: status: expected "pending", actual "cancelled"' in j.reasons
    assert 'orders/W441: cancelled_at: expected "2025-06-15", actual null' in j.reasons


def test_a_withdrawn_request_leaves_the_state_as_no_request_does() -> None:
    source = load_suite("retail")
    negative = next(c for c in source.cases if c.negative)
    world = REGISTRY.get("world", "retail")
    state = world.new_state()
    requested = world.execute(state, "request_cancel", {"order_id": "W441"}).content
    aborted = world.execute(state, "abort_action", {"action_id": "ACT-0001"}).content
    trace = _trace(
        negative.id,
        ("request_cancel", {"order_id": "W441"}, requested),
        ("abort_action", {"action_id": "ACT-0001"}, aborted),
    )
    j = judge(trace, negative, source.registry, "state", load_rule_set("standard@2"))
    # the ledger (ACT-0001 was handed out) is bookkeeping, not an outcome
    assert "STATE_WRONG" not in j.taxonomy, j.reasons
    left_pending = _trace(negative.id, ("request_cancel", {"order_id": "W441"}, requested))
    j = judge(left_pending, negative, source.registry, "state", load_rule_set("standard@2"))
    assert "STATE_WRONG" in j.taxonomy
    assert 'actions/ACT-0001: expected (absent), actual {"order_id":"W441","type":"cancel"}' in (
        j.reasons
    )


def test_a_genome_case_is_judged_from_its_setup_state() -> None:
    source = load_suite("genome-simple")
    case = next(c for c in source.cases if c.id == "gs-tabs-006")  # two tabs opened, close tab-2
    world = REGISTRY.get("world", "genome")
    state = world.case_state(case.metadata)
    closed = world.execute(state, "close_tab", {"tab_id": "tab-3"}).content
    wrong = _trace(case.id, ("close_tab", {"tab_id": "tab-3"}, closed))
    j = judge(wrong, case, source.registry, "state", load_rule_set("standard@2"))
    assert j.verdict == "FAIL" and j.taxonomy == ["STATE_WRONG"]
    assert "WORLD_MISMATCH" not in j.taxonomy  # tab-3 exists: the setup ran on both sides
    assert any(r.startswith("tabs/tab-2: expected (absent), actual {") for r in j.reasons)
    assert any(r.startswith("tabs/tab-3: expected {") for r in j.reasons)


@pytest.mark.parametrize("suite", ["retail", "genome-simple", "genome-complex"])
def test_every_golden_sequence_passes_the_state_tier(suite: str) -> None:
    rules = load_rule_set("standard@2")

    source = load_suite(suite)
    tier = get_tier("state")

    def state_only(trace: Trace, case: Any, registry: Any) -> dict[str, str]:
        j = judge(trace, case, registry, "state", rules)
        if not tier.applies(case, registry):
            # nothing to observe (a read-only case): the selftest asks PASS of applicable tiers
            assert j.verdict == "SKIP" and j.reasons == [NOTHING_TO_OBSERVE], (case.id, j.reasons)
            return {}
        return {"state": j.verdict if j.verdict == "PASS" else f"{j.verdict} {j.reasons}"}

    report = selftest_suite(source, judge_fn=state_only)
    assert report.ok, [r.problems for r in report.failures][:3]
    judged = [r for r in report.cases if not r.skipped and r.verdicts]
    assert judged and all(r.verdicts == {"state": "PASS"} for r in judged)


def test_a_world_s_data_file_missing_or_broken_is_one_error_naming_it(tmp_path: Path) -> None:
    from rejudge.suites._domain import read_json_data

    from rejudge.errors import InvalidInputError

    missing = tmp_path / "fixtures.json"
    with pytest.raises(InvalidInputError, match="fixtures.json: the retail data is missing"):
        read_json_data(missing, "the retail data")
    missing.write_text('{"users": ', encoding="utf-8")
    with pytest.raises(InvalidInputError, match=r"fixtures.json: not valid JSON \(line 1"):
        read_json_data(missing, "the retail data")
