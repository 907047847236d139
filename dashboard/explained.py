"""How many of a comparison's flips each changed rule setting likely explains (the Rule impact
page's "Why" table; no Streamlit here).

Counted over every flip, so the page kept it as a result (``dashboard.data.explained``) rather
than reading every flip back to count them on each open: at 100,000 traces that is 25,800
flips, about half a second to read back on the 2-core machine.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rejudge.judge import likely_settings

from rejudge.model import Flip

__all__ = ["Explained", "likely", "explained"]


@dataclass(frozen=True)
class Explained:
    """Of ``flips`` flips, how many each changed setting likely explains (a flip may count for
    several), and how many none of them does."""

    flips: int
    by_setting: dict[str, int]
    unexplained: int


def likely(flip: Flip, changed: Sequence[str]) -> list[str]:
    """The changed settings that likely flipped ``flip``."""
    return likely_settings(
        flip.taxonomy_from,
        flip.taxonomy_to,
        changed,
        verdict_a=flip.from_verdict,
        verdict_b=flip.to_verdict,
    )


def explained(flips: Iterable[Flip], changed: Sequence[str]) -> Explained:
    by_setting = dict.fromkeys(changed, 0)
    total = unexplained = 0
    for flip in flips:
        total += 1
        paths = likely(flip, changed)
        unexplained += not paths
        for path in paths:
            if path in by_setting:
                by_setting[path] += 1
    return Explained(total, by_setting, unexplained)
