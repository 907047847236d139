"""The outcome tier on hand-built FuncBenchGen traces: one per failure type, success rule,
call cap, evidence rule, efficiency and redundancy."""

from __future__ import annotations

from typing import Any

import pytest
from rejudge.judge import judge
from rejudge.judge.tiers import CALL_CAP_EXCEEDED, get_tier, numbers_in, tier_names

from rejudge.model import Case, Golden, GoldenCall, Round, ToolCall, ToolRegistry, ToolSpec, Trace

# inputs A=111, B=222, E=666; core: f_a(A)->C=333, f_b(C, B)->T=444 (target);
# CIN f_c(C)->D=555; DIN f_d(E)->F=777. n_core=2, so the call cap is 4.
VALUES = {"A": 111, "B": 222, "C": 333, "T": 444, "D": 555, "E": 666, "F": 777}
NODES = [
    {
        "name": "f_a",
        "role": "core",
        "output": "C",
        "params": [{"name": "x1", "type": "A", "var": "A"}],
    },
    {
        "name": "f_b",
        "role": "core",
        "output": "T",
        "params": [
            {"name": "x1", "type": "C", "var": "C"},
            {"name": "x2", "type": "B", "var": "B"},
        ],
    },
    {
        "name": "f_c",
        "role": "cin",
        "output": "D",
        "params": [{"name": "x1", "type": "C", "var": "C"}],
    },
    {
        "name": "f_d",
        "role": "din",
        "output": "F",
        "params": [{"name": "x1", "type": "E", "var": "E"}],
    },
]
CASE = Case(
    id="fb-001",
    dimension="core-2",
    category="depth-1",
    instruction="You know A=111, B=222, E=666. Find the T value.",
    golden=Golden(
        calls=[
            GoldenCall(tool="f_a", params={"x1": 111}),
            GoldenCall(tool="f_b", params={"x1": 333, "x2": 222}),
        ]
    ),
    metadata={
        "target": "T",
        "target_value": 444,
        "target_function": "f_b",
        "n_core": 2,
        "call_cap": 4,
        "inputs": ["A", "B", "E"],
        "tools": ["f_a", "f_b", "f_c", "f_d"],
        "graph": {
            "nodes": NODES,
            "edges": [["f_a", "f_b"], ["f_a", "f_c"]],
            "values": VALUES,
            "kinds": {},
            "supertypes": {},
        },
    },
)
REGISTRY = ToolRegistry(
    domain="funcbench",
    tools=[
        ToolSpec(
            name=n["name"],
            parameters={
                "type": "object",
                "properties": {p["name"]: {"type": "integer"} for p in n["params"]},
                "required": [p["name"] for p in n["params"]],
            },
            read_only=True,
        )
        for n in NODES
    ]
    + [ToolSpec(name="f_other_case", read_only=True)],
)


def _sandbox(name: str, args: dict[str, Any] | None) -> tuple[Any, bool, str | None]:
    """A stand-in for the sandbox's outputs (wrong inputs give 900 + a small offset)."""
    node = next((n for n in NODES if n["name"] == name), None)
    if node is None or args is None:
        return None, False, "unknown function"
    if set(args) != {p["name"] for p in node["params"]}:
        return None, False, "wrong arguments"
    ok = all(args[p["name"]] == VALUES[p["var"]] for p in node["params"])
    return (VALUES[node["output"]] if ok else 900 + len(args)), True, None


def trace(calls: list[tuple[str, dict[str, Any] | None]], final: str | None) -> Trace:
    rounds = []
    for i, (name, args) in enumerate(calls):
        result, ok, error = _sandbox(name, args)
        rounds.append(
            Round(
                index=i,
                calls=[
                    ToolCall(
                        name=name,
                        arguments=args,
                        arguments_raw="{" if args is None else "",
                        parse_error="invalid JSON" if args is None else None,
                        result=result,
                        ok=ok,
                        error=error,
                    )
                ],
            )
        )
    rounds.append(Round(index=len(rounds), text=final))
    return Trace(case_id="fb-001", rounds=rounds, final_text=final)


GOOD = [("f_a", {"x1": 111}), ("f_b", {"x1": 333, "x2": 222})]


def outcome(t: Trace):
    return judge(t, CASE, REGISTRY, "outcome")


def test_registered_and_applies_only_to_funcbench_cases() -> None:
    assert "outcome" in tier_names()
    tier = get_tier("outcome")
    assert tier.applies(CASE, REGISTRY)
    plain = CASE.model_copy(update={"metadata": {}})
    assert not tier.applies(plain, REGISTRY)
    j = judge(trace(GOOD, "444"), plain, REGISTRY, "outcome")
    assert j.verdict == "SKIP" and j.taxonomy == []
    assert j.reasons == ["tier does not apply: outcome judges " + tier.applies_to]


def test_golden_chain_with_the_answer_passes() -> None:
    j = outcome(trace(GOOD, "The T value is 444."))
    assert j.verdict == "PASS", j.reasons
    assert j.details["efficiency"] == 1.0
    assert j.details["redundant_calls"] == 0
    assert j.details["first_failure"] is None
    assert [d["status"] for d in j.diff] == ["ok", "ok"]


@pytest.mark.parametrize(
    ("calls", "code"),
    [
        ([("f_zz", {"x1": 111}), *GOOD], "FUNCTION_NOT_FOUND"),
        # in the suite's registry, but not one of this case's functions
        ([("f_other_case", {}), *GOOD], "FUNCTION_NOT_FOUND"),
        ([("f_b", {"x1": 333}), *GOOD], "WRONG_ARGUMENT_COUNT"),
        ([("f_a", {"x1": 111, "x2": 222}), *GOOD], "WRONG_ARGUMENT_COUNT"),
        # 333 is C's true value, but no call has returned it yet
        ([("f_b", {"x1": 333, "x2": 222}), *GOOD], "UNKNOWN_VALUE"),
        ([("f_a", {"x1": 123}), *GOOD], "UNKNOWN_VALUE"),
        ([("f_a", {"x1": "111"}), *GOOD], "UNKNOWN_VALUE"),
        # 222 is known (an input), but it is B, not A
        ([("f_a", {"x1": 222}), *GOOD], "INCORRECT_VALUE"),
        ([("f_a", None), *GOOD], "ARGUMENTS_UNPARSABLE"),
    ],
)
def test_each_failure_type_is_classified(calls: list, code: str) -> None:
    failed = outcome(trace(calls, "I could not find it."))
    assert failed.verdict == "FAIL"
    assert failed.taxonomy == [code, "OUTCOME_WRONG"]
    assert failed.details["first_failure"] == code
    assert failed.details["failure_types"] == {code: 1}
    assert failed.diff[0]["status"] == code
    # the same mistake on the way to a stated, returned target within the cap: PASS, counted
    recovered = outcome(trace(calls, "T = 444"))
    assert recovered.verdict == "PASS"
    assert recovered.details["failure_types"] == {code: 1}
    assert recovered.details["efficiency"] == pytest.approx(2 / 3)


def test_wrong_outputs_become_known_values() -> None:
    # f_a(222) silently returns 901; feeding 901 on is a known-but-incorrect value
    t = trace([("f_a", {"x1": 222}), ("f_b", {"x1": 901, "x2": 222})], "901")
    j = outcome(t)
    assert [d["status"] for d in j.diff] == ["INCORRECT_VALUE", "INCORRECT_VALUE"]
    assert j.taxonomy == ["INCORRECT_VALUE", "OUTCOME_WRONG"]


def test_unknown_takes_precedence_over_incorrect_in_one_call() -> None:
    j = outcome(trace([("f_b", {"x1": 999, "x2": 111}), *GOOD], "no"))
    assert j.diff[0]["status"] == "UNKNOWN_VALUE"


def test_answer_without_evidence_fails() -> None:
    guessed = outcome(trace([], "The T value is 444."))
    assert guessed.verdict == "FAIL"
    assert guessed.taxonomy == ["TOOL_MISSING", "OUTCOME_WRONG"]
    # two calls (n_core), answer stated, but no call returned 444
    copied = outcome(trace([("f_a", {"x1": 111}), ("f_c", {"x1": 333})], "444"))
    assert copied.verdict == "FAIL" and copied.taxonomy == ["OUTCOME_WRONG"]
    assert not copied.details["target_returned"] and copied.details["answer_found"]


def test_target_returned_but_not_stated_fails() -> None:
    j = outcome(trace(GOOD, "done"))
    assert j.verdict == "FAIL" and j.taxonomy == ["OUTCOME_WRONG"]
    assert j.details["target_returned"] and not j.details["answer_found"]
    assert outcome(trace(GOOD, "1444")).verdict == "FAIL"
    assert outcome(trace(GOOD, "4.444")).verdict == "FAIL"
    assert outcome(trace(GOOD, "444.")).verdict == "PASS"


def test_more_calls_than_the_cap_is_a_timeout() -> None:
    calls = [("f_d", {"x1": 666}), ("f_d", {"x1": 666}), ("f_c", {"x1": 1}), *GOOD]
    j = outcome(trace(calls, "444"))
    assert j.verdict == "FAIL"
    assert CALL_CAP_EXCEEDED in j.taxonomy and "OUTCOME_WRONG" in j.taxonomy
    assert j.details["timeout"] and j.details["calls"] == 5
    assert j.diff[-1]["status"] == "after_cap"
    # exactly at the cap is fine
    at_cap = outcome(trace([("f_d", {"x1": 666}), ("f_c", {"x1": 111}), *GOOD], "444"))
    assert at_cap.verdict == "PASS" and not at_cap.details["timeout"]


def test_redundancy_and_efficiency_on_success() -> None:
    calls = [("f_a", {"x1": 111}), ("f_a", {"x1": 111}), ("f_c", {"x1": 333}), GOOD[1]]
    j = outcome(trace(calls, "444"))
    assert j.verdict == "PASS"
    assert j.details["repeated_calls"] == 1
    assert j.details["irrelevant_calls"] == 1
    assert j.details["redundant_calls"] == 2
    assert j.details["efficiency"] == 0.5


def test_unexecuted_correct_calls_still_carry_their_output() -> None:
    # an imported trace: calls never executed (no results); the correct chain is still evidence
    rounds = [
        Round(index=i, calls=[ToolCall(name=n, arguments=a)]) for i, (n, a) in enumerate(GOOD)
    ]
    t = Trace(case_id="fb-001", rounds=rounds, final_text="444")
    assert outcome(t).verdict == "PASS"


def test_agent_error_is_not_the_tiers_business() -> None:
    t = trace(GOOD, None).model_copy(update={"status": "agent_error"})
    assert outcome(t).verdict == "AGENT_ERROR"


def test_numbers_in() -> None:
    assert numbers_in("a 444, b 12.5 and 7.") == {444.0, 12.5, 7.0}
    assert numbers_in(None) == set()


def test_deterministic() -> None:
    t = trace([("f_a", {"x1": 222}), *GOOD], "444")
    assert outcome(t).hash == outcome(t).hash


def test_results_normalized_from_cassettes_are_text() -> None:
    # a cassette's tool message is text: the normalizer keeps "333", the tier reads it as 333
    t = trace(GOOD, "444")
    rounds = [
        r.model_copy(
            update={"calls": [c.model_copy(update={"result": str(c.result)}) for c in r.calls]}
        )
        for r in t.rounds
    ]
    j = outcome(t.model_copy(update={"rounds": rounds}))
    assert j.verdict == "PASS" and j.details["target_returned"]
    assert [d["status"] for d in j.diff] == ["ok", "ok"]
