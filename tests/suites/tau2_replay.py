"""τ²'s reward recomputed from a results document, shared by the τ² world tests: which calls the
agent made, τ²'s database check (the agent's calls and the task's ground truth, each on a fresh
state of the world, compared whole) and its communicate check."""

from __future__ import annotations

from typing import Any

from rejudge.model import StateDifference, World, diff_states


def agent_calls(sim: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(call, its tool message) of every agent call, in order."""
    results = {m["id"]: m for m in sim["messages"] if m["role"] == "tool"}
    return [
        (call, results[call["id"]])
        for m in sim["messages"]
        if m["role"] == "assistant"
        for call in m.get("tool_calls") or []
        if call.get("requestor", "assistant") == "assistant"
    ]


def db_match(
    world: World, sim: dict[str, Any], task: dict[str, Any]
) -> tuple[bool, list[StateDifference]]:
    """τ²'s database check: the agent's final state against the agent-side ground truth's."""
    agent = world.new_state()
    for call, _ in agent_calls(sim):
        world.execute(agent, call["name"], call["arguments"])
    gold = world.new_state()
    for action in task["evaluation_criteria"]["actions"] or []:
        if action["requestor"] == "assistant":
            world.execute(gold, action["name"], action["arguments"])
    return agent.state_hash() == gold.state_hash(), diff_states(gold, agent)


def communicated(sim: dict[str, Any], task: dict[str, Any]) -> list[bool]:
    """Each ``communicate_info`` item found in some assistant text, lowercased, commas removed."""
    texts = [
        m["content"].lower().replace(",", "")
        for m in sim["messages"]
        if m["role"] == "assistant" and m.get("content")
    ]
    infos = task["evaluation_criteria"]["communicate_info"] or []
    return [any(info.lower() in text for text in texts) for info in infos]
