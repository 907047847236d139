"""Trends' rows: an evaluation's trend point with its run, as the page lists and draws it.

Pure (no Streamlit): the page (``views/trends.py``) picks, orders and draws them.
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from rejudge.store import TrendPoint

__all__ = ["Row", "by_recording", "when"]


def when(value: datetime | None) -> str:
    """A time as the table and the hover texts print it."""
    return "—" if value is None else value.strftime("%Y-%m-%d %H:%M:%S")


class Row(NamedTuple):
    """A trend point with its run (id and name)."""

    point: TrendPoint
    run_id: int
    run: str

    @property
    def line(self) -> str:
        # one line per thing measured: a model under one tier and one rule set (joining tiers
        # or rule sets in one line would draw a change of yardstick as a change of the model)
        p = self.point
        return f"{p.model} · {p.tier} · {p.rule_set}"

    @property
    def accuracy_pct(self) -> float | None:
        return None if self.point.accuracy is None else 100 * float(self.point.accuracy)

    @property
    def tip(self) -> str:
        """What hovering its point shows: the fields the Vega-Lite tooltip listed."""
        p = self.point
        accuracy = "—" if self.accuracy_pct is None else f"{self.accuracy_pct:.1f}"
        return "\n".join(
            [
                f"evaluation: {p.evaluation}",
                f"run: {self.run}",
                f"model: {p.model}",
                f"suite: {p.suite}",
                f"tier: {p.tier}",
                f"rule_set: {p.rule_set}",
                f"accuracy %: {accuracy}",
                f"scored: {p.scored}",
                f"recorded_at: {when(p.recorded_at)}",
                f"created_at: {when(p.created_at)}",
            ]
        )


def by_recording(row: Row) -> tuple[bool, datetime | None, int]:
    """Recording order; runs never recorded (no start) go last, as they did in the table."""
    recorded = row.point.recorded_at
    return (recorded is None, recorded, row.run_id)
