"""OpenAI chat completions (and any OpenAI-compatible server), JSON and SSE streaming."""

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
from rejudge.recorder.wire import WIRE_OPENAI_CHAT, get_wire_format

__all__ = ["OpenAIChatProvider", "openai_messages"]


def _echo_results(results: list[ToolMessage]) -> dict[str, Any]:
    lines = [
        f"- {r.name} returned{' an error' if r.is_error else ''}: {r.content}" for r in results
    ]
    return {"role": "user", "content": "Tool results:\n" + "\n".join(lines)}


def openai_messages(
    conversation: Conversation,
    *,
    empty_content: str | None = None,
    echo_tool_results: bool = False,
) -> list[dict[str, Any]]:
    """Wire messages; ``empty_content`` replaces a null assistant content (some servers refuse
    ``null`` next to ``tool_calls`` although they send it themselves).

    ``echo_tool_results`` repeats each batch of ``role: tool`` results as a user turn, for chat
    templates that never render tool messages (llama-cpp-python's chatml-function-calling): the
    tool messages stay, so the exchange still carries the results in the standard place.
    """
    out: list[dict[str, Any]] = []
    pending: list[ToolMessage] = []
    for message in conversation.messages:
        if pending and not isinstance(message, ToolMessage):
            out.append(_echo_results(pending))
            pending = []
        if isinstance(message, SystemMessage):
            out.append({"role": "system", "content": message.text})
        elif isinstance(message, UserMessage):
            out.append({"role": "user", "content": message.text})
        elif isinstance(message, AssistantMessage):
            content = message.text if message.text is not None else empty_content
            wire: dict[str, Any] = {"role": "assistant", "content": content}
            if message.calls:
                wire["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments_raw},
                    }
                    for call in message.calls
                ]
            out.append(wire)
        elif isinstance(message, ToolMessage):
            out.append(
                {"role": "tool", "tool_call_id": message.call_id, "content": message.content}
            )
            if echo_tool_results:
                pending.append(message)
    if pending:
        out.append(_echo_results(pending))
    return out


class OpenAIChatProvider(Provider):
    """``POST {base}/chat/completions``; parallel tool calls come back as several ``tool_calls``.

    ``stream_usage`` asks for a final usage chunk (``stream_options``), which the official API
    allows and some compatible servers refuse. ``null_content`` is sent instead of a null
    assistant ``content`` (llama-cpp-python's server rejects null with a 500).
    """

    wire_format = get_wire_format(WIRE_OPENAI_CHAT)

    def __init__(
        self,
        name: str = "openai",
        default_base_url: str = "https://api.openai.com/v1",
        stream_usage: bool = True,
        null_content: str | None = None,
        echo_tool_results: bool = False,
        api_key_env: str | None = "OPENAI_API_KEY",
    ) -> None:
        self.name = name
        self.api_key_env = api_key_env
        self.echo_tool_results = echo_tool_results
        self.default_base_url = default_base_url
        self.stream_usage = stream_usage
        self.null_content = null_content

    def build(
        self,
        conversation: Conversation,
        tools: list[dict[str, Any]],
        options: RequestOptions,
    ) -> WireRequest:
        messages = openai_messages(
            conversation,
            empty_content=self.null_content,
            echo_tool_results=self.echo_tool_results,
        )
        body: dict[str, Any] = {"model": options.model, "messages": messages}
        if tools:
            body["tools"] = tools
            if options.tool_choice is not None:
                body["tool_choice"] = options.tool_choice
        if options.temperature is not None:
            body["temperature"] = options.temperature
        if options.seed is not None:
            body["seed"] = options.seed
        if options.max_tokens is not None:
            body["max_tokens"] = options.max_tokens
        if options.stream:
            body["stream"] = True
            if self.stream_usage:
                body["stream_options"] = {"include_usage": True}
        return WireRequest(path="/chat/completions", body=body)

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        return {"authorization": f"Bearer {api_key}"} if api_key else {}


# the built-in providers over OpenAI chat: the hosted API and two local servers
register_provider("openai", lambda: OpenAIChatProvider())
register_provider(
    "local",
    lambda: OpenAIChatProvider(
        name="local",
        default_base_url="http://127.0.0.1:8000/v1",
        api_key_env=None,  # a local server takes no key
        stream_usage=False,
        # llama-cpp-python's server answers 500 to an assistant message with content null
        null_content="",
    ),
)
register_provider(
    "llama-cpp",
    lambda: OpenAIChatProvider(
        name="llama-cpp",
        default_base_url="http://127.0.0.1:8000/v1",
        api_key_env=None,
        stream_usage=False,
        null_content="",
        # chatml-function-calling never renders role "tool": without an echo the model never
        # sees a result and repeats its call until the round budget ends
        echo_tool_results=True,
    ),
)
