"""Wire formats: provider responses -> neutral :class:`AssistantTurn`, and request-side helpers.

Formats: OpenAI chat completions (JSON and SSE), OpenAI Responses API (JSON and SSE), Anthropic
messages (JSON and SSE), and Gemini ``generateContent`` (read-only, for foreign cassettes). Each is
a :class:`WireFormat` object (:mod:`.format` has the protocol) registered by name in
:mod:`.registry`; the ``detect_wire_format`` / ``parse_response`` / ``extract_*`` functions
dispatch through that registry. Parsers never raise on malformed input: what cannot be read is
reported in the turn (``error``, ``truncated``, a call's ``parse_error``).
"""

from rejudge.recorder.wire.anthropic import (
    anthropic_echoed_calls,
    anthropic_tool_results,
    parse_anthropic_message,
    parse_anthropic_sse,
)
from rejudge.recorder.wire.common import (
    WIRE_ANTHROPIC,
    WIRE_FORMATS,
    WIRE_GEMINI,
    WIRE_OPENAI_CHAT,
    WIRE_OPENAI_RESPONSES,
    WIRE_UNKNOWN,
    AssistantTurn,
    EchoedCall,
    SentToolResult,
    iter_sse,
    parse_arguments,
)
from rejudge.recorder.wire.format import Probe, WireFormat, is_event_stream, make_probe
from rejudge.recorder.wire.gemini import (
    gemini_echoed_calls,
    gemini_tool_results,
    parse_gemini,
    parse_gemini_stream,
)
from rejudge.recorder.wire.openai_chat import (
    openai_chat_echoed_calls,
    openai_chat_tool_results,
    parse_openai_chat,
    parse_openai_chat_sse,
)
from rejudge.recorder.wire.openai_responses import (
    openai_responses_echoed_calls,
    openai_responses_tool_results,
    parse_openai_responses,
    parse_openai_responses_sse,
)
from rejudge.recorder.wire.registry import (
    UnknownWireFormatError,
    detect_wire_format,
    extract_echoed_calls,
    extract_first_user_text,
    extract_tool_results,
    extract_tool_specs,
    find_wire_format,
    get_wire_format,
    parse_response,
    register_wire_format,
    wire_formats,
)

__all__ = [
    "WIRE_ANTHROPIC",
    "WIRE_FORMATS",
    "WIRE_GEMINI",
    "WIRE_OPENAI_CHAT",
    "WIRE_OPENAI_RESPONSES",
    "WIRE_UNKNOWN",
    "AssistantTurn",
    "EchoedCall",
    "Probe",
    "SentToolResult",
    "UnknownWireFormatError",
    "WireFormat",
    "anthropic_echoed_calls",
    "anthropic_tool_results",
    "detect_wire_format",
    "extract_echoed_calls",
    "extract_first_user_text",
    "extract_tool_results",
    "extract_tool_specs",
    "find_wire_format",
    "gemini_echoed_calls",
    "gemini_tool_results",
    "get_wire_format",
    "is_event_stream",
    "iter_sse",
    "make_probe",
    "openai_chat_echoed_calls",
    "openai_chat_tool_results",
    "openai_responses_echoed_calls",
    "openai_responses_tool_results",
    "parse_anthropic_message",
    "parse_anthropic_sse",
    "parse_arguments",
    "parse_gemini",
    "parse_gemini_stream",
    "parse_openai_chat",
    "parse_openai_chat_sse",
    "parse_openai_responses",
    "parse_openai_responses_sse",
    "parse_response",
    "register_wire_format",
    "wire_formats",
]
