"""Headline figures ("Accuracy 72.2%", "Flips 3") as static, escaped HTML.

Why not ``st.metric``: every page opens with a row of figures, and ``st.metric`` is a React
component in a chunk of its own that a new browser fetches, parses and mounts before the row
shows (about 0.1 s of a cold page on two shared cores, measured alone against a page with only
its heading: bench/README.md, "Issue 27"); a figure is a label and a value, plain DOM does it.

A figure looks like Streamlit's metric: a small label, a large value, an optional delta under
it (green when it rises, red when it falls) and an optional note shown on hover (the ``title``
attribute). Labels, values and notes are text: every one goes through :func:`html.escape`, so
a model name or a cause code in a label stays text. The markup is ``<div class="rj-figure">``
holding ``rj-figure-label``, ``rj-figure-value`` and ``rj-figure-delta`` blocks, which the tests
read back.

Pure (no Streamlit): :func:`rejudge.dashboard.common.figure` hands the result to ``st.html``.
"""

from __future__ import annotations

import html

__all__ = ["figure_html"]

_BOX = "margin:0 0 0.25rem 0"
_LABEL = "font-size:0.875rem;opacity:0.8;overflow-wrap:anywhere;margin-bottom:0.1rem"
# a value breaks between words; only a word wider than its column breaks inside (never
# "complete/d" in a narrow column: a long word takes the smaller size first)
_VALUE = "font-size:2.25rem;line-height:1.2;overflow-wrap:break-word"
_LONG_VALUE = "font-size:1.5rem;line-height:1.3;overflow-wrap:break-word"
#: a value with a word longer than this takes the smaller size
LONG_WORD = 7
_DELTA = "font-size:0.875rem;padding:0.1rem 0.5rem;border-radius:1rem;display:inline-block"
_RISE = "color:#0f7a36;background:rgba(33,195,84,0.15)"
_FALL = "color:#c1121f;background:rgba(255,43,43,0.12)"
# the note's mark: a letter i in a circle drawn by CSS (a border), not the glyph U+24D8, which
# no font of a plain Debian (DejaVu, Liberation) holds: headless Chromium drew it as an empty box
_NOTE = (
    "cursor:help;opacity:0.6;margin-left:0.35rem;display:inline-block;width:1.05em;"
    "height:1.05em;line-height:1em;border:1px solid currentColor;border-radius:50%;"
    "text-align:center;font-size:0.7rem;font-weight:600;font-style:normal;vertical-align:1px"
)
#: what the note's mark shows (a letter every font has)
NOTE_MARK = "i"


def _value_style(shown: str) -> str:
    longest = max((len(word) for word in shown.split()), default=0)
    return _LONG_VALUE if longest > LONG_WORD else _VALUE


def figure_html(
    label: str, value: object, *, note: str | None = None, delta: str | None = None
) -> str:
    """One figure. ``value`` is shown as ``str(value)`` (None as —); ``delta`` is a signed text
    such as ``"+3.1 pts"`` (its sign picks the colour); ``note`` explains the figure on hover."""
    shown = "—" if value is None else str(value)
    hint = (
        f'<span class="rj-figure-note" title="{html.escape(note)}" style="{_NOTE}">{NOTE_MARK}</span>'
        if note
        else ""
    )
    parts = [
        f'<div class="rj-figure-label" style="{_LABEL}">{html.escape(label)}{hint}</div>',
        f'<div class="rj-figure-value" style="{_value_style(shown)}">{html.escape(shown)}</div>',
    ]
    if delta:
        tone = _FALL if delta.lstrip().startswith(("-", "−")) else _RISE
        parts.append(
            f'<div class="rj-figure-delta" style="{_DELTA};{tone}">{html.escape(delta)}</div>'
        )
    return f'<div class="rj-figure" style="{_BOX}">{"".join(parts)}</div>'
