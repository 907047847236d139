"""A ``tool_calls`` that is not a list, in a request's echo of an earlier turn or in a model's
response: never a traceback, never calls made up from its characters or keys."""

from __future__ import annotations

from typing import Any

import pytest
from rejudge.recorder.wire import get_wire_format

#: what a malformed ``tool_calls`` may be instead of a list
NOT_A_LIST = ["ab", 5, True, {"function": {"name": "f", "arguments": {}}}]


@pytest.mark.parametrize("value", NOT_A_LIST)
def test_ollama_echoes_no_turn_from_a_tool_calls_that_is_no_list(value: Any) -> None:
    """As chat's, Anthropic's, Bedrock's and Cohere v1's echoes pass over an assistant message
    without a list: a text was echoed as one empty call per character, an object as one per
    key, and a number raised."""
    fmt = get_wire_format("ollama-chat")
    request = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "", "tool_calls": value},
            {"role": "tool", "content": "42"},
        ],
    }
    assert fmt.echoed_calls(request) == []


def test_ollama_echoes_a_list_of_calls_as_before() -> None:
    fmt = get_wire_format("ollama-chat")
    call = {"function": {"name": "f", "arguments": {"a": 1}}}
    request = {"messages": [{"role": "assistant", "tool_calls": [call, {"function": {}}]}]}
    assert [[(e.id, e.name, e.arguments_raw) for e in t] for t in fmt.echoed_calls(request)] == [
        [(None, "f", '{"a":1}'), (None, None, None)]
    ]
