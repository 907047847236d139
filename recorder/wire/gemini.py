"""Google Gemini ``generateContent``: ``functionCall`` parts, and ``functionResponse`` parts sent back.

Not one of rejudge's recording providers, but real cassettes mix it with OpenAI traffic (one agent
handing over to another), so the normalizer reads it too.
"""

from __future__ import annotations

from typing import Any

from rejudge.recorder.wire.common import (
    AssistantTurn,
    EchoedCall,
    SentToolResult,
    compact_json,
    error_message,
    iter_sse,
    load_json_event,
    make_call,
    text_or_none,
)

__all__ = [
    "parse_gemini",
    "parse_gemini_stream",
    "gemini_tool_results",
    "gemini_echoed_calls",
]


def _usage(meta: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    if not isinstance(meta, dict):
        return out
    for key, neutral in (
        ("promptTokenCount", "input_tokens"),
        ("candidatesTokenCount", "output_tokens"),
        ("totalTokenCount", "total_tokens"),
    ):
        value = meta.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            out[neutral] = value
    return out


def _candidate_parts(body: dict[str, Any]) -> tuple[list[dict[str, Any]], str | None]:
    candidates = body.get("candidates")
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
        return [], None
    cand = candidates[0]
    finish = cand.get("finishReason")
    content = cand.get("content")
    parts = content.get("parts") if isinstance(content, dict) else None
    good = [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []
    return good, finish if isinstance(finish, str) else None


def _turn_from_parts(
    parts: list[dict[str, Any]],
    finish: str | None,
    usage: dict[str, int],
    model: str | None,
    err: str | None,
    truncated: bool = False,
) -> AssistantTurn:
    texts: list[str] = []
    calls = []
    for part in parts:
        if isinstance(part.get("text"), str) and not part.get("thought"):
            texts.append(part["text"])
        fc = part.get("functionCall")
        if isinstance(fc, dict):
            args = fc.get("args")
            calls.append(make_call(fc.get("id"), fc.get("name"), args if args is not None else {}))
    return AssistantTurn(
        text=text_or_none(texts),
        calls=calls,
        finish_reason=finish,
        usage=usage,
        truncated=truncated,
        raw_model=model,
        error=err,
    )


def parse_gemini(body: dict[str, Any]) -> AssistantTurn:
    """A non-streaming ``generateContent`` response (first candidate)."""
    if not isinstance(body, dict):
        return AssistantTurn(error="response body is not a JSON object")
    parts, finish = _candidate_parts(body)
    model = body.get("modelVersion") if isinstance(body.get("modelVersion"), str) else None
    err = error_message(body)
    if err is None and not isinstance(body.get("candidates"), list):
        err = "response has no candidates"
    return _turn_from_parts(parts, finish, _usage(body.get("usageMetadata")), model, err)


def parse_gemini_stream(text_or_chunks: Any) -> AssistantTurn:
    """``streamGenerateContent``: SSE (``alt=sse``) or a JSON array of response chunks.

    Parts concatenate across chunks; a stream with no finish reason is ``truncated``.
    """
    chunks: list[Any]
    if isinstance(text_or_chunks, list):
        chunks = text_or_chunks
    elif isinstance(text_or_chunks, str):
        chunks = [load_json_event(data) for _event, data in iter_sse(text_or_chunks)]
    else:
        return AssistantTurn(truncated=True, error="stream body is not text")
    parts: list[dict[str, Any]] = []
    finish: str | None = None
    usage: dict[str, int] = {}
    model: str | None = None
    err: str | None = None
    for chunk in chunks:
        if not isinstance(chunk, dict):
            continue
        err = error_message(chunk) or err
        more, fin = _candidate_parts(chunk)
        parts.extend(more)
        finish = fin or finish
        usage = _usage(chunk.get("usageMetadata")) or usage
        if isinstance(chunk.get("modelVersion"), str):
            model = chunk["modelVersion"]
    # text fragments of one stream join; calls arrive whole in one part
    return _turn_from_parts(parts, finish, usage, model, err, truncated=finish is None)


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
                    call_id=cid if isinstance(cid, str) and cid else None,
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
                cid = fc.get("id")
                turn.append(
                    EchoedCall(
                        id=cid if isinstance(cid, str) and cid else None,
                        name=fc.get("name") if isinstance(fc.get("name"), str) else None,
                        arguments_raw=compact_json(fc.get("args"))
                        if fc.get("args") is not None
                        else None,
                    )
                )
        if turn:
            out.append(turn)
    return out
