"""One conversation (a message list) as a trace: the derivation importers of chat logs share.

An importer whose evidence is a whole conversation (chat-messages JSONL, a Langfuse
generation's ChatML, an LLM span's full history) reads its messages into
:class:`~rejudge.importers._otel_messages.Message` (``message_of`` reads the OpenAI, GenAI-parts
and ChatML shapes) and calls :func:`conversation_trace`, so the same conversation gives the
same trace whichever format carried it:

- each assistant message is one round (its text, its tool calls, arguments parsed as the
  OpenTelemetry reader parses them: an object, or kept raw with a parse error);
- a tool message answers the call of its ``tool_call_id``; one without an id answers the next
  unanswered call of the latest assistant turn, in order;
- the first user message is the instruction; with more than one, each is a user turn placed
  before the round that answered it;
- the final text is the last round's text when that round made no call.

Pure; what cannot be read right is a problem naming the message (``message 3: ...``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rejudge.importers._otel_messages import Message, unwrap_json
from rejudge.importers._otel_read import OTEL_NORMALIZER_VERSION, tool_call_of
from rejudge.model import Round, ToolCall, Trace, UserTurn
from rejudge.recorder import tool_outcome

__all__ = ["Conversation", "conversation_trace"]


@dataclass
class Conversation:
    """A conversation's trace, its instruction and what could not be read right."""

    trace: Trace
    instruction: str | None
    problems: list[str] = field(default_factory=list)


def conversation_trace(
    case_id: str,
    messages: list[Message],
    *,
    repetition: int = 0,
    normalizer_version: str = OTEL_NORMALIZER_VERSION,
) -> Conversation:
    """The trace of one conversation (see the module)."""
    problems: list[str] = []
    rounds: list[tuple[Message, list[ToolCall]]] = []
    turns: list[UserTurn] = []
    where: dict[str, tuple[int, int]] = {}
    unanswered: list[tuple[int, int]] = []  # calls of the latest turn still without a result
    for n, message in enumerate(messages):
        role = message.role
        if role == "user":
            turns.append(
                UserTurn(before_round=len(rounds), position=len(turns), text=message.text or "")
            )
        elif role in ("assistant", "model", "ai"):
            index = len(rounds)
            calls = [tool_call_of(c, f"message {n}", problems) for c in message.calls]
            unanswered = []
            for position, call in enumerate(calls):
                if call.id is not None:
                    where[call.id] = (index, position)
                unanswered.append((index, position))
            rounds.append((message, calls))
        elif role in ("tool", "function", "ipython"):
            spot = where.get(message.call_id) if message.call_id is not None else None
            if spot is None and unanswered:
                spot = unanswered[0]
            if spot is None:
                problems.append(f"message {n}: a tool result that answers no call")
                continue
            if spot in unanswered:
                unanswered.remove(spot)
            i, position = spot
            calls = rounds[i][1]
            # the answer read as a cassette's is: {"error": ...} and "error: ..." are failures
            result, error = tool_outcome(unwrap_json(message.text))
            calls[position] = calls[position].model_copy(
                update={"result": result, "ok": error is None, "error": error}
            )
    built = [
        Round(
            index=i,
            calls=calls,
            text=message.text or None,  # empty content is no text, as on the wire
            finish_reason=message.finish_reason or ("tool_calls" if calls else "stop"),
        )
        for i, (message, calls) in enumerate(rounds)
    ]
    final = built[-1].text if built and not built[-1].calls else None
    trace = Trace(
        case_id=case_id,
        repetition=repetition,
        rounds=built,
        final_text=final,
        normalizer_version=normalizer_version,
        user_turns=turns if len(turns) > 1 else [],
    )
    return Conversation(trace, turns[0].text if turns else None, problems)
