"""The OpenTelemetry reader on real exports (mozilla-ai/any-agent's traces of seven agent
frameworks; openinference's GenAI and OpenInference fixtures) and on the messy cases exporters
produce: histories repeated by every model call, tool results on tool spans paired by id or by
order, nested agents, dropped or cut values, JSON inside strings, secrets."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rejudge.importers import (
    Span,
    detect_importer,
    facts_of,
    read_otel,
    spans_of_document,
    trace_of_facts,
    trace_of_spans,
)
from rejudge.model import (
    SOURCE_LANGFUSE_OBSERVATION_ID,
    SOURCE_LANGFUSE_TRACE_ID,
    SOURCE_OTEL_SPAN_ID,
    SOURCE_OTEL_TRACE_ID,
)
from tests.importers.conftest import ANY_AGENT, GENAI_FIXTURES, otlp_export, spans_of

# what a person reads in each any-agent trace: the tools the agent called, in order (every
# framework ran the same task: find the year in New York, write it to a file, list the steps)
EXPECTED_CALLS = {
    "AGNO": ["get_current_time", "write_file"],
    "GOOGLE": ["get_current_time", "write_file", "final_output"],
    "LANGCHAIN": ["get_current_time", "write_file"],
    "LLAMA_INDEX": ["get_current_time", "write_file", "final_output"],
    "OPENAI": ["get_current_time", "write_file"],
    "SMOLAGENTS": ["get_current_time", "write_file", "final_answer"],
    "TINYAGENT": ["get_current_time", "write_file", "final_answer"],
}


@pytest.mark.parametrize("path", ANY_AGENT, ids=lambda p: p.stem)
def test_each_any_agent_trace_reads_as_a_person_reads_it(path: Path) -> None:
    read = read_otel(path)
    [item] = read.traces
    trace = item.trace
    framework = path.stem.removesuffix("_trace")
    assert [c.name for c in trace.calls] == EXPECTED_CALLS[framework]
    first = trace.calls[0]
    assert first.arguments == {"timezone": "America/New_York"}
    assert first.ok is True and first.result["timezone"] == "America/New_York"
    assert trace.calls[1].arguments == {"text": "2025"}
    assert all(c.ok for c in trace.calls)
    assert item.instruction is not None and "America/New_York" in item.instruction
    assert item.models == ["mistral/mistral-small-latest"]
    assert trace.usage["input_tokens"] > 0 and trace.usage["output_tokens"] > 0
    assert trace.timings["latency_s"] > 0
    # the last model call answered with the steps (text or a final tool): a round each
    assert len(trace.rounds) == sum(1 for s in spans_of(path) if s["name"].startswith("call_llm"))
    if framework == "LLAMA_INDEX":
        # its model spans recorded "{}" for every call; the tool spans kept what ran
        assert any("arguments of 'get_current_time': empty" in a for a in item.anomalies)
    else:
        assert item.anomalies == []


@pytest.mark.parametrize("encoding", ["hex", "base64"])
@pytest.mark.parametrize("path", ANY_AGENT[:3], ids=lambda p: p.stem)
def test_the_same_spans_as_otlp_json_give_the_same_trace(
    path: Path, encoding: str, tmp_path: Path
) -> None:
    dumped = read_otel(path).traces[0].trace
    as_otlp = tmp_path / "export.json"
    as_otlp.write_text(json.dumps(otlp_export(spans_of(path), encoding)))
    assert detect_importer(as_otlp).importer.name == "otel"
    assert read_otel(as_otlp).traces[0].trace.hash == dumped.hash
    # the collector's file exporter: one export per line, a trace's spans across lines
    lines = tmp_path / "collector.jsonl"
    lines.write_text("".join(json.dumps(otlp_export([s], encoding)) + "\n" for s in spans_of(path)))
    assert read_otel(lines).traces[0].trace.hash == dumped.hash


def test_the_four_conventions_of_one_exchange_read_alike() -> None:
    """openinference's fixtures: one chat exchange under GenAI (current and deprecated) and
    OpenInference (indexed messages, and input/output values only)."""
    seen = []
    for name in (
        "otel_genai_client_span_tool_calls.json",
        "otel_genai_deprecated_client_span_tool_calls.json",
        "openinference_client_span_tool_calls.json",
        "openinference_client_span_input_output_only.json",
    ):
        attributes = json.loads((GENAI_FIXTURES / name).read_text())
        facts = facts_of(attributes, [])
        assert facts.kind == "llm" and facts.problems == [], name
        # OpenInference counts the total too; the GenAI conventions do not
        total = {"total_tokens": 149} if "llm.token_count.total" in attributes else {}
        assert facts.usage == {"input_tokens": 97, "output_tokens": 52, **total}
        assert facts.provider == "openai" and facts.model == "gpt-4-0613"
        inputs = [
            (m.role, m.text, [(c.id, c.name) for c in m.calls], m.call_id)
            for m in facts.inputs or []
        ]
        outputs = [(m.role, m.text) for m in facts.outputs or []]
        seen.append((inputs, outputs))
    assert all(s == seen[0] for s in seen)
    assert seen[0][0][1][2] == [("1234", "get_weather")] and seen[0][0][2][3] == "1234"


def test_the_tool_execution_span_fixture() -> None:
    facts = facts_of(
        json.loads((GENAI_FIXTURES / "otel_genai_tool_execution_span.json").read_text()), []
    )
    assert (
        facts.kind == "tool" and facts.tool_name == "get_weather" and facts.tool_call_id == "1234"
    )


# --------------------------------------------------------------------------- built trees


def _span(
    sid: int, name: str, attrs: dict[str, Any], parent: int | None = 1, start: int = 0
) -> Span:
    return Span(
        trace_id="ab" * 16,
        span_id=f"{sid:016x}",
        parent_id=f"{parent:016x}" if parent else None,
        name=name,
        start_ns=start,
        end_ns=start + 5,
        attributes=attrs,
    )


def _msgs(*items: dict[str, Any]) -> str:
    return json.dumps(list(items))


USER = {"role": "user", "parts": [{"type": "text", "content": "weather in Paris and Rome?"}]}
CALL_A = {"type": "tool_call", "id": "a", "name": "weather", "arguments": {"city": "Paris"}}
CALL_B = {"type": "tool_call", "id": "b", "name": "weather", "arguments": {"city": "Rome"}}


def _chat(
    sid: int, start: int, history: list[dict[str, Any]], answer: dict[str, Any] | None
) -> Span:
    attrs: dict[str, Any] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.input.messages": _msgs(*history),
    }
    if answer is not None:
        attrs["gen_ai.output.messages"] = _msgs(answer)
    return _span(sid, "chat gpt-4o", attrs, start=start)


def _tool(
    sid: int, start: int, name: str, call_id: str | None, result: Any, parent: int = 1
) -> Span:
    attrs = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.call.result": result,
    }
    if call_id is not None:
        attrs["gen_ai.tool.call.id"] = call_id
    return _span(sid, f"execute_tool {name}", attrs, parent=parent, start=start)


def _weather_tree(with_ids: bool = True, drop_output: bool = False) -> list[Span]:
    turn1 = {"role": "assistant", "parts": [CALL_A, CALL_B]}
    results = {
        "role": "tool",
        "parts": [
            {"type": "tool_call_response", "id": "a", "response": "sunny"},
            {"type": "tool_call_response", "id": "b", "response": "rain"},
        ],
    }
    if not with_ids:  # a framework that numbers nothing: calls, answers and tool spans
        for message in (turn1, results):
            message["parts"] = [{k: v for k, v in p.items() if k != "id"} for p in message["parts"]]
    final = {"role": "assistant", "parts": [{"type": "text", "content": "Paris sunny, Rome rain"}]}
    return [
        _span(1, "invoke_agent weather", {"gen_ai.operation.name": "invoke_agent"}, parent=None),
        _chat(2, 10, [USER], None if drop_output else turn1),
        _tool(3, 20, "weather", "a" if with_ids else None, "sunny"),
        _tool(4, 30, "weather", "b" if with_ids else None, json.dumps(json.dumps({"t": "rain"}))),
        _chat(5, 40, [USER, turn1, results], final),
    ]


def test_histories_repeated_by_every_call_are_not_concatenated() -> None:
    item = trace_of_spans("ab" * 16, _weather_tree())
    trace = item.trace
    assert len(trace.rounds) == 2 and trace.final_text == "Paris sunny, Rome rain"
    assert [(c.arguments, c.result) for c in trace.calls] == [
        ({"city": "Paris"}, "sunny"),
        ({"city": "Rome"}, {"t": "rain"}),  # JSON inside a string inside a string
    ]
    assert item.instruction == "weather in Paris and Rome?" and trace.user_turns == []
    assert item.anomalies == []


def test_the_trace_keeps_its_trace_id_and_root_span_for_verdicts_sent_back() -> None:
    spans = _weather_tree()
    random.Random(3).shuffle(spans)  # the root is found by the tree, not by file order
    assert trace_of_spans("ab" * 16, spans).trace.source_ids == {
        SOURCE_OTEL_TRACE_ID: "ab" * 16,
        SOURCE_OTEL_SPAN_ID: f"{1:016x}",
    }
    # a trace exported in part (its root left out): the first top span to start stands in
    partial = [s for s in _weather_tree() if s.parent_id is not None]
    assert trace_of_spans("ab" * 16, partial).trace.source_ids[SOURCE_OTEL_SPAN_ID] == (f"{2:016x}")
    # another importer of span-like records keeps them under its own keys
    read = [(s, facts_of(s.attributes, s.events)) for s in _weather_tree()]
    keys = (SOURCE_LANGFUSE_TRACE_ID, SOURCE_LANGFUSE_OBSERVATION_ID)
    assert set(trace_of_facts("t1", read, source_keys=keys).trace.source_ids) == set(keys)


def test_tool_spans_without_ids_pair_by_order_under_the_parent() -> None:
    trace = trace_of_spans("ab" * 16, _weather_tree(with_ids=False)).trace
    assert [c.result for c in trace.calls] == ["sunny", {"t": "rain"}]


def test_a_dropped_output_is_read_from_the_next_history_and_named() -> None:
    item = trace_of_spans("ab" * 16, _weather_tree(drop_output=True))
    assert [c.arguments for c in item.trace.calls] == [{"city": "Paris"}, {"city": "Rome"}]
    assert item.anomalies == [
        f"span {2:016x} (chat gpt-4o): output messages: missing; read from the next call's history"
    ]


def test_cut_arguments_and_a_missing_result_are_anomalies_naming_span_and_field() -> None:
    cut = {
        "role": "assistant",
        "parts": [
            {"type": "tool_call", "id": "a", "name": "weather", "arguments": '{"city": "Par...'}
        ],
    }
    spans = [
        _span(1, "agent", {"gen_ai.operation.name": "invoke_agent"}, parent=None),
        _chat(2, 10, [USER], cut),
        _span(
            3,
            "execute_tool weather",
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "weather",
                "gen_ai.tool.call.id": "a",
            },
            start=20,
        ),
    ]
    item = trace_of_spans("ab" * 16, spans)
    [call] = item.trace.calls
    assert call.arguments is None and call.parse_error == "not a JSON object"
    assert call.arguments_raw == '{"city": "Par...'
    where = f"span {2:016x} (chat gpt-4o)"
    assert f"{where}: arguments of 'weather': not a JSON object (cut short?)" in item.anomalies
    assert any(
        a.startswith(f"span {3:016x}") and "gen_ai.tool.call.result: missing" in a
        for a in item.anomalies
    )


def test_nested_agents_are_one_trace_in_the_order_they_ran() -> None:
    outer_turn = {
        "role": "assistant",
        "parts": [{"type": "tool_call", "id": "s", "name": "researcher", "arguments": {"q": "x"}}],
    }
    inner_turn = {
        "role": "assistant",
        "parts": [{"type": "tool_call", "id": "w", "name": "search", "arguments": {"q": "x"}}],
    }
    spans = [
        _span(1, "invoke_agent outer", {"gen_ai.operation.name": "invoke_agent"}, parent=None),
        _chat(2, 10, [USER], outer_turn),
        _span(
            3,
            "invoke_agent researcher",
            {"gen_ai.operation.name": "invoke_agent"},
            parent=1,
            start=20,
        ),
        _span(
            4,
            "chat",
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.input.messages": _msgs({"role": "user", "content": "x"}),
                "gen_ai.output.messages": _msgs(inner_turn),
            },
            parent=3,
            start=30,
        ),
        _tool(5, 40, "search", "w", "found", parent=3),
        _tool(6, 50, "researcher", "s", "report", parent=1),
    ]
    item = trace_of_spans("ab" * 16, spans)
    assert [(c.name, c.result) for c in item.trace.calls] == [
        ("researcher", "report"),
        ("search", "found"),
    ]
    assert item.instruction == "weather in Paris and Rome?"


def test_older_indexed_attributes_and_events_read() -> None:
    attrs = {
        "gen_ai.system": "openai",
        "gen_ai.request.model": "gpt-4",
        "gen_ai.prompt.0.role": "user",
        "gen_ai.prompt.0.content": "hi",
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.finish_reason": "tool_calls",
        "gen_ai.completion.0.tool_calls.0.id": "c1",
        "gen_ai.completion.0.tool_calls.0.name": "lookup",
        "gen_ai.completion.0.tool_calls.0.arguments": '{"k": 1}',
        "gen_ai.usage.prompt_tokens": 3,
        "gen_ai.usage.completion_tokens": 4,
    }
    trace = trace_of_spans("ab" * 16, [_span(1, "openai.chat", attrs, parent=None)]).trace
    [call] = trace.calls
    assert (call.id, call.name, call.arguments) == ("c1", "lookup", {"k": 1})
    assert trace.usage == {"input_tokens": 3, "output_tokens": 4}
    from rejudge.importers import SpanEvent

    span = _span(2, "chat", {"gen_ai.operation.name": "chat"}, parent=None)
    span.events = [
        SpanEvent("gen_ai.user.message", 0, {"content": "hello"}),
        SpanEvent(
            "gen_ai.choice",
            1,
            {
                "body": json.dumps(
                    {"index": 0, "finish_reason": "stop", "message": {"content": "hi there"}}
                )
            },
        ),
    ]
    item = trace_of_spans("cd" * 16, [span])
    assert item.instruction == "hello" and item.trace.final_text == "hi there"


def test_secrets_in_attributes_never_reach_the_trace() -> None:
    key = "sk-" + "A1b2C3d4E5f6G7h8J9k0"
    spans = _weather_tree()
    spans[1].attributes["http.request.header.authorization"] = f"Bearer {key}"
    spans[4].attributes["gen_ai.output.messages"] = _msgs(
        {"role": "assistant", "parts": [{"type": "text", "content": f"your key is {key}"}]}
    )
    item = trace_of_spans("ab" * 16, spans)
    body = json.dumps(item.trace.model_dump(mode="json"))
    assert key not in body and "your key is" in body
    assert all("authorization" not in s.attributes for s in spans)


def test_a_span_without_ids_is_left_out_with_a_problem() -> None:
    problems: list[str] = []
    spans = list(spans_of_document([{"name": "x", "context": {"span_id": "0x01"}}], problems))
    assert spans == [] and problems == ["span 'x': no usable trace_id; left out"]


@settings(max_examples=30, deadline=None)
@given(st.randoms(use_true_random=False))
def test_span_order_in_the_file_does_not_change_the_trace(rng: random.Random) -> None:
    expected = trace_of_spans("ab" * 16, _weather_tree()).trace.hash
    spans = _weather_tree()
    rng.shuffle(spans)
    assert trace_of_spans("ab" * 16, spans).trace.hash == expected


_KEYS = st.sampled_from(
    [
        "gen_ai.operation.name",
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.prompt.0.role",
        "gen_ai.completion.0.tool_calls.0.arguments",
        "gen_ai.tool.call.id",
        "gen_ai.tool.name",
        "gen_ai.tool.call.result",
        "gen_ai.usage.input_tokens",
        "llm.input_messages.0.message.content",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.name",
        "openinference.span.kind",
        "input.value",
        "output.value",
        "gen_ai.output",
    ]
)
_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=20)
    | st.sampled_from(
        ["chat", "execute_tool", "LLM", "TOOL", "[", '{"role": 1}', '"[{}]"', "[null]"]
    ),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.dictionaries(_KEYS, _VALUES, max_size=6), min_size=1, max_size=5))
def test_any_attributes_give_a_trace_or_anomalies_never_a_crash(
    spans_attrs: list[dict[str, Any]],
) -> None:
    spans = [
        _span(i + 1, f"s{i}", attrs, parent=None if i == 0 else 1, start=i)
        for i, attrs in enumerate(spans_attrs)
    ]
    item = trace_of_spans("ab" * 16, spans)
    assert all(isinstance(a, str) and a.startswith("span ") for a in item.anomalies)
    item.trace.hash  # noqa: B018 - the trace hashes (every value in it is JSON)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=40) | st.builds(json.dumps, _VALUES), min_size=1, max_size=6))
def test_any_lines_are_read_or_refused_in_one_line(tmp_path_factory: Any, lines: list[str]) -> None:
    from rejudge.errors import InvalidInputError

    path = tmp_path_factory.mktemp("lines") / "spans.jsonl"
    path.write_text("\n".join(lines))
    try:
        read = read_otel(path)
    except InvalidInputError as exc:
        assert "\n" not in str(exc)
    else:
        assert read.traces


def test_content_on_the_details_event_and_offered_tools_are_read() -> None:
    from rejudge.importers import SpanEvent

    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    span = _span(1, "chat gpt-4o", {"gen_ai.operation.name": "chat"}, parent=None)
    span.events = [
        SpanEvent(
            "gen_ai.client.inference.operation.details",
            0,
            {
                "gen_ai.input.messages": _msgs(USER),
                "gen_ai.output.messages": _msgs({"role": "assistant", "parts": [CALL_A]}),
                "gen_ai.tool.definitions": json.dumps(
                    [
                        {
                            "type": "function",
                            "name": "weather",
                            "description": "d",
                            "parameters": schema,
                        }
                    ]
                ),
            },
        )
    ]
    item = trace_of_spans("ab" * 16, [span])
    assert [c.arguments for c in item.trace.calls] == [{"city": "Paris"}]
    assert [(t.name, t.parameters) for t in item.tools] == [("weather", schema)]


def test_openinference_tool_schemas_are_read() -> None:
    schema = {"type": "object", "properties": {}}
    attrs = {
        "openinference.span.kind": "LLM",
        "llm.tools.0.tool.json_schema": json.dumps(
            {"type": "function", "function": {"name": "f", "parameters": schema}}
        ),
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.content": "ok",
    }
    item = trace_of_spans("ab" * 16, [_span(1, "ChatCompletion", attrs, parent=None)])
    assert [(t.name, t.parameters) for t in item.tools] == [("f", schema)]


def test_indexed_output_messages_cut_at_the_front_are_an_anomaly() -> None:
    # a streamed answer written a message per chunk, its first chunks dropped by the exporter
    attrs = {
        "openinference.span.kind": "LLM",
        "llm.output_messages.7.message.role": "assistant",
        "llm.output_messages.7.message.content": " world",
        "llm.output_messages.8.message.role": "assistant",
        "llm.output_messages.8.message.content": "!",
    }
    item = trace_of_spans("ab" * 16, [_span(1, "ChatCompletion", attrs, parent=None)])
    assert item.anomalies == [
        f"span {1:016x} (ChatCompletion): llm.output_messages: starts at message 7 (cut short)"
    ]
