"""The wire-format registry: every registered format detects its own exchanges and no other's."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rejudge.recorder.providers import get_provider
from rejudge.recorder.wire import (
    DETECT_NONE,
    DETECT_PATH,
    WIRE_FORMATS,
    AssistantTurn,
    Probe,
    UnknownWireFormatError,
    WireFormat,
    detect_wire_format,
    find_wire_format,
    get_wire_format,
    make_probe,
    parse_response,
    register_wire_format,
    wire_formats,
)

# one realistic request per format: (url, request body, response headers)
SAMPLES: dict[str, tuple[str, dict[str, Any], dict[str, list[str]]]] = {
    "openai-chat": (
        "https://api.openai.com/v1/chat/completions",
        {
            "model": "gpt-4o",
            "messages": [
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": "weather?"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": "rain"},
            ],
            "tools": [
                {
                    "type": "function",
                    "function": {"name": "get_weather", "parameters": {"type": "object"}},
                }
            ],
        },
        {"content-type": ["application/json"], "openai-processing-ms": ["12"]},
    ),
    "openai-responses": (
        "https://api.openai.com/v1/responses",
        {
            "model": "gpt-5",
            "input": [
                {"role": "user", "content": "weather?"},
                {
                    "type": "function_call",
                    "call_id": "c1",
                    "name": "get_weather",
                    "arguments": "{}",
                },
                {"type": "function_call_output", "call_id": "c1", "output": "rain"},
            ],
            "tools": [{"type": "function", "name": "get_weather", "parameters": {}}],
        },
        {"content-type": ["application/json"]},
    ),
    "anthropic-messages": (
        "https://api.anthropic.com/v1/messages",
        {
            "model": "claude-x",
            "max_tokens": 100,
            "system": "be brief",
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "weather?"}]},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t1", "name": "w", "input": {}}],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "rain"}],
                },
            ],
            "tools": [{"name": "w", "input_schema": {"type": "object"}}],
        },
        {"content-type": ["application/json"], "anthropic-ratelimit-requests-limit": ["50"]},
    ),
    "gemini-generate-content": (
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0:generateContent",
        {
            "contents": [
                {"role": "user", "parts": [{"text": "weather?"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "w", "args": {}}}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "w", "response": {}}}]},
            ],
            "tools": [{"functionDeclarations": [{"name": "w", "parameters": {"type": "object"}}]}],
        },
        {"content-type": ["application/json"]},
    ),
    "bedrock-converse": (
        "https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-micro-v1%3A0/converse",
        {
            "messages": [
                {"role": "user", "content": [{"text": "weather?"}]},
                {
                    "role": "assistant",
                    "content": [{"toolUse": {"toolUseId": "t1", "name": "w", "input": {}}}],
                },
                {
                    "role": "user",
                    "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "rain"}]}}],
                },
            ],
            "system": [{"text": "be brief"}],
            "toolConfig": {
                "tools": [{"toolSpec": {"name": "w", "inputSchema": {"json": {"type": "object"}}}}]
            },
        },
        {"content-type": ["application/json"], "x-amzn-requestid": ["r1"]},
    ),
    "bedrock-invoke-model": (
        "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-haiku%3A0/invoke",
        {
            "anthropic_version": "bedrock-2023-05-31",
            "max_tokens": 100,
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "weather?"}]},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t1", "name": "w", "input": {}}],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "rain"}],
                },
            ],
            "tools": [{"name": "w", "input_schema": {"type": "object"}}],
        },
        {"content-type": ["application/json"], "x-amzn-requestid": ["r1"]},
    ),
    "cohere-chat": (
        "https://api.cohere.com/v2/chat",
        {
            "model": "command-r-plus",
            "messages": [
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": "weather?"},
                {
                    "role": "assistant",
                    "tool_plan": "I will look it up.",
                    "tool_calls": [
                        {
                            "id": "w_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "w_1", "content": "rain"},
            ],
            "tools": [
                {
                    "type": "function",
                    "function": {"name": "get_weather", "parameters": {"type": "object"}},
                }
            ],
        },
        {"content-type": ["application/json"]},
    ),
    "cohere-chat-v1": (
        "https://api.cohere.com/v1/chat",
        {
            "message": "",
            "chat_history": [
                {"role": "SYSTEM", "message": "be brief"},
                {"role": "USER", "message": "weather?"},
                {
                    "role": "CHATBOT",
                    "message": "I will look it up.",
                    "tool_calls": [{"name": "get_weather", "parameters": {"city": "Oslo"}}],
                },
            ],
            "tools": [
                {
                    "name": "get_weather",
                    "parameter_definitions": {"city": {"type": "str", "required": True}},
                }
            ],
            "tool_results": [
                {
                    "call": {"name": "get_weather", "parameters": {"city": "Oslo"}},
                    "outputs": [{"weather": "rain"}],
                }
            ],
        },
        {"content-type": ["application/json"]},
    ),
    "ollama-chat": (
        "http://localhost:11434/api/chat",
        {
            "model": "llama3.1",
            "messages": [
                {"role": "user", "content": "weather?"},
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}
                    ],
                },
                {"role": "tool", "content": "rain", "tool_name": "get_weather"},
            ],
            "tools": [
                {
                    "type": "function",
                    "function": {"name": "get_weather", "parameters": {"type": "object"}},
                }
            ],
            "stream": False,
        },
        {"content-type": ["application/json; charset=utf-8"]},
    ),
}

# what answered each sample (detection may look at the response's shape too)
RESPONSES: dict[str, Any] = {
    "openai-chat": {"choices": [{"index": 0, "message": {"content": "rain"}}]},
    "openai-responses": {"output": [{"type": "message", "content": []}], "status": "completed"},
    "anthropic-messages": {"content": [{"type": "text", "text": "rain"}], "stop_reason": "x"},
    "gemini-generate-content": {"candidates": [{"content": {"parts": [{"text": "rain"}]}}]},
    "bedrock-converse": {"output": {"message": {"content": [{"text": "rain"}]}}},
    "bedrock-invoke-model": {"type": "message", "content": [{"type": "text", "text": "rain"}]},
    "cohere-chat": {"message": {"role": "assistant", "content": []}, "finish_reason": "COMPLETE"},
    "cohere-chat-v1": {"text": "rain", "generation_id": "g1", "finish_reason": "COMPLETE"},
    "ollama-chat": {"model": "llama3.1", "message": {"content": "rain"}, "done": True},
}

# the body alone (through a proxy path) identifies these formats; Gemini is found by path only,
# Cohere v2 and Ollama (whose requests are chat completions' shape) by path or by their response
BODY_DETECTABLE = (
    "openai-chat",
    "openai-responses",
    "anthropic-messages",
    "bedrock-converse",
    "bedrock-invoke-model",
    "cohere-chat-v1",
)
RESPONSE_DETECTABLE = ("cohere-chat", "gemini-generate-content", "ollama-chat")


def test_the_built_in_formats_are_registered_objects_in_order() -> None:
    names = [f.name for f in wire_formats()]
    assert names == list(WIRE_FORMATS) == list(SAMPLES)
    for name in names:
        fmt = get_wire_format(name)
        assert isinstance(fmt, WireFormat) and fmt.name == name
    assert get_provider("openai").wire_format is get_wire_format("openai-chat")
    assert get_provider("llama-cpp").wire_format is get_wire_format("openai-chat")
    assert get_provider("anthropic").wire_format is get_wire_format("anthropic-messages")


@pytest.mark.parametrize("name", list(SAMPLES))
def test_each_format_detects_its_own_sample(name: str) -> None:
    url, body, headers = SAMPLES[name]
    assert detect_wire_format(url, body, headers) == name
    assert detect_wire_format(url, json.dumps(body), headers) == name
    assert get_wire_format(name).detect(make_probe(url, body, headers)) == DETECT_PATH
    specs = get_wire_format(name).tool_specs(body)
    assert specs and specs[0].name in ("get_weather", "w")
    assert get_wire_format(name).first_user_text(body) == "weather?"


@pytest.mark.parametrize("name", list(SAMPLES))
def test_no_body_of_another_format_is_taken_for_this_one(name: str) -> None:
    fmt = get_wire_format(name)
    for other, (url, body, headers) in SAMPLES.items():
        if other == name:
            continue
        # by its own URL, the other format wins outright
        probe = make_probe(url, body, headers)
        assert fmt.detect(probe) < get_wire_format(other).detect(probe), other
        assert detect_wire_format(url, body, headers) == other
        # through a proxy path that names no API, with the response that answered it, this
        # format does not claim the other's exchange
        response = RESPONSES[other]
        for proxied in (
            make_probe("/proxy", body, headers, response),
            make_probe("/proxy", body, None, response),
        ):
            assert fmt.detect(proxied) == DETECT_NONE, (other, proxied)
        if other in BODY_DETECTABLE:
            assert detect_wire_format("/proxy", body, headers) == other
        elif other not in RESPONSE_DETECTABLE:
            assert detect_wire_format("/proxy", body, headers) == "unknown"
        found = find_wire_format(make_probe("/proxy", body, headers, response))
        expected = other if other in BODY_DETECTABLE + RESPONSE_DETECTABLE else None
        assert (found.name if found else None) == expected, other


def test_other_endpoints_of_known_apis_are_no_model_exchange() -> None:
    _, chat_body, _ = SAMPLES["openai-chat"]
    for path in ("/v1/models", "/v1/completions", "/v1beta/models/g:countTokens"):
        assert detect_wire_format(path, chat_body) == "unknown"


def test_unknown_names_are_refused_by_lookup_and_reported_by_parsing() -> None:
    # the registry's one message, the known names sorted as for every kind
    known = ", ".join(sorted(WIRE_FORMATS))
    with pytest.raises(UnknownWireFormatError) as info:
        get_wire_format("openai-chat.v2")
    assert str(info.value) == f"unknown wire format 'openai-chat.v2' (known: {known})"
    assert info.value.field == "wire_format"
    turn = parse_response("nope", "{}")
    assert isinstance(turn, AssistantTurn) and turn.error == "unknown wire format 'nope'"


class _EchoFormat(WireFormat):
    """A toy format that claims any path ending in ``/echo``."""

    name = "test-echo"
    provider = "test"

    def detect(self, probe: Probe) -> int:
        return DETECT_PATH if probe.path.endswith("/echo") else DETECT_NONE

    def parse_message(self, body: dict[str, Any]) -> AssistantTurn:
        return AssistantTurn(text=str(body.get("say")))

    def assemble_stream(self, text: str) -> AssistantTurn:
        return AssistantTurn(text=text)

    def tool_results(self, request_body: Any) -> list[Any]:
        return []

    def echoed_calls(self, request_body: Any) -> list[Any]:
        return []

    def tool_specs(self, request_body: Any) -> list[Any]:
        return []

    def user_texts(self, request_body: Any) -> list[str]:
        return []


def test_a_registered_format_takes_part_in_detection_and_dispatch() -> None:
    from rejudge.registry import REGISTRY

    echo = _EchoFormat()
    register_wire_format(echo)
    try:
        assert detect_wire_format("https://x/api/echo", {"messages": []}) == "test-echo"
        assert parse_response("test-echo", '{"say": "hi"}').text == "hi"
        with pytest.raises(ValueError, match="already registered"):
            register_wire_format(_EchoFormat())
    finally:
        REGISTRY.unregister("wire_format", "test-echo")
    assert detect_wire_format("https://x/api/echo", {"messages": []}) == "openai-chat"
    assert "test-echo" not in REGISTRY.names("wire_format")
    assert REGISTRY.names("wire_format") == sorted(WIRE_FORMATS)
