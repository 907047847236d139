"""Importer ``chat-jsonl``: OpenAI chat-messages lines (the fine-tuning form) read into traces
by the shared conversation derivation; bad lines are problems naming the line, never a crash."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from rejudge.recorder import read_cassette, trace_of

from rejudge.errors import InvalidInputError
from rejudge.importers import detect_importer
from rejudge.importers._chat_jsonl import read_chat
from tests.importers.conftest import (
    PLAIN_LINE,
    TOOL_LINE,
    WEATHER_TOOL,
    tool_call_cassettes,
    write_lines,
)

KEY = "sk-" + "A1b2C3d4E5f6G7h8J9k0"


def test_a_fine_tuning_file_reads_one_trace_per_line(tmp_path: Path) -> None:
    read = read_chat(write_lines(tmp_path / "train.jsonl", TOOL_LINE, PLAIN_LINE))
    assert [line.case_id for line in read.lines] == ["line-1", "line-2"]
    first, second = read.lines
    assert first.instruction == "What is the weather in San Francisco?"
    [call] = first.trace.calls
    assert (call.id, call.name, call.arguments, call.result) == (
        "call_id",
        "get_current_weather",
        {"location": "San Francisco, USA", "format": "celsius"},
        {"temperature": 21},
    )
    assert first.trace.final_text == "It is 21 degrees Celsius in San Francisco."
    assert [t.name for t in first.tools] == ["get_current_weather"]
    assert first.tools[0].parameters == WEATHER_TOOL["function"]["parameters"]
    assert second.trace.calls == [] and second.trace.final_text == PLAIN_LINE[2]["content"]
    assert read.problems == [] and first.anomalies == []


def test_bad_lines_are_problems_naming_the_line(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "mixed.jsonl", PLAIN_LINE, "{not json", {"prompt": "x"})
    read = read_chat(path)
    assert len(read.lines) == 1
    assert [p.split(":")[0] for p in read.problems] == ["line 2", "line 3"]


def test_unparseable_arguments_are_an_anomaly_naming_line_and_message(tmp_path: Path) -> None:
    line = json.loads(json.dumps(TOOL_LINE))
    line["messages"][2]["tool_calls"][0]["function"]["arguments"] = '{"location": "San Fr'
    read = read_chat(write_lines(tmp_path / "cut.jsonl", line))
    assert read.lines[0].anomalies and read.lines[0].anomalies[0].startswith("line 1: message 2")


def test_secrets_never_reach_the_trace(tmp_path: Path) -> None:
    line = json.loads(json.dumps(TOOL_LINE))
    line["messages"][4]["content"] = f"your key is {KEY}"
    line["messages"][2]["tool_calls"][0]["function"]["arguments"] = json.dumps(
        {"location": "SF", "format": "celsius", "api_key": KEY}
    )
    read = read_chat(write_lines(tmp_path / "secret.jsonl", line))
    body = json.dumps(read.lines[0].trace.model_dump(mode="json"))
    assert KEY not in body and "your key is" in body


def test_a_file_without_conversations_is_refused_in_one_line(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "none.jsonl", {"prompt": "a", "completion": "b"})
    try:
        read_chat(path)
    except InvalidInputError as exc:
        assert "\n" not in str(exc) and "no conversation" in str(exc)
    else:
        raise AssertionError("a file of no conversation was read")


def test_chat_lines_are_detected_as_chat_jsonl(tmp_path: Path) -> None:
    for name, record in (("a.jsonl", TOOL_LINE), ("b.jsonl", PLAIN_LINE)):
        found = detect_importer(write_lines(tmp_path / name, record, PLAIN_LINE))
        assert found.importer.name == "chat-jsonl" and found.detection.reason


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "role",
                    "content",
                    "tool_calls",
                    "tool_call_id",
                    "function",
                    "id",
                    "name",
                    "arguments",
                    "messages",
                    "tools",
                    "x",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.text(max_size=40) | st.builds(json.dumps, _VALUES), min_size=1, max_size=6))
def test_any_lines_are_read_or_refused_in_one_line(tmp_path_factory: Any, lines: list[str]) -> None:
    path = tmp_path_factory.mktemp("chat") / "chat.jsonl"
    path.write_text("\n".join(lines))
    try:
        read = read_chat(path)
    except InvalidInputError as exc:
        assert "\n" not in str(exc)
    else:
        assert read.lines
        for line in read.lines:
            assert all(a.startswith(f"line {line.case_id[5:]}: ") for a in line.anomalies)
            line.trace.hash  # noqa: B018 - the trace hashes (every value in it is JSON)
        assert all(p.startswith("line ") for p in read.problems)


def test_a_non_list_tool_calls_is_no_call_not_a_crash(tmp_path: Path) -> None:
    # hypothesis found this one: message_of iterated whatever tool_calls held
    read = read_chat(write_lines(tmp_path / "odd.jsonl", [{"role": "assistant", "tool_calls": 1}]))
    assert read.lines[0].trace.calls == []


def test_a_cassettes_conversation_as_chat_jsonl_reads_as_the_cassette(tmp_path: Path) -> None:
    """One derivation across formats: each shipped cassette whose model called tools, written
    as the fine-tuning line of its last exchange (the messages sent, then the answer), gives
    the cassette's calls (results, failures), texts and finish reasons."""
    cassettes = tool_call_cassettes()
    assert len(cassettes) >= 10
    expected, lines = [], []
    for path in cassettes:
        cassette = read_cassette(path)
        last = cassette.interactions[-1]
        sent = json.loads(last["request"]["body"])["messages"]
        answer = json.loads(last["response"]["body"]["string"])["choices"][0]["message"]
        lines.append(json.dumps({"messages": [*sent, answer]}))
        expected.append(trace_of(cassette))
    read = read_chat(write_lines(tmp_path / "chats.jsonl", *lines))
    assert len(read.lines) == len(expected)
    failed = 0
    for want, line in zip(expected, read.lines, strict=True):
        got = line.trace
        assert [(c.id, c.name, c.arguments, c.result, c.ok, c.error) for c in got.calls] == [
            (c.id, c.name, c.arguments, c.result, c.ok, c.error) for c in want.calls
        ]
        assert [(r.text, r.finish_reason) for r in got.rounds] == [
            (r.text, r.finish_reason) for r in want.rounds
        ]
        assert got.final_text == want.final_text
        failed += sum(not c.ok for c in want.calls)
    assert failed > 0  # the comparison covers answers that are errors
