"""Providers: translate the neutral conversation into a wire request and the response back."""

from __future__ import annotations

from rejudge.recorder.providers._anthropic import (
    AnthropicMessagesProvider,
    anthropic_messages,
    anthropic_tools,
)
from rejudge.recorder.providers._base import (
    AssistantMessage,
    Conversation,
    Message,
    Provider,
    RequestOptions,
    SystemMessage,
    ToolMessage,
    UserMessage,
    WireRequest,
    get_provider,
    provider_names,
    register_provider,
)
from rejudge.recorder.providers._openai import (
    OpenAIChatProvider,
    openai_messages,
)

__all__ = [
    "AnthropicMessagesProvider",
    "AssistantMessage",
    "Conversation",
    "Message",
    "OpenAIChatProvider",
    "Provider",
    "RequestOptions",
    "SystemMessage",
    "ToolMessage",
    "UserMessage",
    "WireRequest",
    "anthropic_messages",
    "anthropic_tools",
    "get_provider",
    "openai_messages",
    "provider_names",
    "register_provider",
]

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
register_provider("anthropic", lambda: AnthropicMessagesProvider())
