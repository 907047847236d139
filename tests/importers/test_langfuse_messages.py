"""An observation's input/output in the shapes Langfuse's integrations write, as messages: the
ones the real framework traces do not show (tests/importers/test_langfuse_read.py reads those),
each as its SDK documents it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rejudge.importers._langfuse_messages import read_messages


def _seen(value: Any, *, output: bool = False) -> list[tuple[str, str | None, list[Any], Any]]:
    found = read_messages(value, output=output)
    assert found is not None
    return [
        (m.role, m.text, [(c.id, c.name, c.arguments) for c in m.calls], m.call_id) for m in found
    ]


def test_anthropic_tool_use_and_tool_result_blocks() -> None:
    history = {
        "system": "be brief",
        "messages": [
            {"role": "user", "content": "Weather in Oslo?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Checking."},
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "weather",
                        "input": {"city": "Oslo"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "-3°C"},
                    {"type": "text", "text": "and tomorrow?"},
                ],
            },
        ],
    }
    assert _seen(history) == [
        ("user", "Weather in Oslo?", [], None),
        ("assistant", "Checking.", [("toolu_1", "weather", {"city": "Oslo"})], None),
        ("tool", "-3°C", [], "toolu_1"),
        ("user", "and tomorrow?", [], None),
    ]


def test_gemini_function_call_and_response_parts() -> None:
    contents = {
        "contents": [
            {"role": "user", "parts": [{"text": "Weather in Oslo?"}]},
            {
                "role": "model",
                "parts": [{"function_call": {"name": "weather", "args": {"city": "Oslo"}}}],
            },
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": "weather", "response": {"t": -3}}}],
            },
        ]
    }
    assert _seen(contents) == [
        ("user", "Weather in Oslo?", [], None),
        ("assistant", None, [(None, "weather", {"city": "Oslo"})], None),
        ("tool", '{"t": -3}', [], None),
    ]
    answer = {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "Cold."}]}, "finish_reason": "STOP"}
        ]
    }
    assert _seen(answer, output=True) == [("assistant", "Cold.", [], None)]


def test_vercel_ai_sdk_tool_call_and_tool_result_parts() -> None:
    prompt = [
        {"role": "user", "content": [{"type": "text", "text": "Weather in Oslo?"}]},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool-call",
                    "toolCallId": "c1",
                    "toolName": "weather",
                    "input": {"city": "Oslo"},
                }
            ],
        },
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": "c1",
                    "toolName": "weather",
                    "output": {"type": "json", "value": {"t": -3}},
                }
            ],
        },
    ]
    assert _seen(json.dumps(prompt)) == [
        ("user", "Weather in Oslo?", [], None),
        ("assistant", None, [("c1", "weather", {"city": "Oslo"})], None),
        ("tool", '{"t": -3}', [], "c1"),
    ]


def test_langchain_serialised_messages_and_its_tool_calls() -> None:
    messages = [
        {
            "lc": 1,
            "type": "constructor",
            "id": ["langchain_core", "messages", "HumanMessage"],
            "kwargs": {"content": "Weather in Oslo?"},
        },
        {
            "lc": 1,
            "type": "constructor",
            "id": ["langchain_core", "messages", "AIMessage"],
            "kwargs": {
                "content": "",
                "tool_calls": [
                    {"name": "weather", "args": {"city": "Oslo"}, "id": "c1", "type": "tool_call"}
                ],
            },
        },
        {
            "lc": 1,
            "type": "constructor",
            "id": ["langchain_core", "messages", "ToolMessage"],
            "kwargs": {"content": "-3°C", "tool_call_id": "c1"},
        },
    ]
    assert _seen(messages) == [
        ("user", "Weather in Oslo?", [], None),
        ("assistant", "", [("c1", "weather", {"city": "Oslo"})], None),
        ("tool", "-3°C", [], "c1"),
    ]


def test_openai_responses_items_with_instructions() -> None:
    request = {
        "instructions": "be brief",
        "input": [
            {"role": "user", "content": "Weather in Oslo?"},
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "weather",
                "arguments": '{"city":"Oslo"}',
            },
            {"type": "function_call_output", "call_id": "call_1", "output": "-3°C"},
        ],
    }
    assert _seen(request) == [
        ("system", "be brief", [], None),
        ("user", "Weather in Oslo?", [], None),
        ("assistant", None, [("call_1", "weather", '{"city":"Oslo"}')], None),
        ("tool", "-3°C", [], "call_1"),
    ]


@pytest.mark.parametrize(
    "value",
    [
        {"args": ["What is Langfuse?"]},  # no message shape: left to the span attributes
        ["role='user' content='hi'"],  # a Python repr in a list is no message
        42,
    ],
)
def test_what_is_no_message_shape_is_none(value: Any) -> None:
    assert read_messages(value, output=False) is None
