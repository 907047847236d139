"""The neutral conversation and the provider interface.

A provider is pure translation: ``build`` turns a neutral conversation plus tool schemas into an
HTTP request description, ``parse`` turns the response bytes into an
:class:`recorder.wire.common.AssistantTurn` through its ``wire_format``, the same registered
:class:`recorder.wire.WireFormat` object the normalizer reads recorded exchanges with. Sending,
retrying and recording happen elsewhere, so the same provider serves live recording and offline
replay.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rejudge.recorder._http import RecorderError
from rejudge.recorder.wire import AssistantTurn, WireFormat

from rejudge.errors import NotFoundError
from rejudge.model import ToolCall
from rejudge.registry import REGISTRY

__all__ = [
    "SystemMessage",
    "UserMessage",
    "AssistantMessage",
    "ToolMessage",
    "Message",
    "Conversation",
    "RequestOptions",
    "WireRequest",
    "Provider",
    "register_provider",
    "get_provider",
    "provider_names",
]


@dataclass(frozen=True)
class SystemMessage:
    text: str


@dataclass(frozen=True)
class UserMessage:
    text: str


@dataclass(frozen=True)
class AssistantMessage:
    """An assistant turn as it goes back to the model: its text and the calls it made.

    ``calls`` carry the id the conversation uses (the loop fills in an id when the endpoint sent
    none) and the raw argument text exactly as the model produced it.
    """

    text: str | None
    calls: list[ToolCall] = field(default_factory=list)


@dataclass(frozen=True)
class ToolMessage:
    """One tool result sent back: ``content`` is the text the model sees."""

    call_id: str
    name: str
    content: str
    is_error: bool = False


Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage


@dataclass
class Conversation:
    messages: list[Message] = field(default_factory=list)

    def add(self, message: Message) -> None:
        self.messages.append(message)


@dataclass(frozen=True)
class RequestOptions:
    model: str
    temperature: float | None = 0.0
    seed: int | None = None
    max_tokens: int | None = None
    stream: bool = False
    tool_choice: str | None = "auto"


@dataclass(frozen=True)
class WireRequest:
    """What to send: a path below the base URL, a JSON body and headers (without secrets)."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


class Provider(ABC):
    """``api_key_env`` names the environment variable its API key is read from (by the CLI:
    library code never reads the environment); ``None`` for a server that takes no key."""

    name: str
    default_base_url: str
    wire_format: WireFormat
    api_key_env: str | None = None

    @abstractmethod
    def build(
        self,
        conversation: Conversation,
        tools: list[dict[str, Any]],
        options: RequestOptions,
    ) -> WireRequest:
        """The wire request for this conversation (``tools`` in OpenAI function format)."""

    @abstractmethod
    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        """Headers that carry the key; scrubbed from every cassette."""

    def parse(self, body: bytes, *, stream: bool) -> AssistantTurn:
        """The neutral turn of a successful (2xx) response body."""
        text = decode_text(body)
        if stream:
            return self.wire_format.assemble_stream(text)
        try:
            data = json.loads(text)
        except ValueError as exc:
            return AssistantTurn(error=f"response body is not JSON: {exc}")
        return self.wire_format.parse_message(data)

    def url(self, base_url: str | None, path: str) -> str:
        base = (base_url or self.default_base_url).rstrip("/")
        return f"{base}{path}"


def _check_provider(name: str, provider: Any) -> None:
    if not isinstance(provider, Provider):
        raise ValueError(f"provider {name!r} is not a Provider")


class UnknownProviderError(RecorderError, NotFoundError):
    """No provider of that name is registered (``field`` is ``"provider"``): the registry's one
    "unknown provider 'x' (known: ...)" error, still a recorder error for its callers."""


REGISTRY.configure("provider", error=UnknownProviderError, check=_check_provider)


def register_provider(name: str, factory: Callable[[], Provider]) -> None:
    """Add a provider, built by ``factory()`` on its first lookup (providers are pure
    translation and keep no state, so one object serves every recording): the one extension
    registry's kind ``provider`` (:mod:`rejudge.registry`), where a plugin can add one too."""
    REGISTRY.register_factory("provider", name, factory)


def provider_names() -> list[str]:
    return REGISTRY.names("provider")


def get_provider(name: str) -> Provider:
    return REGISTRY.get("provider", name)


def decode_text(body: bytes) -> str:
    return body.decode("utf-8", errors="replace")
