"""Inspect AI samples as rejudge evidence: each sample (and epoch) a trace, its target and
metadata the case where they name the calls expected, Inspect's scores external verdicts.

A sample's ``messages`` are its conversation: the first user message is the case's instruction
and every later one a :class:`UserTurn` in its place; each assistant message is a round whose
``tool_calls`` (``{id, function, arguments, parse_error}``) are the round's calls; each tool
message (``tool_call_id``, ``content``, ``error``) is the result of the call it answers (the
content parsed as JSON when it is JSON, an ``error`` making the call failed). Inspect's
``attachment://`` references are resolved from the sample's ``attachments``. A sample Inspect
ended with an error or a limit is an ``agent_error`` trace saying so.

The case of a sample (without a suite): its id, the first user message, and golden calls when
the sample's metadata (``expected_calls``, ``tool_calls`` or ``golden_calls``: a list of
``{"tool"|"function"|"name", "arguments"|"params"}``) or its target (that list as JSON) names
them -- an explicitly empty list makes it a negative case; otherwise the case has no golden
calls (judgeable once they are attached), as an imported cassette's. The tools are the ones
Inspect offered the model (its model events' ``tools``), else inferred from the calls.

Scores: each scorer's value as a number in [0, 1] (Inspect's ``C``/``I``/``P``/``N`` are 1, 0,
0.5 and 0; booleans 1/0; numbers in range as they are); a value of another shape (a dict of
several, a number out of range) is kept out and counted. Pure: no store, no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rejudge.importers._inspect_log import InspectLogError
from rejudge.model import (
    Case,
    Golden,
    GoldenCall,
    Round,
    ToolCall,
    ToolRegistry,
    ToolSpec,
    Trace,
    TraceError,
    UserTurn,
)

__all__ = [
    "INSPECT_DOMAIN",
    "INSPECT_SOURCE",
    "InspectImport",
    "InspectVerdict",
    "parse_inspect_samples",
    "score_value",
]

INSPECT_DOMAIN = "inspect"
INSPECT_SOURCE = "inspect"
_EXPECTED_KEYS = ("expected_calls", "tool_calls", "golden_calls")
_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_WORDS = {"correct": 1.0, "incorrect": 0.0, "yes": 1.0, "no": 0.0, "true": 1.0, "false": 0.0}


@dataclass(frozen=True)
class InspectVerdict:
    case_id: str
    repetition: int
    source: str
    value: float
    detail: dict[str, Any]


@dataclass
class InspectImport:
    task: str
    model: str
    registry: ToolRegistry
    cases: list[Case]
    traces: list[Trace]
    verdicts: list[InspectVerdict]
    registry_inferred: bool
    epochs: int
    unscored: int = 0  # scores of a shape that is no number in [0, 1]
    with_golden: int = 0
    problems: list[str] = field(default_factory=list)


def score_value(value: Any) -> float | None:
    """An Inspect score value as a number in [0, 1], or None when it is none."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value) if 0.0 <= float(value) <= 1.0 else None
    if isinstance(value, str):
        text = value.strip()
        if text in _LETTERS:
            return _LETTERS[text]
        if text.lower() in _WORDS:
            return _WORDS[text.lower()]
        try:
            number = float(text)
        except ValueError:
            return None
        return number if 0.0 <= number <= 1.0 else None
    return None


# --------------------------------------------------------------------------- messages


def _resolve(value: Any, attachments: Mapping[str, Any]) -> Any:
    if isinstance(value, str) and value.startswith("attachment://"):
        return attachments.get(value[len("attachment://") :], value)
    if isinstance(value, list):
        return [_resolve(v, attachments) for v in value]
    if isinstance(value, dict):
        return {k: _resolve(v, attachments) for k, v in value.items()}
    return value


def _text(content: Any) -> str | None:
    if content is None:
        return None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            str(block.get("text"))
            for block in content
            if isinstance(block, dict) and block.get("type") == "text" and block.get("text")
        ]
        return "\n".join(texts) if texts else None
    return str(content)


def _result(content: Any) -> Any:
    text = _text(content)
    if text is None:
        return content
    try:
        return json.loads(text)
    except ValueError:
        return text


def _call(raw: Mapping[str, Any], round_index: int, position: int) -> ToolCall:
    args = raw.get("arguments")
    parse_error = raw.get("parse_error")
    if isinstance(args, str):  # older logs kept the model's text
        try:
            args = json.loads(args)
        except ValueError as exc:
            parse_error = parse_error or f"not JSON: {exc}"
            args = None
    arguments = args if isinstance(args, dict) and not parse_error else None
    raw_text = (
        json.dumps(args, ensure_ascii=False, sort_keys=True)
        if isinstance(args, dict)
        else str(raw.get("arguments") or "")
    )
    return ToolCall(
        id=str(raw.get("id") or f"call_r{round_index}_{position}"),
        name=str(raw.get("function") or raw.get("name") or ""),
        arguments=arguments,
        arguments_raw=raw_text,
        parse_error=str(parse_error) if parse_error else None,
    )


def _conversation(
    messages: list[Any],
) -> tuple[str | None, list[Round], list[UserTurn], str | None]:
    rounds: list[dict[str, Any]] = []
    turns: list[UserTurn] = []
    instruction: str | None = None
    where: dict[str, tuple[int, int]] = {}
    for message in messages:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "user":
            text = _text(message.get("content")) or ""
            if instruction is None:
                instruction = text
            turns.append(UserTurn(before_round=len(rounds), position=len(turns), text=text))
        elif role == "assistant":
            index = len(rounds)
            calls = [_call(c, index, i) for i, c in enumerate(message.get("tool_calls") or [])]
            for position, call in enumerate(calls):
                where[call.id or ""] = (index, position)
            rounds.append({"text": _text(message.get("content")), "calls": calls})
        elif role == "tool":
            spot = where.get(str(message.get("tool_call_id") or ""))
            if spot is None:
                continue
            i, position = spot
            error = message.get("error")
            update: dict[str, Any] = (
                {"ok": False, "error": str(error.get("message") or error), "result": None}
                if isinstance(error, dict) and error
                else {"ok": True, "result": _result(message.get("content"))}
            )
            calls = rounds[i]["calls"]
            calls[position] = calls[position].model_copy(update=update)
    built = [
        Round(
            index=i,
            calls=r["calls"],
            text=r["text"],
            finish_reason="tool_calls" if r["calls"] else "stop",
        )
        for i, r in enumerate(rounds)
    ]
    final = built[-1].text if built and not built[-1].calls else None
    # a conversation with one user message (the instruction) carries no turns
    return instruction, built, turns if len(turns) > 1 else [], final


# --------------------------------------------------------------------------- cases


def _expected_calls(sample: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    metadata = sample.get("metadata") or {}
    found: Any = None
    for key in _EXPECTED_KEYS:
        if isinstance(metadata, dict) and key in metadata:
            found = metadata[key]
            break
    if found is None and isinstance(sample.get("target"), str):
        try:
            parsed = json.loads(sample["target"])
        except ValueError:
            parsed = None
        if isinstance(parsed, list) and all(isinstance(x, dict) for x in parsed):
            found = parsed
    if not isinstance(found, list):
        return None
    calls = []
    for item in found:
        if not isinstance(item, dict):
            return None
        tool = item.get("tool") or item.get("function") or item.get("name")
        params = item.get("arguments", item.get("params", {}))
        if not isinstance(tool, str) or not isinstance(params, dict):
            return None
        calls.append({"tool": tool, "params": params})
    return calls


def _case(sample: Mapping[str, Any], case_id: str, instruction: str, task: str) -> Case:
    expected = _expected_calls(sample)
    target = sample.get("target")
    meta: dict[str, Any] = {"inspect_task": task, "inspect_target": target}
    return Case(
        id=case_id,
        dimension=INSPECT_DOMAIN,
        category=task or INSPECT_DOMAIN,
        instruction=instruction or "(the sample holds no user message)",
        golden=Golden(
            calls=[GoldenCall(tool=c["tool"], params=c["params"]) for c in expected or []]
        ),
        negative=expected == [],
        metadata=meta,
    )


def _tools_offered(sample: Mapping[str, Any]) -> Iterable[dict[str, Any]]:
    for event in sample.get("events") or []:
        if isinstance(event, dict) and event.get("event") == "model":
            for info in event.get("tools") or []:
                if isinstance(info, dict) and info.get("name"):
                    yield info


# --------------------------------------------------------------------------- the import


def _trace(sample: Mapping[str, Any], case_id: str, repetition: int) -> tuple[Trace, str | None]:
    attachments = sample.get("attachments") or {}
    messages = _resolve(sample.get("messages") or [], attachments)
    instruction, rounds, turns, final = _conversation(messages)
    error = None
    raw_error = sample.get("error")
    limit = sample.get("limit")
    if isinstance(raw_error, dict) and raw_error:
        error = TraceError(kind="inspect_error", message=str(raw_error.get("message") or "")[:2000])
    elif isinstance(limit, dict) and limit:
        error = TraceError(
            kind="inspect_limit",
            message=f"Inspect's {limit.get('type')} limit ({limit.get('limit')}) ended the sample",
        )
    usage: dict[str, int] = {}
    for counts in (sample.get("model_usage") or {}).values():
        for key in ("input_tokens", "output_tokens", "total_tokens"):
            value = (counts or {}).get(key)
            if isinstance(value, int):
                usage[key] = usage.get(key, 0) + value
    trace = Trace(
        case_id=case_id,
        repetition=repetition,
        status="agent_error" if error else "completed",
        rounds=rounds,
        final_text=final,
        error=error,
        usage=usage,
        user_turns=turns,
    )
    return trace, instruction


def parse_inspect_samples(
    header: Mapping[str, Any],
    samples: Iterable[Mapping[str, Any]],
    *,
    source: str,
    suite_cases: Mapping[str, Case] | None = None,
    suite_registry: ToolRegistry | None = None,
) -> InspectImport:
    """Everything an Inspect log holds for rejudge, checked before anything is stored.

    With ``suite_cases`` (a suite's cases by id) each sample's id must name one of them, and
    the suite's registry is the tool registry; every sample naming no case is one problem of
    a single :class:`InspectLogError`.
    """
    spec = header.get("eval") or {}
    task = str(spec.get("task") or "inspect")
    model = str(spec.get("model") or "unknown")
    cases: dict[str, Case] = {}
    traces: list[Trace] = []
    verdicts: list[InspectVerdict] = []
    tools: dict[str, ToolSpec] = {}
    called: dict[str, None] = {}
    problems: list[str] = []
    unscored = 0
    epochs = 0
    seen: set[tuple[str, int]] = set()
    for sample in samples:
        if "id" not in sample:
            problems.append(f"a sample of {source} has no id")
            continue
        case_id = str(sample["id"])
        epoch = int(sample.get("epoch") or 1)
        repetition = epoch - 1
        epochs = max(epochs, epoch)
        if (case_id, repetition) in seen:
            problems.append(f"sample {case_id} epoch {epoch} appears twice")
            continue
        seen.add((case_id, repetition))
        trace, instruction = _trace(sample, case_id, repetition)
        if suite_cases is not None:
            if case_id not in suite_cases:
                problems.append(f"sample {case_id} names no case of the suite")
                continue
        elif case_id not in cases:
            cases[case_id] = _case(sample, case_id, instruction or "", task)
        for info in _tools_offered(sample):
            name = str(info["name"])
            if name not in tools:
                params = info.get("parameters")
                tools[name] = ToolSpec(
                    name=name,
                    description=str(info.get("description") or ""),
                    parameters=params if isinstance(params, dict) else {"type": "object"},
                )
        for rnd in trace.rounds:
            for call in rnd.calls:
                called.setdefault(call.name, None)
        traces.append(trace)
        for scorer, score in sorted((sample.get("scores") or {}).items()):
            raw = score.get("value") if isinstance(score, dict) else score
            value = score_value(raw)
            if value is None:
                unscored += 1
                continue
            detail = {
                "scorer": scorer,
                "value": raw,
                "answer": score.get("answer") if isinstance(score, dict) else None,
                "explanation": score.get("explanation") if isinstance(score, dict) else None,
            }
            verdicts.append(
                InspectVerdict(
                    case_id, repetition, f"{INSPECT_SOURCE}/{scorer}"[:100], value, detail
                )
            )
    if problems:
        shown = "; ".join(problems[:10]) + (
            f"; ... {len(problems) - 10} more" if len(problems) > 10 else ""
        )
        raise InspectLogError(f"{source}: nothing imported: {shown}", file=source)
    if not traces:
        raise InspectLogError(f"{source} holds no samples to import", file=source)
    inferred = False
    if suite_registry is not None:
        registry = suite_registry
    else:
        for name in called:
            if name not in tools:
                inferred = True
                tools[name] = ToolSpec(name=name, parameters={"type": "object"})
        registry = ToolRegistry(domain=INSPECT_DOMAIN, version="1", tools=list(tools.values()))
    ordered = list(suite_cases.values()) if suite_cases is not None else list(cases.values())
    return InspectImport(
        task=task,
        model=model,
        registry=registry,
        cases=ordered,
        traces=traces,
        verdicts=verdicts,
        registry_inferred=inferred,
        epochs=epochs,
        unscored=unscored,
        with_golden=sum(1 for c in ordered if c.golden.calls or c.negative),
    )
