"""Line charts as a static, escaped SVG picture: points joined per line, axes, a legend, a
hover title on every point.

Why not a Vega-Lite chart (what Trends drew until 2026-12-07): a Vega-Lite chart makes a cold
page fetch, parse and boot the Vega runtime, Streamlit's heaviest chunks, after the script has
finished; on the demo store that was most of the second Trends spent over Streamlit's floor
(bench/README.md, "Compare and Trends cold"). Trends' lines are a few dozen points at most (one
per evaluation shown), which plain SVG draws as soon as it arrives.

``st.html`` keeps HTML only (its DOMPurify drops inline ``<svg>``), so the plot is an SVG in an
``<img>`` (a ``data:`` URI: a picture runs no script and loads nothing), and each point is also
an HTML dot laid over it at the same place, whose ``title`` is what hovering shows. Labels and
hover texts are data (model, suite and rule-set names): every one goes through
:func:`html.escape`. Colours follow Streamlit's categorical palette; text is a grey that reads
on the light and the dark theme. The markup: ``<div class="rj-lines">`` holding the picture
(x labels ``<text class="rj-x">`` in its SVG), the dots ``<span class="rj-point">`` and a
legend ``<ul class="rj-legend">``; the tests read them back.

Pure (no Streamlit): the page hands the result to ``st.html``.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["LinePoint", "Tick", "PALETTE", "lines_html"]

# Streamlit's categorical palette (what its Vega-Lite theme colours lines with)
PALETTE = (
    "#0068c9",
    "#83c9ff",
    "#ff2b2b",
    "#ffabab",
    "#29b09d",
    "#7defa1",
    "#ff8700",
    "#ffd16a",
    "#6d3fc0",
    "#d5dae5",
)
# the drawing's own units (it scales to the container's width, keeping its proportions)
WIDTH, HEIGHT = 1000, 340
LEFT, RIGHT, TOP = 56, 16, 12
GRID = "rgba(151,166,195,0.45)"
INK = "#808495"  # Streamlit's grey for secondary text
SLANT_ROOM = 200  # how far left of its point a slanted label of LABEL_CHARS reaches
LABEL_CHARS = 34  # a longer x label is cut (in full in its title), as Vega-Lite's labelLimit did


@dataclass(frozen=True)
class LinePoint:
    """One point: the ``line`` it belongs to (its legend entry), its place on the x axis (a
    number: seconds, or a category's index), its ``y`` and the text shown on hover."""

    line: str
    x: float
    y: float
    tip: str


@dataclass(frozen=True)
class Tick:
    """A labelled place on the x axis."""

    x: float
    label: str


def _e(value: object) -> str:
    return html.escape(str(value))


def _cut(label: str) -> str:
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"


def lines_html(
    points: Sequence[LinePoint],
    ticks: Sequence[Tick],
    *,
    x_title: str,
    y_title: str,
    y_max: float = 100.0,
    slanted: bool = False,
    legend_title: str = "",
) -> str:
    """``points`` as a line chart: one line per distinct ``line`` (first-seen order, joined in
    order of x), y from 0 to ``y_max`` with five gridlines, the x axis labelled at ``ticks``
    (``slanted`` at -30°, for long category names), the legend under the plot."""
    lines = list(dict.fromkeys(p.line for p in points))
    colours = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(lines)}
    xs = [p.x for p in points] + [t.x for t in ticks]
    low, high = (min(xs), max(xs)) if xs else (0.0, 1.0)
    bottom = 130 if slanted else 50  # room for the x labels and the axis title
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - bottom
    # the outermost points clear the axes; a slanted first label (up to LABEL_CHARS, ending
    # under its point) stays inside the picture
    pad = max(0.04 * plot_w, SLANT_ROOM - LEFT) if slanted else 0.04 * plot_w

    def px(x: float) -> float:
        if high == low:
            return LEFT + plot_w / 2
        return LEFT + pad + (x - low) / (high - low) * (plot_w - 2 * pad)

    def py(y: float) -> float:
        share = 0.0 if y_max <= 0 else max(0.0, min(1.0, y / y_max))
        return TOP + plot_h * (1 - share)

    parts: list[str] = []
    dots: list[str] = []
    for i in range(6):  # gridlines and y labels at 0, 20, ... 100 % of y_max
        y = y_max * i / 5
        parts.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{py(y):.1f}" y2="{py(y):.1f}" '
            f'stroke="{GRID}"/>'
            f'<text x="{LEFT - 6}" y="{py(y) + 4:.1f}" text-anchor="end" font-size="12" '
            f'fill="{INK}">{y:g}</text>'
        )
    base = TOP + plot_h
    for tick in ticks:
        x = px(tick.x)
        place = (
            f'transform="translate({x:.1f},{base + 14}) rotate(-30)" text-anchor="end"'
            if slanted
            else f'x="{x:.1f}" y="{base + 18}" text-anchor="middle"'
        )
        parts.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{base}" y2="{base + 5}" stroke="{GRID}"/>'
            f'<text class="rj-x" {place} font-size="12" fill="{INK}">'
            f"<title>{_e(tick.label)}</title>{_e(_cut(tick.label))}</text>"
        )
    parts.append(
        f'<text x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 6}" text-anchor="middle" '
        f'font-size="12" font-weight="600" fill="{INK}">{_e(x_title)}</text>'
        f'<text transform="translate(14,{TOP + plot_h / 2:.1f}) rotate(-90)" '
        f'text-anchor="middle" font-size="12" font-weight="600" fill="{INK}">'
        f"{_e(y_title)}</text>"
    )
    for name in lines:
        mine = sorted((p for p in points if p.line == name), key=lambda p: p.x)
        colour = colours[name]
        if len(mine) > 1:
            path = " ".join(f"{px(p.x):.1f},{py(p.y):.1f}" for p in mine)
            parts.append(
                f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>'
            )
        parts.extend(
            f'<circle cx="{px(p.x):.1f}" cy="{py(p.y):.1f}" r="4.5" fill="{colour}"/>' for p in mine
        )
        dots.extend(
            f'<span class="rj-point" title="{_e(p.tip)}" style="position:absolute;'
            f"left:{100 * px(p.x) / WIDTH:.2f}%;top:{100 * py(p.y) / HEIGHT:.2f}%;width:14px;"
            f'height:14px;margin:-7px 0 0 -7px;border-radius:50%;cursor:default"></span>'
            for p in mine
        )
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'font-family="sans-serif">{"".join(parts)}</svg>'
    )
    picture = base64.b64encode(svg.encode()).decode()
    plot = (
        f'<div class="rj-lines" style="position:relative;width:100%;max-width:{WIDTH}px">'
        f'<img alt="{_e(f"{y_title} by {x_title}")}" src="data:image/svg+xml;base64,{picture}" '
        f'style="display:block;width:100%;height:auto">{"".join(dots)}</div>'
    )
    entries = "".join(
        f'<li style="display:flex;align-items:center;gap:0.4rem;overflow-wrap:anywhere">'
        f'<span style="flex:none;width:0.8rem;height:0.8rem;border-radius:50%;'
        f'background:{colours[name]}"></span>{_e(name)}</li>'
        for name in lines
    )
    heading = (
        f'<div style="font-weight:600;margin:0.25rem 0">{_e(legend_title)}</div>'
        if legend_title
        else ""
    )
    legend = (
        f'{heading}<ul class="rj-legend" style="list-style:none;padding:0;margin:0 0 0.75rem 0;'
        f"display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:0.2rem 1rem;"
        f'font-size:0.85rem">{entries}</ul>'
    )
    return f'<div style="font-size:0.85rem">{plot}{legend}</div>'
