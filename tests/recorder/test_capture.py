"""Capture: a user's own agent loop (plain httpx) recorded through vcrpy into a cassette + trace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from recorder_fakes import (
    FakeModelServer,
    ScriptedModel,
    call,
    calls_turn,
    case,
    final_turn,
)
from rejudge.recorder import read_cassette, registry_from_interactions
from rejudge.store import Store

from rejudge.services import capture, renormalize_run

pytest_plugins = ["pytester"]

SECRET = "sk-proj-0123456789abcdefghijklmnop"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add",
            "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}},
        },
    }
]


def users_agent(base_url: str, instruction: str) -> str:
    """Someone else's loop: their own client, their own message handling."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": instruction}]
    with httpx.Client(base_url=base_url, headers={"authorization": f"Bearer {SECRET}"}) as client:
        for _ in range(5):
            body = {"model": "their-model", "messages": messages, "tools": TOOLS, "user": "u-123"}
            reply = client.post("/chat/completions", json=body).json()
            message = reply["choices"][0]["message"]
            messages.append(message)
            if not message.get("tool_calls"):
                return message["content"]
            for tc in message["tool_calls"]:
                args = json.loads(tc["function"]["arguments"])
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": tc["id"],
                        "content": json.dumps({"sum": args["a"] + args["b"]}),
                    }
                )
    return "gave up"


SCRIPT = {"add 2 and 3": [calls_turn(call("add", {"a": 2, "b": 3})), final_turn("5")]}


@pytest.fixture()
def store(tmp_path: Path) -> Any:
    s = Store.open(f"sqlite:///{tmp_path / 'db.sqlite'}")
    yield s
    s.close()


def test_capture_records_cassette_and_trace(store: Store, tmp_path: Path) -> None:
    cassettes = tmp_path / "cassettes"
    the_case = case("mine-1", "add 2 and 3", [("add", {"a": 2, "b": 3})])
    with FakeModelServer(ScriptedModel(SCRIPT)) as server:
        with capture(case=the_case, store=store, cassettes_dir=cassettes, run="cap") as cap:
            assert users_agent(server.base_url, "add 2 and 3") == "5"
    assert cap.interactions == 2 and cap.stored
    trace = cap.trace
    assert trace is not None and trace.status == "completed"
    (only,) = trace.calls
    assert only.name == "add" and only.arguments == {"a": 2, "b": 3} and only.result == {"sum": 5}
    text = cap.cassette_path.read_text()
    assert SECRET not in text and "secret-cookie-value" not in text
    assert read_cassette(cap.cassette_path).meta["case"] == "mine-1"
    (stored,) = list(store.traces.iter_traces(store.runs.get_run("cap").id))
    assert stored.hash == trace.hash
    # the ad-hoc suite's registry comes from the tools the agent declared
    assert store.suites.get_registry(store.runs.get_run("cap").registry_id).tool_names() == ["add"]
    assert renormalize_run(store, "cap", cassettes).changed == 0


def test_capture_replays_with_the_network_blocked(tmp_path: Path) -> None:
    cassettes = tmp_path / "cassettes"
    the_case = case("mine-2", "add 2 and 3")
    with FakeModelServer(ScriptedModel(SCRIPT)) as server:
        url = server.base_url
        with capture(case=the_case, cassettes_dir=cassettes, run="cap") as first:
            users_agent(url, "add 2 and 3")
    # the server is gone: record_mode none serves the cassette, matching bodies without ids
    with capture(case=the_case, cassettes_dir=cassettes, run="cap", record_mode="none") as again:
        assert users_agent(url, "add 2 and 3") == "5"
    assert again.trace is not None and first.trace is not None
    assert again.trace.hash == first.trace.hash


def test_capture_replay_miss_is_reported(tmp_path: Path) -> None:
    from vcr.errors import CannotOverwriteExistingCassetteException

    cassettes = tmp_path / "cassettes"
    with FakeModelServer(ScriptedModel(SCRIPT)) as server:
        url = server.base_url
        with capture(case=case("m3", "add 2 and 3"), cassettes_dir=cassettes, run="cap"):
            users_agent(url, "add 2 and 3")
    with pytest.raises(CannotOverwriteExistingCassetteException):
        with capture(case=case("m3", "x"), cassettes_dir=cassettes, run="cap", record_mode="none"):
            users_agent(url, "add 7 and 8")


def test_capture_needs_a_suite_for_a_case_id(tmp_path: Path) -> None:
    from rejudge.recorder import RecorderError

    with pytest.raises(RecorderError, match="also give suite="):
        with capture(case="fc-d1-001", cassettes_dir=tmp_path):
            pass


def _posted(url: str, body: dict[str, Any]) -> dict[str, Any]:
    """One recorded interaction: ``body`` POSTed to ``url``, answered 200 with no body."""
    return {
        "request": {"method": "POST", "uri": url, "body": json.dumps(body)},
        "response": {"status": {"code": 200, "message": "OK"}, "body": {"string": ""}},
    }


def test_registry_from_anthropic_tools() -> None:
    body = {
        "messages": [],
        "tools": [{"name": "t", "description": "d", "input_schema": {"type": "object"}}],
    }
    reg = registry_from_interactions([_posted("https://api.anthropic.com/v1/messages", body)], "x")
    assert reg.tool_names() == ["t"] and reg.tools[0].parameters == {"type": "object"}


def test_registry_reads_tools_as_the_wire_format_does() -> None:
    """Capture reads tools as import and normalization do (one reader, the wire format's): the
    first declaration of a name wins, non-model exchanges offer none, odd fields are read the
    wire format's way (a non-text description is empty, a missing schema is the default)."""
    from rejudge.recorder.wire import get_wire_format

    chat = {
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [
            {"type": "function", "function": {"name": "a", "description": 5, "parameters": {}}},
            {"type": "function", "function": {"name": "b"}},
        ],
    }
    again = {"messages": [], "tools": [{"type": "function", "function": {"name": "a"}}]}
    listing = {"request": {"method": "GET", "uri": "https://api.openai.com/v1/models"}}
    listing["response"] = {"status": {"code": 200}, "body": {"string": ""}}
    url = "https://api.openai.com/v1/chat/completions"
    reg = registry_from_interactions([listing, _posted(url, chat), _posted(url, again)], "x")
    assert reg.tools == get_wire_format("openai-chat").tool_specs(chat)
    assert [(t.name, t.description) for t in reg.tools] == [("a", ""), ("b", "")]
    assert reg.tools[1].parameters == {"type": "object", "properties": {}}


def test_pytest_plugin_marker(pytester: pytest.Pytester, tmp_path: Path) -> None:
    with FakeModelServer(ScriptedModel(SCRIPT)) as server:
        pytester.makepyfile(
            f"""
            import httpx, pytest
            from rejudge.model import Case, Golden

            CASE = Case(id="p1", dimension="D1", category="c", instruction="add 2 and 3", golden=Golden())

            @pytest.mark.rejudge_capture(case=CASE, run="plug")
            def test_agent(rejudge_capture):
                body = {{"model": "m", "messages": [{{"role": "user", "content": "add 2 and 3"}}]}}
                r = httpx.post("{server.base_url}/chat/completions", json=body)
                assert r.status_code == 200
                assert rejudge_capture.case_id == "p1"
            """
        )
        cassettes = tmp_path / "plug-cassettes"
        db = f"sqlite:///{tmp_path / 'plug.db'}"
        from importlib.metadata import entry_points

        # once pyproject registers the pytest11 entry point the plugin loads by itself
        registered = any(
            ep.value == "rejudge.pytest_plugin" for ep in entry_points(group="pytest11")
        )
        plugin = [] if registered else ["-p", "rejudge.pytest_plugin"]
        result = pytester.runpytest_inprocess(
            *plugin,
            f"--rejudge-cassettes={cassettes}",
            f"--rejudge-db={db}",
            "--rejudge-record-mode=all",
        )
    result.assert_outcomes(passed=1)
    assert (cassettes / "plug" / "p1__r0.yaml").exists()
    s = Store.open(db)
    try:
        (stored,) = list(s.traces.iter_traces(s.runs.get_run("plug").id))
        assert stored.case_key == "p1" and stored.trace.rounds[0].calls[0].name == "add"
    finally:
        s.close()
