"""A window of a long list around the chosen item (no Streamlit here).

The review queue of a 50,000-trace evaluation holds about 19,000 items; a picker listing them
all sent every label to the browser on every rerun, and the browser built them all (the Review
page took 4-5 s warm at 100k against 0.75 s for Streamlit's bare page, bench/README.md). The
picker lists a window around the current item; Previous and Next still walk the whole list.

Flips are shown a page at a time (:data:`FLIPS_PAGE`): Compare and Rule impact read only the
page shown, not every flip of the comparison (25,466 of run-a against run-b at 100k).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

__all__ = ["WINDOW", "around", "FLIPS_PAGE", "LISTED_FLIPS", "page_count", "shown_range"]

T = TypeVar("T")
#: items a picker lists at most
WINDOW = 200
#: flips a table shows at once
FLIPS_PAGE = 1000
#: flips Side by side lists to pick from, its opening case chosen among them first (one read
#: shared by the list and the opening case: both ask for this many)
LISTED_FLIPS = 1000


def around(items: Sequence[T], current: T, size: int = WINDOW) -> list[T]:
    """At most ``size`` consecutive ``items`` with ``current`` among them, centred on it where
    the ends allow (the first ``size`` when ``current`` is not in ``items``)."""
    position = items.index(current) if current in items else 0
    start = max(0, min(position - size // 2, len(items) - size))
    return list(items[start : start + size])


def page_count(total: int, size: int = FLIPS_PAGE) -> int:
    """Pages of ``size`` that ``total`` items fill (one when there are none)."""
    return max(1, -(-total // size))


def shown_range(start: int, shown: int) -> str:
    """What a page shows of a list: its count, and where it starts when not at the first."""
    return f"{shown}" if start == 0 else f"{shown} ({start + 1:,}–{start + shown:,})"
