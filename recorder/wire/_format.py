"""The wire-format protocol: everything the recorder needs to know about one model API.

A wire format is an object (one per API, registered by name in :mod:`.registry`) that answers:

- ``detect(probe) -> int``: how surely an exchange speaks it (:data:`DETECT_PATH` when the URL
  path names its endpoint, :data:`DETECT_RESPONSE` when the request body's shape and the
  response's agree, :data:`DETECT_BODY` when only the request body's shape does,
  :data:`DETECT_HEADERS` when only provider headers do, :data:`DETECT_NONE` otherwise);
- ``other_endpoint(probe) -> bool``: the path names an endpoint of this API that is no model
  exchange (model listings, token counting), so body and headers are not consulted;
- request parsing: ``tool_results`` and ``echoed_calls`` (what a request sends back),
  ``tool_specs`` (the tools it offers), ``user_texts`` (every user message of the
  conversation's history, in order; its first is ``first_user_text``, the task it starts from);
- response parsing: ``parse_message`` (one decoded JSON body) and ``assemble_stream`` (a whole
  event stream), joined by ``parse_response``, which decides between the two.

Parsers never raise on malformed input: what cannot be read is reported in the turn (``error``,
``truncated``, a call's ``parse_error``), so normalizing the same bytes always gives the same trace.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar
from urllib.parse import urlsplit

from rejudge.recorder.wire._common import (
    AssistantTurn,
    EchoedCall,
    SentToolResult,
    iter_json_lines,
    strict_loads,
)

from rejudge.model import ToolSpec

__all__ = [
    "DETECT_NONE",
    "DETECT_HEADERS",
    "DETECT_BODY",
    "DETECT_RESPONSE",
    "DETECT_PATH",
    "header_value",
    "Probe",
    "WireFormat",
    "is_event_stream",
    "make_probe",
]

DETECT_NONE = 0
DETECT_HEADERS = 1
DETECT_BODY = 2
DETECT_RESPONSE = 3
DETECT_PATH = 4


def header_value(headers: Any, name: str) -> str | None:
    """The first value of header ``name`` (lower-case) in recorded headers, or ``None``."""
    if not isinstance(headers, Mapping):
        return None
    for key, value in headers.items():
        if isinstance(key, str) and key.lower() == name:
            if isinstance(value, (list, tuple)):
                value = value[0] if value else None
            return value if isinstance(value, str) else None
    return None


@dataclass(frozen=True)
class Probe:
    """One exchange as detection sees it, decoded once for every format.

    ``path`` is the URL path, lower-cased, without scheme, host, query or trailing slash (``""``
    when unknown), ``host`` the URL's host, lower-cased, without port (``""`` for a bare path); ``body`` is the request body as a JSON value (``None`` when it is not JSON);
    ``headers`` are the response headers as recorded; ``response`` the response body as
    decoded (JSON value, text or bytes; ``None`` when unknown), which lets two formats whose
    requests look alike be told apart by what answered them.
    """

    path: str
    body: Any
    headers: Any = None
    response: Any = None
    host: str = ""

    @property
    def last_segment(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    def has_header_prefix(self, prefix: str) -> bool:
        if not isinstance(self.headers, Mapping):
            return False
        return any(isinstance(k, str) and k.lower().startswith(prefix) for k in self.headers)


def make_probe(
    request_path: str | None,
    request_body: Any = None,
    response_headers: Any = None,
    response_body: Any = None,
) -> Probe:
    """The :class:`Probe` of a URL (or path), a request body (text, bytes or decoded), the
    response headers and (optionally) the response body."""
    path = host = ""
    if isinstance(request_path, str):
        if "://" in request_path:
            parts = urlsplit(request_path)
            path, host = parts.path, (parts.hostname or "")
        else:
            path = request_path
        path = path.split("?", 1)[0].rstrip("/").lower()
        host = host.lower()
    body = request_body
    if isinstance(body, (str, bytes)):
        try:
            body = strict_loads(body)
        except (ValueError, RecursionError):
            body = None
    return Probe(path=path, body=body, headers=response_headers, response=response_body, host=host)


def detect_chat_answered(probe: Probe, path_suffix: str, answered: Callable[[Any], bool]) -> int:
    """How surely ``probe`` speaks an API whose endpoint path ends in ``path_suffix`` and whose
    requests look like chat completions' (a ``messages`` list): its path names it; without
    that, only a response in its own shape (``answered``) does, since the request alone could
    be any chat API's."""
    if probe.path.endswith(path_suffix):
        return DETECT_PATH
    body = probe.body
    if isinstance(body, dict) and isinstance(body.get("messages"), list):
        if answered(probe.response):
            return DETECT_RESPONSE
    return DETECT_NONE


def is_event_stream(body: Any, response_headers: Mapping[str, Any] | None = None) -> bool:
    """True when a response body is server-sent events (by content type, else by its first line)."""
    ctype = header_value(response_headers, "content-type")
    if ctype is not None and "text/event-stream" in ctype.lower():
        return True
    if isinstance(body, str):
        head = body.lstrip()[:16]
        return head.startswith("data:") or head.startswith("event:")
    return False


class WireFormat(ABC):
    """One model API's wire format (see the module docstring for the protocol).

    ``name`` is the registry key stored on traces' exchanges; ``provider`` names the API family
    (``openai``, ``anthropic``, ``gemini``) that imported runs record as their provider;
    ``title`` is the API's name for people (the name when empty).

    A method that is one of the format's module functions is declared as that function
    (``tool_results = staticmethod(anthropic_tool_results)``), not wrapped in a method that
    only calls it: the function stays the one place that reads the body (the protocol's
    arguments are positional, so the function's own parameter names serve).
    """

    name: ClassVar[str]
    provider: ClassVar[str]
    # what a person calls the API, in messages that list the formats rejudge reads
    title: ClassVar[str] = ""
    #: the API streams one JSON object per line (Ollama, Cohere v1), never server-sent events:
    #: a text body that is not one JSON document is read as such a stream
    json_lines_stream: ClassVar[bool] = False

    @abstractmethod
    def detect(self, probe: Probe) -> int:
        """One of the ``DETECT_*`` levels (higher wins; :data:`DETECT_NONE` means not this)."""

    def other_endpoint(self, probe: Probe) -> bool:
        """True when the path names an endpoint of this API that carries no model turn."""
        return False

    @abstractmethod
    def parse_message(self, body: dict[str, Any], /) -> AssistantTurn:
        """One non-streamed response, decoded from JSON."""

    @abstractmethod
    def assemble_stream(self, text: str, /) -> AssistantTurn:
        """A whole server-sent-event response body, assembled into one turn."""

    def parse_response(
        self, body: Any, response_headers: Mapping[str, Any] | None = None
    ) -> AssistantTurn:
        """A response body as recorded: a decoded JSON dict, or text holding JSON or SSE (or
        JSON lines, for a format with ``json_lines_stream``)."""
        if self.json_lines_stream:
            if isinstance(body, bytes):
                body = body.decode("utf-8", errors="replace")
            if isinstance(body, str):
                try:
                    body = strict_loads(body)
                except (ValueError, RecursionError):
                    if not any(isinstance(line, dict) for line in iter_json_lines(body)):
                        # an HTML error page from a proxy, say: no line of it is an event
                        return AssistantTurn(error="response body is neither JSON nor JSON lines")
                    return self.assemble_stream(body)
        if self.json_lines_stream and isinstance(body, list):
            return self.parse_events(body)
        if is_event_stream(body, response_headers) and isinstance(body, str):
            return self.assemble_stream(body)
        if isinstance(body, (str, bytes)):
            try:
                body = strict_loads(body)
            except (ValueError, RecursionError):
                return AssistantTurn(error="response body is neither JSON nor an event stream")
        if not isinstance(body, dict):
            return AssistantTurn(error="response body is not a JSON object")
        return self.parse_message(body)

    def parse_events(self, events: list[Any]) -> AssistantTurn:
        """A ``json_lines_stream`` response already decoded as its list of events (by default
        not a response: only a format whose clients record it so overrides this)."""
        return AssistantTurn(error="response body is not a JSON object")

    @abstractmethod
    def tool_results(self, request_body: Any, /) -> list[SentToolResult]:
        """The tool results a request sends back to the model, in conversation order."""

    @abstractmethod
    def echoed_calls(self, request_body: Any, /) -> list[list[EchoedCall]]:
        """The calls of each earlier assistant turn that a request repeats, in order."""

    @abstractmethod
    def tool_specs(self, request_body: Any, /) -> list[ToolSpec]:
        """The function tools a request offered the model."""

    @abstractmethod
    def user_texts(self, request_body: Any, /) -> list[str]:
        """The text of every user message a request's history holds (tool results and
        messages without text excluded), in conversation order."""

    def first_user_text(self, request_body: Any) -> str | None:
        """The first user message of a request: the task a conversation started from."""
        texts = self.user_texts(request_body)
        return texts[0] if texts else None

    def model_in_url(self, url: str, /) -> str | None:
        """The model an API names in its URL rather than its body (Gemini, Bedrock), else None."""
        return None

    def __repr__(self) -> str:
        return f"<wire format {self.name}>"
