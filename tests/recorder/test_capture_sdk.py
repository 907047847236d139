"""Capture through the official OpenAI SDK (it sends through httpx2 in 3.x; vcrpy >= 8.2 patches it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from recorder_fakes import FakeModelServer, ScriptedModel, call, calls_turn, case, final_turn
from rejudge.store import Store

from rejudge.services import capture

openai = pytest.importorskip("openai", reason="the official openai SDK is not installed")

SECRET = "sk-proj-sdkcapture0123456789abcdef"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two integers",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
            },
        },
    }
]
SCRIPT = {"add 2 and 3": [calls_turn(call("add", {"a": 2, "b": 3})), final_turn("5")]}


def sdk_agent(base_url: str) -> str:
    client = openai.OpenAI(base_url=base_url, api_key=SECRET, max_retries=0)
    messages: list = [{"role": "user", "content": "add 2 and 3"}]
    for _ in range(4):
        reply = client.chat.completions.create(model="their-model", messages=messages, tools=TOOLS)
        message = reply.choices[0].message
        if not message.tool_calls:
            return message.content or ""
        messages.append(message.model_dump(exclude_none=True))
        for tc in message.tool_calls:
            args = json.loads(tc.function.arguments)
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": tc.id,
                    "content": json.dumps(args["a"] + args["b"]),
                }
            )
    return "gave up"


def test_capture_records_the_official_sdk(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'db.sqlite'}")
    cassettes = tmp_path / "cassettes"
    the_case = case("sdk-1", "add 2 and 3", [("add", {"a": 2, "b": 3})])
    try:
        with FakeModelServer(ScriptedModel(SCRIPT)) as server:
            with capture(case=the_case, store=store, cassettes_dir=cassettes, run="sdk") as cap:
                assert sdk_agent(server.base_url) == "5"
        assert cap.interactions == 2, "both SDK requests must be in the cassette"
        assert cap.trace is not None and cap.trace.status == "completed"
        (only,) = cap.trace.calls
        assert (only.name, only.arguments, only.result) == (
            "add",
            {"a": 2, "b": 3},
            "5",
        )  # plain-number text stays text
        text = cap.cassette_path.read_text()
        assert SECRET not in text
        assert "authorization" not in text.lower()
        assert cap.stored
    finally:
        store.close()
