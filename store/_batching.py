"""Batch sizes shared by the store's modules: how many rows one statement reads or writes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

# the store's own helpers (its modules import them from here): nothing for the facade
__all__: list[str] = []

T = TypeVar("T")

#: rows per statement (an IN list, an executemany): well under every backend's parameter limit
BATCH = 1000


def chunks(rows: Sequence[T], size: int = BATCH) -> Iterator[Sequence[T]]:
    """``rows`` in consecutive slices of at most ``size``."""
    for start in range(0, len(rows), size):
        yield rows[start : start + size]
