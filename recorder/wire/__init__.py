"""Wire formats: provider responses -> neutral :class:`AssistantTurn`, and request-side helpers.

Formats: OpenAI chat completions (JSON and SSE), OpenAI Responses API (JSON and SSE), Anthropic
messages (JSON and SSE), and Gemini ``generateContent`` (read-only, for foreign cassettes). Parsers never raise on malformed input: what cannot be read is reported
in the turn (``error``, ``truncated``, a call's ``parse_error``).
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
from rejudge.recorder.wire.detect import (
    detect_wire_format,
    extract_echoed_calls,
    extract_first_user_text,
    extract_tool_results,
    extract_tool_specs,
    is_event_stream,
    parse_response,
)
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

__all__ = [
    "WIRE_ANTHROPIC",
    "WIRE_FORMATS",
    "WIRE_GEMINI",
    "WIRE_OPENAI_CHAT",
    "WIRE_OPENAI_RESPONSES",
    "WIRE_UNKNOWN",
    "AssistantTurn",
    "EchoedCall",
    "SentToolResult",
    "anthropic_echoed_calls",
    "anthropic_tool_results",
    "detect_wire_format",
    "extract_echoed_calls",
    "extract_first_user_text",
    "extract_tool_results",
    "extract_tool_specs",
    "gemini_echoed_calls",
    "gemini_tool_results",
    "is_event_stream",
    "iter_sse",
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
]
