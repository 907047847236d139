"""Evidence as pre-rendered, escaped HTML: text, JSON values and small tables.

Why HTML and not Streamlit's own elements: a trace shows dozens of values, and each ``st.json``
or ``st.code`` is a React component the browser mounts with its own styling, a JSON viewer or a
syntax highlighter. On two shared cores that mounting was most of the Trace viewer's time (see
bench/README.md, "Issue 27"); the same values as escaped ``<pre>`` blocks are plain DOM.

Every string from outside goes through :func:`html.escape` before it is placed, so evidence is
text, never markup: no tag, entity or link it holds takes effect (Streamlit's DOMPurify runs on
top of that, it is not what keeps evidence inert). Nothing here writes an ``<a>``, a ``<script>``
or an event attribute. The markup uses classes ``rj-text`` (text), ``rj-json`` (a JSON
structure) and ``rj-table`` (a table), which the tests read back.

Pure (no Streamlit): :mod:`rejudge.dashboard.evidence` hands the result to ``st.html``.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from typing import Any

from rejudge.dashboard.markdown_html import markdown_html

__all__ = ["text_html", "markdown_block_html", "json_html", "table_html", "cell_text"]

# the look of st.code's box, in colours that read on the light and the dark theme
_BOX = (
    "margin:0 0 0.5rem 0;padding:0.6rem 0.9rem;border-radius:0.5rem;"
    "background:rgba(151,166,195,0.15);font-family:'Source Code Pro',monospace;"
    "font-size:0.85rem;line-height:1.45;white-space:pre-wrap;overflow-wrap:anywhere"
)
_SUMMARY = "cursor:pointer;font-size:0.85rem;opacity:0.8;margin-bottom:0.25rem"
_TABLE = "border-collapse:collapse;width:100%;font-size:0.85rem;margin-bottom:0.5rem"
_CELL = (
    "border:1px solid rgba(151,166,195,0.35);padding:0.25rem 0.5rem;text-align:left;"
    "vertical-align:top;white-space:pre-wrap;overflow-wrap:anywhere"
)


def _pre(kind: str, text: str, height: int | None) -> str:
    scroll = f";max-height:{int(height)}px;overflow:auto" if height else ""
    return f'<pre class="{kind}" style="{_BOX}{scroll}">{html.escape(text)}</pre>'


# a model's or a user's message, its Markdown rendered: prose in the page's font; a word breaks
# only when it is wider than the line on its own (never "compl/eted" to fit a narrow column)
_MARKDOWN = "font-size:0.95rem;line-height:1.5;overflow-wrap:break-word;margin-bottom:0.5rem"


def markdown_block_html(value: str) -> str:
    """A message as rendered Markdown (emphasis, lists, code, tables) with every HTML tag, link
    and image in it shown as text (:func:`rejudge.dashboard.markdown_html.markdown_html`)."""
    return f'<div class="rj-md" style="{_MARKDOWN}">{markdown_html(value)}</div>'


def text_html(value: str, *, height: int | None = None) -> str:
    """Untrusted text, verbatim and wrapped; in a box ``height`` pixels tall at most (then it
    scrolls) when given."""
    return _pre("rj-text", value, height)


def _shape(value: Any) -> str:
    if isinstance(value, dict):
        return f"{{…}} {len(value)} key(s)"
    if isinstance(value, list):
        return f"[…] {len(value)} item(s)"
    return "value"


def json_html(value: Any, *, expanded: bool = True) -> str:
    """A JSON structure, indented; folded under a one-line summary (its size) unless
    ``expanded``. ``value`` must be JSON-serializable (the caller decides what is)."""
    block = _pre("rj-json", json.dumps(value, indent=2, ensure_ascii=False), None)
    if expanded:
        return block
    return f'<details><summary style="{_SUMMARY}">{_shape(value)}</summary>{block}</details>'


def cell_text(value: Any) -> str:
    """How a table cell shows a value: text as is, a structure as compact JSON, None as —."""
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return str(value)
    return json.dumps(value, ensure_ascii=False, default=str)


def table_html(rows: Sequence[Mapping[str, Any]]) -> str:
    """Rows (same keys, in order of the first row; a missing key is an empty cell) as a static
    table: for small tables that need no sorting or selection (a judgment's call diff)."""
    columns: list[str] = []
    for row in rows:
        columns += [k for k in row if k not in columns]
    head = "".join(f'<th style="{_CELL}">{html.escape(str(c))}</th>' for c in columns)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td style="{_CELL}">{html.escape(cell_text(row.get(c)) if c in row else "")}</td>'
            for c in columns
        )
        + "</tr>"
        for row in rows
    )
    return (
        f'<table class="rj-table" style="{_TABLE}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table>"
    )
