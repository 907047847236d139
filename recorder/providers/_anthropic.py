"""Anthropic messages, JSON and SSE streaming (``input_json_delta`` per content block)."""

from __future__ import annotations

from typing import Any

from rejudge.recorder.providers._base import (
    AssistantMessage,
    Conversation,
    Provider,
    RequestOptions,
    SystemMessage,
    ToolMessage,
    UserMessage,
    WireRequest,
    register_provider,
)
from rejudge.recorder.wire import WIRE_ANTHROPIC, get_wire_format

__all__ = ["AnthropicMessagesProvider", "anthropic_tools", "anthropic_messages"]

ANTHROPIC_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 1024


def anthropic_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI function definitions as Anthropic tools (``input_schema``)."""
    out = []
    for tool in tools:
        fn = tool.get("function", tool)
        out.append(
            {
                "name": fn["name"],
                "description": fn.get("description", ""),
                "input_schema": fn.get("parameters") or {"type": "object", "properties": {}},
            }
        )
    return out


def _append(out: list[dict[str, Any]], role: str, blocks: list[dict[str, Any]]) -> None:
    # the API wants alternating roles: consecutive blocks of one role share a message
    if out and out[-1]["role"] == role:
        out[-1]["content"].extend(blocks)
    else:
        out.append({"role": role, "content": list(blocks)})


def anthropic_messages(conversation: Conversation) -> tuple[str | None, list[dict[str, Any]]]:
    system: list[str] = []
    out: list[dict[str, Any]] = []
    for message in conversation.messages:
        if isinstance(message, SystemMessage):
            system.append(message.text)
        elif isinstance(message, UserMessage):
            _append(out, "user", [{"type": "text", "text": message.text}])
        elif isinstance(message, AssistantMessage):
            blocks: list[dict[str, Any]] = []
            if message.text:
                blocks.append({"type": "text", "text": message.text})
            for call in message.calls:
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call.id,
                        "name": call.name,
                        # malformed arguments cannot go back as input; the tool result says why
                        "input": call.arguments if call.arguments is not None else {},
                    }
                )
            if blocks:
                _append(out, "assistant", blocks)
        elif isinstance(message, ToolMessage):
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": message.call_id,
                "content": message.content,
            }
            if message.is_error:
                block["is_error"] = True
            _append(out, "user", [block])
    return ("\n\n".join(system) if system else None), out


class AnthropicMessagesProvider(Provider):
    """``POST {base}/v1/messages``; several ``tool_use`` blocks are parallel calls."""

    wire_format = get_wire_format(WIRE_ANTHROPIC)

    def __init__(
        self,
        name: str = "anthropic",
        default_base_url: str = "https://api.anthropic.com",
        api_key_env: str | None = "ANTHROPIC_API_KEY",
    ) -> None:
        self.name = name
        self.api_key_env = api_key_env
        self.default_base_url = default_base_url

    def build(
        self,
        conversation: Conversation,
        tools: list[dict[str, Any]],
        options: RequestOptions,
    ) -> WireRequest:
        system, messages = anthropic_messages(conversation)
        body: dict[str, Any] = {
            "model": options.model,
            "max_tokens": options.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": messages,
        }
        if system:
            body["system"] = system
        if tools:
            body["tools"] = anthropic_tools(tools)
            if options.tool_choice in ("auto", "any", "none"):
                body["tool_choice"] = {"type": options.tool_choice}
            elif options.tool_choice == "required":
                body["tool_choice"] = {"type": "any"}
        if options.temperature is not None:
            body["temperature"] = options.temperature
        if options.stream:
            body["stream"] = True
        return WireRequest(
            path="/v1/messages", body=body, headers={"anthropic-version": ANTHROPIC_VERSION}
        )

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        return {"x-api-key": api_key} if api_key else {}


register_provider("anthropic", lambda: AnthropicMessagesProvider())
