"""Ruby VCR's ``!binary``, Bedrock InvokeModel, Cohere v1, Ollama and Gemini candidates, read
from the real files in tests/data/world (origins in its README): what the trace holds."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from rejudge.recorder import CassetteError, parse_cassette, read_cassette, trace_of
from rejudge.recorder.wire import (
    describe_wire_formats,
    detect_wire_format,
    get_wire_format,
    parse_gemini,
    parse_gemini_stream,
    wire_formats,
)

from rejudge.model import Trace

WORLD = Path(__file__).resolve().parents[1] / "data" / "world"


def _trace(rel: str) -> Trace:
    return trace_of(read_cassette(WORLD / rel), case_id="c", repetition=0)


def _formats(rel: str) -> list[str]:
    cassette = read_cassette(WORLD / rel)
    return [
        detect_wire_format(ex.url, ex.request_body, ex.response_headers)
        for ex in cassette.exchanges
    ]


# --------------------------------------------------------------------------- Ruby's !binary


def test_ruby_binary_bodies_decode_to_the_text_they_hold() -> None:
    rel = "ruby_llm/chat_function_calling_anthropic_claude-haiku-4-5_can_use_tools.yml"
    trace = _trace(rel)
    assert [(c.name, c.arguments) for c in trace.calls] == [
        ("weather", {"latitude": "52.5200", "longitude": "13.4050"})
    ]
    # the tool result with the degree sign is the reason Ruby wrote !binary at all
    assert trace.calls[0].result == "Current weather at 52.5200, 13.4050: 15°C, Wind: 10 km/h"
    assert trace.final_text is not None and "15°C" in trace.final_text


def test_a_binary_value_that_is_not_base64_names_the_file_and_line() -> None:
    text = (
        "http_interactions:\n- request:\n    method: post\n    uri: https://x/v1/messages\n"
        "  response:\n    body:\n      string: !binary |-\n        not*base64*at*all\n"
    )
    with pytest.raises(CassetteError, match=r"ruby\.yml: invalid YAML at line 7.*not base64"):
        parse_cassette(text, "ruby.yml")


def test_a_binary_body_round_trips_through_the_reader() -> None:
    body = json.dumps({"type": "message", "content": [{"type": "text", "text": "15°C"}]})
    encoded = base64.b64encode(body.encode()).decode()
    text = (
        "http_interactions:\n- request:\n    method: post\n    uri: https://x/v1/messages\n"
        "    body:\n      string: '{}'\n  response:\n    status:\n      code: 200\n"
        f"    body:\n      encoding: ASCII-8BIT\n      string: !binary |-\n        {encoded}\n"
    )
    cassette = parse_cassette(text, "ruby.yml")
    assert cassette.exchanges[0].response_body["content"][0]["text"] == "15°C"


# --------------------------------------------------------------------------- Bedrock InvokeModel


def test_invoke_stream_of_anthropic_events_reads_as_anthropic_would() -> None:
    rel = "openinference/bedrock/TestInvokeModelWithStreamResponse.test_invoke.yaml"
    trace = _trace(rel)
    assert trace.status == "completed" and trace.error is None
    (round_,) = trace.rounds
    assert [(c.name, c.arguments) for c in round_.calls] == [
        ("get_current_weather_info", {"city": "San Francisco"}),
        ("get_current_population_info", {"city": "San Francisco"}),
    ]
    assert round_.text is not None and round_.text.startswith("Of course! I'd be happy")
    assert round_.finish_reason == "tool_use"
    fmt = get_wire_format("bedrock-invoke-model")
    url = "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3%3A0/invoke"
    assert fmt.model_in_url(url) == "anthropic.claude-3:0"


def test_invoke_stream_of_nova_events_reads_as_converse_would() -> None:
    trace = _trace(
        "openinference/bedrock/TestNovaInvokeModelWithResponseStream.test_nova_micro_streaming.yaml"
    )
    assert trace.status == "completed" and trace.error is None
    assert trace.final_text == "The three primary colors are red, blue, and yellow."
    assert trace.rounds[0].finish_reason == "end_turn"


def test_invoke_with_a_nova_body_keeps_its_tool_use_and_its_tools() -> None:
    rel = "openinference/bedrock/TestNovaInvokeModel.test_nova_with_tool_use.yaml"
    trace = _trace(rel)
    assert [(c.name, c.arguments) for c in trace.calls] == [
        ("get_weather", {"location": "Seattle"})
    ]
    request = read_cassette(WORLD / rel).exchanges[0].request_body
    specs = get_wire_format("bedrock-invoke-model").tool_specs(request)
    assert [s.name for s in specs] == ["get_weather"]
    assert specs[0].parameters["required"] == ["location"]


def test_invoke_of_a_body_no_vendor_format_reads_is_not_claimed() -> None:
    # a Titan embedding through /invoke carries no model turn: InvokeModel leaves it alone
    url = "https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.titan-embed-text-v2%3A0/invoke"
    assert detect_wire_format(url, {"inputText": "hello", "dimensions": 256}) == "unknown"


# --------------------------------------------------------------------------- Cohere v1


def test_cohere_v1_agent_links_its_tool_result_and_leaves_the_listing_out() -> None:
    rel = "langchain-cohere-v1/test_langchain_tool_calling_agent.yaml"
    assert _formats(rel) == ["unknown", "cohere-chat-v1", "cohere-chat-v1"]
    trace = _trace(rel)
    (call,) = trace.calls
    assert (call.name, call.arguments, call.result) == (
        "magic_function",
        {"input": 3},
        {"output": "5"},
    )
    assert trace.final_text == "The value of magic_function(3) is **5**."


def test_cohere_v1_tools_become_json_schema() -> None:
    rel = "langchain-cohere-v1/test_invoke_tool_calls.yaml"
    request = read_cassette(WORLD / rel).exchanges[0].request_body
    (spec,) = get_wire_format("cohere-chat-v1").tool_specs(request)
    assert spec.name == "Person"
    assert spec.parameters == {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The name of the person"},
            "age": {"type": "integer", "description": "The age of the person"},
        },
        "required": ["name", "age"],
    }
    assert get_wire_format("cohere-chat-v1").first_user_text(request) == "Erick, 27 years old"


def test_cohere_v1_stream_reads_the_calls_of_its_stream_end() -> None:
    trace = _trace("langchain-cohere-v1/test_streaming_tool_call.yaml")
    assert [(c.name, c.arguments) for c in trace.calls] == [
        ("Person", {"age": 27, "name": "Erick"})
    ]
    assert trace.rounds[0].finish_reason == "COMPLETE"


def test_cohere_v1_stream_cut_before_its_end_is_truncated() -> None:
    lines = [
        {"is_finished": False, "event_type": "stream-start", "generation_id": "g"},
        {"is_finished": False, "event_type": "text-generation", "text": "Arr"},
    ]
    turn = get_wire_format("cohere-chat-v1").parse_response("\n".join(map(json.dumps, lines)))
    assert turn.truncated and turn.text == "Arr"


# --------------------------------------------------------------------------- Ollama


def test_ollama_tool_call_arguments_are_an_object_and_thinking_stays_out() -> None:
    trace = _trace("openinference/ollama/test_chat_with_tool_call.yaml")
    (call,) = trace.calls
    assert (call.id, call.name, call.arguments) == (
        "call_gsiiy8py",
        "get_current_weather",
        {"city": "Paris"},
    )
    assert not trace.final_text  # the reasoning is in ``thinking``, not the answer


def test_ollama_ndjson_stream_joins_its_fragments() -> None:
    trace = _trace("openllmetry/ollama/test_ollama_streaming_chat_legacy.yaml")
    assert trace.status == "completed" and trace.error is None
    assert trace.final_text is not None
    assert trace.final_text.startswith("Why did the OpenTelemetry agent go to therapy?")
    assert trace.rounds[0].finish_reason == "stop"


def test_ollama_request_history_gives_its_echoed_call_and_named_result() -> None:
    rel = "openllmetry/ollama/test_ollama_chat_tool_calls_legacy.yaml"
    request = read_cassette(WORLD / rel).exchanges[0].request_body
    fmt = get_wire_format("ollama-chat")
    (echoed,) = fmt.echoed_calls(request)
    assert [(e.name, json.loads(e.arguments_raw or "")) for e in echoed] == [
        ("get_current_weather", {"location": "San Francisco"})
    ]
    (result,) = fmt.tool_results(request)
    assert result.content == "The weather in San Francisco is 70 degrees and sunny."


# --------------------------------------------------------------------------- Gemini candidates


def _candidate(index: int, parts: list[dict[str, Any]], finish: str | None = "STOP") -> dict:
    out: dict[str, Any] = {"index": index, "content": {"role": "model", "parts": parts}}
    if finish:
        out["finishReason"] = finish
    return out


def test_gemini_other_candidates_are_alternatives() -> None:
    call = {"functionCall": {"name": "w", "args": {"city": "Oslo"}}}
    body = {
        "candidates": [_candidate(0, [call]), _candidate(1, [{"text": "It rains."}])],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 5},
    }
    turn = parse_gemini(body)
    assert [(c.name, c.arguments) for c in turn.calls] == [("w", {"city": "Oslo"})]
    [alt] = turn.alternatives
    assert (alt.choice, alt.calls, alt.text, alt.finish_reason) == (1, [], "It rains.", "STOP")


def test_gemini_stream_candidates_join_per_index() -> None:
    chunks = [
        {
            "candidates": [
                _candidate(0, [{"text": "A"}], None),
                _candidate(1, [{"text": "B"}], None),
            ]
        },
        {"candidates": [_candidate(1, [{"text": "b"}]), _candidate(0, [{"text": "a"}])]},
    ]
    turn = parse_gemini_stream(chunks)
    assert (turn.text, turn.truncated) == ("Aa", False)
    assert [(a.choice, a.text) for a in turn.alternatives] == [(1, "Bb")]


# --------------------------------------------------------------------------- the listing


def test_the_no_model_exchange_message_lists_every_registered_format() -> None:
    listed = describe_wire_formats()
    for fmt in wire_formats():
        assert (fmt.title or fmt.name) in listed
    for title in ("Bedrock InvokeModel", "Cohere v1 chat", "Ollama chat", "Cohere v2 chat"):
        assert title in listed
