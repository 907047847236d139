"""τ-bench trajectory files as a suite, traces and external verdicts (pure: no store).

τ-bench (github.com/sierra-research/tau-bench) publishes a run as one JSON list, an entry per
(task, trial): ``task_id``, ``trial``, ``reward`` (its own verdict), ``info.task`` (the simulated
user's brief ``instruction``, the ground-truth ``actions`` ``[{name, kwargs}]`` and the
``outputs`` the agent must tell the user) and ``traj``, the whole conversation in OpenAI chat
format. Each task becomes a case, each entry a trace of repetition ``trial``:

- the case: the brief as the instruction, the actions as golden calls (unordered: τ-bench
  compares the final database, not the order), the outputs as required outputs, the registry's
  read-only tools as the whitelist; a task whose ground truth has no action is a negative case
  (any state-changing call is wrong, reads are tolerated), as τ-bench rewards it;
- the trace: one round per assistant message (its text and calls, each call's result from the
  tool message answering it), every user message as a user turn in its place, the last
  assistant text as the final text. The system message (the domain policy) is the run's system
  prompt;
- the reward as an external verdict of source ``tau-bench``, with τ-bench's ``reward_info``.

The parse is all or nothing: every problem of the file is collected (another layout, a task
without actions, a call to a tool the registry lacks, arguments that are not JSON, a repeated
trial) and raised together, one line each, before anything is returned.

τ²-bench's results (one document of ``info``, ``tasks``, ``simulations``) are first turned into
the same entries (:mod:`._tau2_read`: the task's brief, its agent-side actions with their compared
arguments, ``communicate_info`` as required outputs, ``nl_assertions`` as the case's NL
assertions), then checked and built the same way; their rewards are verdicts of source
``tau2-bench``, whose ``reward_info`` carries τ²'s model judge's verdict on each NL assertion
(:attr:`rejudge.model.ExternalVerdict.assertions`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rejudge.errors import InvalidInputError
from rejudge.importers._shipped import shipped_data
from rejudge.importers._tau2_read import TAU2_SOURCE, is_tau2_results, tau2_entries, tau2_tasks
from rejudge.importers._tau2_suite import Tau2Plan, tau2_plan
from rejudge.importers._tau_tools import inferred_registry, tau_registry
from rejudge.model import (
    Case,
    Golden,
    GoldenCall,
    Round,
    ToolCall,
    ToolRegistry,
    Trace,
    UserTurn,
    content_hash,
)
from rejudge.registry import REGISTRY

__all__ = [
    "TAU_SOURCE",
    "TauImport",
    "TauVerdict",
    "parse_tau_bench",
    "read_tau",
    "tau_flavor",
    "case_id_of",
    "load_json",
    "SHIPPED_TAU_BENCH",
    "hit_step_limit",
    "with_world",
]

TAU_SOURCE = "tau-bench"
# 2: an episode that hit the step limit is stored as ``step_limit``, not ``completed``
NORMALIZER_VERSION = "tau-bench/2"

_MAX_PROBLEMS = 20

# arguments of free text that τ-bench's reward never reads (it compares the database, which a
# transfer does not change): any value the agent writes is right
_FREE_TEXT: dict[str, tuple[str, ...]] = {"transfer_to_human_agents": ("summary",)}

#: the τ-bench run shipped as package data (GPT-4o on airline; origin in its README)
SHIPPED_TAU_BENCH = shipped_data("tau-bench-airline")


@dataclass(frozen=True)
class TauVerdict:
    case_id: str
    repetition: int
    value: float
    detail: dict[str, Any]


@dataclass(frozen=True)
class TauImport:
    """A parsed τ-bench file: the suite (registry, cases), the traces and τ-bench's rewards."""

    registry: ToolRegistry
    registry_inferred: bool
    cases: list[Case]
    traces: list[Trace]
    verdicts: list[TauVerdict]
    system_prompt: str | None
    trials: int
    file_hash: str
    # whose verdicts the rewards are (``tau-bench`` or ``tau2-bench``) and the agent's model
    # when the file names it (τ²-bench's info.agent_info.llm)
    source_name: str = TAU_SOURCE
    model: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


def case_id_of(task_id: Any) -> str:
    return f"task-{int(task_id):03d}" if isinstance(task_id, int) else f"task-{task_id}"


def _layout_problem(data: Any, source: str) -> str | None:
    expected = (
        "a JSON list of τ-bench entries {task_id, trial, reward, info: {task}, traj}, or a "
        "τ²-bench results document {info, tasks, simulations}"
    )
    if not isinstance(data, list) or not data:
        return f"{source} is not a τ-bench trajectory file: expected {expected}"
    for i, entry in enumerate(data):
        if not isinstance(entry, dict):
            return f"{source} entry {i} is not an object: expected {expected}"
        missing = [k for k in ("task_id", "trial", "reward", "info", "traj") if k not in entry]
        task = entry.get("info", {}).get("task") if isinstance(entry.get("info"), dict) else None
        if missing or not isinstance(task, dict) or not isinstance(entry.get("traj"), list):
            what = f"lacks {', '.join(missing)}" if missing else "has no info.task or traj list"
            return f"{source} entry {i} {what}: expected {expected}"
    return None


def _case(task_id: Any, task: dict[str, Any], registry: ToolRegistry) -> Case:
    actions = task["actions"]
    calls = [
        GoldenCall(
            tool=a["name"],
            params=dict(a.get("kwargs") or {}),
            param_rules={
                k: "any" for k in _FREE_TEXT.get(a["name"], ()) if k in (a.get("kwargs") or {})
            },
        )
        for a in actions
    ]
    reads = sorted(s.name for s in registry.tools if s.read_only)
    context = {k: task[k] for k in ("user_id",) if task.get(k) is not None}
    return Case(
        id=case_id_of(task_id),
        dimension="multi-turn",
        category="negative" if not calls else "actions",
        instruction=str(task["instruction"]),
        context=context,
        golden=Golden(calls=calls, order_sensitive=False, allowed_extra=reads),
        negative=not calls,
        required_outputs=[str(o) for o in task.get("outputs") or []],
        nl_assertions=[str(a) for a in task.get("nl_assertions") or []],
        metadata={
            "tau_task_id": task_id,
            # τ²'s reward basis where it is not the default (judge/tiers/_reward.py reads it)
            **{k: task[k] for k in ("reward_basis", "compare_args") if k in task},
        },
    )


def _trace(
    entry: dict[str, Any], case_id: str, registry: ToolRegistry, where: str, problems: list[str]
) -> Trace:
    known = set(registry.tool_names())
    rounds: list[Round] = []
    turns: list[UserTurn] = []
    # (round index, position in round) of each call id, so a tool message finds its call
    pending: dict[str, tuple[int, int]] = {}
    calls_by_round: list[list[dict[str, Any]]] = []
    texts: list[str | None] = []
    rejected: set[str] = set()  # calls already reported: their results are not a second problem
    for m_index, msg in enumerate(entry["traj"]):
        role = msg.get("role") if isinstance(msg, dict) else None
        if role == "system":
            continue
        if role == "user":
            turns.append(
                UserTurn(
                    before_round=len(texts), position=len(turns), text=str(msg.get("content") or "")
                )
            )
        elif role == "assistant":
            calls: list[dict[str, Any]] = []
            for call in msg.get("tool_calls") or []:
                fn = call.get("function") or {}
                name, raw = fn.get("name"), fn.get("arguments")
                if name not in known:
                    rejected.add(str(call.get("id")))
                    problems.append(
                        f"{where} message {m_index}: a call to {name!r}, which the tool registry lacks"
                    )
                    continue
                try:
                    args = json.loads(raw) if isinstance(raw, str) else raw
                except ValueError:
                    args = None
                if not isinstance(args, dict):
                    rejected.add(str(call.get("id")))
                    problems.append(
                        f"{where} message {m_index}: the arguments of {name!r} are not a JSON object ({str(raw)[:60]!r})"
                    )
                    continue
                pending[str(call.get("id"))] = (len(texts), len(calls))
                calls.append(
                    {
                        "id": call.get("id"),
                        "name": name,
                        "arguments": args,
                        "raw": raw if isinstance(raw, str) else json.dumps(raw),
                    }
                )
            calls_by_round.append(calls)
            texts.append(msg.get("content") or None)
        elif role == "tool":
            slot = pending.pop(str(msg.get("tool_call_id")), None)
            if slot is None and str(msg.get("tool_call_id")) in rejected:
                continue
            if slot is None:
                problems.append(
                    f"{where} message {m_index}: a tool result for no pending call ({msg.get('tool_call_id')!r})"
                )
                continue
            answered = calls_by_round[slot[0]][slot[1]]
            answered["result"] = msg.get("content")
            answered["error"] = bool(msg.get("error"))  # τ²-bench says so; τ-bench's text does
        else:
            problems.append(f"{where} message {m_index}: unknown role {role!r}")
    for r_index, calls in enumerate(calls_by_round):
        tool_calls = []
        for c in calls:
            result = c.get("result")
            failed = bool(c.get("error")) or (
                isinstance(result, str) and result.startswith("Error")
            )
            tool_calls.append(
                ToolCall(
                    id=c["id"],
                    name=c["name"],
                    arguments=c["arguments"],
                    arguments_raw=c["raw"],
                    result=result,
                    ok=None if "result" not in c else not failed,
                    error=result if failed else None,
                )
            )
        rounds.append(
            Round(
                index=r_index,
                calls=tool_calls,
                text=texts[r_index],
                finish_reason="tool_calls" if tool_calls else "stop",
            )
        )
    final = next((r.text for r in reversed(rounds) if not r.calls and r.text), None)
    return Trace(
        case_id=case_id,
        repetition=int(entry["trial"]),
        status="step_limit" if hit_step_limit(entry) else "completed",
        rounds=rounds,
        final_text=final,
        user_turns=turns,
        normalizer_version=NORMALIZER_VERSION,
    )


def hit_step_limit(entry: dict[str, Any]) -> bool:
    """Whether an episode ended at the harness's step limit, not by the user or a transfer.

    τ-bench computes a reward only for an episode that ended (the user's ``###STOP###`` or a
    tool that ends the conversation); at its step limit the loop stops with reward 0 and no
    ``reward_info`` (the 5 such episodes of GPT-4o's airline run all have 30 agent steps).
    τ²-bench says so in ``termination_reason``."""
    info = entry.get("info") or {}
    if "termination_reason" in info:
        return info.get("termination_reason") == "max_steps"
    return "reward_info" in info and info["reward_info"] is None


def tau_flavor(data: Any) -> str | None:
    """Whose file a loaded JSON value is: ``tau2-bench`` (a τ²-bench results document, with
    ``tasks`` and ``simulations``), ``tau-bench`` (a list whose first entry has ``task_id``,
    ``reward`` and ``traj``), else None. The one place the two formats are told apart:
    ``rejudge import``'s detector asks it of the sniffed file, :func:`read_tau` of the loaded
    one (which parses anything but a τ² document as τ-bench entries, naming what is wrong)."""
    if is_tau2_results(data):
        return TAU2_SOURCE
    first = data[0] if isinstance(data, list) and data else None
    if isinstance(first, dict) and {"task_id", "reward", "traj"} <= set(first):
        return TAU_SOURCE
    return None


def read_tau(
    data: Any,
    *,
    source: str = "file",
    tools: Any | None = None,
    tools_source: str = "tools",
    domain_tools: bool = True,
) -> tuple[Tau2Plan | None, TauImport]:
    """A loaded τ-bench trajectory file or τ²-bench results document, read as the import reads
    it: its τ² plan (None for a τ-bench file) and the parse, the format told by
    :func:`tau_flavor`. ``source``: the file's name (a τ² run is named from its stem);
    ``tools``: the loaded OpenAI function schemas, else a τ² document of a domain whose world
    ships here takes its domain's fixed tools (``domain_tools``) and any other file has its
    registry inferred from its calls (marked inferred)."""
    if tau_flavor(data) != TAU2_SOURCE:
        return None, _parse(data, False, source, tools, tools_source)
    plan = tau2_plan(data, Path(source).stem)
    if tools is None and domain_tools:
        tools = plan.tools
    return plan, _parse(data, True, source, tools, tools_source)


def parse_tau_bench(
    data: Any, *, source: str = "file", tools: Any | None = None, tools_source: str = "tools"
) -> TauImport:
    """Parse a loaded τ-bench trajectory file (``json.load`` of it) or τ²-bench document.
    ``tools``: the loaded OpenAI function schemas; None infers the registry from the calls
    (marked inferred), a τ² document's too (:func:`read_tau` gives it its domain's)."""
    _plan, parsed = read_tau(
        data, source=source, tools=tools, tools_source=tools_source, domain_tools=False
    )
    return parsed


def _parse(data: Any, tau2: bool, source: str, tools: Any | None, tools_source: str) -> TauImport:
    problems: list[str] = []
    source_name, model = TAU_SOURCE, None
    every_task: dict[Any, dict[str, Any]] = {}  # τ²: each task of the document is a case
    if tau2:
        raw = data
        every_task = tau2_tasks(raw, source, [])
        data, problems = tau2_entries(raw, source)
        source_name = TAU2_SOURCE
        agent = (raw.get("info") or {}).get("agent_info") or {}
        model = agent.get("llm") if isinstance(agent.get("llm"), str) else None
        if not data:
            raise InvalidInputError(
                f"{source}: nothing imported: " + "; ".join(problems[:_MAX_PROBLEMS]), file=source
            )
    else:
        problem = _layout_problem(data, source)
        if problem is not None:
            raise InvalidInputError(problem, file=source)
    registry = (
        tau_registry(tools, source=tools_source) if tools is not None else inferred_registry(data)
    )
    if source_name == TAU_SOURCE:
        registry = with_world(registry)
    tasks: dict[Any, dict[str, Any]] = dict(every_task)
    seen_trials: set[tuple[Any, int]] = set()
    traces: list[Trace] = []
    verdicts: list[TauVerdict] = []
    systems: set[str] = set()
    known = set(registry.tool_names())
    for i, entry in enumerate(data):
        task_id, trial, task = entry["task_id"], entry["trial"], entry["info"]["task"]
        where = f"entry {i} (task {task_id}, trial {trial})"
        if not isinstance(trial, int) or isinstance(trial, bool):
            problems.append(f"{where}: the trial is not an integer")
            continue
        if (task_id, trial) in seen_trials:
            problems.append(f"{where}: trial {trial} of task {task_id} appears twice")
            continue
        seen_trials.add((task_id, trial))
        if not isinstance(task.get("actions"), list):
            problems.append(f"{where}: the task has no actions list (its ground truth)")
            continue
        if not isinstance(task.get("instruction"), str):
            problems.append(f"{where}: the task has no instruction")
            continue
        for a in task["actions"]:
            if not isinstance(a, dict) or a.get("name") not in known:
                name = a.get("name") if isinstance(a, dict) else a
                problems.append(
                    f"{where}: a ground-truth action {name!r} names no tool of the registry"
                )
        first = tasks.setdefault(task_id, task)
        if first is not task and {
            k: first.get(k) for k in ("instruction", "actions", "outputs")
        } != {k: task.get(k) for k in ("instruction", "actions", "outputs")}:
            problems.append(f"{where}: the task differs from its earlier trials")
        reward = entry["reward"]
        if isinstance(reward, bool) or not isinstance(reward, int | float) or not 0 <= reward <= 1:
            problems.append(f"{where}: the reward {reward!r} is not a number from 0 to 1")
            continue
        for msg in entry["traj"]:
            if isinstance(msg, dict) and msg.get("role") == "system":
                systems.add(str(msg.get("content") or ""))
        traces.append(_trace(entry, case_id_of(task_id), registry, where, problems))
        verdicts.append(
            TauVerdict(
                case_id_of(task_id),
                int(trial),
                float(reward),
                {
                    "task_id": task_id,
                    "trial": trial,
                    "reward_info": entry["info"].get("reward_info"),
                },
            )
        )
    if problems:
        shown = problems[:_MAX_PROBLEMS]
        more = len(problems) - len(shown)
        # one clause per problem: the CLI prints a library error as one line
        raise InvalidInputError(
            f"{source}: {len(problems)} problem(s), nothing imported: "
            + "; ".join(shown)
            + (f"; ... and {more} more" if more else ""),
            file=source,
        )
    cases = [_case(tid, task, registry) for tid, task in tasks.items()]
    cases.sort(key=lambda c: (len(c.id), c.id))
    traces.sort(key=lambda t: (len(t.case_id), t.case_id, t.repetition))
    trials = max((sum(1 for t in traces if t.case_id == c.id) for c in cases), default=0)
    return TauImport(
        registry=registry,
        registry_inferred=tools is None,
        cases=cases,
        traces=traces,
        verdicts=verdicts,
        system_prompt=next(iter(systems)) if len(systems) == 1 else None,
        trials=trials,
        file_hash=content_hash(data),
        source_name=source_name,
        model=model,
    )


def with_world(registry: ToolRegistry) -> ToolRegistry:
    """The registry with the world its tools act on, when a registered world has exactly
    these tools (τ-bench's airline world for τ-bench's airline files): the ``state`` tier then
    judges the runs by what their calls did. A file from another world keeps no world, and
    evidence from other data is flagged by the state tier (its results would differ)."""
    names = set(registry.tool_names())
    for world_name in REGISTRY.names("world", load=False):
        if not world_name.startswith("tau-bench-"):
            continue  # only τ-bench's own worlds are candidates: no other world is loaded
        world = REGISTRY.get("world", world_name)
        if set(world.tool_names()) == names:
            return registry.model_copy(
                update={"world": world.ref, "terminal_tools": sorted(world.terminal_tools)}
            )
    return registry


def load_json(path: Path, what: str) -> Any:
    """A JSON file, or one clear error naming it."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InvalidInputError(f"{what} {path} does not exist", file=str(path)) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise InvalidInputError(f"{what} {path} is not JSON ({first})", file=str(path)) from None
