"""Decoding the JSON texts a query reads many times over (a judgment's taxonomy codes, flags and
tools, a body path's value): each distinct list of strings decoded once and handed out as a fresh
copy, and on PostgreSQL a value stored marked (it held a NUL: :mod:`rejudge.store._nul`) decoded
back to its original."""

from __future__ import annotations

import json
from typing import Any

from rejudge.store import _nul

__all__: list[str] = []


def _decode_small(text: str | None, cache: dict[str, list[Any]]) -> Any:
    """``json.loads`` for the short JSON texts a query returns many times over (taxonomy codes,
    flags): a list of strings is decoded once per distinct text and handed out as a fresh copy."""
    if text is None:
        return None
    hit = cache.get(text)
    if hit is not None:
        return list(hit)
    value = json.loads(text)
    if isinstance(value, list) and len(cache) < 4096 and all(type(v) is str for v in value):
        cache[text] = value
        return list(value)
    return value


def _decode_stored(text: str | None, cache: dict[str, list[Any]]) -> Any:
    """:func:`_decode_small` of a text PostgreSQL stored: a value it holds marked (it had a NUL,
    see :mod:`rejudge.store._nul`) is an object, never cached, decoded back to the original."""
    value = _decode_small(text, cache)
    return _nul.unmark(value) if type(value) is dict else value


def _decode_array(text: str, cache: dict[str, list[Any]]) -> list[Any]:
    """A JSON array of small values (see :func:`_decode_small`), each list a fresh copy."""
    hit = cache.get(text)
    if hit is None:
        hit = json.loads(text)
        if not all(v is None or (type(v) is list and all(type(x) is str for x in v)) for v in hit):
            return list(hit)
        if len(cache) < 4096:
            cache[text] = hit
    return [None if v is None else list(v) for v in hit]
