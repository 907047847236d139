"""The conversation derivation chat-log importers share: a message list as a trace."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from rejudge.importers import Message, conversation_trace, facts_of, message_of
from tests.importers.conftest import GENAI_FIXTURES


def test_the_genai_fixture_conversation_reads_as_its_span_does() -> None:
    facts = facts_of(
        json.loads((GENAI_FIXTURES / "otel_genai_client_span_tool_calls.json").read_text()), []
    )
    messages = [*(facts.inputs or []), *(facts.outputs or [])]
    done = conversation_trace("c", messages)
    trace = done.trace
    assert done.instruction == "Weather in Paris?" and done.problems == []
    assert [(c.id, c.name, c.arguments, c.result, c.ok) for c in trace.calls] == [
        ("1234", "get_weather", {"location": "Paris"}, "rainy, 57°F", True)
    ]
    assert trace.final_text == "The weather in Paris is currently rainy with a temperature of 57°F."
    assert len(trace.rounds) == 2


def test_openai_chat_messages_with_ids_and_without() -> None:
    with_ids = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "two cities"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "a",
                    "type": "function",
                    "function": {"name": "w", "arguments": '{"c": "P"}'},
                },
                {
                    "id": "b",
                    "type": "function",
                    "function": {"name": "w", "arguments": '"{\\"c\\": \\"R\\"}"'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "b", "content": '{"t": 2}'},
        {"role": "tool", "tool_call_id": "a", "content": '{"t": 1}'},
        {"role": "assistant", "content": "P 1, R 2"},
        {"role": "user", "content": "thanks"},
    ]
    trace = conversation_trace("c", [m for m in map(message_of, with_ids) if m]).trace
    assert [(c.arguments, c.result) for c in trace.calls] == [
        ({"c": "P"}, {"t": 1}),
        ({"c": "R"}, {"t": 2}),
    ]
    assert [(t.before_round, t.text) for t in trace.user_turns] == [
        (0, "two cities"),
        (2, "thanks"),
    ]
    without = [{k: v for k, v in m.items() if k not in ("id", "tool_call_id")} for m in with_ids]
    for m in without:
        for call in m.get("tool_calls") or []:
            call.pop("id", None)
    trace = conversation_trace("c", [m for m in map(message_of, without) if m]).trace
    # no ids: results answer the turn's calls in order
    assert [c.result for c in trace.calls] == [{"t": 2}, {"t": 1}]


def test_a_tool_result_answering_no_call_is_a_problem() -> None:
    done = conversation_trace("c", [Message("user", "hi"), Message("tool", "x", call_id="z")])
    assert done.problems == ["message 1: a tool result that answers no call"]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "role": st.sampled_from(["user", "assistant", "tool", "system"]),
                "content": st.text(max_size=10) | st.none(),
            },
            optional={
                "tool_call_id": st.sampled_from(["a", "b"]),
                "tool_calls": st.lists(
                    st.fixed_dictionaries(
                        {
                            "id": st.sampled_from(["a", "b"]),
                            "function": st.fixed_dictionaries(
                                {
                                    "name": st.sampled_from(["f", "g"]),
                                    "arguments": st.text(max_size=8),
                                }
                            ),
                        }
                    ),
                    max_size=2,
                ),
            },
        ),
        max_size=8,
    )
)
def test_any_message_list_gives_a_trace(raw: list[dict[str, object]]) -> None:
    messages = [m for m in map(message_of, raw) if m is not None]
    done = conversation_trace("c", messages)
    assert len(done.trace.rounds) == sum(1 for m in raw if m["role"] == "assistant")
    done.trace.hash  # noqa: B018 - every value in it is JSON
