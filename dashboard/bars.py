"""Horizontal bar charts as static, escaped HTML: one row per bar, its value printed beside it.

Why not a Vega-Lite chart: the dashboard's bar charts are a handful of labelled groups (accuracy
per dimension, taxonomy counts, causes of disagreement). A Vega-Lite chart loads and boots the
Vega runtime in the browser (the heaviest of Streamlit's chunks) and lays labels out itself, so
long labels are cut or squeeze the plot; a table of bars is plain DOM, shows every label in
full and prints every value, so nothing needs a tooltip. pass^k's line chart stays Vega-Lite;
Trends' lines are an SVG picture (:mod:`rejudge.dashboard.lines_html`).

Labels are data (dimension names, cause codes of imported suites): every one goes through
:func:`html.escape`. The markup is a ``<table class="rj-bars">`` whose rows carry the group
label, the series (``A``/``B``, or none), a bar whose width is the value's share of the scale,
and the printed value; the tests read it back.

Pure (no Streamlit): :func:`rejudge.dashboard.charts.bars` hands the result to ``st.html``.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Bar", "SERIES_COLOURS", "bars_html"]

# Streamlit's first two categorical colours (its charts draw A and B in them)
SERIES_COLOURS = ("#0068c9", "#83c9ff", "#ff2b2b", "#ffabab")

_TABLE = "border-collapse:collapse;width:100%;font-size:0.85rem;margin-bottom:0.75rem"
_LABEL = (
    "padding:0.2rem 0.6rem 0.2rem 0;text-align:left;vertical-align:middle;font-weight:normal;"
    "overflow-wrap:anywhere;width:30%"
)
_SERIES = "padding:0.2rem 0.4rem;width:1.5rem;opacity:0.8"
_TRACK = "padding:0.2rem 0.4rem;width:auto"
_VALUE = "padding:0.2rem 0 0.2rem 0.4rem;white-space:nowrap;width:1%"
_GROUP = "border-top:1px solid rgba(151,166,195,0.35)"


@dataclass(frozen=True)
class Bar:
    """One bar: its group (``label``), its series within the group (``""`` when there is one
    series), its ``value`` (None: no bar, only the ``text``) and the ``text`` printed beside it."""

    label: str
    series: str
    value: float | None
    text: str


def _width(value: float | None, scale_max: float) -> float:
    if value is None or scale_max <= 0:
        return 0.0
    return max(0.0, min(100.0, 100.0 * value / scale_max))


def bars_html(bars: Sequence[Bar], *, scale_max: float | None = None) -> str:
    """``bars`` as a table, grouped by label in first-seen order; a bar's width is its value
    over ``scale_max`` (default: the largest value, so the longest bar fills the track)."""
    if scale_max is None:
        scale_max = max((b.value for b in bars if b.value is not None), default=0.0)
    series = list(dict.fromkeys(b.series for b in bars))
    colours = {s: SERIES_COLOURS[i % len(SERIES_COLOURS)] for i, s in enumerate(series)}
    named = any(series)
    groups: dict[str, list[Bar]] = {}
    for bar in bars:
        groups.setdefault(bar.label, []).append(bar)
    rows: list[str] = []
    for label, members in groups.items():
        for i, bar in enumerate(members):
            cells = []
            if i == 0:
                cells.append(
                    f'<th scope="row" rowspan="{len(members)}" style="{_LABEL}">'
                    f"{html.escape(label)}</th>"
                )
            if named:
                cells.append(f'<td style="{_SERIES}">{html.escape(bar.series)}</td>')
            width = _width(bar.value, scale_max)
            fill = (
                f'<div style="width:{width:.2f}%;min-width:{"2px" if bar.value else "0"};'
                f'height:0.9rem;border-radius:2px;background:{colours[bar.series]}"></div>'
            )
            cells.append(f'<td style="{_TRACK}">{fill}</td>')
            cells.append(f'<td style="{_VALUE}">{html.escape(bar.text)}</td>')
            style = f' style="{_GROUP}"' if i == 0 else ""
            rows.append(f"<tr{style}>{''.join(cells)}</tr>")
    return f'<table class="rj-bars" style="{_TABLE}"><tbody>{"".join(rows)}</tbody></table>'
