"""The llama-cpp provider: tool results stay as role "tool" messages and are echoed as a user turn."""

from __future__ import annotations

from rejudge.recorder.providers import (
    AssistantMessage,
    Conversation,
    RequestOptions,
    ToolMessage,
    UserMessage,
    get_provider,
)

from rejudge.model import ToolCall


def _conversation() -> Conversation:
    conversation = Conversation()
    conversation.add(UserMessage("where is W442?"))
    call = ToolCall(id="c1", name="get_order", arguments={"order_id": "W442"}, arguments_raw="{}")
    conversation.add(AssistantMessage(None, [call]))
    conversation.add(ToolMessage(call_id="c1", name="get_order", content='{"status": "shipped"}'))
    return conversation


def test_llama_cpp_echoes_results_after_the_tool_messages() -> None:
    body = get_provider("llama-cpp").build(_conversation(), [], RequestOptions(model="m")).body
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "tool", "user"]
    assert body["messages"][1]["content"] == ""
    assert body["messages"][2]["content"] == '{"status": "shipped"}'
    assert (
        body["messages"][3]["content"]
        == 'Tool results:\n- get_order returned: {"status": "shipped"}'
    )


def test_other_providers_send_results_only_as_tool_messages() -> None:
    for name in ("openai", "local"):
        body = get_provider(name).build(_conversation(), [], RequestOptions(model="m")).body
        assert [m["role"] for m in body["messages"]] == ["user", "assistant", "tool"]
