"""Cassette -> trace: the pure, versioned function between raw exchanges and scored evidence.

Every model exchange (a POST in a known wire format) is one round. The calls of a round get their
results from the tool results the client sent back in a later request (by call id; for calls
without a usable id, through the client's echo of the assistant turn, then by position). The last
round's text is the final text. A provider error that the client did not retry, a truncated
stream, or an error event ends the trace as ``agent_error`` with a structured :class:`TraceError`;
the rounds before it are kept. Non-model exchanges (``GET /v1/models``, embeddings, files,
telemetry: :func:`~rejudge.recorder._exchanges.classify_exchange`) are ignored: they never
become rounds and never change the trace's status. The user turns of the cassette's
conversations, restarts included, are found in :mod:`rejudge.recorder._conversations`.

Same exchanges in, same trace (and trace hash) out: no clock, no randomness, no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rejudge.recorder._cassettes import Exchange
from rejudge.recorder._conversations import user_turns_of
from rejudge.recorder._exchanges import exchange_wire_format
from rejudge.recorder.wire import (
    AssistantTurn,
    EchoedCall,
    SentToolResult,
    WireFormat,
    is_finite_json,
    strict_loads,
)

from rejudge.model import Round, ToolCall, Trace, TraceError

__all__ = [
    "NORMALIZER_VERSION",
    "ModelExchange",
    "model_exchanges",
    "normalize_exchanges",
    "tool_outcome",
]

# bump when the same exchanges would normalize to a different trace
NORMALIZER_VERSION = "1"


@dataclass(frozen=True)
class ModelExchange:
    """A model exchange with its wire format (found once, from the registry) and parsed response."""

    exchange: Exchange
    wire_format: WireFormat
    turn: AssistantTurn | None  # None when the response was not 2xx


def _is_success(status: int | None) -> bool:
    # a cassette without a status (some hand-written ones) is taken as a success
    return status is None or 200 <= status < 300


def model_exchanges(exchanges: Iterable[Exchange]) -> list[ModelExchange]:
    """The model exchanges of a cassette, in recorded order, responses parsed."""
    out = []
    for ex in exchanges:
        fmt = exchange_wire_format(ex)
        if fmt is None:
            continue
        turn = (
            fmt.parse_response(ex.response_body, ex.response_headers)
            if _is_success(ex.status)
            else None
        )
        out.append(ModelExchange(ex, fmt, turn))
    return out


# --------------------------------------------------------------------------- results


def _maybe_json(content: Any) -> Any:
    """A JSON object/array sent as text becomes the value; any other text stays text."""
    if not is_finite_json(content):
        return json.dumps(content, ensure_ascii=False, default=str)  # NaN cannot be hashed
    if isinstance(content, str):
        head = content.lstrip()[:1]
        if head in ("{", "["):
            try:
                return strict_loads(content)
            except (ValueError, RecursionError):
                return content
    return content


def _error_of(value: Any, is_error: bool | None) -> str | None:
    """The error a tool result signals, or ``None`` when it looks like a success."""
    if is_error is True:
        return _short(value) or "tool reported an error"
    if isinstance(value, dict) and value.get("error") not in (None, False, "", {}):
        err = value["error"]
        message = err.get("message") if isinstance(err, dict) else None
        if isinstance(message, str):
            return message
        return err if isinstance(err, str) else _short(err)
    if isinstance(value, str) and value.lstrip().lower().startswith(("error:", "error -")):
        return value.strip()
    return None


def _short(value: Any, limit: int = 500) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tool_outcome(content: Any, is_error: bool | None = None) -> tuple[Any, str | None]:
    """(result, error) of a tool's answer as it was sent back to the model: the error it
    signals (an error flag, an ``{"error": ...}`` object, text starting ``error:``) or None, and
    the result, None when the payload is the error and nothing else (like a sandbox failure).
    The one reading of a tool answer: cassettes here, span files in the otel importer, so one
    conversation gives the same calls whichever way it was kept."""
    value = _maybe_json(content)
    error = _error_of(value, is_error)
    if error is not None and (not isinstance(value, dict) or set(value) <= {"error"}):
        value = None
    return value, error


def _with_result(call: ToolCall, result: SentToolResult) -> ToolCall:
    value, error = tool_outcome(result.content, result.is_error)
    return call.model_copy(update={"result": value, "ok": error is None, "error": error})


def _assign_by_id(
    out: list[ToolCall],
    pending: set[int],
    ids: Sequence[str | None],
    results: Sequence[SentToolResult],
    first_answer: bool,
) -> None:
    """Give pending calls the result sent under their id (``ids[i]`` for call ``i``).

    In the request that first answers a turn, that turn's results are the request's latest
    ones, so the k calls sharing an id (servers that number ids per response, or repeat one)
    take the last k results with it, in order. In later requests the latest result wins.
    """
    by_id: dict[str, list[SentToolResult]] = {}
    for r in results:
        if r.call_id is not None:
            by_id.setdefault(r.call_id, []).append(r)
    wanted: dict[str, list[int]] = {}
    for i in sorted(pending):
        cid = ids[i]
        if cid is not None and cid in by_id:
            wanted.setdefault(cid, []).append(i)
    for cid, positions in wanted.items():
        sent = by_id[cid]
        if first_answer and len(sent) >= len(positions):
            chosen = sent[len(sent) - len(positions) :]
        else:
            chosen = [sent[-1]] * len(positions)
        for i, result in zip(positions, chosen, strict=True):
            out[i] = _with_result(out[i], result)
            pending.discard(i)


def _echo_for(
    calls: Sequence[ToolCall], echoes: Sequence[Sequence[EchoedCall]]
) -> list[EchoedCall] | None:
    """The echoed assistant turn that repeats ``calls`` (same length, same names), latest first."""
    for turn in reversed(echoes):
        if len(turn) == len(calls) and all(
            e.name in (None, c.name) for e, c in zip(turn, calls, strict=True)
        ):
            return list(turn)
    return None


def _attach_results(
    calls: list[ToolCall], later: Sequence[tuple[WireFormat, Any]]
) -> list[ToolCall]:
    """Give each call its result from the first later request that carries it."""
    if not calls or not later:
        return calls
    out = list(calls)
    pending = set(range(len(out)))
    for n, (fmt, body) in enumerate(later):
        results = fmt.tool_results(body)
        if not results:
            continue
        # 1. by the call's own id
        _assign_by_id(out, pending, [c.id for c in calls], results, first_answer=n == 0)
        if not pending:
            break
        if n == 0:
            # 2. the client's echo of this turn supplies ids the wire did not (empty ids)
            echo = _echo_for(calls, fmt.echoed_calls(body))
            if echo is not None:
                _assign_by_id(out, pending, [e.id for e in echo], results, first_answer=True)
            # 3. by position: the request's trailing results answer this turn's calls
            if pending and len(results) >= len(calls):
                tail = results[-len(calls) :]
                names_agree = all(
                    r.name in (None, c.name) for r, c in zip(tail, calls, strict=True)
                )
                ids_free = all(
                    r.call_id is None or r.call_id not in _known_ids(calls) for r in tail
                )
                if names_agree and ids_free:
                    for i in sorted(pending):
                        out[i] = _with_result(out[i], tail[i])
                        pending.discard(i)
        if not pending:
            break
    return out


def _known_ids(calls: Sequence[ToolCall]) -> set[str]:
    return {c.id for c in calls if c.id is not None}


# --------------------------------------------------------------------------- the trace


def _same_request(a: Exchange, b: Exchange) -> bool:
    return a.url == b.url and a.request_body == b.request_body


def _status_message(ex: Exchange) -> str:
    body = ex.response_body
    detail = ""
    if isinstance(body, dict):
        err = body.get("error")
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            detail = err["message"]
        elif isinstance(err, str):
            detail = err
        elif isinstance(body.get("message"), str):
            detail = body["message"]
        elif isinstance(body.get("detail"), str):
            detail = body["detail"]
    elif isinstance(body, str):
        detail = body.strip().splitlines()[0] if body.strip() else ""
    head = f"HTTP {ex.status}" if ex.status is not None else "HTTP error"
    return f"{head}: {_short(detail, 300)}" if detail else head


def _sum_usage(total: dict[str, int], more: dict[str, int]) -> None:
    for key, value in more.items():
        total[key] = total.get(key, 0) + value


def normalize_exchanges(
    exchanges: Iterable[Exchange],
    case_id: str,
    repetition: int = 0,
    *,
    selected_tools: list[str] | None = None,
    error: TraceError | None = None,
    timings: dict[str, Any] | None = None,
    name_map: dict[str, str] | None = None,
) -> Trace:
    """Build the trace of one case from its cassette's exchanges.

    ``error`` is a failure the caller knows and the exchanges cannot show (the agent loop's
    round budget, a timeout before any response); it wins over one found in the exchanges.
    ``selected_tools`` and ``timings`` are carried onto the trace as given. ``name_map`` (a
    registry's wire name -> original name) renames calls of tools whose names a provider rejects.
    A conversation with more than one user message keeps each of them as a turn in its place,
    rejudge's own loop's too (an oracle-assisted run's "steps remain", a restated value): the
    model read them. A single instruction gives no turns.
    """
    mex = model_exchanges(exchanges)
    rounds: list[Round] = []
    usage: dict[str, int] = {}
    found: TraceError | None = None
    pending_calls: list[tuple[int, int]] = []  # (round position, index into mex) with calls
    round_of: dict[int, int] = {}  # index into mex -> the round its answer became

    for k, m in enumerate(mex):
        nxt = mex[k + 1] if k + 1 < len(mex) else None
        retried = nxt is not None and _same_request(m.exchange, nxt.exchange)
        if m.turn is None:
            # a non-2xx answer: a retry follows, or the client moved on, or the trace ends here
            if nxt is None and found is None:
                found = TraceError(
                    kind="provider_error",
                    message=_status_message(m.exchange),
                    round=len(rounds),
                    status_code=m.exchange.status,
                )
            continue
        turn = m.turn
        _sum_usage(usage, turn.usage)
        if retried and (turn.truncated or turn.error is not None):
            continue  # the client sent the same request again: this answer was abandoned
        if turn.error is not None and not turn.calls and turn.text is None:
            if found is None:
                found = TraceError(
                    kind="provider_error",
                    message=_short(turn.error, 300),
                    round=len(rounds),
                    status_code=m.exchange.status,
                )
            continue
        rounds.append(
            Round(
                index=len(rounds),
                calls=list(turn.calls),
                text=turn.text,
                finish_reason=turn.finish_reason,
                server_tools=list(turn.server_tools),
                alternatives=list(turn.alternatives),
            )
        )
        round_of[k] = len(rounds) - 1
        if turn.calls:
            pending_calls.append((len(rounds) - 1, k))
        if found is None and turn.truncated:
            found = TraceError(
                kind="truncated_stream",
                message="the response stream ended before its terminator",
                round=len(rounds) - 1,
                status_code=m.exchange.status,
            )
        elif found is None and turn.error is not None:
            found = TraceError(
                kind="provider_error",
                message=_short(turn.error, 300),
                round=len(rounds) - 1,
                status_code=m.exchange.status,
            )

    # results: the requests after a round carry what the client's tools returned
    for pos, k in pending_calls:
        later = [(x.wire_format, x.exchange.request_body) for x in mex[k + 1 :]]
        calls = _attach_results(list(rounds[pos].calls), later)
        rounds[pos] = rounds[pos].model_copy(update={"calls": calls})

    if name_map:
        rounds = [
            r.model_copy(
                update={
                    "calls": [
                        c.model_copy(update={"name": name_map[c.name]}) if c.name in name_map else c
                        for c in r.calls
                    ]
                }
            )
            for r in rounds
        ]

    final_error = error or found
    requests = [(m.wire_format, m.exchange.request_body) for m in mex]
    turns = user_turns_of(requests, round_of, len(rounds))
    return Trace(
        user_turns=turns,
        case_id=case_id,
        repetition=repetition,
        status="agent_error" if final_error is not None else "completed",
        rounds=rounds,
        final_text=rounds[-1].text if rounds else None,
        error=final_error,
        selected_tools=selected_tools,
        usage=usage,
        normalizer_version=NORMALIZER_VERSION,
        timings=dict(timings) if timings else {},
    )
