"""τ-bench trajectory files: the shipped GPT-4o airline run parses whole (conversation, results,
golden calls, required outputs, rewards), and every kind of bad input is one clause of one error
with nothing returned."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from rejudge.errors import InvalidInputError
from rejudge.importers import SHIPPED_TAU_BENCH, TAU_READ_ONLY_TOOLS, parse_tau_bench

FILE = SHIPPED_TAU_BENCH / "gpt-4o-airline.json"
TOOLS = SHIPPED_TAU_BENCH / "tools.json"


@pytest.fixture(scope="module")
def raw() -> list[dict[str, Any]]:
    return json.loads(FILE.read_text())


@pytest.fixture(scope="module")
def tools() -> list[dict[str, Any]]:
    return json.loads(TOOLS.read_text())


def test_the_shipped_run_parses_whole(raw: list[dict[str, Any]], tools: list) -> None:
    parsed = parse_tau_bench(raw, source=FILE.name, tools=tools)
    assert len(parsed.cases) == 50 and len(parsed.traces) == 200 and parsed.trials == 4
    assert not parsed.registry_inferred
    assert sum(len(t.calls) for t in parsed.traces) == sum(
        len(m.get("tool_calls") or []) for e in raw for m in e["traj"]
    )
    # every user message is a user turn, every assistant message a round
    for entry, trace in zip(
        sorted(raw, key=lambda e: (e["task_id"], e["trial"])), parsed.traces, strict=True
    ):
        users = [m["content"] for m in entry["traj"] if m["role"] == "user"]
        assert [t.text for t in trace.user_turns] == users
        assert len(trace.rounds) == sum(1 for m in entry["traj"] if m["role"] == "assistant")
        results = [m["content"] for m in entry["traj"] if m["role"] == "tool"]
        assert [c.result for c in trace.calls] == results
        assert trace.format_version == 2
    by_id = {c.id: c for c in parsed.cases}
    task0 = next(e for e in raw if e["task_id"] == 0)["info"]["task"]
    case0 = by_id["task-000"]
    assert case0.instruction == task0["instruction"]
    assert [(g.tool, g.params) for g in case0.golden.calls] == [
        (a["name"], a["kwargs"]) for a in task0["actions"]
    ]
    assert set(case0.golden.allowed_extra or []) == {
        s.name for s in parsed.registry.tools if s.name in TAU_READ_ONLY_TOOLS
    }
    with_outputs = [e for e in raw if e["info"]["task"]["outputs"]]
    assert {by_id[f"task-{e['task_id']:03d}"].required_outputs[0] for e in with_outputs} == {
        e["info"]["task"]["outputs"][0] for e in with_outputs
    }
    assert sum(v.value for v in parsed.verdicts) == sum(e["reward"] for e in raw)
    # a task whose ground truth changes nothing is a negative case
    assert {c.negative for c in parsed.cases if not c.golden.calls} == {True}


def test_without_tools_the_registry_is_inferred(raw: list[dict[str, Any]]) -> None:
    parsed = parse_tau_bench(raw, source=FILE.name)
    assert parsed.registry_inferred and parsed.registry.version == "inferred"
    called = {c.name for t in parsed.traces for c in t.calls}
    assert called <= set(parsed.registry.tool_names())


def test_another_layout_is_one_line(tools: list) -> None:
    for data, expect in (
        ({"info": {}, "tasks": [], "simulations": []}, "holds no simulation"),
        ({"a": 1}, "not a τ-bench trajectory file"),
        ([{"task_id": 1}], "lacks trial, reward, info, traj"),
    ):
        with pytest.raises(InvalidInputError, match=expect):
            parse_tau_bench(data, source="f.json", tools=tools)


def _first_call(entry: dict[str, Any]) -> dict[str, Any]:
    return next(m for m in entry["traj"] if m.get("tool_calls"))["tool_calls"][0]


def test_each_bad_entry_is_named(raw: list[dict[str, Any]], tools: list) -> None:
    with_calls = [e for e in raw if any(m.get("tool_calls") for m in e["traj"])]
    data = copy.deepcopy(with_calls[:4])
    del data[0]["info"]["task"]["actions"]
    _first_call(data[1])["function"]["name"] = "launch_rocket"
    _first_call(data[2])["function"]["arguments"] = "{user_id: mia"
    data.append(copy.deepcopy(data[3]))  # the same task and trial twice
    with pytest.raises(InvalidInputError) as info:
        parse_tau_bench(data, source="f.json", tools=tools)
    message = str(info.value)
    assert "4 problem(s), nothing imported" in message
    assert "entry 0 (task" in message and "no actions list" in message
    assert "'launch_rocket', which the tool registry lacks" in message
    assert "are not a JSON object ('{user_id: mia')" in message
    assert "appears twice" in message
    assert "\n" not in message


def test_one_function_tells_the_two_formats_apart(raw: list[dict[str, Any]]) -> None:
    # the detector and read_tau both ask tau_flavor (tests/test_architecture.py holds
    # is_tau2_results to it); a τ² document read the import's way gets its plan, a τ-bench
    # file none, and what is neither has no flavor
    from rejudge.importers import SHIPPED_TAU2_BENCH, read_tau, tau_flavor

    tau2 = json.loads((SHIPPED_TAU2_BENCH / "toolorchestra_retail.json").read_text())
    assert tau_flavor(raw) == "tau-bench"
    assert tau_flavor(tau2) == "tau2-bench"
    assert tau_flavor([{"task_id": 1, "reward": 1.0}]) is None
    assert tau_flavor({"resourceSpans": []}) is None
    assert tau_flavor([]) is None
    plan, parsed = read_tau(tau2, source="toolorchestra_retail.json")
    assert plan is not None and plan.domain == "retail"
    assert parsed.source_name == "tau2-bench" and not parsed.registry_inferred
    assert read_tau(raw, source=FILE.name)[0] is None
