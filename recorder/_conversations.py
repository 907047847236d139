"""Conversations in a cassette: where each starts, and the user turns they carry.

A cassette may hold several conversations (a test rerun, a second agent, a fresh history after a
stateful API's ``previous_response_id``). The model requests are taken in order; one whose
message history does not extend the previous request's starts a new conversation, and its user
messages are user turns again, so no user message that was sent is lost. Histories are compared
through what every wire format can say about a request (its user messages, the ids of the tool
results it sends back, the calls it echoes), so a history one agent hands to another in a
different format stays one conversation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rejudge.recorder.wire import WireFormat

from rejudge.model import UserTurn

# used by the normalizer only: nothing here is part of the recorder's public face
__all__: list[str] = []


@dataclass(frozen=True)
class _History:
    """What a request's message history shows, in any wire format: its user messages, the ids
    of the tool results it sends back and the names of the calls of each assistant turn it
    repeats. ``None`` (a format without ids or names) matches anything."""

    users: tuple[str, ...]
    results: tuple[str | None, ...]
    echoes: tuple[tuple[str | None, ...], ...]

    @classmethod
    def of(cls, fmt: WireFormat, body: Any) -> _History:
        return cls(
            tuple(fmt.user_texts(body)),
            tuple(r.call_id for r in fmt.tool_results(body)),
            tuple(tuple(e.name for e in turn) for turn in fmt.echoed_calls(body)),
        )

    def extended_by(self, later: _History) -> bool:
        """True when ``later`` holds this history and more (or the same): one conversation."""
        return (
            _is_prefix(self.users, later.users, lambda a, b: a == b)
            and _is_prefix(self.results, later.results, _same_or_unknown)
            and _is_prefix(
                self.echoes,
                later.echoes,
                lambda a, b: len(a) == len(b) and all(map(_same_or_unknown, a, b)),
            )
        )


def _same_or_unknown(a: Any, b: Any) -> bool:
    return a is None or b is None or a == b


def _is_prefix(head: Sequence[Any], whole: Sequence[Any], same: Any) -> bool:
    return len(head) <= len(whole) and all(map(same, head, whole))


def _conversation_starts(histories: Sequence[_History]) -> list[bool]:
    """For each request in order, whether it starts a new conversation: the first does, and so
    does any whose history does not extend the previous request's (a rerun, a second agent)."""
    return [k == 0 or not histories[k - 1].extended_by(h) for k, h in enumerate(histories)]


def user_turns_of(
    requests: Sequence[tuple[WireFormat, Any]], round_of: dict[int, int], n_rounds: int
) -> list[UserTurn]:
    """The user messages of the cassette's conversations, each before the first round its
    request caused.

    Requests are taken in order. A request whose history extends the previous request's
    continues its conversation: the user messages beyond those already seen are new turns. A
    request whose history does not (a rerun, a second agent, a fresh history after a stateful
    API's ``previous_response_id``) starts a new conversation, whose user messages are turns
    again, so no user message that was sent is lost. A message first sent by request ``k`` comes
    before the first round produced at or after ``k`` (``n_rounds`` when none follows). A
    cassette with one user message in all (a single instruction) has no turns, so such traces
    stay as they always were.
    """
    histories = [_History.of(fmt, body) for fmt, body in requests]
    found: list[tuple[int, str]] = []  # (before round, text)
    seen = 0  # user messages of the current conversation already turned into turns
    rounds_before = 0  # rounds produced by the requests before this one
    for k, (history, starts) in enumerate(
        zip(histories, _conversation_starts(histories), strict=True)
    ):
        if starts:
            seen = 0
        found.extend((rounds_before, text) for text in history.users[seen:])
        seen = max(seen, len(history.users))
        if k in round_of:
            rounds_before = round_of[k] + 1
    if len(found) <= 1:
        return []
    return [
        UserTurn(before_round=before, position=i, text=text)
        for i, (before, text) in enumerate(found)
    ]
