"""One suite per τ²-bench domain: what a τ² results document imports as (pure: no store).

τ²'s leaderboard publishes one results document per (submission, domain); the shared airline
files hold the very same 50 tasks (identical ``tasks`` arrays) under three τ² code commits
(8d005b0, c5b2d228, ade3949, one unrecorded). What identifies the suite is therefore the domain
and its tasks, not the code commit: every document of a domain imports into the suite
``tau2-<domain>``, its cases keyed by task id, so runs of different models on it pair case by
case (``compare``). For that the suite must hash the same from every file, so its registry is
fixed per domain rather than inferred from one file's calls:

- ``retail``: the tools of the ``tau2-retail`` world (:mod:`rejudge.suites.worlds.tau2_retail`),
  with the world's reference (name, version, data hash) and its terminal tool;
- ``airline``: τ-bench's airline schemas (the shipped ``tools.json``) without ``think``, which
  τ²'s airline runs never call, plus ``get_flight_status``, τ²'s addition, whose schema is derived
  from its 356 recorded calls; the other 1,820 calls of the five shared airline files (and the
  148 actions of the 50 tasks) use τ-bench's 13 tools with its argument names; with the
  ``tau2-airline`` world's reference (:mod:`rejudge.suites.worlds.tau2_airline`, τ²'s airline
  database at 8d005b0) and its terminal tool;
- another domain: inferred from the file's calls, as before (marked so).

A document whose task differs, under the same id, from the suite already stored is refused
(:func:`task_conflicts`), not stored as a new suite version: ``compare`` joins runs by case id,
and a second version whose "task 7" is another task would pair different tasks under one name.
Such a file (a later τ² release revising its tasks) is imported under another suite name.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from rejudge.importers._shipped import shipped_data
from rejudge.importers._tau2_tasks import Relabel, ran_tasks
from rejudge.model import Case, ToolRegistry

__all__ = ["TAU2_WORLDS", "Tau2Plan", "tau2_plan", "tau2_registry", "task_conflicts"]

_FLIGHT_STATUS = {
    "type": "function",
    "function": {
        "name": "get_flight_status",
        "description": "The status of a flight on a date (derived from τ²'s recorded calls).",
        "parameters": {
            "type": "object",
            "properties": {
                "flight_number": {"type": "string", "description": "Such as 'HAT001'."},
                "date": {"type": "string", "description": "In the format 'YYYY-MM-DD'."},
            },
            "required": ["flight_number", "date"],
        },
    },
}


@dataclass(frozen=True)
class Tau2Plan:
    """What a τ² document imports as: its domain and suite, the tools to parse it with, the
    run's default name, and the simulations whose recorded task id was not the task run."""

    domain: str
    suite_name: str
    tools: list[dict[str, Any]] | None
    run_name: str
    model: str | None
    git_commit: str | None
    relabels: list[Relabel]


def _domain(data: dict[str, Any]) -> str:
    env = (data.get("info") or {}).get("environment_info") or {}
    name = env.get("domain_name") if isinstance(env, dict) else None
    return name if isinstance(name, str) and name else "unknown"


def _tools(domain: str) -> list[dict[str, Any]] | None:
    if domain == "retail":
        from rejudge.suites.worlds.tau2_retail import TOOL_SCHEMAS

        return list(TOOL_SCHEMAS)
    if domain == "airline":
        tau = json.loads(
            shipped_data("tau-bench-airline", "tools.json").read_text(encoding="utf-8")
        )
        return [t for t in tau if t["function"]["name"] != "think"] + [_FLIGHT_STATUS]
    return None


def _run_name(stem: str, domain: str, model: str | None) -> str:
    """``<submission>/<model>``: the file stem's words other than the domain and the model
    name the submission (``ironshell_airline_gpt-5.4`` -> ``ironshell/gpt-5.4``)."""
    words = [w for w in re.split(r"[_\s]+", stem) if w]
    short = (model or "").lower()
    submission = [
        w for w in words if w.lower() != domain and not (short and short.startswith(w.lower()))
    ]
    who = model or stem
    return f"tau2-{domain}/" + ("_".join(submission) + "/" if submission else "") + who


def tau2_plan(data: dict[str, Any], stem: str) -> Tau2Plan:
    domain = _domain(data)
    info = data.get("info") or {}
    agent = info.get("agent_info") or {}
    model = agent.get("llm") if isinstance(agent.get("llm"), str) else None
    tasks = {str(t["id"]): t for t in data.get("tasks") or [] if isinstance(t, dict) and "id" in t}
    simulations = data.get("simulations")
    sims = simulations if isinstance(simulations, list) else []
    _, relabels, _ = ran_tasks(tasks, sims)
    commit = info.get("git_commit")
    return Tau2Plan(
        domain=domain,
        suite_name=f"tau2-{domain}",
        tools=_tools(domain),
        run_name=_run_name(stem, domain, model),
        model=model,
        git_commit=commit if isinstance(commit, str) and commit != "unknown" else None,
        relabels=relabels,
    )


#: τ²'s domains whose world ships here: domain -> the world's registry name
TAU2_WORLDS = {"airline": "tau2-airline", "retail": "tau2-retail"}


def tau2_registry(registry: ToolRegistry, domain: str) -> ToolRegistry:
    """The parsed registry with the domain's world and terminal tools attached."""
    name = TAU2_WORLDS.get(domain)
    if name is None:
        return registry
    from rejudge.registry import REGISTRY

    world = REGISTRY.get("world", name)
    return registry.model_copy(
        update={
            "version": name,
            "world": world.ref,
            "terminal_tools": sorted(world.terminal_tools),
        }
    )


def task_conflicts(stored: dict[str, Case], cases: list[Case]) -> list[str]:
    """The case ids whose task differs from the stored suite's case of that id (brief, golden
    calls, required outputs; a task only one side has is no conflict)."""

    def what(case: Case) -> Any:
        return [case.instruction, case.golden.model_dump(mode="json"), case.required_outputs]

    return [c.id for c in cases if c.id in stored and what(stored[c.id]) != what(c)]
