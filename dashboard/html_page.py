"""The frame of a static HTML report (``rejudge report --html``, ``rejudge compare --html``):
one self-contained file that opens from disk with no server and no network.

Self-contained: the styles are inline (a ``<style>`` in the head and style attributes), there is
no script, no font, no image and no link to fetch. A Content-Security-Policy in the head forbids
every fetch (``default-src 'none'``), so even a browser that found something live in the
evidence would load nothing. Every text from the store (run names, rule names, cause codes,
evidence) is escaped by the renderers that build the body.

The pieces the two reports share are here: the page, a figure that carries its raw value for
the tests (``data-key``/``data-value``), a rate with its counts, a table, a folded section.

Format: :data:`REPORT_HTML_FORMAT`, written into the page's head; nothing reads a report back.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence

from rejudge.dashboard.figures_html import figure_html
from rejudge.dashboard.timeline_html import timeline_css

__all__ = [
    "REPORT_HTML_FORMAT",
    "CSP",
    "page",
    "figure",
    "figures",
    "rate",
    "table",
    "pct",
    "esc",
]

#: the version of the report's layout (the ``rejudge-report-format`` meta tag)
REPORT_HTML_FORMAT = 1
#: no fetch of any kind; inline styles only
CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:1.5rem auto;
max-width:72rem;padding:0 1rem;color:#1f2430;background:#fff;line-height:1.45}
h1{font-size:1.6rem;margin:0 0 0.3rem 0}h2{font-size:1.25rem;margin:1.6rem 0 0.5rem 0;
border-bottom:1px solid #d7dbe3;padding-bottom:0.2rem}h3{font-size:1.05rem;margin:1rem 0 0.4rem 0}
.rj-figs{display:flex;flex-wrap:wrap;gap:0.6rem 2rem;margin:0.4rem 0 0.8rem 0}
.rj-warn{color:#c1121f;font-weight:600}.rj-note{font-size:0.85rem;opacity:0.75}
.rj-tab{border-collapse:collapse;font-size:0.85rem;margin:0.3rem 0 0.8rem 0}
.rj-tab th,.rj-tab td{border:1px solid #d7dbe3;padding:0.2rem 0.5rem;text-align:left;
vertical-align:top;overflow-wrap:anywhere}.rj-tab td.n{text-align:right;white-space:nowrap}
details.rj-trace{margin:0.3rem 0;padding:0.2rem 0.5rem;border:1px solid #d7dbe3;border-radius:0.4rem}
details.rj-trace>summary{cursor:pointer;font-weight:600}
"""


def esc(value: object) -> str:
    """Any value as escaped text (None as —)."""
    return html.escape("—" if value is None else str(value))


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def rate(value: float | None, part: int, whole: int, what: str = "") -> str:
    """A rate with the counts it comes from: ``72.2% (130 of 180 scored)``; never a bare rate
    and never ``130/180`` (issue 39: counts read as fractions)."""
    tail = f" {what}" if what else ""
    return f"{pct(value)} ({part} of {whole}{tail})"


def figure(key: str, label: str, shown: str, raw: object, *, note: str | None = None) -> str:
    """A headline figure whose raw value (the JSON's) rides in ``data-value``."""
    value = html.escape(json.dumps(raw), quote=True)
    return (
        f'<div class="rj-fig" data-key="{html.escape(key, quote=True)}" data-value="{value}">'
        f"{figure_html(label, shown, note=note)}</div>"
    )


def figures(items: Sequence[str]) -> str:
    return f'<div class="rj-figs">{"".join(items)}</div>'


def table(columns: Sequence[str], rows: Sequence[Sequence[object]], *, numeric: int = 0) -> str:
    """A static table, every cell escaped; the last ``numeric`` columns right-aligned."""
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)
    first_number = len(columns) - numeric

    def cell(i: int, value: object) -> str:
        cls = ' class="n"' if i >= first_number else ""
        return f"<td{cls}>{esc(value)}</td>"

    body = "".join(
        "<tr>" + "".join(cell(i, v) for i, v in enumerate(row)) + "</tr>" for row in rows
    )
    return f'<table class="rj-tab"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def page(title: str, body: str, *, generator: str) -> str:
    """The whole document: ``title`` (text) in the head, ``body`` (HTML the renderers built)."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="referrer" content="no-referrer">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f'<meta name="generator" content="{html.escape(generator, quote=True)}">'
        f'<meta name="rejudge-report-format" content="{REPORT_HTML_FORMAT}">'
        f"<title>{html.escape(title)}</title><style>{_CSS}{timeline_css()}</style></head>"
        f"<body>{body}</body></html>\n"
    )
