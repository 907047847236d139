"""Providers: translate the neutral conversation into a wire request and the response back.

Each built-in provider is registered by its client's module (``register_provider`` at its
bottom) and declared by its line in ``rejudge.registry.BUILTINS["provider"]``.
"""

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
