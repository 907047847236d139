"""The agent loop against a real loopback HTTP server that scripts the model's answers."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from recorder_fakes import (
    CALC_REGISTRY,
    CalcSandbox,
    FakeModelServer,
    Reply,
    ScriptedModel,
    call,
    calls_turn,
    case,
    final_turn,
)
from rejudge.recorder import RateLimiter, Tape, TapeTransport
from rejudge.recorder._loop import LoopContext, LoopOutcome, run_case, select_tools
from rejudge.recorder.providers import get_provider

from rejudge.model import HarnessAssistance, RunConfig


async def _no_sleep(_: float) -> None:
    return None


def run(
    server: FakeModelServer,
    the_case: Any,
    *,
    provider: str = "openai",
    sandbox: CalcSandbox | None = None,
    sleeps: list[float] | None = None,
    **config: Any,
) -> tuple[LoopOutcome, Tape, CalcSandbox]:
    base = server.root_url if provider == "anthropic" else server.base_url
    cfg = RunConfig(model="fake-model", provider=provider, base_url=base, **config)
    box = sandbox or CalcSandbox()
    tape = Tape()

    async def sleep(seconds: float) -> None:
        if sleeps is not None:
            sleeps.append(seconds)

    async def go() -> LoopOutcome:
        async with httpx.AsyncClient(transport=TapeTransport(httpx.AsyncHTTPTransport())) as client:
            ctx = LoopContext(
                client=client,
                provider=get_provider(provider),
                config=cfg,
                api_key="sk-test-secret-key-1234567890",
                sleep=sleep,
            )
            return await run_case(ctx, the_case, CALC_REGISTRY, box, tape)

    return asyncio.run(go()), tape, box


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_parallel_calls_are_executed_and_results_sent_back(provider: str, stream: bool) -> None:
    anth = provider == "anthropic"
    script = ScriptedModel(
        {
            "sum and user": [
                calls_turn(
                    call("add", {"a": 2, "b": 3}),
                    call("get_user", {"user_id": "U1"}),
                    anthropic=anth,
                ),
                final_turn("5 and ada", anthropic=anth),
            ]
        }
    )
    with FakeModelServer(script) as server:
        outcome, tape, box = run(
            server, case("c1", "sum and user"), provider=provider, stream=stream
        )
        second = server.requests[1]["body"]
    assert outcome.error is None
    assert box.executed == [("add", {"a": 2, "b": 3}), ("get_user", {"user_id": "U1"})]
    assert [c.name for c in outcome.rounds[0].calls] == ["add", "get_user"]
    assert outcome.rounds[0].calls[0].result == {"sum": 5}
    assert outcome.final_text == "5 and ada"
    assert len(tape.interactions) == 2
    # the second request carries both results, linked to the call ids of the first answer
    if anth:
        results = [
            b for m in second["messages"] for b in m["content"] if b.get("type") == "tool_result"
        ]
        assert [json.loads(r["content"]) for r in results] == [
            {"sum": 5},
            {"email": "ada@example.com", "user_id": "U1"},
        ]
        assert all(r["tool_use_id"].startswith("toolu_") for r in results)
    else:
        tools = [m for m in second["messages"] if m["role"] == "tool"]
        assert [json.loads(m["content"]) for m in tools] == [
            {"sum": 5},
            {"email": "ada@example.com", "user_id": "U1"},
        ]
        assert [m["tool_call_id"] for m in tools] == [
            c["id"] for c in second["messages"][1]["tool_calls"]
        ]
        if stream:
            assert second["stream"] is True and second["stream_options"] == {"include_usage": True}


def test_malformed_arguments_stay_raw_and_the_model_gets_an_error() -> None:
    script = ScriptedModel({"bad": [calls_turn(call("add", '{"a": 1, "b":')), final_turn("sorry")]})
    with FakeModelServer(script) as server:
        outcome, _tape, box = run(server, case("c", "bad"))
        sent = server.requests[1]["body"]["messages"]
    first = outcome.rounds[0].calls[0]
    assert first.arguments is None and first.arguments_raw == '{"a": 1, "b":'
    assert first.parse_error and first.ok is False
    assert box.executed == []
    tool_msg = [m for m in sent if m["role"] == "tool"][0]
    assert "could not parse" in json.loads(tool_msg["content"])["error"]
    # the raw text goes back to the model unchanged
    assert sent[1]["tool_calls"][0]["function"]["arguments"] == '{"a": 1, "b":'


def test_unknown_tool_gets_an_error_result() -> None:
    script = ScriptedModel({"x": [calls_turn(call("launch_rocket", {})), final_turn("ok")]})
    with FakeModelServer(script) as server:
        outcome, _, box = run(server, case("c", "x"))
        sent = server.requests[1]["body"]["messages"]
    assert outcome.error is None
    assert outcome.rounds[0].calls[0].ok is False
    assert "unknown tool" in json.loads(sent[-1]["content"])["error"]
    assert box.executed == []


def test_429_with_retry_after_then_success() -> None:
    def first(body: dict[str, Any], attempt: int) -> Reply:
        if attempt == 0:
            return Reply(
                status=429, body={"error": {"message": "slow down"}}, headers={"retry-after": "7"}
            )
        return calls_turn(text="fine")(body, attempt)

    script = ScriptedModel({"r": [first]})
    sleeps: list[float] = []
    with FakeModelServer(script) as server:
        outcome, tape, _ = run(server, case("c", "r"), sleeps=sleeps)
    assert outcome.error is None and outcome.final_text == "fine"
    assert sleeps == [7.0]
    assert [i["response"]["status"]["code"] for i in tape.interactions] == [429, 200]


def test_500_exhausting_retries_is_an_agent_error() -> None:
    script = ScriptedModel({"boom": [lambda body, attempt: Reply(status=500, body="internal")]})
    sleeps: list[float] = []
    with FakeModelServer(script) as server:
        outcome, tape, _ = run(server, case("c", "boom"), sleeps=sleeps, max_retries=2)
    assert outcome.error is not None
    assert outcome.error.kind == "retries_exhausted" and outcome.error.status_code == 500
    assert len(tape.interactions) == 3
    assert sleeps == [0.5, 1.0]  # deterministic exponential backoff


def test_connection_refused_is_an_agent_error_not_a_crash() -> None:
    cfg_case = case("c", "anything")
    server = FakeModelServer(ScriptedModel({}))
    port = server.port
    server._server.server_close()  # nothing listens any more
    cfg = RunConfig(model="m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=1)

    async def go() -> LoopOutcome:
        async with httpx.AsyncClient(transport=TapeTransport(httpx.AsyncHTTPTransport())) as client:
            ctx = LoopContext(
                client=client, provider=get_provider("openai"), config=cfg, sleep=_no_sleep
            )
            return await run_case(ctx, cfg_case, CALC_REGISTRY, CalcSandbox(), Tape())

    outcome = asyncio.run(go())
    assert outcome.error is not None and outcome.error.kind == "retries_exhausted"
    assert "connection" in outcome.error.message


def test_timeout_is_an_agent_error() -> None:
    script = ScriptedModel({"slow": [lambda b, a: Reply(body={}, delay_s=0.5)]})
    with FakeModelServer(script) as server:
        outcome, _, _ = run(server, case("c", "slow"), timeout_s=0.1, max_retries=0)
    assert outcome.error is not None and outcome.error.kind == "timeout"


def test_4xx_is_a_provider_error_without_retry() -> None:
    script = ScriptedModel(
        {"bad": [lambda b, a: Reply(status=400, body={"error": {"message": "bad tool schema"}})]}
    )
    with FakeModelServer(script) as server:
        outcome, tape, _ = run(server, case("c", "bad"))
    assert outcome.error is not None and outcome.error.kind == "provider_error"
    assert outcome.error.status_code == 400 and "bad tool schema" in outcome.error.message
    assert len(tape.interactions) == 1


@pytest.mark.parametrize("dropped", [False, True])
def test_truncated_stream_is_recorded_as_what_it_is(dropped: bool) -> None:
    from recorder_fakes import openai_sse

    def cut(body: dict[str, Any], attempt: int) -> Reply:
        events = openai_sse([call("add", {"a": 1, "b": 2})])
        if dropped:  # the connection dies mid-body
            payload = "".join(f"data: {e}\n\n" for e in events)
            return Reply(sse=events, drop_after=len(payload) // 2)
        return Reply(sse=events[:3], sse_done=False)

    with FakeModelServer(ScriptedModel({"t": [cut]})) as server:
        outcome, tape, box = run(server, case("c", "t"), stream=True)
    assert outcome.error is not None and outcome.error.kind == "truncated_stream"
    assert box.executed == []
    body = tape.interactions[0]["response"]["body"]["string"]
    assert "[DONE]" not in body and body.startswith("data: ")


def test_round_budget_production_parity() -> None:
    loop_forever = calls_turn(call("add", {"a": 1, "b": 1}))
    script = ScriptedModel({"loop": [loop_forever] * 30})
    with FakeModelServer(script) as server:
        outcome, _, _ = run(server, case("c", "loop", [("add", {"a": 1, "b": 1})]))
        texts = [m for r in server.requests for m in r["body"]["messages"] if m["role"] == "user"]
    assert outcome.error is not None and outcome.error.kind == "round_budget"
    assert len(outcome.rounds) == 10 and outcome.round_budget == 10
    assert all("expected step" not in m["content"] for m in texts)  # nothing from the oracle


def test_oracle_assisted_budget_and_nudge() -> None:
    golden = [("add", {"a": 1, "b": 2}), ("get_user", {"user_id": "U1"})]
    script = ScriptedModel(
        {
            "two steps": [
                calls_turn(call("add", {"a": 1, "b": 2})),
                final_turn("I think I'm done"),
                calls_turn(call("get_user", {"user_id": "U1"})),
                final_turn("done now"),
            ]
        }
    )
    with FakeModelServer(script) as server:
        outcome, _, _ = run(server, case("c", "two steps", golden), harness_mode="oracle-assisted")
        nudge_request = server.requests[2]["body"]["messages"]
    assert outcome.round_budget == 2 + 4
    assert outcome.nudges == 1
    assert nudge_request[-1] == {
        "role": "user",
        "content": "1 expected step remain. Continue with the tools.",
    }
    assert outcome.error is None and outcome.final_text == "done now"


def test_oracle_budget_is_expected_plus_four() -> None:
    script = ScriptedModel({"loop": [calls_turn(call("add", {"a": 1, "b": 1}))] * 30})
    with FakeModelServer(script) as server:
        outcome, _, _ = run(
            server, case("c", "loop", [("add", {"a": 1, "b": 1})]), harness_mode="oracle-assisted"
        )
    assert (
        len(outcome.rounds) == 5
        and outcome.error is not None
        and outcome.error.kind == "round_budget"
    )


def test_production_budget_can_be_set_explicitly() -> None:
    script = ScriptedModel({"loop": [calls_turn(call("add", {"a": 1, "b": 1}))] * 30})
    with FakeModelServer(script) as server:
        outcome, _, _ = run(
            server, case("c", "loop"), harness_assistance=HarnessAssistance(round_budget=3)
        )
    assert len(outcome.rounds) == 3


def test_restatement_lists_every_known_value() -> None:
    script = ScriptedModel(
        {
            "chain": [
                calls_turn(call("get_user", {"user_id": "U1"})),
                calls_turn(call("add", {"a": 40, "b": 2})),
                final_turn("42"),
            ]
        }
    )
    with FakeModelServer(script) as server:
        run(server, case("c", "chain"), restate_known_values=True)
        third = server.requests[2]["body"]["messages"]
    restated = third[-1]
    assert restated["role"] == "user" and restated["content"].startswith("Known values so far:")
    for fragment in (
        'get_user.user_id = "U1"',
        'get_user.result.email = "ada@example.com"',
        "add.a = 40",
        "add.result.sum = 42",
    ):
        assert fragment in restated["content"]
    # the tool message itself stays the pure result
    assert json.loads(third[-2]["content"]) == {"sum": 42}


def test_retrieval_top_k_sends_only_selected_tools() -> None:
    script = ScriptedModel({"What is the weather forecast in Paris?": [final_turn("sunny")]})
    with FakeModelServer(script) as server:
        outcome, _, _ = run(
            server, case("c", "What is the weather forecast in Paris?"), retrieve_top_k=2
        )
        sent = [t["function"]["name"] for t in server.requests[0]["body"]["tools"]]
    assert outcome.selected_tools is not None and outcome.selected_tools[0] == "get_weather"
    assert set(sent) == set(outcome.selected_tools) and len(sent) == 2


def test_select_tools_is_deterministic_and_ranks_by_overlap() -> None:
    assert select_tools(CALC_REGISTRY, "send an email to the user", 1) == ["send_email"]
    assert select_tools(CALC_REGISTRY, "add 2 and 3", 1) == ["add"]
    assert select_tools(CALC_REGISTRY, "zzz", 2) == ["add", "get_user"]  # ties: registry order


def test_request_carries_options_and_auth_header() -> None:
    script = ScriptedModel({"o": [final_turn("x")]})
    with FakeModelServer(script) as server:
        run(server, case("c", "o"), temperature=0.0, seed=7, max_tokens=64)
        req = server.requests[0]
    assert req["headers"]["authorization"] == "Bearer sk-test-secret-key-1234567890"
    body = req["body"]
    assert body["seed"] == 7 and body["max_tokens"] == 64 and body["temperature"] == 0.0
    assert body["tool_choice"] == "auto" and len(body["tools"]) == 4


def test_anthropic_request_shape() -> None:
    script = ScriptedModel({"o": [final_turn("x", anthropic=True)]})
    with FakeModelServer(script) as server:
        run(server, case("c", "o"), provider="anthropic", system_prompt="be brief")
        req = server.requests[0]
    assert req["path"] == "/v1/messages"
    assert req["headers"]["x-api-key"] == "sk-test-secret-key-1234567890"
    assert req["headers"]["anthropic-version"] == "2023-06-01"
    assert req["body"]["system"] == "be brief"
    assert req["body"]["tools"][0]["input_schema"]["properties"]["a"] == {"type": "integer"}
    assert req["body"]["tool_choice"] == {"type": "auto"}


def test_rate_limiter_spaces_requests() -> None:
    now = [0.0]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    limiter = RateLimiter(120, clock=lambda: now[0], sleep=sleep)

    async def go() -> None:
        for _ in range(3):
            await limiter.acquire()

    asyncio.run(go())
    assert slept == [0.5, 1.0]  # 120 rpm: one slot every half second


def test_local_provider_never_sends_null_assistant_content() -> None:
    script = ScriptedModel({"s": [calls_turn(call("add", {"a": 1, "b": 2})), final_turn("3")]})
    with FakeModelServer(script) as server:
        run(server, case("c", "s"), provider="local")
        openai_run = run(server, case("c", "s"))
        local_body, openai_body = server.requests[1]["body"], server.requests[3]["body"]
    assert openai_run[0].error is None
    assert local_body["messages"][1]["content"] == ""  # llama-cpp refuses null here
    assert openai_body["messages"][1]["content"] is None
    assert "stream_options" not in local_body
