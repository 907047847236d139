"""Providers: translate the neutral conversation into a wire request and the response back."""

from __future__ import annotations

from rejudge.recorder.providers.anthropic import AnthropicMessagesProvider
from rejudge.recorder.providers.base import (
    AssistantMessage,
    Conversation,
    Provider,
    RequestOptions,
    SystemMessage,
    ToolMessage,
    UserMessage,
    get_provider,
    provider_names,
    register_provider,
)
from rejudge.recorder.providers.openai import OpenAIChatProvider

__all__ = [
    "AnthropicMessagesProvider",
    "AssistantMessage",
    "Conversation",
    "OpenAIChatProvider",
    "Provider",
    "RequestOptions",
    "SystemMessage",
    "ToolMessage",
    "UserMessage",
    "get_provider",
    "provider_names",
    "register_provider",
]

register_provider("openai", lambda: OpenAIChatProvider())
register_provider(
    "local",
    lambda: OpenAIChatProvider(
        name="local",
        default_base_url="http://127.0.0.1:8000/v1",
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
        stream_usage=False,
        null_content="",
        # chatml-function-calling never renders role "tool": without an echo the model never
        # sees a result and repeats its call until the round budget ends
        echo_tool_results=True,
    ),
)
register_provider("anthropic", lambda: AnthropicMessagesProvider())
