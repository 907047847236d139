"""Which task a τ² simulation ran: the recorded ``task_id`` where the checks fit it, else the
task whose actions and communicate items τ² checked, else the conversation's identifiers, else
elimination; a simulation none of these places is a named problem."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from rejudge.importers import ran_tasks
from tests.suites.conftest import tau2_run

#: shipped file -> (simulations re-keyed, by how)
EXPECTED = {
    "claude-sonnet-4-5_airline": {},
    "button_airline_claude-opus-4-6": {},
    "ironshell_airline_claude-opus-4-6": {},
    "ironshell_airline_gpt-5.4": {},
    "toolorchestra_airline": {
        "its checked actions": 43,
        "the identifiers its conversation names": 5,
        "elimination (the trial runs every task once)": 1,
    },
    "toolorchestra_retail": {"its checked actions": 113},
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_shipped_simulation_is_placed_once(name: str) -> None:
    data = tau2_run(name)
    tasks = {t["id"]: t for t in data["tasks"]}
    ran, relabels, problems = ran_tasks(tasks, data["simulations"])
    assert not problems
    assert len(ran) == len(data["simulations"]) == len(set(ran.values()))
    assert dict(Counter(r.how for r in relabels)) == EXPECTED[name]
    for i, sim in enumerate(data["simulations"]):  # what τ² checked is the placed task's
        checks = sim["reward_info"].get("action_checks") or []
        assert [c["action"] for c in checks] == tasks[ran[i]]["evaluation_criteria"]["actions"]


def test_the_no_action_simulations_go_where_their_conversations_say() -> None:
    data = tau2_run("toolorchestra_airline")
    ran, relabels, _ = ran_tasks({t["id"]: t for t in data["tasks"]}, data["simulations"])
    placed = {r.recorded: r.ran for r in relabels if r.how != "its checked actions"}
    # read by hand: e.g. simulation 12 cancels EHGLP3 (task 0, Emma Kim), 23 asks to refund
    # insurance without cancelling (task 46, Sophia Silva)
    assert placed == {"12": "0", "16": "26", "23": "46", "30": "28", "36": "31", "43": "34"}
    assert ran[10] == "10"  # its recorded id fits, and is right


def _task(tid: str, actions: list[Any]) -> dict[str, Any]:
    return {
        "id": tid,
        "user_scenario": {"instructions": f"You are user_{tid}_0001."},
        "evaluation_criteria": {"actions": actions, "communicate_info": []},
    }


def _sim(tid: str, checked: list[Any] | None, said: str = "") -> dict[str, Any]:
    return {
        "task_id": tid,
        "trial": 0,
        "reward_info": {"action_checks": checked, "communicate_checks": None},
        "messages": [{"role": "user", "content": said}],
    }


def test_an_unplaceable_simulation_is_a_named_problem() -> None:
    act = {"name": "cancel", "arguments": {"id": "x"}}
    tasks = {"a": _task("a", []), "b": _task("b", []), "c": _task("c", [act])}
    # simulation 0 says task c but checked no action: a or b, and nothing tells which
    sims = [_sim("c", None), _sim("a", None)]
    sims[1]["trial"] = 1
    ran, _, problems = ran_tasks(tasks, sims)
    assert 0 not in ran and problems and problems[0].startswith("simulation 0 (task c)")
    # the conversation naming the brief's user id places it
    sims[0]["messages"][0]["content"] = "I am user_b_0001"
    ran, relabels, problems = ran_tasks(tasks, sims)
    assert not problems and ran[0] == "b" and relabels[0].recorded == "c"


def test_checks_of_no_task_are_a_problem_and_no_checks_trust_the_record() -> None:
    tasks = {"a": _task("a", [])}
    odd = [{"action": {"name": "nothing"}}]
    _, _, problems = ran_tasks(tasks, [_sim("a", odd)])
    assert problems and "no task of the document has" in problems[0]
    ran, relabels, problems = ran_tasks(tasks, [{"task_id": "a", "trial": 0, "messages": []}])
    assert ran == {0: "a"} and not relabels and not problems
