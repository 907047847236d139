"""Property tests: the SSE parsers reassemble arbitrary argument strings split anywhere."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from rejudge.recorder.wire import parse_anthropic_sse, parse_openai_chat_sse, parse_response

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
json_objects = st.dictionaries(st.text(max_size=10), json_values, max_size=5)


def split_at(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    pieces, last = [], 0
    for p in points:
        pieces.append(text[last:p])
        last = p
    pieces.append(text[last:])
    return pieces


@settings(max_examples=150, deadline=None)
@given(
    args=st.lists(
        st.one_of(json_objects.map(json.dumps), st.text(max_size=30)), min_size=1, max_size=3
    ),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8),
)
def test_openai_sse_reassembles_split_arguments(args: list[str], cuts: list[int]) -> None:
    chunks = []
    for i in range(len(args)):
        chunks.append(
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [
                                {
                                    "index": i,
                                    "id": f"id{i}",
                                    "function": {"name": f"f{i}", "arguments": ""},
                                }
                            ]
                        },
                    }
                ]
            }
        )
    # interleave the pieces of every call's argument text
    pieces = [split_at(raw, cuts) for raw in args]
    for step in range(max(len(p) for p in pieces)):
        for i, p in enumerate(pieces):
            if step < len(p):
                chunks.append(
                    {
                        "choices": [
                            {
                                "index": 0,
                                "delta": {
                                    "tool_calls": [{"index": i, "function": {"arguments": p[step]}}]
                                },
                            }
                        ]
                    }
                )
    text = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    turn = parse_openai_chat_sse(text)
    assert [c.name for c in turn.calls] == [f"f{i}" for i in range(len(args))]
    for call, raw in zip(turn.calls, args, strict=True):
        assert call.arguments_raw == raw
        if raw.strip() == "":
            assert call.arguments == {}
        else:
            try:
                expected = json.loads(raw)
            except ValueError:
                expected = None
            if isinstance(expected, dict):
                assert call.arguments == expected and call.parse_error is None
            else:
                assert call.arguments is None and call.parse_error
    assert not turn.truncated


@settings(max_examples=100, deadline=None)
@given(obj=json_objects, cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8))
def test_anthropic_sse_reassembles_split_input(obj: dict, cuts: list[int]) -> None:
    raw = json.dumps(obj)
    events = [
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}},
        }
    ]
    events += [
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": piece},
        }
        for piece in split_at(raw, cuts)
    ]
    events += [{"type": "content_block_stop", "index": 0}, {"type": "message_stop"}]
    text = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    turn = parse_anthropic_sse(text)
    assert len(turn.calls) == 1 and turn.calls[0].arguments == obj and not turn.truncated


@settings(max_examples=200, deadline=None)
@given(
    fmt=st.sampled_from(
        [
            "openai-chat",
            "openai-responses",
            "anthropic-messages",
            "gemini-generate-content",
            "unknown",
        ]
    ),
    body=st.one_of(
        json_values, st.text(max_size=200), st.text(max_size=50).map(lambda t: "data: " + t)
    ),
)
def test_parse_response_never_raises(fmt: str, body: object) -> None:
    parse_response(fmt, body)


@settings(max_examples=100, deadline=None)
@given(
    first=json_objects.map(json.dumps),
    second=json_objects.map(json.dumps),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=6),
    order=st.randoms(use_true_random=False),
)
def test_n_choices_stream_assembles_each_choice_apart(
    first: str, second: str, cuts: list[int], order: object
) -> None:
    """Fragments of two choices, interleaved in any order: choice 0 is the turn, choice 1 its
    alternative, and neither takes a byte of the other's arguments."""
    events: list[tuple[int, str]] = []
    for choice, raw in ((0, first), (1, second)):
        events += [(choice, piece) for piece in split_at(raw, cuts)]
    order.shuffle(events)  # type: ignore[attr-defined]
    # the shuffle decides only the interleaving: each choice keeps its own pieces in order
    ranks = {0: iter(split_at(first, cuts)), 1: iter(split_at(second, cuts))}
    events = [(choice, next(ranks[choice])) for choice, _ in events]
    chunks = [
        {
            "choices": [
                {
                    "index": c,
                    "delta": {
                        "tool_calls": [{"index": 0, "id": f"c{c}", "function": {"name": f"f{c}"}}]
                    },
                }
            ]
        }
        for c in (0, 1)
    ]
    for choice, piece in events:
        chunks.append(
            {
                "choices": [
                    {
                        "index": choice,
                        "delta": {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]},
                    }
                ]
            }
        )
    sse = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    turn = parse_openai_chat_sse(sse)
    assert [(c.id, c.arguments_raw) for c in turn.calls] == [("c0", first)]
    assert [(a.choice, [(c.id, c.arguments_raw) for c in a.calls]) for a in turn.alternatives] == [
        (1, [("c1", second)])
    ]
