"""AWS event-stream framing (``application/vnd.amazon.eventstream``), decoded from its public spec.

A stream is a sequence of messages, each:

- a 12-byte prelude: total length and headers length (big-endian uint32 each), then the CRC-32
  of those 8 bytes;
- the headers: per header a 1-byte name length, the name (UTF-8), a 1-byte value type and the
  value (bool true/false carry no bytes; byte, short, int, long are 1/2/4/8 bytes; bytes and
  string a 2-byte length then the data; timestamp 8 bytes; uuid 16 bytes);
- the payload (total length - headers length - 16 bytes);
- the CRC-32 of everything before it.

Decoding never raises: a short or damaged message ends the stream with a reason, so a cassette
whose stream was cut keeps the events before the cut.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field
from typing import Any

__all__ = ["EventMessage", "EventStream", "decode_event_stream", "looks_like_event_stream"]

_PRELUDE = 12
_CRC = 4
# value type -> fixed size in bytes (None: 2-byte length prefix)
_FIXED = {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}
_VARIABLE = (6, 7)


@dataclass(frozen=True)
class EventMessage:
    headers: dict[str, Any]
    payload: bytes

    @property
    def message_type(self) -> str | None:
        value = self.headers.get(":message-type")
        return value if isinstance(value, str) else None

    @property
    def event_type(self) -> str | None:
        for key in (":event-type", ":exception-type", ":error-code"):
            value = self.headers.get(key)
            if isinstance(value, str):
                return value
        return None


@dataclass(frozen=True)
class EventStream:
    """The messages decoded, and why decoding stopped early (``None``: the bytes ended cleanly)."""

    messages: list[EventMessage] = field(default_factory=list)
    fault: str | None = None


def looks_like_event_stream(data: Any) -> bool:
    """True when ``data`` starts with a well-formed event-stream prelude (its CRC holds)."""
    if not isinstance(data, (bytes, bytearray)) or len(data) < _PRELUDE + _CRC:
        return False
    prelude: tuple[int, int, int] = struct.unpack_from(">III", data, 0)
    total, headers_len, crc = prelude
    return (
        zlib.crc32(bytes(data[:8])) == crc
        and total >= _PRELUDE + _CRC + headers_len
        and headers_len <= total
    )


def _headers(data: bytes) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    pos = 0
    while pos < len(data):
        name_len = data[pos]
        pos += 1
        name = data[pos : pos + name_len].decode("utf-8", errors="replace")
        pos += name_len
        if pos >= len(data):
            return None
        kind = data[pos]
        pos += 1
        if kind in _VARIABLE:
            if pos + 2 > len(data):
                return None
            (size,) = struct.unpack_from(">H", data, pos)
            pos += 2
            raw = data[pos : pos + size]
            if len(raw) != size:
                return None
            pos += size
            out[name] = raw.decode("utf-8", errors="replace") if kind == 7 else bytes(raw)
        elif kind in _FIXED:
            size = _FIXED[kind]
            raw = data[pos : pos + size]
            if len(raw) != size:
                return None
            pos += size
            if kind in (0, 1):
                out[name] = kind == 0
            elif kind in (2, 3, 4, 5, 8):
                out[name] = int.from_bytes(raw, "big", signed=True)
            else:
                out[name] = raw.hex()
        else:
            return None
    return out


def decode_event_stream(data: bytes) -> EventStream:
    """Every message of ``data`` in order, stopping at the first short or damaged one."""
    messages: list[EventMessage] = []
    pos = 0
    view = bytes(data)
    while pos < len(view):
        if len(view) - pos < _PRELUDE:
            return EventStream(messages, "the stream ends inside a message prelude")
        total, headers_len, prelude_crc = struct.unpack_from(">III", view, pos)
        if zlib.crc32(view[pos : pos + 8]) != prelude_crc:
            return EventStream(messages, f"message {len(messages)}: prelude CRC mismatch")
        if total < _PRELUDE + _CRC + headers_len:
            return EventStream(messages, f"message {len(messages)}: impossible lengths")
        if len(view) - pos < total:
            return EventStream(messages, f"message {len(messages)}: the stream ends inside it")
        end = pos + total
        (message_crc,) = struct.unpack_from(">I", view, end - _CRC)
        if zlib.crc32(view[pos : end - _CRC]) != message_crc:
            return EventStream(messages, f"message {len(messages)}: message CRC mismatch")
        start = pos + _PRELUDE
        headers = _headers(view[start : start + headers_len])
        if headers is None:
            return EventStream(messages, f"message {len(messages)}: malformed headers")
        messages.append(EventMessage(headers, view[start + headers_len : end - _CRC]))
        pos = end
    return EventStream(messages)
