"""A judgment's canonical text cut in two: the body shared by every trace that behaved alike, and
the one value that differs, the trace hash.

Repeated trials of a case that behaved alike (the same calls, arguments, results and final text:
``store._hashing.behaviour_hash``) are judged into bodies that differ only in ``trace_hash``. The
store keeps that body once (``judgment_bodies``) and each judgment row keeps its trace hash; a
judgment's hash stays what it always was, the sha256 of its whole canonical body.

The canonical text has sorted keys and no whitespace, and a trace hash is ``sha256:<hex>``
(nothing to escape), so the whole body is the shared text with ``,"trace_hash":"<hash>"`` put
back at one offset: joining gives byte for byte ``canonical_json(body)``, and a copy's hash is a
sha256 over a prefix hashed once and a short tail. A body where that cut is not certain (a
nested ``trace_hash`` key, a hash needing an escape) is kept whole: its shared text holds its
trace hash and serves that judgment alone, which is correct, only not shared.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from rejudge.store._hashing import HASH_ALGORITHM

__all__ = ["split_judgment_text", "join_judgment_text", "put_trace_hash", "JudgmentTemplate"]

_KEY = '"trace_hash":'
_PLAIN_HASH = re.compile(r"[A-Za-z0-9:._-]+\Z")


def split_judgment_text(text: str, trace_hash: str) -> tuple[str, int]:
    """The canonical body ``text`` of a judgment of ``trace_hash``, without its trace hash:
    ``(shared text, offset)``; ``(text, -1)`` when the cut is not certain (see the module)."""
    fragment = "," + _KEY + '"' + trace_hash + '"'
    at = text.find(fragment)
    # the cut is certain when the body names its trace hash once, as its one trace_hash key:
    # a hash quoted elsewhere (a reason, a detail) would stay the first trace's in a copy
    if (
        at < 0
        or not _PLAIN_HASH.match(trace_hash)
        or text.count(_KEY) != 1
        or text.count(trace_hash) != 1
    ):
        return text, -1
    return text[:at] + text[at + len(fragment) :], at


def join_judgment_text(shared: str, offset: int, trace_hash: str) -> str:
    """The whole canonical body back from :func:`split_judgment_text`'s parts."""
    if offset < 0:
        return shared
    return shared[:offset] + "," + _KEY + '"' + trace_hash + '"' + shared[offset:]


def put_trace_hash(body: dict[str, Any], trace_hash: str) -> dict[str, Any]:
    """A stored shared body (decoded) made the judgment's own body again."""
    body["trace_hash"] = trace_hash
    return body


class JudgmentTemplate:
    """The hash of the same shared text for many trace hashes, cheaply: the prefix before the
    trace hash is hashed once; each trace adds its hash and the short tail (the keys after
    ``trace_hash`` in sorted order: ``verdict``, ``warnings``)."""

    __slots__ = ("_prefix", "_tail", "offset")

    def __init__(self, shared: str, offset: int) -> None:
        self.offset = offset
        if offset < 0:
            self._prefix = None
            self._tail = b""
            return
        head = (shared[:offset] + "," + _KEY + '"').encode("utf-8")
        self._prefix = hashlib.sha256(head)
        self._tail = ('"' + shared[offset:]).encode("utf-8")

    def hash_for(self, trace_hash: str) -> str | None:
        """``sha256:<hex>`` of the whole body for ``trace_hash``; None when this text cannot
        be shared (its trace hash is part of it) or the hash would need an escape."""
        if self._prefix is None or not _PLAIN_HASH.match(trace_hash):
            return None
        h = self._prefix.copy()
        h.update(trace_hash.encode("ascii"))
        h.update(self._tail)
        return f"{HASH_ALGORITHM}:{h.hexdigest()}"
