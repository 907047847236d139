"""User turns of a conversation, from every format's message history."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rejudge.recorder import Exchange, normalize_exchanges, read_cassette, trace_from_cassette

REAL = Path("/work/shared/real-cassettes")

History = list[tuple[str, str]]  # (role, text)


def _chat(history: History) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": r, "content": t} for r, t in history]}


def _responses(history: History) -> dict[str, Any]:
    return {"model": "m", "input": [{"role": r, "content": t} for r, t in history]}


def _anthropic(history: History) -> dict[str, Any]:
    return {
        "model": "m",
        "max_tokens": 9,
        "messages": [{"role": r, "content": [{"type": "text", "text": t}]} for r, t in history],
    }


def _gemini(history: History) -> dict[str, Any]:
    return {
        "contents": [
            {"role": "model" if r == "assistant" else "user", "parts": [{"text": t}]}
            for r, t in history
        ]
    }


def _bedrock(history: History) -> dict[str, Any]:
    return {"messages": [{"role": r, "content": [{"text": t}]} for r, t in history]}


FORMATS: dict[str, tuple[str, Callable[[History], dict[str, Any]], Callable[[str], Any]]] = {
    "openai-chat": (
        "https://api.openai.com/v1/chat/completions",
        _chat,
        lambda t: {"choices": [{"index": 0, "message": {"content": t}, "finish_reason": "stop"}]},
    ),
    "openai-responses": (
        "https://api.openai.com/v1/responses",
        _responses,
        lambda t: {
            "status": "completed",
            "output": [{"type": "message", "content": [{"type": "output_text", "text": t}]}],
        },
    ),
    "anthropic-messages": (
        "https://api.anthropic.com/v1/messages",
        _anthropic,
        lambda t: {"content": [{"type": "text", "text": t}], "stop_reason": "end_turn"},
    ),
    "gemini-generate-content": (
        "https://generativelanguage.googleapis.com/v1beta/models/g:generateContent",
        _gemini,
        lambda t: {"candidates": [{"content": {"parts": [{"text": t}]}, "finishReason": "STOP"}]},
    ),
    "bedrock-converse": (
        "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse",
        _bedrock,
        lambda t: {"output": {"message": {"content": [{"text": t}]}}, "stopReason": "end_turn"},
    ),
    "cohere-chat": (
        "https://api.cohere.com/v2/chat",
        _chat,
        lambda t: {
            "message": {"content": [{"type": "text", "text": t}]},
            "finish_reason": "COMPLETE",
        },
    ),
}


def _conversation(name: str, users: list[str]) -> list[Exchange]:
    url, request, response = FORMATS[name]
    history: History = []
    out = []
    for i, text in enumerate(users):
        history.append(("user", text))
        answer = f"answer {i}"
        out.append(
            Exchange(
                method="POST",
                url=url,
                request_body=request(list(history)),
                status=200,
                response_body=response(answer),
                index=i,
            )
        )
        history.append(("assistant", answer))
    return out


@pytest.mark.parametrize("name", list(FORMATS))
def test_user_turns_sit_before_the_rounds_that_answer_them(name: str) -> None:
    trace = normalize_exchanges(_conversation(name, ["book a table", "for two", "at eight"]), "c")
    assert [(t.before_round, t.position, t.text) for t in trace.user_turns] == [
        (0, 0, "book a table"),
        (1, 1, "for two"),
        (2, 2, "at eight"),
    ]
    assert [r.text for r in trace.rounds] == ["answer 0", "answer 1", "answer 2"]
    assert trace.format_version == 2


@pytest.mark.parametrize("name", list(FORMATS))
def test_a_single_instruction_carries_no_turns(name: str) -> None:
    trace = normalize_exchanges(_conversation(name, ["book a table"]), "c")
    assert trace.user_turns == [] and trace.format_version == 1
    assert "user_turns" not in trace.model_dump(mode="json")


def test_a_message_nothing_answered_sits_after_the_last_round() -> None:
    exchanges = _conversation("openai-chat", ["one", "two"])
    last = exchanges[-1]
    failed = Exchange(
        method="POST", url=last.url, request_body=last.request_body, status=500, response_body="x"
    )
    trace = normalize_exchanges([exchanges[0], failed], "c")
    assert [(t.before_round, t.text) for t in trace.user_turns] == [(0, "one"), (1, "two")]
    assert trace.status == "agent_error"


def test_rejudge_loop_messages_are_user_turns_as_sent() -> None:
    # the loop's later user messages (an oracle-assisted run's "steps remain", a restated value)
    # were sent to the model as user messages: the trace keeps them in place, text as sent, the
    # same as for a cassette recorded elsewhere
    exchanges = _conversation("openai-chat", ["do it", "2 expected steps remain."])
    interactions = [
        {
            "request": {"method": "POST", "uri": ex.url, "body": ex.request_body, "headers": {}},
            "response": {
                "status": {"code": 200},
                "headers": {},
                "body": {"string": ex.response_body},
            },
        }
        for ex in exchanges
    ]
    loop = trace_from_cassette(interactions, {"outcome": {"status": "completed"}}, "c", 0)
    foreign = trace_from_cassette(interactions, {}, "c", 0)
    assert [t.text for t in loop.user_turns] == ["do it", "2 expected steps remain."]
    assert loop.user_turns == foreign.user_turns


# --------------------------------------------------------------------------- restarts
# A cassette may hold several conversations (a rerun, a second agent): a request whose history
# does not extend the previous request's starts a new one, and its user messages are turns again.


def _tool_round(question: str, index: int) -> list[Exchange]:
    """One chat conversation: the question, a call, its result sent back, the answer."""
    url = "https://api.openai.com/v1/chat/completions"
    call = {"id": f"call_{index}", "type": "function"}
    call["function"] = {"name": "calc", "arguments": '{"x": 3}'}
    asked = {"model": "m", "messages": [{"role": "user", "content": question}]}
    answered = {
        "model": "m",
        "messages": [
            {"role": "user", "content": question},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call["id"], "content": "27"},
        ],
    }
    calling = {"choices": [{"index": 0, "message": {"tool_calls": [call]}}]}
    done = FORMATS["openai-chat"][2]("27")
    return [
        Exchange(method="POST", url=url, request_body=asked, status=200, response_body=calling),
        Exchange(method="POST", url=url, request_body=answered, status=200, response_body=done),
    ]


def test_a_rerun_of_the_same_question_counts_its_message_again() -> None:
    # the second run's first request drops the first run's tool result: a new conversation,
    # though its one user message is the same text
    trace = normalize_exchanges([*_tool_round("3^3?", 0), *_tool_round("3^3?", 1)], "c")
    assert [(t.before_round, t.position, t.text) for t in trace.user_turns] == [
        (0, 0, "3^3?"),
        (2, 1, "3^3?"),
    ]
    assert len(trace.rounds) == 4


def test_a_request_repeated_unchanged_continues_its_conversation() -> None:
    # the same history sent twice extends itself: one instruction, so still no turns
    (once,) = _conversation("openai-chat", ["hello"])
    trace = normalize_exchanges([once, replace(once, index=1)], "c")
    assert trace.user_turns == [] and len(trace.rounds) == 2


def test_a_history_handed_to_another_format_is_one_conversation() -> None:
    # pydantic-ai's agents: Gemini answers the first question, OpenAI chat carries the whole
    # history on (ids Gemini never had match anything), so France is not counted twice
    cassette = read_cassette(REAL / "pydantic-ai/test_multiple_agent_tool_calls.yaml")
    trace = normalize_exchanges(cassette.exchanges, "c")
    assert [(t.before_round, t.text) for t in trace.user_turns] == [
        (0, "What is the capital of France?"),
        (2, "What is the capital of England?"),
    ]


_texts = st.sampled_from(["yes", "no", "two", "at eight"])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(list(FORMATS)), st.lists(_texts, min_size=0, max_size=2)),
        min_size=1,
        max_size=4,
    )
)
def test_every_user_message_of_every_conversation_is_a_turn(
    conversations: list[tuple[str, list[str]]],
) -> None:
    # each conversation opens with its own question (so its first request never extends the
    # one before), then may repeat texts other conversations sent: none of them is lost
    exchanges: list[Exchange] = []
    want: list[tuple[int, str]] = []
    for n, (name, later) in enumerate(conversations):
        users = [f"question {n}", *later]
        want.extend((len(exchanges) + i, text) for i, text in enumerate(users))
        exchanges.extend(_conversation(name, users))
    trace = normalize_exchanges(exchanges, "c")
    assert len(trace.rounds) == len(exchanges)
    if len(want) == 1:
        assert trace.user_turns == []
    else:
        assert [(t.before_round, t.position, t.text) for t in trace.user_turns] == [
            (before, i, text) for i, (before, text) in enumerate(want)
        ]
