"""A JSON value holding a NUL, stored on PostgreSQL without losing it.

PostgreSQL's JSONB holds no NUL (``\\u0000`` cannot be converted to text): one such value, an
agent's message or a judge's raw output quoting one, refused the whole statement, and with it
an import's batch. A model's output is evidence to record, so the value is stored in a marked
form there instead, and every read turns it back into the exact original:

- marked: ``{MARK: escaped}``, one key, ``MARK`` (``"\\x01nul"``); ``escaped`` is the value with
  every string (object keys too) escaped: ``\\x01`` -> ``\\x01\\x01``, NUL -> ``\\x01`` ``0``.
  The escape is injective (``\\x01`` is escaped too) and an escaped string never holds ``\\x01``
  followed by ``n``, so nothing inside a marked value reads as a marker;
- marked are the values holding a NUL, and those holding an object with the key ``MARK``
  anywhere (a read takes an object whose only key is ``MARK`` for a marked value, and a path
  into a body reads a part of it); every other value is stored as before, byte for byte (old
  stores, hashes and migrations are unchanged);
- SQLite stores a NUL as it is: nothing here runs there.

Hashes are computed on the original value, never on the stored form. The check on a value
without a NUL is a substring test on the JSON text already made.

What a marked row does in SQL that looks inside JSON (the callers say so where they do): a
path into it is a path under ``MARK`` (the store's paths and usage sums look there too); a
text search (``LIKE`` over the body's text) still finds text without a NUL or ``\\x01`` in it,
but not text across an escaped NUL, and the marker's ``nul`` matches every marked row.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

__all__: list[str] = []

#: the marked form's only key
MARK = "\x01nul"
_ESC = "\x01"
#: how the marked form's text starts (PostgreSQL's and ``json.dumps``'s)
_MARKED_PREFIX = '{"\\u0001nul"'
#: in the JSON text of every value to mark: a NUL and the marker's \x01 are written ``\u0000``
#: and ``\u0001`` (by ``json.dumps``, canonical JSON and PostgreSQL). Also in ``\u0002`` and
#: the like, rare, or a backslash before ``u000`` (an escaped backslash): the value decides
_SUSPECT = "\\u000"
_UNESCAPE = re.compile("\x01(.)", re.DOTALL)


def _escape_str(text: str) -> str:
    return text.replace(_ESC, _ESC + _ESC).replace("\x00", _ESC + "0")


def _unescape_str(text: str) -> str:
    if _ESC not in text:
        return text
    return _UNESCAPE.sub(lambda m: "\x00" if m[1] == "0" else _ESC, text)


def _walk(value: Any, each: Any) -> Any:
    """``value`` with ``each`` applied to every string in it, object keys too."""
    if isinstance(value, str):
        return each(value)
    if isinstance(value, dict):
        return {each(k): _walk(v, each) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(v, each) for v in value]
    return value


def _needs_mark(value: Any) -> bool:
    """Whether ``value`` holds a NUL or an object with the key ``MARK``, anywhere."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(k == MARK or "\x00" in k or _needs_mark(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_needs_mark(v) for v in value)
    return False


def _is_marked(value: Any) -> bool:
    return type(value) is dict and len(value) == 1 and MARK in value


def mark_text(text: str) -> str:
    """The JSON text to store on PostgreSQL for the JSON text ``text``: ``text`` itself unless
    its value holds a NUL (or an object keyed ``MARK``), else the marked form's text."""
    if _SUSPECT not in text:
        return text
    value = json.loads(text)
    if not _needs_mark(value):
        return text
    return json.dumps({MARK: _walk(value, _escape_str)})


def unmark(value: Any) -> Any:
    """The original of a value as PostgreSQL stored it (decoded JSON)."""
    if _is_marked(value):
        return _walk(value[MARK], _unescape_str)
    return value


def unmark_text(text: str) -> str:
    """The original JSON text (same value, not the same bytes) of a text PostgreSQL stored."""
    if not text.startswith(_MARKED_PREFIX):
        return text
    value = json.loads(text)
    return json.dumps(unmark(value)) if _is_marked(value) else text


def dumps(value: Any) -> str:
    """The engine's JSON serializer on PostgreSQL: ``json.dumps``, marked where needed."""
    return mark_text(json.dumps(value))


def loads(text: str | bytes) -> Any:
    """The engine's JSON deserializer on PostgreSQL: ``json.loads``, the original value."""
    return unmark(json.loads(text))


def mark_rows(rows: Sequence[tuple[Any, ...]], at: Sequence[int]) -> Sequence[tuple[Any, ...]]:
    """``rows`` (tuples holding JSON texts at the indices ``at``) with each text as
    :func:`mark_text` stores it; ``rows`` itself when none changes (nearly always)."""
    suspect = [
        n
        for i in at
        for n, text in enumerate([row[i] for row in rows])
        if text is not None and _SUSPECT in text
    ]
    if not suspect:
        return rows
    out = list(rows)
    for n in sorted(set(suspect)):
        out[n] = tuple(
            mark_text(v) if i in at and v is not None else v for i, v in enumerate(out[n])
        )
    return out
