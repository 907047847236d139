"""A JSON file read a value at a time (pure): JSON Lines a line at a time, and one document
over many lines (a pretty-printed export, or a compact one on one long line) an item at a time,
so neither is held whole.

JSON Lines is told from one document by the file's first non-blank line: it is JSON Lines when
that line is within the first :data:`HEAD_BYTES` and parses alone. Otherwise the file is read
from the start through a window: each top-level value in turn (one, or JSON Lines of long
lines), a top-level list item by item, a top-level object member by member with the items of a
list under one of ``stream_keys`` (an API page's ``data``) one by one, so a ``{"data": [...],
"meta": {...}}`` page of any length streams; any other value is parsed whole (a member that is
one trace is bounded by that trace; past a limit, :data:`VALUE_LIMIT` by default, it is
refused: :class:`TooBig`). Each piece carries
its size (bytes of its line, or characters of its text), what a reader spreads a memory budget
by.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from rejudge.errors import InvalidInputError

__all__ = ["Piece", "TooBig", "iter_pieces"]

_DECODER = json.JSONDecoder()
_SPACE = " \t\n\r"
#: characters read from the file at a time; doubled while one value does not fit
CHUNK = 1 << 20
#: the largest single value read (an item of a list, a member of an object): it is parsed
#: whole, so past this the document is refused rather than read into memory
VALUE_LIMIT = 128 * 1024 * 1024
#: how much of the file tells JSON Lines (its first line parses alone) from one document
HEAD_BYTES = 64 * 1024


class TooBig(InvalidInputError, ValueError):
    """A value past the limit (a line, or one value of a document), refused before it is
    parsed: ``where`` it starts, its ``size`` so far and the ``limit``, for the reader's
    message. Bad input, so a :class:`~rejudge.errors.InvalidInputError`; still a
    ``ValueError``, as a JSON reader's refusals are."""

    def __init__(self, where: str, size: int, limit: int) -> None:
        super().__init__(f"{where}: a JSON value of {size} characters or more")
        self.where, self.size, self.limit = where, size, limit


@dataclass(frozen=True)
class Piece:
    """One value read: ``document`` counts the file's documents (a JSON Lines file's lines
    that hold one, or 1); ``key`` is the top-level object's member it is (None: the document
    itself, or an item of a top-level list); ``item`` says it is one item of a list streamed
    (``key`` names the member holding the list, None for a top-level list). ``opened`` marks
    the start of a streamed list under ``key`` (its value is None), so an empty list is seen."""

    document: int
    key: str | None
    value: Any
    size: int
    item: bool = False
    opened: bool = False


class _Window:
    """The text of a file from a position on, read a chunk at a time, the consumed part
    dropped so memory holds about one value."""

    def __init__(self, fh: IO[str], limit: int) -> None:
        self._fh = fh
        self._limit = limit
        self.text = ""
        self.pos = 0
        self._start = 0  # the characters dropped before ``text``
        self.eof = False
        self._chunk = CHUNK

    def _more(self) -> bool:
        if self.eof:
            return False
        block = self._fh.read(self._chunk)
        if not block:
            self.eof = True
            return False
        self._start += self.pos
        self.text = self.text[self.pos :] + block
        self.pos = 0
        return True

    def peek(self) -> str:
        """The next character that is not white space ('' at the end of the file)."""
        while True:
            text, pos = self.text, self.pos
            while pos < len(text) and text[pos] in _SPACE:
                pos += 1
            self.pos = pos
            if pos < len(text):
                return text[pos]
            if not self._more():
                return ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            found = self.peek() or "the end of the file"
            raise ValueError(f"expected {char!r}, found {found!r} at character {self.pos}")
        self.pos += 1

    def value(self) -> tuple[Any, int]:
        """The next JSON value and its size; more of the file is read while it is cut off
        (a value that ends at the window's edge, a number, may go on: it is read again with
        more)."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.text, self.pos)
            except json.JSONDecodeError:
                if self._grow():
                    continue
                raise
            if end >= len(self.text) and self._grow():
                continue
            size = end - self.pos
            if size > self._limit:  # it fitted in the window, but is past the limit all the same
                raise TooBig(f"the value at character {self._start + self.pos}", size, self._limit)
            self.pos = end
            self._chunk = CHUNK
            return value, size

    def _grow(self) -> bool:
        """Read more for a value cut off (False at the end of the file); a value past the
        limit is refused (a syntax error too: it reads as cut off until then)."""
        if len(self.text) - self.pos > self._limit:
            where = f"the value at character {self._start + self.pos}"
            raise TooBig(where, len(self.text) - self.pos, self._limit)
        self._chunk = min(self._chunk * 2, max(self._limit, CHUNK))
        return self._more()


def _list_items(window: _Window) -> Iterator[tuple[Any, int]]:
    window.expect("[")
    if window.peek() == "]":
        window.pos += 1
        return
    while True:
        yield window.value()
        if window.peek() == ",":
            window.pos += 1
            continue
        window.expect("]")
        return


def _pieces(window: _Window, document: int, stream_keys: frozenset[str]) -> Iterator[Piece]:
    """The pieces of the top-level value at the window's position."""
    first = window.peek()
    if first == "[":
        for value, size in _list_items(window):
            yield Piece(document, None, value, size, item=True)
        return
    if first != "{":
        value, size = window.value()
        yield Piece(document, None, value, size)
        return
    window.pos += 1
    if window.peek() == "}":
        window.pos += 1
        yield Piece(document, None, {}, 2)
        return
    while True:
        key, _size = window.value()
        if not isinstance(key, str):
            raise ValueError(f"an object key that is not a string at character {window.pos}")
        window.expect(":")
        if key in stream_keys and window.peek() == "[":
            yield Piece(document, key, None, 0, item=True, opened=True)
            for value, size in _list_items(window):
                yield Piece(document, key, value, size, item=True)
        else:
            value, size = window.value()
            yield Piece(document, key, value, size)
        if window.peek() == ",":
            window.pos += 1
            continue
        window.expect("}")
        return


def _parses(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


def _first_line(head: bytes, whole: bool) -> bytes | None:
    """The first non-blank line of the file's head, when the head holds all of it."""
    for line in head.splitlines(keepends=True):
        if line.strip():
            return line if (line.endswith(b"\n") or whole) else None
    return None


def iter_pieces(
    fh: IO[bytes],
    problems: list[str],
    *,
    stream_keys: Iterable[str] = ("data",),
    limit: int | None = None,
) -> Iterator[Piece]:
    """The values of a JSON file opened in binary (see the module): a JSON Lines file's lines
    (a line that is not JSON is a problem, the rest is read), or one document in pieces. A
    document that is not JSON is a problem, reported after the pieces read before it broke. A
    line or value longer than ``limit`` (:data:`VALUE_LIMIT` unless given) raises
    :class:`TooBig`."""
    keys = frozenset(stream_keys)
    limit = VALUE_LIMIT if limit is None else limit
    start = fh.tell()
    head = fh.read(HEAD_BYTES)
    fh.seek(start)
    line = _first_line(head, len(head) < HEAD_BYTES)
    if line is None and not head.strip():
        return  # an empty file
    if line is not None and _parses(line):
        number = 0
        for line_number, line in enumerate(fh, start=1):
            if len(line) > limit:
                raise TooBig(f"line {line_number}", len(line), limit)
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except ValueError as exc:
                problems.append(f"line {line_number}: not JSON ({exc})")
                continue
            number += 1
            yield Piece(number, None, value, len(line))
        return
    # one document over several lines (or JSON Lines whose first line is longer than the head):
    # top-level values one after the other, each in pieces
    text = io.TextIOWrapper(fh, encoding="utf-8-sig", errors="strict", newline="")
    window = _Window(text, limit)
    number = 0
    try:
        while window.peek():
            number += 1
            yield from _pieces(window, number, keys)
    except TooBig:
        raise
    except (ValueError, RecursionError) as exc:
        problems.append(f"not JSON and not JSON Lines ({exc})")
    finally:
        text.detach()
