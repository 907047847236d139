"""Span trees as traces (pure): the conversation each trace id holds, rebuilt.

**One trace id is one trace.** Every model call (LLM span) of the trace is one round, in the
order the calls started, nested agents' calls included where they ran: the trace is what the
whole request did, which is what a user who exported it means by "this run". A model call's
span repeats the history it was sent, so rounds are never made of the histories: a round is
the assistant message the call *answered* (its output messages; when the exporter dropped
them, the same message as the next call of the same conversation was sent it in its history).

A call's result is found, in this order, on the tool span carrying its call id
(``gen_ai.tool.call.id``); in a later model call's history, as the tool message answering that
id; on the unclaimed tool spans that ran after the call under the same parent, in order (names
agreeing); and last in the next model call's history, the tool messages right after the
assistant turn, by position. What cannot be read right becomes an anomaly naming the span and
field (``span 5f2a... (chat gpt-4o): gen_ai.output.messages: cut short``), and the trace is
imported with what could be read.

Secrets never pass: attributes named after a secret header (``authorization``, ``x-api-key``,
``cookie``...) are dropped and provider keys (``sk-...``) in any text are redacted, as a
cassette's are.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rejudge.importers._otel_messages import Call, Message, SpanFacts, facts_of, unwrap_json
from rejudge.importers._otel_spans import Span, scrub_attributes
from rejudge.model import (
    SOURCE_OTEL_SPAN_ID,
    SOURCE_OTEL_TRACE_ID,
    Round,
    ToolCall,
    ToolSpec,
    Trace,
    TraceError,
    UserTurn,
)
from rejudge.recorder import tool_outcome

__all__ = [
    "OTEL_NORMALIZER_VERSION",
    "OtelTrace",
    "scrub_span",
    "tool_call_of",
    "trace_of_facts",
    "trace_of_spans",
]

#: bump when the same spans would give another trace
OTEL_NORMALIZER_VERSION = "otel-2"  # 2: tool answers read as a cassette's (tool_outcome)


@dataclass
class OtelTrace:
    """One trace id's trace, with what the import needs beside it."""

    trace_id: str
    trace: Trace
    instruction: str | None
    models: list[str]
    providers: list[str]
    tools: list[ToolSpec]
    anomalies: list[str] = field(default_factory=list)
    span_ids: list[str] = field(default_factory=list)  # every span of the trace, file order


# --------------------------------------------------------------------------- calls


def tool_call_of(call: Call, where: str, anomalies: list[str]) -> ToolCall:
    """A call as the trace keeps it: arguments parsed to an object (JSON in a string, even
    twice, unwrapped), or kept raw with a parse error and an anomaly naming ``where``."""
    value = unwrap_json(call.arguments)
    if isinstance(value, dict):
        raw = call.arguments if isinstance(call.arguments, str) else json.dumps(value)
        return ToolCall(id=call.id, name=call.name, arguments=value, arguments_raw=raw)
    raw = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
    if call.arguments is None:
        anomalies.append(f"{where}: arguments of {call.name!r}: missing")
        reason = "no arguments recorded"
    else:
        anomalies.append(f"{where}: arguments of {call.name!r}: not a JSON object (cut short?)")
        reason = "not a JSON object"
    return ToolCall(
        id=call.id, name=call.name, arguments=None, arguments_raw=raw or "", parse_error=reason
    )


def _with_result(call: ToolCall, value: Any, error: str | None) -> ToolCall:
    """The call with its result: a failed span's error, else the tool's answer read as a
    cassette's is (``{"error": ...}`` and ``error: ...`` answers are failed calls), so one
    conversation gives the same calls from its cassette and from its spans."""
    if error is not None:
        return call.model_copy(update={"result": None, "ok": False, "error": error})
    result, failed = tool_outcome(unwrap_json(value))
    return call.model_copy(update={"result": result, "ok": failed is None, "error": failed})


def _from_tool_span(
    call: ToolCall, span: Span, facts: SpanFacts, where: str, anomalies: list[str]
) -> ToolCall:
    """The call with its tool span's result; when the model call's recorded arguments are
    empty and the tool span's are not, the tool span's (some exporters drop the model's)."""
    out = _with_result(call, facts.tool_result, span.error)
    if call.arguments:
        return out  # the model's own arguments stand: the tool span's are not parsed
    ran = unwrap_json(facts.tool_arguments)
    if isinstance(ran, dict) and ran:
        anomalies.append(
            f"{where}: arguments of {call.name!r}: empty; read from {_where(span)} "
            "(gen_ai.tool.call.arguments)"
        )
        raw = facts.tool_arguments if isinstance(facts.tool_arguments, str) else json.dumps(ran)
        out = out.model_copy(update={"arguments": ran, "arguments_raw": raw, "parse_error": None})
    return out


def _where(span: Span) -> str:
    return f"span {span.span_id} ({span.name})"


# --------------------------------------------------------------------------- the tree


@dataclass
class _Llm:
    span: Span
    facts: SpanFacts
    order: int


def _sort_key(span: Span, order: int) -> tuple[int, int]:
    return (span.start_ns if span.start_ns is not None else 0, order)


def _assistant(messages: list[Message] | None) -> Message | None:
    for message in reversed(messages or []):
        if message.role in ("assistant", "model", "ai", ""):
            return message
    return None


def _recovered_output(llm: _Llm, later: list[_Llm]) -> Message | None:
    """The assistant turn a call answered, read from the next call of the same conversation
    (its history repeats it right after this call's history)."""
    sent = llm.facts.inputs
    if sent is None:
        return None
    for nxt in later:
        if nxt.span.parent_id != llm.span.parent_id or nxt.facts.inputs is None:
            continue
        history = nxt.facts.inputs
        if len(history) > len(sent) and history[len(sent)].role == "assistant":
            return history[len(sent)]
        return None
    return None


def _user_turns(llms: list[_Llm]) -> tuple[str | None, list[UserTurn]]:
    """The user's messages of the root conversation (the first call's), each placed before
    the round that first saw it."""
    if not llms:
        return None, []
    root_parent = llms[0].span.parent_id
    turns: list[UserTurn] = []
    seen = 0
    for index, llm in enumerate(llms):
        if llm.span.parent_id != root_parent or llm.facts.inputs is None:
            continue
        history = llm.facts.inputs
        users = [m for m in history if m.role == "user"]
        for message in users[seen:]:
            turns.append(UserTurn(before_round=index, position=len(turns), text=message.text or ""))
        seen = max(seen, len(users))
    instruction = turns[0].text if turns else None
    return instruction, turns if len(turns) > 1 else []


def _round_timing(llm: _Llm) -> dict[str, Any] | None:
    """A round's model span as the timeline reads it (``elapsed_s`` and its tokens), None when
    the span says neither. Timings are outside the trace's hash: a re-import hashes the same."""
    out: dict[str, Any] = {}
    start, end = llm.span.start_ns, llm.span.end_ns
    if start is not None and end is not None and end >= start:
        out["elapsed_s"] = round((end - start) / 1e9, 6)
    for key in ("input_tokens", "output_tokens"):
        if isinstance(llm.facts.usage.get(key), int):
            out[key] = llm.facts.usage[key]
    return out or None


def scrub_span(span: Span) -> Span:
    """``span`` (edited in place) with its and its events' attributes scrubbed
    (:func:`scrub_attributes`), as they may be written anywhere, a scratch file included."""
    span.attributes = scrub_attributes(span.attributes)
    for event in span.events:
        event.attributes = scrub_attributes(event.attributes)
    return span


def trace_of_spans(trace_id: str, spans: Iterable[Span], *, scrubbed: bool = False) -> OtelTrace:
    """The trace of one trace id's spans (any order; file order breaks start-time ties).
    ``scrubbed`` says :func:`scrub_span` already ran on each (a streamed read scrubs a span
    as it is read, before it can be spilled to disk): scrubbing is not done twice."""
    read: list[tuple[Span, SpanFacts]] = []
    for span in spans:
        if not scrubbed:
            scrub_span(span)
        read.append((span, facts_of(span.attributes, span.events)))
    return trace_of_facts(trace_id, read)


def trace_of_facts(
    trace_id: str,
    read: Iterable[tuple[Span, SpanFacts]],
    *,
    normalizer_version: str = OTEL_NORMALIZER_VERSION,
    source_keys: tuple[str, str] = (SOURCE_OTEL_TRACE_ID, SOURCE_OTEL_SPAN_ID),
) -> OtelTrace:
    """The trace of spans already read into facts (secrets already scrubbed): the tree walk
    every importer of span-like records shares (a Langfuse observation is read into the same
    facts, so one conversation gives one trace whichever tracer kept it). ``source_keys`` name
    the ``Trace.source_ids`` the trace id and its root span's id are kept under, where verdicts
    exported back go (a Langfuse importer passes the Langfuse trace and observation keys)."""
    anomalies: list[str] = []
    llms: list[_Llm] = []
    tools: list[tuple[Span, SpanFacts]] = []
    all_spans: list[Span] = []
    for order, (span, facts) in enumerate(read):
        all_spans.append(span)
        if facts.problems:
            anomalies.extend(f"{_where(span)}: {p}" for p in facts.problems)
        if facts.kind == "llm":
            llms.append(_Llm(span, facts, order))
        elif facts.kind == "tool":
            tools.append((span, facts))
    llms.sort(key=lambda x: _sort_key(x.span, x.order))
    tool_order = {id(s): i for i, (s, _f) in enumerate(tools)}
    tools.sort(key=lambda t: _sort_key(t[0], tool_order[id(t[0])]))

    rounds: list[Round] = []
    # each round's model span: its duration and tokens, the timeline's per-step figures
    round_times: list[dict[str, Any] | None] = []
    claimed: set[int] = set()  # tool spans (index in ``tools``) already answering a call
    for i, llm in enumerate(llms):
        where = _where(llm.span)
        answer = _assistant(llm.facts.outputs)
        if answer is None:
            answer = _recovered_output(llm, llms[i + 1 :])
            field_name = "output messages"
            if answer is None:
                anomalies.append(f"{where}: {field_name}: missing (no round for this call)")
                continue
            anomalies.append(f"{where}: {field_name}: missing; read from the next call's history")
        calls = [tool_call_of(c, where, anomalies) for c in answer.calls]
        calls = _attach_results(calls, llm, llms[i + 1 :], tools, claimed, anomalies)
        rounds.append(
            Round(
                index=len(rounds),
                calls=calls,
                text=answer.text or None,  # empty content is no text, as on the wire
                finish_reason=answer.finish_reason or ("tool_calls" if calls else "stop"),
            )
        )
        round_times.append(_round_timing(llm))
        if llm.span.error is not None:
            anomalies.append(f"{where}: status: error ({llm.span.error})")
    for n, (span, facts) in enumerate(tools):
        if n not in claimed:
            anomalies.append(f"{_where(span)}: answers no call the model made ({facts.tool_name})")

    instruction, turns = _user_turns(llms)
    usage: Counter[str] = Counter()
    for llm in llms:
        usage.update(llm.facts.usage)
    starts = [s.start_ns for s in all_spans if s.start_ns is not None]
    ends = [s.end_ns for s in all_spans if s.end_ns is not None]
    timings: dict[str, Any] = {}
    if starts and ends:
        timings["latency_s"] = round((max(ends) - min(starts)) / 1e9, 6)
        timings["started_unix_ns"] = min(starts)
    if any(t is not None for t in round_times):
        timings["rounds"] = round_times
    roots = [s for s in all_spans if s.parent_id is None]
    failed = next((s for s in roots if s.error is not None), None)
    error = (
        TraceError(kind="span_error", message=f"{_where(failed)}: {failed.error}"[:2000])
        if failed is not None
        else None
    )
    final = rounds[-1].text if rounds and not rounds[-1].calls else None
    root = _root(all_spans)
    trace_key, span_key = source_keys
    source_ids = {trace_key: trace_id}
    if root is not None:
        source_ids[span_key] = root.span_id
    trace = Trace(
        case_id=trace_id,
        status="agent_error" if error is not None else "completed",
        rounds=rounds,
        final_text=final,
        error=error,
        usage=dict(sorted(usage.items())),
        normalizer_version=normalizer_version,
        timings=timings,
        user_turns=turns,
        source_ids=source_ids,
    )
    models = sorted({str(m.facts.model) for m in llms if m.facts.model})
    providers = sorted({str(m.facts.provider) for m in llms if m.facts.provider})
    specs: dict[str, ToolSpec] = {}
    for llm in llms:  # the schemas the model was offered, when the spans kept them
        for name, description, parameters in llm.facts.tools:
            if isinstance(parameters, dict) and name not in specs:
                specs[name] = ToolSpec(name=name, description=description, parameters=parameters)
            elif name not in specs:
                specs[name] = ToolSpec(name=name, description=description)
    # a spec is made only for a name not seen yet (``setdefault`` would validate one per span
    # and per call, to throw nearly all of them away)
    for span, facts in tools:
        if facts.tool_name and str(facts.tool_name) not in specs:
            description = span.attributes.get("gen_ai.tool.description", "")
            specs[str(facts.tool_name)] = ToolSpec(
                name=str(facts.tool_name), description=str(description or "")
            )
    for call in trace.calls:
        if call.name not in specs:
            specs[call.name] = ToolSpec(name=call.name)
    return OtelTrace(
        trace_id=trace_id,
        trace=trace,
        instruction=instruction,
        models=models,
        providers=providers,
        tools=[specs[k] for k in sorted(specs)],
        anomalies=anomalies,
        span_ids=[s.span_id for s in all_spans],
    )


def _root(spans: list[Span]) -> Span | None:
    """The span a verdict on the whole trace goes on: the first to start of those whose parent
    is not in the file (the root, or the tops of a trace exported in part)."""
    ids = {s.span_id for s in spans}
    tops = [(n, s) for n, s in enumerate(spans) if s.parent_id is None or s.parent_id not in ids]
    if not tops:
        return None
    return min(tops, key=lambda t: _sort_key(t[1], t[0]))[1]


def _attach_results(
    calls: list[ToolCall],
    llm: _Llm,
    later: list[_Llm],
    tools: list[tuple[Span, SpanFacts]],
    claimed: set[int],
    anomalies: list[str],
) -> list[ToolCall]:
    out = list(calls)
    pending = set(range(len(out)))
    # 1. the tool span carrying the call's id
    for i in sorted(pending):
        cid = out[i].id
        if cid is None:
            continue
        for n, (span, facts) in enumerate(tools):
            if (
                n not in claimed
                and facts.tool_call_id is not None
                and str(facts.tool_call_id) == cid
            ):
                out[i] = _from_tool_span(out[i], span, facts, _where(llm.span), anomalies)
                claimed.add(n)
                pending.discard(i)
                break
    # 2. a later call's history answering the id
    for i in sorted(pending):
        cid = out[i].id
        if cid is None:
            continue
        for nxt in later:
            found = next(
                (m for m in nxt.facts.inputs or [] if m.role == "tool" and m.call_id == cid), None
            )
            if found is not None:
                out[i] = _with_result(out[i], found.text, None)
                pending.discard(i)
                break
    # 3. unclaimed tool spans that ran after the call under the same parent (or under it),
    #    before the conversation's next call, in order, names agreeing
    next_start = next(
        (n.span.start_ns for n in later if n.span.parent_id == llm.span.parent_id), None
    )
    start = llm.span.start_ns or 0
    siblings = (llm.span.parent_id, llm.span.span_id)
    # 3b. then any unclaimed tool span in that window whose tool is the call's, by name (some
    #     frameworks hang tool spans under spans of their own, not the model call's parent)
    for same_parent in (True, False):
        for i in sorted(pending):
            for n, (span, facts) in enumerate(tools):
                if n in claimed or (same_parent and span.parent_id not in siblings):
                    continue
                began = span.start_ns or 0
                if began < start or (next_start is not None and began > next_start):
                    continue
                if facts.tool_name != out[i].name and (
                    not same_parent or facts.tool_name is not None
                ):
                    continue
                out[i] = _from_tool_span(out[i], span, facts, _where(llm.span), anomalies)
                claimed.add(n)
                pending.discard(i)
                break
    # 4. by position: the tool messages right after this turn in the next call's history
    if pending and llm.facts.inputs is not None:
        sent = len(llm.facts.inputs)
        for nxt in later:
            if nxt.span.parent_id != llm.span.parent_id or nxt.facts.inputs is None:
                continue
            answers = [m for m in nxt.facts.inputs[sent + 1 :] if m.role == "tool"][: len(out)]
            for i in sorted(pending):
                if i < len(answers):
                    out[i] = _with_result(out[i], answers[i].text, None)
                    pending.discard(i)
            break
    for i in sorted(pending):
        anomalies.append(f"{_where(llm.span)}: result of call {out[i].name!r}: not found")
    return out
