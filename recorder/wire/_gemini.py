"""Google Gemini ``generateContent``: ``functionCall`` parts, and ``functionResponse`` parts sent back.

Not one of rejudge's recording providers, but real cassettes mix it with OpenAI traffic (one agent
handing over to another), so the normalizer reads it too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from rejudge.recorder.wire._common import (
    WIRE_GEMINI,
    AssistantTurn,
    EchoedCall,
    SentToolResult,
    compact_json,
    echoed_call,
    error_message,
    iter_sse,
    load_json_event,
    make_call,
    named_counts,
    nonempty_str,
    strict_loads,
    text_or_none,
    tool_spec,
    user_text,
)
from rejudge.recorder.wire._format import (
    DETECT_NONE,
    DETECT_PATH,
    DETECT_RESPONSE,
    Probe,
    WireFormat,
    is_event_stream,
)
from rejudge.recorder.wire._register import register_wire_format

from rejudge.model import Alternative, ToolCall, ToolSpec

__all__ = [
    "parse_gemini",
    "parse_gemini_stream",
    "gemini_tool_results",
    "gemini_echoed_calls",
    "GeminiGenerateContent",
    "GEMINI_GENERATE_CONTENT",
]


_USAGE_NAMES = (
    ("promptTokenCount", "input_tokens"),
    ("candidatesTokenCount", "output_tokens"),
    ("totalTokenCount", "total_tokens"),
)


def _usage(meta: Any) -> dict[str, int]:
    return named_counts(meta, _USAGE_NAMES)


def _candidates(body: dict[str, Any]) -> dict[int, tuple[list[dict[str, Any]], str | None]]:
    """Each candidate's parts and finish reason, by its ``index`` (its position when absent)."""
    out: dict[int, tuple[list[dict[str, Any]], str | None]] = {}
    candidates = body.get("candidates")
    for position, cand in enumerate(candidates if isinstance(candidates, list) else []):
        if not isinstance(cand, dict):
            continue
        index = cand.get("index")
        if isinstance(index, bool) or not isinstance(index, int):
            index = position
        finish = cand.get("finishReason")
        content = cand.get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        good = [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []
        out[index] = (good, finish if isinstance(finish, str) else None)
    return out


def _parts_turn(parts: list[dict[str, Any]]) -> tuple[str | None, list[ToolCall]]:
    texts: list[str] = []
    calls = []
    for part in parts:
        if isinstance(part.get("text"), str) and not part.get("thought"):
            texts.append(part["text"])
        fc = part.get("functionCall")
        if isinstance(fc, dict):
            args = fc.get("args")
            calls.append(make_call(fc.get("id"), fc.get("name"), args if args is not None else {}))
    return text_or_none(texts), calls


def _turn_from_candidates(
    candidates: dict[int, tuple[list[dict[str, Any]], str | None]],
    usage: dict[str, int],
    model: str | None,
    err: str | None,
    truncated: bool = False,
) -> AssistantTurn:
    """The first candidate is the turn (a client follows it); the others (``candidateCount``
    > 1) are its alternatives, as the other choices of OpenAI's ``n > 1`` are."""
    if not candidates:
        return AssistantTurn(usage=usage, raw_model=model, error=err, truncated=truncated)
    first = min(candidates)
    alternatives = []
    for index in sorted(candidates):
        if index != first:
            parts, finish = candidates[index]
            text, calls = _parts_turn(parts)
            alternatives.append(
                Alternative(choice=index, calls=calls, text=text, finish_reason=finish)
            )
    parts, finish = candidates[first]
    text, calls = _parts_turn(parts)
    return AssistantTurn(
        text=text,
        calls=calls,
        finish_reason=finish,
        usage=usage,
        truncated=truncated,
        raw_model=model,
        error=err,
        alternatives=alternatives,
    )


def parse_gemini(body: dict[str, Any]) -> AssistantTurn:
    """A non-streaming ``generateContent`` response: the first candidate, the others as
    alternatives."""
    if not isinstance(body, dict):
        return AssistantTurn(error="response body is not a JSON object")
    model = body.get("modelVersion") if isinstance(body.get("modelVersion"), str) else None
    err = error_message(body)
    if err is None and not isinstance(body.get("candidates"), list):
        err = "response has no candidates"
    return _turn_from_candidates(_candidates(body), _usage(body.get("usageMetadata")), model, err)


def parse_gemini_stream(text_or_chunks: Any) -> AssistantTurn:
    """``streamGenerateContent``: SSE (``alt=sse``) or a JSON array of response chunks.

    Parts concatenate across chunks per candidate index; a stream whose first candidate has no
    finish reason is ``truncated``.
    """
    chunks: list[Any]
    if isinstance(text_or_chunks, list):
        chunks = text_or_chunks
    elif isinstance(text_or_chunks, str):
        chunks = [load_json_event(data) for _event, data in iter_sse(text_or_chunks)]
    else:
        return AssistantTurn(truncated=True, error="stream body is not text")
    merged: dict[int, tuple[list[dict[str, Any]], str | None]] = {}
    usage: dict[str, int] = {}
    model: str | None = None
    err: str | None = None
    for chunk in chunks:
        if not isinstance(chunk, dict):
            continue
        err = error_message(chunk) or err
        for index, (more, fin) in _candidates(chunk).items():
            parts, finish = merged.get(index, ([], None))
            merged[index] = (parts + more, fin or finish)
        usage = _usage(chunk.get("usageMetadata")) or usage
        if isinstance(chunk.get("modelVersion"), str):
            model = chunk["modelVersion"]
    # text fragments of one stream join; calls arrive whole in one part
    finished = bool(merged) and merged[min(merged)][1] is not None
    return _turn_from_candidates(merged, usage, model, err, truncated=not finished)


def gemini_tool_results(body: Any) -> list[SentToolResult]:
    """Every ``functionResponse`` part of a request's ``contents``."""
    out: list[SentToolResult] = []
    if not isinstance(body, dict) or not isinstance(body.get("contents"), list):
        return out
    for content in body["contents"]:
        parts = content.get("parts") if isinstance(content, dict) else None
        if not isinstance(parts, list):
            continue
        for part in parts:
            fr = part.get("functionResponse") if isinstance(part, dict) else None
            if not isinstance(fr, dict):
                continue
            cid = fr.get("id")
            response = fr.get("response")
            # pydantic-ai and others wrap plain values as {"return_value": ...}
            if isinstance(response, dict) and set(response) == {"return_value"}:
                response = response["return_value"]
            out.append(
                SentToolResult(
                    call_id=nonempty_str(cid),
                    content=response,
                    name=fr.get("name") if isinstance(fr.get("name"), str) else None,
                )
            )
    return out


def gemini_echoed_calls(body: Any) -> list[list[EchoedCall]]:
    """The ``functionCall`` parts of each ``model`` content of a request."""
    out: list[list[EchoedCall]] = []
    if not isinstance(body, dict) or not isinstance(body.get("contents"), list):
        return out
    for content in body["contents"]:
        if not isinstance(content, dict) or content.get("role") != "model":
            continue
        parts = content.get("parts")
        if not isinstance(parts, list):
            continue
        turn = []
        for part in parts:
            fc = part.get("functionCall") if isinstance(part, dict) else None
            if isinstance(fc, dict):
                args = fc.get("args")
                raw = compact_json(args) if args is not None else None
                turn.append(echoed_call(fc.get("id"), fc.get("name"), raw))
        if turn:
            out.append(turn)
    return out


def _gemini_response(response: Any) -> bool:
    """A generateContent answer: ``candidates`` in the body, in a JSON array of stream chunks,
    or in the stream's first SSE event."""
    if isinstance(response, dict):
        return isinstance(response.get("candidates"), list)
    if isinstance(response, list):
        return bool(response) and isinstance(response[0], dict) and "candidates" in response[0]
    if isinstance(response, str):
        head = response[:2000]
        return head.lstrip().startswith(("data:", "[")) and '"candidates"' in head
    return False


class GeminiGenerateContent(WireFormat):
    """``POST .../models/M:generateContent`` and ``:streamGenerateContent`` (found by path only:
    rejudge reads Gemini exchanges of foreign cassettes, it never records them)."""

    name = WIRE_GEMINI
    provider = "gemini"
    title = "Gemini generateContent"

    def detect(self, probe: Probe) -> int:
        last = probe.last_segment
        if last.endswith(":generatecontent") or last.endswith(":streamgeneratecontent"):
            return DETECT_PATH
        body = probe.body
        if (
            isinstance(body, dict)
            and isinstance(body.get("contents"), list)
            and _gemini_response(probe.response)
        ):
            # behind a redacted URL: a ``contents`` request answered with ``candidates``
            return DETECT_RESPONSE
        return DETECT_NONE

    def other_endpoint(self, probe: Probe) -> bool:
        # the other methods of a model (countTokens, embedContent, ...)
        return ":" in probe.last_segment

    def model_in_url(self, url: str) -> str | None:
        # generateContent names its model in the URL path (models/<model>:generateContent)
        last = urlsplit(url).path.rsplit("/", 1)[-1]
        return last.split(":", 1)[0] or None

    parse_message = staticmethod(parse_gemini)
    assemble_stream = staticmethod(parse_gemini_stream)

    def parse_response(
        self, body: Any, response_headers: Mapping[str, Any] | None = None
    ) -> AssistantTurn:
        # a stream is SSE (``alt=sse``) or, without it, one JSON array of chunks
        if isinstance(body, str) and is_event_stream(body, response_headers):
            return parse_gemini_stream(body)
        if isinstance(body, (str, bytes)):
            try:
                body = strict_loads(body)
            except (ValueError, RecursionError):
                return AssistantTurn(error="response body is neither JSON nor an event stream")
        if isinstance(body, list):
            return parse_gemini_stream(body)
        return parse_gemini(body)

    tool_results = staticmethod(gemini_tool_results)
    echoed_calls = staticmethod(gemini_echoed_calls)

    def tool_specs(self, request_body: Any) -> list[ToolSpec]:
        if not isinstance(request_body, dict):
            return []
        tools = request_body.get("tools")
        out: list[ToolSpec | None] = []
        for group in tools if isinstance(tools, list) else []:
            decls = (
                group.get("function_declarations", group.get("functionDeclarations"))
                if isinstance(group, dict)
                else None
            )
            for d in decls if isinstance(decls, list) else []:
                if isinstance(d, dict):
                    out.append(tool_spec(d.get("name"), d.get("description"), d.get("parameters")))
        return [s for s in out if s is not None]

    def user_texts(self, request_body: Any) -> list[str]:
        contents = request_body.get("contents") if isinstance(request_body, dict) else None
        out = []
        for content in contents if isinstance(contents, list) else []:
            if isinstance(content, dict) and content.get("role", "user") == "user":
                text = user_text(content.get("parts"))  # functionResponse parts carry none
                if text:
                    out.append(text)
        return out


GEMINI_GENERATE_CONTENT = GeminiGenerateContent()

register_wire_format(GEMINI_GENERATE_CONTENT)
