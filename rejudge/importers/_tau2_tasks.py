"""Which task a τ²-bench simulation ran (pure).

A simulation names its task by ``task_id``. In two of the six shared leaderboard submissions
(ToolOrchestra's airline and retail files) that name is wrong: simulation *i* says task *i*,
but its conversation and its own ``reward_info`` are another task's: the actions τ² checked
(``reward_info.action_checks``) are that other task's ``evaluation_criteria.actions``, and
re-judging against the named task reproduces τ²'s database check on 17 of 114 retail
simulations, against the checked task on 114. So the task is established from the evidence the
simulation carries, in this order:

1. the recorded ``task_id``, when the checked actions and communicate items fit it (every
   simulation of a consistent file), or when ``reward_info`` records no checks at all;
2. else the one task whose actions and ``communicate_info`` equal what was checked;
3. else (several tasks fit, as no-action tasks with nothing to communicate all do) the one whose
   brief's identifiers (user ids, order ids, reservation codes, zip codes) the conversation
   mentions most, among the tasks no other simulation of that trial ran;
4. else the file is refused for that simulation, by name.

The result says which simulations were re-keyed, so an import can say so.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["Relabel", "ran_tasks"]

# identifiers a τ² brief gives that a conversation about it repeats: user ids (emma_kim_9957),
# order ids (#W2378156), six-character reservation codes with a digit (EHGLP3), zip codes
_IDENTIFIERS = re.compile(
    r"\b[a-z]+_[a-z]+_\d{3,5}\b|#?W\d{7}\b|\b(?=[A-Z0-9]*\d)[A-Z0-9]{6}\b|\b\d{5}\b"
)


@dataclass(frozen=True, slots=True)
class Relabel:
    """A simulation whose recorded ``task_id`` is not the task it ran."""

    # a dataclass, not a NamedTuple: a field named ``index`` would shadow tuple.index

    index: int
    recorded: str
    ran: str
    how: str


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _checked(sim: dict[str, Any]) -> tuple[str, str] | None:
    """What τ² checked for this simulation: (actions, communicate items), or None when its
    ``reward_info`` records no checks. τ² writes null for a task without actions (or without
    items to communicate), so null reads as the empty list."""
    info = sim.get("reward_info")
    if not isinstance(info, dict) or "action_checks" not in info:
        return None
    checks = info.get("action_checks") or []
    comm = info.get("communicate_checks") or []
    if not isinstance(checks, list) or not isinstance(comm, list):
        return None
    actions = [c.get("action") for c in checks if isinstance(c, dict)]
    infos = [c.get("info") for c in comm if isinstance(c, dict)]
    return _key(actions), _key(infos)


def _fits(task: dict[str, Any], checked: tuple[str, str]) -> bool:
    criteria = task.get("evaluation_criteria") or {}
    return (
        _key(criteria.get("actions") or []) == checked[0]
        and _key(criteria.get("communicate_info") or []) == checked[1]
    )


def _mentions(task: dict[str, Any], sim: dict[str, Any]) -> int:
    brief = _key(task.get("user_scenario"))
    said = " ".join(
        str(m.get("content") or "") + _key(m.get("tool_calls"))
        for m in sim.get("messages") or []
        if isinstance(m, dict)
    )
    return sum(1 for ident in set(_IDENTIFIERS.findall(brief)) if ident in said)


def _by_evidence(
    tasks: dict[str, dict[str, Any]],
    sims: list[Any],
    ran: dict[int, str],
    i: int,
    fitting: list[str],
    by_mentions: bool,
) -> tuple[str, str] | None:
    trial = sims[i].get("trial")
    in_trial = [
        j for j, sim in enumerate(sims) if isinstance(sim, dict) and sim.get("trial") == trial
    ]
    taken = {ran[j] for j in in_trial if j in ran}
    free = [tid for tid in fitting if tid not in taken]
    if by_mentions:
        scores = {tid: _mentions(tasks[tid], sims[i]) for tid in free}
        best = max(scores.values(), default=0)
        winners = [tid for tid, score in scores.items() if score == best]
        if best > 0 and len(winners) == 1:
            return winners[0], "the identifiers its conversation names"
        return None
    # elimination holds only when the trial runs every task once
    if len(free) == 1 and len(in_trial) == len(tasks):
        return free[0], "elimination (the trial runs every task once)"
    return None


def ran_tasks(
    tasks: dict[str, dict[str, Any]], sims: list[Any]
) -> tuple[dict[int, str], list[Relabel], list[str]]:
    """``{simulation index: task id it ran}``, the simulations re-keyed, and problems (a
    simulation whose task cannot be established, named)."""
    ran: dict[int, str] = {}
    relabels: list[Relabel] = []
    problems: list[str] = []
    undecided: list[tuple[int, list[str]]] = []
    for i, sim in enumerate(sims):
        if not isinstance(sim, dict):
            continue
        recorded = str(sim.get("task_id"))
        checked = _checked(sim)
        if checked is None or (recorded in tasks and _fits(tasks[recorded], checked)):
            ran[i] = recorded
            continue
        fitting = [tid for tid, task in tasks.items() if _fits(task, checked)]
        if len(fitting) == 1:
            ran[i] = fitting[0]
            relabels.append(Relabel(i, recorded, fitting[0], "its checked actions"))
        elif not fitting:
            problems.append(
                f"simulation {i} (task {recorded}): its reward_info checks actions no task of "
                "the document has"
            )
        else:
            undecided.append((i, fitting))
    # first the simulations whose conversation names their task, then the rest by elimination
    for by_mentions in (True, False):
        left = []
        for i, fitting in undecided:
            chosen = _by_evidence(tasks, sims, ran, i, fitting, by_mentions)
            if chosen is None:
                left.append((i, fitting))
                continue
            ran[i] = chosen[0]
            relabels.append(Relabel(i, str(sims[i].get("task_id")), *chosen))
        undecided = left
    for i, fitting in undecided:
        problems.append(
            f"simulation {i} (task {sims[i].get('task_id')}): its task_id does not fit what its "
            f"reward_info checked, and {len(fitting)} tasks do; neither its conversation nor "
            "elimination names one"
        )
    return ran, relabels, problems
