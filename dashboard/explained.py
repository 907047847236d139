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
from rejudge.services import FlipCodes

__all__ = ["Explained", "likely", "explained", "explained_codes"]


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
    return explained_codes(
        (
            FlipCodes(f.from_verdict, f.to_verdict, tuple(f.taxonomy_from), tuple(f.taxonomy_to), 1)
            for f in flips
        ),
        changed,
    )


def explained_codes(codes: Iterable[FlipCodes], changed: Sequence[str]) -> Explained:
    """:func:`explained` of flips counted by their verdicts and codes (all that decides), as
    :func:`rejudge.services.compare_first_flips` gives them without making every flip."""
    by_setting = dict.fromkeys(changed, 0)
    total = unexplained = 0
    for code in codes:
        n = code.flips
        total += n
        paths = likely_settings(
            code.taxonomy_a,
            code.taxonomy_b,
            changed,
            verdict_a=code.verdict_a,
            verdict_b=code.verdict_b,
        )
        unexplained += 0 if paths else n
        for path in paths:
            if path in by_setting:
                by_setting[path] += n
    return Explained(total, by_setting, unexplained)
