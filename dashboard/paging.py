"""A window of a long list around the chosen item (no Streamlit here).

The review queue of a 50,000-trace evaluation holds about 19,000 items; a picker listing them
all sent every label to the browser on every rerun, and the browser built them all (the Review
page took 4-5 s warm at 100k against 0.75 s for Streamlit's bare page, bench/README.md). The
picker lists a window around the current item; Previous and Next still walk the whole list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

__all__ = ["WINDOW", "around"]

T = TypeVar("T")
#: items a picker lists at most
WINDOW = 200


def around(items: Sequence[T], current: T, size: int = WINDOW) -> list[T]:
    """At most ``size`` consecutive ``items`` with ``current`` among them, centred on it where
    the ends allow (the first ``size`` when ``current`` is not in ``items``)."""
    position = items.index(current) if current in items else 0
    start = max(0, min(position - size // 2, len(items) - size))
    return list(items[start : start + size])
