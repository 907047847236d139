"""Normalizer on synthetic exchanges: results, errors, truncation, retries, determinism."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from rejudge.recorder import NORMALIZER_VERSION, Exchange, normalize_exchanges

from rejudge.model import TraceError

CHAT = "https://api.example.com/v1/chat/completions"
ANTH = "https://api.anthropic.com/v1/messages"


def chat_response(calls: list[tuple[str, str, str]] | None = None, text: str | None = None) -> dict:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}
            for cid, name, args in calls
        ]
    return {
        "model": "m",
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 2},
    }


def ex(
    body: Any, response: Any, status: int = 200, url: str = CHAT, method: str = "POST", **kw: Any
) -> Exchange:
    return Exchange(
        method=method, url=url, request_body=body, status=status, response_body=response, **kw
    )


def user() -> dict:
    return {"role": "user", "content": "do it"}


def test_results_ok_and_error_signals() -> None:
    r0 = chat_response([("a", "f", '{"x": 1}'), ("b", "g", "{}"), ("c", "h", "{}")])
    req1 = {
        "messages": [
            user(),
            {"role": "assistant", "tool_calls": r0["choices"][0]["message"]["tool_calls"]},
            {"role": "tool", "tool_call_id": "a", "content": '{"value": 3}'},
            {"role": "tool", "tool_call_id": "b", "content": '{"error": "no such order"}'},
            {"role": "tool", "tool_call_id": "c", "content": "Error: timeout"},
        ]
    }
    trace = normalize_exchanges(
        [ex({"messages": [user()]}, r0), ex(req1, chat_response(text="done"))],
        "case-1",
        repetition=2,
    )
    assert trace.status == "completed" and trace.repetition == 2 and trace.case_id == "case-1"
    a, b, c = trace.calls
    assert (a.result, a.ok, a.error) == ({"value": 3}, True, None)
    assert (b.result, b.ok, b.error) == (None, False, "no such order")
    assert (c.result, c.ok, c.error) == (None, False, "Error: timeout")
    assert trace.final_text == "done" and trace.usage == {"input_tokens": 20, "output_tokens": 4}
    assert trace.normalizer_version == NORMALIZER_VERSION


def test_anthropic_is_error_flag() -> None:
    r0 = {
        "model": "c",
        "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {"q": 1}}],
        "stop_reason": "tool_use",
    }
    req1 = {
        "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": r0["content"]},
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [{"type": "text", "text": "bad input"}],
                        "is_error": True,
                    }
                ],
            },
        ]
    }
    r1 = {"model": "c", "content": [{"type": "text", "text": "sorry"}], "stop_reason": "end_turn"}
    trace = normalize_exchanges(
        [
            ex({"messages": [{"role": "user", "content": "q"}]}, r0, url=ANTH),
            ex(req1, r1, url=ANTH),
        ],
        "c",
    )
    (call,) = trace.calls
    assert call.arguments == {"q": 1} and call.result is None and call.ok is False
    assert call.error == "bad input"


def test_malformed_arguments_kept_raw() -> None:
    trace = normalize_exchanges(
        [ex({"messages": [user()]}, chat_response([("a", "f", '{"x": 1,')]))], "c"
    )
    (call,) = trace.calls
    assert call.arguments is None and call.arguments_raw == '{"x": 1,' and call.parse_error
    assert trace.status == "completed"  # a malformed call is the model's fault, judged later


def test_truncated_stream_is_agent_error_and_keeps_earlier_rounds() -> None:
    r0 = chat_response([("a", "f", "{}")])
    stream = 'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"g","arguments":"{\\"k\\": "}}]}}]}\n\n'
    req1 = {"messages": [user(), {"role": "tool", "tool_call_id": "a", "content": "1"}]}
    trace = normalize_exchanges(
        [
            ex({"messages": [user()]}, r0),
            ex(req1, stream, response_headers={"content-type": ["text/event-stream"]}),
        ],
        "c",
    )
    assert trace.status == "agent_error"
    assert trace.error == TraceError(
        kind="truncated_stream",
        message="the response stream ended before its terminator",
        round=1,
        status_code=200,
    )
    assert len(trace.rounds) == 2 and trace.rounds[0].calls[0].result == "1"
    assert trace.rounds[1].calls[0].name == "g" and trace.rounds[1].calls[0].parse_error


def test_final_non_2xx_is_agent_error_with_status() -> None:
    r0 = chat_response([("a", "f", "{}")])
    req1 = {"messages": [user(), {"role": "tool", "tool_call_id": "a", "content": "ok"}]}
    err = {"error": {"message": "tool_choice required is not supported", "type": "server_error"}}
    trace = normalize_exchanges([ex({"messages": [user()]}, r0), ex(req1, err, status=500)], "c")
    assert trace.status == "agent_error" and len(trace.rounds) == 1
    assert trace.error is not None
    assert (trace.error.kind, trace.error.round, trace.error.status_code) == (
        "provider_error",
        1,
        500,
    )
    assert "tool_choice required" in trace.error.message
    assert trace.calls[0].result == "ok"  # the failed request still carried the result


def test_retried_429_is_not_an_error() -> None:
    req = {"messages": [user()]}
    trace = normalize_exchanges(
        [ex(req, "rate limited", status=429), ex(req, chat_response(text="hi"))], "c"
    )
    assert trace.status == "completed" and len(trace.rounds) == 1 and trace.final_text == "hi"


def test_error_event_in_200_body() -> None:
    trace = normalize_exchanges(
        [ex({"messages": [user()]}, {"error": {"message": "overloaded"}})], "c"
    )
    assert trace.status == "agent_error" and trace.error is not None
    assert (
        trace.error.kind == "provider_error"
        and trace.error.message == "overloaded"
        and trace.rounds == []
    )


def test_non_model_exchanges_are_ignored() -> None:
    trace = normalize_exchanges(
        [
            ex(None, {"data": [{"id": "m"}]}, url="https://api.openai.com/v1/models", method="GET"),
            ex({"input": "x"}, {"data": []}, url="https://api.openai.com/v1/embeddings"),
            ex({"messages": [user()]}, chat_response(text="hi")),
        ],
        "c",
    )
    assert len(trace.rounds) == 1 and trace.rounds[0].index == 0


def test_caller_error_and_metadata_win() -> None:
    err = TraceError(kind="round_budget", message="10 rounds used", round=9)
    trace = normalize_exchanges(
        [ex({"messages": [user()]}, chat_response([("a", "f", "{}")]))],
        "c",
        error=err,
        selected_tools=["f"],
        timings={"wall_s": 1.5},
    )
    assert trace.status == "agent_error" and trace.error == err and trace.selected_tools == ["f"]
    same = normalize_exchanges(
        [ex({"messages": [user()]}, chat_response([("a", "f", "{}")]))],
        "c",
        error=err,
        selected_tools=["f"],
    )
    assert trace.hash == same.hash  # timings never enter the hash


def test_empty_cassette_is_an_empty_completed_trace() -> None:
    trace = normalize_exchanges([], "c")
    assert trace.rounds == [] and trace.final_text is None and trace.status == "completed"


def test_positional_results_for_id_less_calls() -> None:
    # a client that sends results without any ids (legacy role: function), names agree
    r0 = chat_response([("", "f", "{}"), ("", "g", "{}")])
    req1 = {
        "messages": [
            user(),
            {"role": "function", "name": "f", "content": "F"},
            {"role": "function", "name": "g", "content": "G"},
        ]
    }
    trace = normalize_exchanges(
        [ex({"messages": [user()]}, r0), ex(req1, chat_response(text="ok"))], "c"
    )
    assert [(c.id, c.result) for c in trace.calls] == [(None, "F"), (None, "G")]


bodies = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=30)
    | st.sampled_from(["NaN", '{"a": NaN}', "[1e999]"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "choices",
                    "message",
                    "tool_calls",
                    "content",
                    "function",
                    "arguments",
                    "name",
                    "id",
                    "messages",
                    "role",
                    "type",
                    "input",
                    "output",
                    "error",
                    "delta",
                    "index",
                    "usage",
                    "candidates",
                    "parts",
                ]
            )
            | st.text(max_size=5),
            inner,
            max_size=5,
        )
    ),
    max_leaves=25,
)


@settings(max_examples=200, deadline=None)
@given(
    items=st.lists(
        st.tuples(
            st.sampled_from(
                [
                    CHAT,
                    ANTH,
                    "https://x/v1/responses",
                    "https://x/m:generateContent",
                    "https://x/v1/models",
                    "/other",
                ]
            ),
            bodies,
            st.one_of(
                bodies,
                st.text(max_size=100),
                st.builds(lambda b: "data: " + json.dumps(b) + "\n\n", bodies),
            ),
            st.sampled_from([200, 200, 400, 429, 500]),
        ),
        max_size=5,
    )
)
def test_normalizer_never_raises(items: list) -> None:
    exchanges = [ex(body, resp, status=status, url=url) for url, body, resp, status in items]
    trace = normalize_exchanges(exchanges, "c")
    assert trace.hash == normalize_exchanges(exchanges, "c").hash


def test_name_map_restores_original_tool_names() -> None:
    r0 = chat_response([("a", "math_add", "{}")])
    trace = normalize_exchanges(
        [ex({"messages": [user()]}, r0)], "c", name_map={"math_add": "math.add"}
    )
    assert [c.name for c in trace.calls] == ["math.add"]


def test_error_result_with_more_data_keeps_the_data() -> None:
    r0 = chat_response([("a", "f", "{}")])
    req1 = {
        "messages": [
            user(),
            {
                "role": "tool",
                "tool_call_id": "a",
                "content": '{"error": {"message": "partial"}, "rows": [1]}',
            },
        ]
    }
    trace = normalize_exchanges(
        [ex({"messages": [user()]}, r0), ex(req1, chat_response(text="x"))], "c"
    )
    (call,) = trace.calls
    assert call.ok is False and call.error == "partial"
    assert call.result == {"error": {"message": "partial"}, "rows": [1]}


def test_ids_repeated_across_rounds_and_within_a_turn() -> None:
    # a server numbering ids per response ("0" every round) and one repeating an id in a turn
    r0 = chat_response([("0", "f", '{"n": 1}')])
    r1 = chat_response([("x", "g", '{"n": 2}'), ("x", "g", '{"n": 3}')])
    history = [
        user(),
        {"role": "assistant", "tool_calls": r0["choices"][0]["message"]["tool_calls"]},
    ]
    history.append({"role": "tool", "tool_call_id": "0", "content": "F1"})
    req1 = {"messages": list(history)}
    history += [
        {"role": "assistant", "tool_calls": r1["choices"][0]["message"]["tool_calls"]},
        {"role": "tool", "tool_call_id": "x", "content": "G2"},
        {"role": "tool", "tool_call_id": "x", "content": "G3"},
    ]
    r2 = chat_response([("0", "f", '{"n": 4}')])
    history += [
        {"role": "assistant", "tool_calls": r2["choices"][0]["message"]["tool_calls"]},
        {"role": "tool", "tool_call_id": "0", "content": "F4"},
    ]
    trace = normalize_exchanges(
        [
            ex({"messages": [user()]}, r0),
            ex(req1, r1),
            ex({"messages": history[:-2]}, r2),
            ex({"messages": history}, chat_response(text="end")),
        ],
        "c",
    )
    assert [c.result for c in trace.calls] == ["F1", "G2", "G3", "F4"]


def test_nan_and_infinity_never_reach_the_hash() -> None:
    r0 = chat_response([("a", "f", '{"x": NaN}'), ("b", "g", '{"y": 1e999}')])
    req1 = {
        "messages": [user(), {"role": "tool", "tool_call_id": "a", "content": '{"v": Infinity}'}]
    }
    anth = {"content": [{"type": "tool_use", "id": "t", "name": "h", "input": {"z": float("nan")}}]}
    trace = normalize_exchanges(
        [
            ex({"messages": [user()]}, r0),
            ex(req1, chat_response(text="x")),
            ex({"messages": []}, anth, url=ANTH),
        ],
        "c",
    )
    a, b, h = trace.calls
    assert a.arguments is None and a.parse_error and a.arguments_raw == '{"x": NaN}'
    assert b.arguments is None and b.parse_error
    assert a.result == '{"v": Infinity}'  # kept as text
    assert h.arguments is None and h.parse_error == "arguments hold a NaN or infinite number"
    assert trace.hash.startswith("sha256:")
