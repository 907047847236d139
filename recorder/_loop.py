"""The agent loop (the harness): instruction + tools in, rounds of executed calls out.

One call of :func:`run_case` drives one trace: it sends the instruction and tool schemas, executes
each returned call in the trace's own sandbox (or on a tool server: an MCP executor's
``call_tool``, whose JSON-RPC exchanges land in the same tape), sends the results back and repeats until the model
answers without calling or the round budget runs out. Every failure becomes a structured
``TraceError`` on the outcome; nothing here raises for a misbehaving model or provider (a replay
miss is the one exception: it means the harness changed, which replay must report).

The loop does not know whether it is recording or replaying: the httpx client it is handed either
goes to the network through a recording tape or serves a cassette.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from rejudge.recorder._http import ProviderCallError, RateLimiter, RetryPolicy, send_with_retries
from rejudge.recorder._mcp import ToolServerError
from rejudge.recorder._tape import TAPE_EXTENSION, Tape
from rejudge.recorder.providers import (
    AssistantMessage,
    Conversation,
    Provider,
    RequestOptions,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from rejudge.recorder.wire import AssistantTurn
from rejudge.suites import Sandbox, ToolResult

from rejudge.model import Case, Round, RunConfig, ToolCall, ToolRegistry, ToolSpec, TraceError

__all__ = [
    "PRODUCTION_PARITY_BUDGET",
    "ORACLE_EXTRA_ROUNDS",
    "LoopOutcome",
    "round_budget",
    "select_tools",
    "run_case",
    "result_text",
    "restatement",
]

PRODUCTION_PARITY_BUDGET = 10
ORACLE_EXTRA_ROUNDS = 4
Sleep = Callable[[float], Awaitable[None]]


@dataclass
class LoopOutcome:
    """What the loop saw: rounds with executed calls, how it ended, and why if it failed."""

    rounds: list[Round] = field(default_factory=list)
    final_text: str | None = None
    error: TraceError | None = None
    selected_tools: list[str] | None = None
    usage: dict[str, int] = field(default_factory=dict)
    round_budget: int = PRODUCTION_PARITY_BUDGET
    nudges: int = 0
    elapsed_s: float = 0.0

    @property
    def status(self) -> str:
        return "agent_error" if self.error is not None else "completed"


def round_budget(config: RunConfig, case: Case) -> int:
    if config.harness_mode == "oracle-assisted":
        return case.expected_steps + ORACLE_EXTRA_ROUNDS
    budget = config.harness_assistance.round_budget
    return budget if isinstance(budget, int) and budget > 0 else PRODUCTION_PARITY_BUDGET


# --------------------------------------------------------------------------- retrieval

_WORD = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_STOP = frozenset(
    "a an and are as at be by for from get i in is it me my of on or please the this to with "
    "you your".split()
)


def _tokens(text: str) -> set[str]:
    words = _WORD.findall(_CAMEL.sub(" ", text))
    out = set()
    for word in words:
        w = word.lower()
        if w in _STOP:
            continue
        out.add(w)
        if len(w) > 3 and w.endswith("s"):
            out.add(w[:-1])
    return out


def case_tools(registry: ToolRegistry, case: Case) -> ToolRegistry:
    """The tools this case offers the model.

    Generated and imported suites (FuncBenchGen, BFCL) hold the union of every case's functions
    in one registry; a case names its own in ``metadata["tools"]``, or carries its own schemas
    in ``metadata["tool_specs"]`` (BFCL reuses a name with different schemas across cases).
    """
    specs = case.metadata.get("tool_specs")
    if isinstance(specs, list) and specs:
        own = [ToolSpec.model_validate(spec) for spec in specs]
        return registry.model_copy(update={"tools": own})
    names = case.metadata.get("tools")
    if isinstance(names, list) and names:
        wanted = {str(name) for name in names}
        return registry.model_copy(
            update={"tools": [spec for spec in registry.tools if spec.name in wanted]}
        )
    return registry


def select_tools(registry: ToolRegistry, instruction: str, k: int) -> list[str]:
    """The ``k`` tools whose name, description and parameters share most words with the task.

    Name words count double. Ties keep registry order, so the choice is deterministic.
    """
    wanted = _tokens(instruction)
    scored = []
    for position, spec in enumerate(registry.tools):
        name_words = _tokens(spec.name.replace("_", " "))
        props = spec.parameters.get("properties") or {}
        other = _tokens(spec.description) | _tokens(
            " ".join(str(p) for p in props).replace("_", " ")
        )
        score = 2 * len(wanted & name_words) + len(wanted & other)
        scored.append((-score, position, spec.name))
    scored.sort()
    return [name for _, _, name in scored[: max(0, k)]]


# --------------------------------------------------------------------------- restatement


def _scalars(prefix: str, value: Any, out: list[tuple[str, Any]], depth: int = 0) -> None:
    if depth > 6:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            _scalars(f"{prefix}.{key}" if prefix else str(key), item, out, depth + 1)
    elif isinstance(value, list):
        for i, item in enumerate(value[:50]):
            _scalars(f"{prefix}[{i}]", item, out, depth + 1)
    elif value is None or isinstance(value, (str, int, float, bool)):
        if isinstance(value, str) and len(value) > 200:
            return
        out.append((prefix, value))


class KnownValues:
    """Every scalar seen so far in call arguments and tool results, first sighting first."""

    def __init__(self) -> None:
        self._items: dict[str, Any] = {}

    def add(self, prefix: str, value: Any) -> None:
        found: list[tuple[str, Any]] = []
        _scalars(prefix, value, found)
        for path, item in found:
            self._items[path] = item

    def render(self) -> str:
        lines = [
            f"- {path} = {json.dumps(item, ensure_ascii=False)}"
            for path, item in self._items.items()
        ]
        return "Known values so far:\n" + "\n".join(lines) if lines else "Known values so far: none"


def restatement(known: KnownValues) -> str:
    return known.render()


# --------------------------------------------------------------------------- execution


def result_text(result: ToolResult) -> str:
    """The text a tool result is sent back as (deterministic JSON)."""
    return json.dumps(result.as_message_content(), ensure_ascii=False, sort_keys=True, default=str)


def _checked_call(
    registry: ToolRegistry, call: ToolCall, known_names: set[str]
) -> tuple[str, dict[str, Any]] | ToolResult:
    """The checks before any call runs: an unknown tool or unparsed arguments is an error
    result for the model; else the tool's original name and the call's arguments."""
    original = registry.name_map.get(call.name, call.name)
    if call.name not in known_names and original not in known_names:
        available = ", ".join(sorted(known_names))
        return ToolResult(
            ok=False, error=f"unknown tool {call.name!r}; available tools: {available}"
        )
    if call.arguments is None:
        return ToolResult(
            ok=False,
            error=f"could not parse the arguments of {call.name}: {call.parse_error}",
        )
    return original, dict(call.arguments)


def _execute(
    sandbox: Sandbox, registry: ToolRegistry, call: ToolCall, known_names: set[str]
) -> ToolResult:
    checked = _checked_call(registry, call, known_names)
    if isinstance(checked, ToolResult):
        return checked
    try:
        result = sandbox.execute(*checked)
    except Exception as exc:  # a sandbox bug must not end the run; the model sees an error
        return ToolResult(ok=False, error=f"{type(exc).__name__}: {exc}")
    if not isinstance(result, ToolResult):
        return ToolResult(ok=True, result=result)
    return result


async def _execute_on_server(
    executor: Any, registry: ToolRegistry, call: ToolCall, known_names: set[str], tape: Tape
) -> ToolResult:
    """A call on a tool server (an MCP executor: ``call_tool(name, arguments, tape)``), which
    records its own exchanges in the trace's tape. The same checks as a sandbox call first; a
    :class:`ToolServerError` (the server hung or exited) is the caller's to end the trace."""
    checked = _checked_call(registry, call, known_names)
    if isinstance(checked, ToolResult):
        return checked
    result: ToolResult = await executor.call_tool(*checked, tape)
    return result


def _missing_expected(case: Case, rounds: list[Round]) -> int:
    """Expected calls not yet made successfully (oracle knowledge: oracle-assisted only)."""
    made: dict[str, int] = {}
    for rnd in rounds:
        for call in rnd.calls:
            if call.ok:
                made[call.name] = made.get(call.name, 0) + 1
    missing = 0
    for golden in case.golden.calls:
        have = made.get(golden.tool, 0)
        used = min(have, golden.count)
        made[golden.tool] = have - used
        missing += golden.count - used
    return missing


def _add_usage(total: dict[str, int], usage: dict[str, int]) -> None:
    for key, value in usage.items():
        total[key] = total.get(key, 0) + value


# --------------------------------------------------------------------------- the loop


@dataclass
class LoopContext:
    """Shared by every trace of a run: the client, provider, limits and key."""

    client: httpx.AsyncClient
    provider: Provider
    config: RunConfig
    api_key: str | None = None
    limiter: RateLimiter | None = None
    sleep: Sleep = asyncio.sleep
    base_delay_s: float = 0.5

    @property
    def policy(self) -> RetryPolicy:
        return RetryPolicy(max_retries=self.config.max_retries, base_delay_s=self.base_delay_s)


async def _model_turn(
    ctx: LoopContext, conversation: Conversation, tools: list[dict[str, Any]], tape: Tape
) -> AssistantTurn:
    config = ctx.config
    options = RequestOptions(
        model=config.model,
        temperature=config.temperature,
        seed=config.seed,
        max_tokens=config.max_tokens,
        stream=config.stream,
        tool_choice=config.tool_choice,
    )
    wire = ctx.provider.build(conversation, tools, options)
    url = ctx.provider.url(config.base_url, wire.path)
    headers = {**wire.headers, **ctx.provider.auth_headers(ctx.api_key)}
    content = json.dumps(wire.body, ensure_ascii=False).encode("utf-8")
    timeout = httpx.Timeout(config.timeout_s)

    def build() -> httpx.Request:
        return ctx.client.build_request(
            "POST",
            url,
            content=content,
            headers={**headers, "content-type": "application/json"},
            timeout=timeout,
            extensions={TAPE_EXTENSION: tape},
        )

    response = await send_with_retries(
        ctx.client, build, policy=ctx.policy, limiter=ctx.limiter, sleep=ctx.sleep
    )
    if response.status_code >= 400:
        snippet = response.text[:300].replace("\n", " ")
        raise ProviderCallError(
            "provider_error",
            f"HTTP {response.status_code} from {ctx.provider.name}: {snippet}",
            status_code=response.status_code,
        )
    return ctx.provider.parse(response.content, stream=config.stream)


def _with_ids(calls: list[ToolCall], round_index: int) -> list[ToolCall]:
    """Calls as the conversation refers to them: an endpoint that sent no id gets one minted."""
    return [
        call if call.id else call.model_copy(update={"id": f"call_r{round_index}_{i}"})
        for i, call in enumerate(calls)
    ]


async def run_case(
    ctx: LoopContext,
    case: Case,
    registry: ToolRegistry,
    sandbox: Sandbox,
    tape: Tape,
) -> LoopOutcome:
    """Drive one trace to its end; every model or provider failure lands in ``outcome.error``."""
    config = ctx.config
    started = time.perf_counter()
    budget = round_budget(config, case)
    outcome = LoopOutcome(round_budget=budget)
    registry = case_tools(registry, case)
    if config.retrieve_top_k is not None:
        outcome.selected_tools = select_tools(registry, case.instruction, config.retrieve_top_k)
    tools = registry.openai_tools(outcome.selected_tools)
    known_names = set(registry.tool_names()) | set(registry.name_map)
    known = KnownValues()
    oracle = config.harness_mode == "oracle-assisted"
    # a tool server (MCP) is called asynchronously and records into the tape itself
    on_server = callable(getattr(sandbox, "call_tool", None))

    conversation = Conversation()
    if config.system_prompt:
        conversation.add(SystemMessage(config.system_prompt))
    conversation.add(UserMessage(case.instruction))

    round_index = 0
    try:
        while True:
            if round_index >= budget:
                outcome.error = TraceError(
                    kind="round_budget",
                    message=f"no final answer within the round budget of {budget} rounds",
                    round=round_index - 1,
                )
                break
            try:
                turn = await _model_turn(ctx, conversation, tools, tape)
            except ProviderCallError as exc:
                outcome.error = TraceError(
                    kind=exc.kind,
                    message=exc.message,
                    round=round_index,
                    status_code=exc.status_code,
                )
                break
            _add_usage(outcome.usage, turn.usage)
            if turn.truncated:
                outcome.rounds.append(
                    Round(
                        index=round_index,
                        calls=[],
                        text=turn.text,
                        finish_reason=turn.finish_reason,
                    )
                )
                outcome.error = TraceError(
                    kind="truncated_stream",
                    message="the response stream ended before its terminator",
                    round=round_index,
                )
                break
            if turn.error is not None and not turn.calls and turn.text is None:
                outcome.error = TraceError(
                    kind="provider_error", message=turn.error, round=round_index
                )
                break

            calls = _with_ids(turn.calls, round_index)
            executed: list[ToolCall] = []
            results: list[ToolMessage] = []
            server_failure: ToolServerError | None = None
            for call in calls:
                if server_failure is not None:
                    # the server is gone: the round's remaining calls were never executed
                    result = ToolResult(ok=False, error=f"not executed: {server_failure}")
                elif on_server:
                    try:
                        result = await _execute_on_server(
                            sandbox, registry, call, known_names, tape
                        )
                    except ToolServerError as exc:
                        server_failure = exc
                        result = ToolResult(ok=False, error=str(exc))
                else:
                    result = _execute(sandbox, registry, call, known_names)
                executed.append(
                    call.model_copy(
                        update={
                            "result": result.result if result.ok else None,
                            "ok": result.ok,
                            "error": None if result.ok else result.error,
                        }
                    )
                )
                results.append(
                    ToolMessage(
                        call_id=call.id or "",
                        name=call.name,
                        content=result_text(result),
                        is_error=not result.ok,
                    )
                )
                if call.arguments:
                    known.add(call.name, call.arguments)
                if result.ok:
                    known.add(f"{call.name}.result", result.result)
            outcome.rounds.append(
                Round(
                    index=round_index,
                    calls=executed,
                    text=turn.text,
                    finish_reason=turn.finish_reason,
                )
            )
            round_index += 1
            if server_failure is not None:
                outcome.error = TraceError(
                    kind=server_failure.kind, message=str(server_failure), round=round_index - 1
                )
                break

            if not calls:
                remaining = _missing_expected(case, outcome.rounds) if oracle else 0
                if remaining > 0 and round_index < budget:
                    conversation.add(AssistantMessage(turn.text or ""))
                    conversation.add(
                        UserMessage(
                            f"{remaining} expected step{'s' if remaining != 1 else ''} remain. "
                            "Continue with the tools."
                        )
                    )
                    outcome.nudges += 1
                    continue
                outcome.final_text = turn.text
                break

            conversation.add(AssistantMessage(turn.text, calls))
            for message in results:
                conversation.add(message)
            if config.restate_known_values:
                # a domain that knows its variables (FuncBenchGen) restates them by name
                own = getattr(sandbox, "restatement", None)
                conversation.add(UserMessage(own() if callable(own) else restatement(known)))
    finally:
        close = getattr(sandbox, "aclose", None)
        if on_server and callable(close):
            await close()  # a tool server's session (a stdio server's process) ends with it
        outcome.elapsed_s = time.perf_counter() - started
    return outcome
