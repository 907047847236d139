"""One Langfuse trace's observations as a trace (pure).

Each observation is read into the facts a span gives (:class:`SpanFacts`) and the tree is
walked by the OpenTelemetry reader's :func:`trace_of_facts`, so a conversation gives the same
trace whether Langfuse or a span file kept it: a round is the assistant message a
``GENERATION`` answered (its ``output``; a generation repeats the history in its ``input``,
which is never concatenated), and each call's result comes from the ``TOOL`` observation with
its call id, a later generation's history, or the tool observations that ran after it, in order.

An observation is read from Langfuse's own fields first (``type``, ``input``, ``output``,
``model``, ``usageDetails`` or the deprecated ``usage``, ``startTime`` / ``endTime``, ``level`` and
``statusMessage``); observations Langfuse took in over OpenTelemetry keep the span's attributes
under ``metadata.attributes``, which fill in what the fields lack (a tool's call id, a span that
is a tool run, a generation whose output Langfuse did not keep). Two generations nested one in
the other are one model call seen by two instrumentations (an agent framework's and the
provider SDK's): the outer one is kept when its output reads, else the inner one.

A field that is missing or reads as no message is an anomaly naming the observation and the
field (``observation 5f2a... (GENERATION chat): output: missing``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from rejudge.importers._langfuse_doc import LangfuseTrace
from rejudge.importers._langfuse_messages import one_answer, read_messages
from rejudge.importers._otel_messages import SpanFacts, facts_of, unwrap_json
from rejudge.importers._otel_read import OtelTrace, trace_of_facts
from rejudge.importers._otel_spans import Span
from rejudge.model import SOURCE_LANGFUSE_OBSERVATION_ID, SOURCE_LANGFUSE_TRACE_ID
from rejudge.recorder import scrub_value

__all__ = ["LANGFUSE_NORMALIZER_VERSION", "trace_of_observations"]

#: bump when the same observations would give another trace
LANGFUSE_NORMALIZER_VERSION = "langfuse-2"

_KINDS = {"GENERATION": "llm", "TOOL": "tool", "AGENT": "agent"}
_TOOL_NAME_KEYS = ("gen_ai.tool.name", "tool.name", "ai.toolCall.name")
_TOOL_ID_KEYS = ("gen_ai.tool.call.id", "ai.toolCall.id", "tool_call.id", "tool.call_id")
_NAME_PREFIXES = ("execute_tool ", "running tool: ", "tool.")
# how the span-tree walk names a span in an anomaly: ``span ID (TYPE name)``
_SPAN_NAMED = re.compile(r"span (\S+) \([^)]*\)")


def _time_ns(value: Any) -> int | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return int(value * 1e6) if value < 1e14 else int(value)  # epoch millis, or nanos
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:  # the blob export's ClickHouse times are UTC, unmarked
        parsed = parsed.replace(tzinfo=UTC)
    return int(parsed.timestamp()) * 10**9 + parsed.microsecond * 1000


def _flat(value: Any, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(value, dict):
        for key, inner in value.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            if isinstance(inner, dict):
                out.update(_flat(inner, name))
            else:
                out[name] = inner
    return out


def _attributes(observation: Mapping[str, Any]) -> dict[str, Any]:
    """The OpenTelemetry span's attributes Langfuse kept (``metadata.attributes``), flat."""
    metadata = unwrap_json(observation.get("metadata"))
    found = metadata.get("attributes") if isinstance(metadata, dict) else None
    return _flat(unwrap_json(found)) if isinstance(unwrap_json(found), dict) else {}


def _first(mapping: Mapping[str, Any], *keys: str) -> Any:
    for key in keys:
        if mapping.get(key) not in (None, ""):
            return mapping[key]
    return None


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def _usage(observation: Mapping[str, Any]) -> dict[str, int]:
    """Tokens in, out and in total: ``usageDetails`` (``input``/``output``, or OpenAI's
    ``prompt_tokens``/``input_tokens`` shapes), else the deprecated ``usage``
    (``input``/``output`` or ``promptTokens``/``completionTokens``)."""
    pairs = {
        "input_tokens": ("input", "prompt_tokens", "input_tokens", "promptTokens"),
        "output_tokens": ("output", "completion_tokens", "output_tokens", "completionTokens"),
        # as a cassette keeps the provider's total and the otel reader OpenInference's
        "total_tokens": ("total", "total_tokens", "totalTokens"),
    }
    for key in ("usageDetails", "usage"):
        raw = unwrap_json(observation.get(key))
        if not isinstance(raw, dict):
            continue
        if str(raw.get("unit") or "TOKENS").upper() != "TOKENS":
            continue  # characters, images, seconds...: not the tokens a trace's usage counts
        usage = {}
        for name, keys in pairs.items():
            value = _int(_first(raw, *keys))
            if value is not None:
                usage[name] = value
        if usage:
            return usage
    return {}


def _tool_name(observation: Mapping[str, Any], attributes: Mapping[str, Any]) -> str | None:
    found = _first(attributes, *_TOOL_NAME_KEYS)
    if found is not None:
        return str(found)
    name = str(observation.get("name") or "")
    for prefix in _NAME_PREFIXES:
        name = name.removeprefix(prefix)
    return name or None


def _where(observation: Mapping[str, Any]) -> str:
    return (
        f"observation {observation.get('id')} ({observation.get('type')} {observation.get('name')})"
    )


def _llm_facts(observation: Mapping[str, Any], attributes: dict[str, Any]) -> SpanFacts:
    facts = SpanFacts(kind="llm")
    from_span = facts_of(attributes, []) if attributes else None
    read_from_span = False
    for field, output in (("input", False), ("output", True)):
        raw = observation.get(field)
        found = read_messages(raw, output=output)
        if found is None and from_span is not None:
            found = from_span.outputs if output else from_span.inputs
            if found is not None and output:
                found = one_answer(found)
            read_from_span = read_from_span or found is not None
            if found is not None and raw is not None:
                facts.problems.append(f"{field}: no message shape; read from the span attributes")
        elif found is None and raw is not None:
            facts.problems.append(f"{field}: no message shape Langfuse's integrations write")
        if output:
            facts.outputs = found
        else:
            facts.inputs = found
    if read_from_span and from_span is not None:  # what the attributes lacked, said as theirs
        facts.problems += from_span.problems
    facts.model = observation.get("model") or (from_span.model if from_span else None)
    facts.provider = from_span.provider if from_span else None
    facts.usage = _usage(observation) or (from_span.usage if from_span else {})
    facts.tools = from_span.tools if from_span else []
    definitions = unwrap_json(observation.get("toolDefinitions"))
    if isinstance(definitions, dict):  # the server download keys them by name
        definitions = list(definitions.values())
    for tool in definitions if isinstance(definitions, list) else []:
        tool = unwrap_json(tool)
        if isinstance(tool, dict) and isinstance(tool.get("name"), str):
            parameters = unwrap_json(tool.get("parameters"))
            facts.tools.append((tool["name"], str(tool.get("description") or ""), parameters))
    return facts


def _tool_facts(observation: Mapping[str, Any], attributes: dict[str, Any]) -> SpanFacts:
    facts = SpanFacts(kind="tool")
    metadata = unwrap_json(observation.get("metadata"))
    ids = dict(metadata) if isinstance(metadata, dict) else {}
    facts.tool_name = _tool_name(observation, attributes)
    call_id = _first(attributes, *_TOOL_ID_KEYS) or _first(ids, "tool_call_id", "toolCallId")
    facts.tool_call_id = str(call_id) if call_id is not None else None
    facts.tool_arguments = observation.get("input")
    result = observation.get("output")
    if result == "null":  # Langfuse serialises input and output: a tool that returned nothing
        result = None
    if result is None:
        result = _first(attributes, "gen_ai.tool.call.result", "output.value")
    if result is None and observation.get("level") != "ERROR":
        facts.problems.append("output: missing (Langfuse kept no result)")
    facts.tool_result = _mcp_text(unwrap_json(result))
    return facts


def _mcp_text(result: Any) -> Any:
    """An MCP tool's ``CallToolResult`` (``{content: [{type: text, text}]}``) as its text, which
    is what the model was shown; any other result as it is."""
    if isinstance(result, dict) and isinstance(result.get("content"), list) and result["content"]:
        parts = result["content"]
        if all(isinstance(p, dict) and p.get("type") == "text" for p in parts):
            return "".join(str(p.get("text") or "") for p in parts)
    return result


def _same_arguments(call: Any, ran: Any) -> bool:
    ran = unwrap_json(ran)
    if isinstance(ran, dict) and set(ran) == {"input"}:
        ran = unwrap_json(ran["input"])  # the Claude Agent SDK wraps what a tool ran with
    return bool(ran == unwrap_json(call))


def _name_tool_runs(read: list[tuple[Span, SpanFacts]]) -> None:
    """Give a tool run without a call id the id of the one call it ran: the call of its tool
    with the same arguments (tools run in parallel finish in any order, so time and order
    cannot pair them)."""
    made = sorted(
        (
            (span.start_ns or 0, n, call)
            for n, (span, facts) in enumerate(read)
            if facts.kind == "llm"
            for message in facts.outputs or []
            for call in message.calls
            if call.id is not None
        ),
        key=lambda item: (item[0], item[1]),
    )
    taken = {str(f.tool_call_id) for _s, f in read if f.kind == "tool" and f.tool_call_id}
    runs = [(s, f) for s, f in read if f.kind == "tool" and f.tool_call_id is None]
    runs.sort(key=lambda run: run[0].start_ns or 0)
    for span, facts in runs:  # runs of the same call (name and arguments) pair in order
        found = next(
            (
                c
                for began, _n, c in made
                if began <= (span.start_ns or 0)
                and c.name == facts.tool_name
                and c.id not in taken
                and _same_arguments(c.arguments, facts.tool_arguments)
            ),
            None,
        )
        if found is not None:
            facts.tool_call_id = found.id
            taken.add(str(found.id))


def _facts(observation: Mapping[str, Any], attributes: dict[str, Any]) -> SpanFacts:
    kind = _KINDS.get(str(observation.get("type") or "").upper())
    if kind == "llm":
        return _llm_facts(observation, attributes)
    if kind == "tool":
        return _tool_facts(observation, attributes)
    if kind is None and attributes and facts_of(attributes, []).kind == "tool":
        return _tool_facts(observation, attributes)  # a SPAN of an OpenTelemetry tool run
    return SpanFacts(kind=kind or "other")


def _span(observation: Mapping[str, Any], trace_id: str, attributes: dict[str, Any]) -> Span:
    error = None
    if str(observation.get("level") or "").upper() == "ERROR":
        error = str(observation.get("statusMessage") or "level ERROR")
    parent = observation.get("parentObservationId")
    return Span(
        trace_id=trace_id,
        span_id=str(observation.get("id")),
        parent_id=str(parent) if parent not in (None, "") else None,
        name=f"{observation.get('type')} {observation.get('name')}",
        start_ns=_time_ns(observation.get("startTime")),
        end_ns=_time_ns(observation.get("endTime")),
        attributes=attributes,
        error=error,
    )


def _one_call_each(read: list[tuple[Span, SpanFacts]]) -> list[tuple[Span, SpanFacts]]:
    """Drop the generation of a pair nested one in the other that repeats its model call
    (the outer one when its output did not read, else the inner one)."""
    by_id = {span.span_id: (span, facts) for span, facts in read}
    dropped: set[str] = set()
    for span, facts in read:
        if facts.kind != "llm":
            continue
        parent = by_id.get(span.parent_id or "")
        seen: set[str] = set()
        while parent is not None and parent[1].kind != "llm" and parent[0].span_id not in seen:
            seen.add(parent[0].span_id)
            parent = by_id.get(parent[0].parent_id or "")
        if parent is None:
            continue
        outer_reads = bool(parent[1].outputs)
        dropped.add(span.span_id if outer_reads or not facts.outputs else parent[0].span_id)
    return [(span, facts) for span, facts in read if span.span_id not in dropped]


def trace_of_observations(trace: LangfuseTrace) -> OtelTrace:
    """The trace of one Langfuse trace's observations (any order)."""
    read: list[tuple[Span, SpanFacts]] = []
    for raw in trace.observations:
        observation = scrub_value(raw, drop_secret_names=True)
        attributes = _attributes(observation)  # metadata is often a JSON string: parsed once
        span = _span(observation, trace.id, attributes)
        facts = _facts(observation, attributes)
        if span.start_ns is None:  # the tree walk orders calls by it: say it was not there
            facts.problems.append("startTime: missing or not a time")
        read.append((span, facts))
    kept = _one_call_each(read)
    _name_tool_runs(kept)
    built = trace_of_facts(
        trace.id,
        kept,
        normalizer_version=LANGFUSE_NORMALIZER_VERSION,
        source_keys=(SOURCE_LANGFUSE_TRACE_ID, SOURCE_LANGFUSE_OBSERVATION_ID),
    )
    # a verdict judges the whole trace: its score goes on the trace, not on the root observation
    built.trace = built.trace.model_copy(
        update={"source_ids": {SOURCE_LANGFUSE_TRACE_ID: trace.id}}
    )
    names = {str(o.get("id")): _where(o) for o in trace.observations}
    built.anomalies = [_renamed(a, names) for a in built.anomalies]
    return built


def _renamed(anomaly: str, names: Mapping[str, str]) -> str:
    """The walk's words for spans in Langfuse's: ``span ID (...)`` is ``observation ID (TYPE
    name)``, and a tool run's arguments are its ``input``."""

    def observation(match: re.Match[str]) -> str:
        return names.get(match.group(1), match.group(0))

    named = _SPAN_NAMED.sub(observation, anomaly)
    return named.replace("(gen_ai.tool.call.arguments)", "(input)")
