"""The OpenTelemetry reader on the OTLP requests of LangWatch's collector test (extracted from
langwatch/langwatch's otel.traces.test.ts, tests/data/otel/langwatch/README): OpenInference,
OpenLLMetry, Strands Agents (Bedrock Converse content in events), Spring AI, GenAI content
blocks, and spans that are no model call at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from rejudge.errors import InvalidInputError
from rejudge.importers import detect_importer, read_otel
from tests.importers.conftest import OTEL_DATA

LANGWATCH = OTEL_DATA / "langwatch"
FILES = sorted(LANGWATCH.glob("*.json"))

# (the user's words, the calls (tool, arguments, result), the final answer, tokens in/out):
# as LangWatch's test expects each request to read
CONVERSATIONS = {
    "openinference-openai": ("hi", [], "Hey there! 😊👋 What's up? 🌟", None),
    "openllmetry-openai": ("yous", [], "Hey there! 😊 What's on your mind? 💬✨", None),
    "strands-trace": (
        "yo",
        [],
        "Hello! What would you like to look at or explore today?",
        (24, 10),
    ),
    "strands-agents-trace-v1_14": (
        "testing",
        [("get_user_location", {}, "London, UK")],
        "Test received — I called the location tool and show your location as London, UK. "
        "How can I help or what would you like to test next?",
        (134 + 163, 84 + 103),
    ),
    "genai-anthropic-blocks": (
        "What is the weather?",
        [],
        "The weather in London is sunny at 22°C.",
        (150, 25),
    ),
}


def assert_usage(usage: dict[str, int], tokens_in: int, tokens_out: int) -> None:
    """Tokens in and out as expected; a total only where the spans count one (Strands and
    Spring AI write gen_ai.usage.total_tokens), and then their sum."""
    assert {k: v for k, v in usage.items() if k != "total_tokens"} == {
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
    }
    assert usage.get("total_tokens", tokens_in + tokens_out) == tokens_in + tokens_out


def test_every_request_is_taken_by_the_otel_importer() -> None:
    assert len(FILES) == 12
    for path in FILES:
        found = detect_importer(path)
        assert found.importer.name == "otel", path.name
        assert found.detection.reason == "an OTLP JSON export (resourceSpans)"


@pytest.mark.parametrize("name", sorted(CONVERSATIONS))
def test_each_model_exchange_reads_as_langwatch_expects(name: str) -> None:
    instruction, calls, final, tokens = CONVERSATIONS[name]
    [item] = read_otel(LANGWATCH / f"{name}.json").traces
    assert item.instruction == instruction
    assert [(c.name, c.arguments, c.result) for c in item.trace.calls] == calls
    assert all(c.ok for c in item.trace.calls)
    assert item.trace.final_text == final
    if tokens is not None:
        assert_usage(item.trace.usage, *tokens)
    assert item.anomalies == []


def test_strands_tool_call_is_paired_by_its_tool_use_id() -> None:
    [item] = read_otel(LANGWATCH / "strands-agents-trace-v1_14.json").traces
    [call] = item.trace.calls
    assert call.id == "call_hdzL5ISsJA4mCJ1mWBGkqtzz"
    assert item.models == ["openai/gpt-5-mini"] and item.providers == ["strands-agents"]


def test_spring_ai_keeps_usage_but_no_content_and_says_so() -> None:
    [item] = read_otel(LANGWATCH / "spring-ai.json").traces
    assert item.trace.rounds == []
    assert_usage(item.trace.usage, 11, 13)
    assert item.anomalies == [
        "span 0dedf6826df097a9 (chat gpt-5): output messages: missing (no round for this call)"
    ]


@pytest.mark.parametrize(
    "name", ["fastapi", "openllmetry-langchain", "strands-agents-trace", "trace-with-exception"]
)
def test_spans_of_no_model_call_give_a_trace_without_rounds(name: str) -> None:
    [item] = read_otel(LANGWATCH / f"{name}.json").traces
    assert item.trace.rounds == [] and item.anomalies == []
    if name == "trace-with-exception":
        assert item.trace.status == "agent_error" and item.trace.error is not None
        assert item.trace.error.message == "span ee89354604d592b8 (POST /): Exception: BROKEN"
    else:
        assert item.trace.status == "completed"


@pytest.mark.parametrize(
    ("name", "span"),
    [("genai-parts", "openclaw.agent.turn"), ("genai-tool-operation", "get_weather")],
)
def test_hand_written_ids_that_are_no_otlp_ids_are_refused_in_one_line(
    name: str, span: str
) -> None:
    path: Path = LANGWATCH / f"{name}.json"
    with pytest.raises(InvalidInputError) as exc:
        read_otel(path)
    assert (
        str(exc.value)
        == f"{path}: no spans in the file: span {span!r}: no usable traceId; left out"
    )
