"""Batch sizes shared by the store's modules: how many rows one statement reads or writes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

__all__ = ["_BATCH", "_chunks"]

_BATCH = 1000


def _chunks(
    rows: Sequence[dict[str, Any]], size: int = _BATCH
) -> Iterator[Sequence[dict[str, Any]]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]
