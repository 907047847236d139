"""τ²-bench results as τ-bench entries (pure), so one parser checks and builds both.

τ²-bench (github.com/sierra-research/tau2-bench) saves a text run as one JSON document, its
``Results`` model (src/tau2/data_model/simulation.py): ``info`` (agent, user simulator,
environment), ``tasks`` and ``simulations``. What this reads of it:

- a task (tasks.py): ``id``; ``user_scenario.instructions``, a string or the structured
  ``{domain, reason_for_call, known_info, unknown_info, task_instructions}``;
  ``evaluation_criteria.actions`` ``[{action_id, requestor, name, arguments, compare_args}]``
  (one reference trajectory; ``compare_args`` names the arguments that are checked, all when
  absent), ``communicate_info`` (strings the agent must say) and ``nl_assertions`` (statements
  τ²'s model judge checks of the conversation; each simulation's ``reward_info.nl_assertions``
  holds that judge's ``met`` and ``justification`` per statement, kept with the reward);
- a simulation: ``task_id``, ``trial``, ``reward_info.reward``, ``termination_reason`` and
  ``messages``: ``system``/``user``/``assistant`` messages whose ``tool_calls`` are
  ``[{id, name, arguments (an object), requestor}]``, and ``tool`` messages ``{id, content,
  requestor, error}`` answering the call of that id.

A simulation becomes an entry of the task it ran, which is not always the task its ``task_id``
names (:mod:`._tau2_tasks`: two of the shared leaderboard files are relabelled); the recorded id
is kept as ``info.recorded_task_id``.

Only the agent's side becomes evidence: actions and calls whose requestor is the user (the
telecom domain's user tools) are the simulated user's, not the agent's, and are left out.
The dir layout (``results.json`` next to a ``simulations/`` folder) and full-duplex (voice)
simulations, which carry ticks instead of messages, are refused by name.
"""

from __future__ import annotations

import json
from typing import Any

from rejudge.importers._shipped import shipped_data
from rejudge.importers._tau2_tasks import ran_tasks

# τ²'s reward types and its default basis (src/tau2/data_model/tasks.py) are the state tier's,
# which checks what a task's basis names
from rejudge.judge.tiers import DEFAULT_REWARD_BASIS, REWARD_PARTS

__all__ = ["SHIPPED_TAU2_BENCH", "TAU2_SOURCE", "is_tau2_results", "tau2_entries", "tau2_tasks"]

TAU2_SOURCE = "tau2-bench"

#: the six τ²-bench leaderboard runs shipped as package data (origin in their README)
SHIPPED_TAU2_BENCH = shipped_data("tau2-bench")


def is_tau2_results(data: Any) -> bool:
    return isinstance(data, dict) and "tasks" in data and "simulations" in data


def _instruction(scenario: Any) -> str | None:
    if not isinstance(scenario, dict):
        return None
    given = scenario.get("instructions")
    if isinstance(given, str):
        return given
    if not isinstance(given, dict) or not isinstance(given.get("task_instructions"), str):
        return None
    # the user simulator's whole brief, in the order τ²-bench gives its fields
    parts = [
        ("Reason for call", given.get("reason_for_call")),
        ("Known info", given.get("known_info")),
        ("Unknown info", given.get("unknown_info")),
        ("Task instructions", given.get("task_instructions")),
    ]
    return "\n".join(f"{label}: {text}" for label, text in parts if isinstance(text, str))


def _task(raw: Any, where: str, problems: list[str]) -> dict[str, Any] | None:
    instruction = _instruction(raw.get("user_scenario"))
    if instruction is None:
        problems.append(f"{where}: no user_scenario.instructions")
        return None
    criteria = raw.get("evaluation_criteria") or {}
    actions = criteria.get("actions") if isinstance(criteria, dict) else None
    if not isinstance(actions, list):
        problems.append(f"{where}: the task has no evaluation_criteria.actions list")
        return None
    golden = []
    compared: list[list[str] | None] = []
    for action in actions:
        if not isinstance(action, dict) or not isinstance(action.get("name"), str):
            problems.append(f"{where}: an action without a name")
            continue
        if action.get("requestor", "assistant") != "assistant":
            continue  # the simulated user's own tool, not the agent's
        args = action.get("arguments") or {}
        compare = action.get("compare_args")
        if isinstance(compare, list):
            args = {k: v for k, v in args.items() if k in compare}
        golden.append({"name": action["name"], "kwargs": args})
        compared.append([str(k) for k in compare] if isinstance(compare, list) else None)
    task: dict[str, Any] = {
        "instruction": instruction,
        "actions": golden,
        "outputs": [str(s) for s in criteria.get("communicate_info") or []],
        # what τ²'s model judge checks of the conversation; its verdicts stay in reward_info
        "nl_assertions": [str(s) for s in criteria.get("nl_assertions") or []],
    }
    basis = criteria.get("reward_basis")
    if basis is not None:
        if not isinstance(basis, list) or any(p not in REWARD_PARTS for p in basis):
            problems.append(
                f"{where}: reward_basis {basis!r} names a part τ² does not have "
                f"({', '.join(REWARD_PARTS)})"
            )
            return None
        if set(basis) != set(DEFAULT_REWARD_BASIS):
            # kept only when not τ²'s default, so every default task keeps its case hash; the
            # state tier checks what it names (the action check needs compare_args)
            task["reward_basis"] = [str(p) for p in basis]
            if "ACTION" in basis:
                task["compare_args"] = compared
    return task


def _traj(messages: list[Any]) -> list[dict[str, Any]]:
    """τ²-bench messages as the OpenAI chat messages τ-bench stores (the agent's side)."""
    out: list[dict[str, Any]] = []
    for msg in messages:
        if not isinstance(msg, dict):
            out.append({"role": None})
            continue
        role = msg.get("role")
        if role in ("system", "user"):
            if role == "user" and msg.get("tool_calls") and not msg.get("content"):
                continue  # the user only used its own tools
            out.append({"role": role, "content": msg.get("content")})
        elif role == "assistant":
            calls = [
                {
                    "id": c.get("id"),
                    "function": {
                        "name": c.get("name"),
                        "arguments": c.get("arguments")
                        if isinstance(c.get("arguments"), str)
                        else json.dumps(c.get("arguments")),
                    },
                }
                for c in msg.get("tool_calls") or []
                if isinstance(c, dict) and c.get("requestor", "assistant") == "assistant"
            ]
            out.append({"role": "assistant", "content": msg.get("content"), "tool_calls": calls})
        elif role == "tool":
            if msg.get("requestor", "assistant") != "assistant":
                continue
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": msg.get("id"),
                    "content": msg.get("content"),
                    "error": bool(msg.get("error")),
                }
            )
        else:
            out.append({"role": role})
    return out


def tau2_tasks(data: dict[str, Any], source: str, problems: list[str]) -> dict[str, dict[str, Any]]:
    """Every task of the document as a τ-bench task (brief, agent-side actions, outputs), in the
    document's order: each becomes a case, whether a simulation ran it or not (so two files of
    one domain give one suite even when one ran fewer tasks)."""
    tasks: dict[str, dict[str, Any]] = {}
    for i, raw in enumerate(data.get("tasks") or []):
        if not isinstance(raw, dict) or "id" not in raw:
            problems.append(f"{source} task {i}: not a τ²-bench task (no id)")
            continue
        task = _task(raw, f"task {raw['id']}", problems)
        if task is not None:
            tasks[str(raw["id"])] = task
    return tasks


def tau2_entries(data: dict[str, Any], source: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The τ-bench entries of a τ²-bench results document, and the problems found on the way
    (each names the simulation or task). An entry's ``task_id`` is the task the simulation ran
    (:func:`~._tau2_tasks.ran_tasks`); where the document named another, ``info`` keeps that
    as ``recorded_task_id``."""
    problems: list[str] = []
    tasks = tau2_tasks(data, source, problems)
    entries: list[dict[str, Any]] = []
    sims = data.get("simulations")
    if not isinstance(sims, list) or not sims:
        problems.append(f"{source} holds no simulation")
        return entries, problems
    raw_tasks = {str(t["id"]): t for t in data["tasks"] if isinstance(t, dict) and "id" in t}
    ran, _, unplaced = ran_tasks(raw_tasks, sims)
    problems.extend(unplaced)
    for i, sim in enumerate(sims):
        where = f"simulation {i}"
        if not isinstance(sim, dict):
            problems.append(f"{where}: not an object")
            continue
        recorded, trial = sim.get("task_id"), sim.get("trial")
        where = f"simulation {i} (task {recorded}, trial {trial})"
        if not isinstance(sim.get("messages"), list):
            what = "ticks (a full-duplex voice run)" if sim.get("ticks") else "no messages"
            problems.append(f"{where}: {what}; only text simulations are supported")
            continue
        if i not in ran:
            continue  # its task could not be established: already a problem
        task_id = ran[i]
        task = tasks.get(task_id)
        if task is None:
            if task_id not in raw_tasks:
                problems.append(f"{where}: its task is not in the document's tasks")
            continue
        reward = (sim.get("reward_info") or {}).get("reward")
        info: dict[str, Any] = {
            "task": task,
            "reward_info": sim.get("reward_info"),
            "termination_reason": sim.get("termination_reason"),
        }
        if task_id != str(recorded):
            info["recorded_task_id"] = recorded
        entries.append(
            {
                "task_id": task_id,
                "trial": trial,
                "reward": reward,
                "info": info,
                "traj": _traj(sim["messages"]),
            }
        )
    return entries, problems
