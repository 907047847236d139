"""A model's Markdown as inert HTML: emphasis, lists, code and tables take effect; raw HTML,
links and images never do.

Why render it at all: a model's answer is Markdown more often than not, and shown verbatim it
reads as ``**`` and backticks (issue 39). Why this is safe: the text goes through markdown-it
with raw HTML off (a ``<img>`` or ``<script>`` in the text is escaped and shown as written) and
with every rule that makes an address live switched off — links, images, autolinks, reference
definitions — so ``![x](http://...)`` and ``[x](javascript:...)`` stay text, escaped. Nothing it
writes has an ``href``, a ``src`` or an event attribute (tests/dashboard/test_markdown_html.py
feeds it the hostile corpus and reads the HTML back). Maths (``$x^2$``) is not a Markdown
construct here and stays text.

Pure (no Streamlit): the timeline renderer (:mod:`rejudge.dashboard.timeline_html`) uses it.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

__all__ = ["markdown_html"]

# the rules that would turn text into an address the browser follows or fetches
_LIVE_RULES = ["link", "image", "autolink", "reference", "linkify"]


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    # imported on first use, not with the module: markdown-it compiles its rules' patterns as
    # it loads (0.1-0.25 s of CPU), which every page importing the evidence renderers paid on
    # a fresh server, Compare too, which renders no Markdown
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table")
    md.disable([r for r in _LIVE_RULES if r in _known_rules(md)])
    return md


def _known_rules(md: MarkdownIt) -> set[str]:
    return set(md.get_all_rules()["core"] + md.get_all_rules()["block"]) | set(
        md.get_all_rules()["inline"] + md.get_all_rules().get("inline2", [])
    )


# what plain prose never holds: a character that may start Markdown (emphasis, code, a
# heading, a quote, a table, a link or image, raw HTML, an entity, an escape), an underscore at
# a word's edge, whitespace a line starts or ends with (indented code, a hard break), any
# whitespace but a space and a newline (Markdown strips or keeps each its own way), a NUL
_MARKUP = re.compile(
    r"[*`#>|\[\]<&\\~\x00]|[^\S \n]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])|^[ ]|[ ]$", re.M
)
# a line that starts a list item or a setext underline is not prose either
_BLOCK_START = re.compile(r"^(?:[^\w\n]|\d+[.)])", re.M)


def _prose_html(text: str) -> str | None:
    """What markdown-it renders for plain prose (paragraphs split on blank lines, lines kept),
    without parsing; None when ``text`` may hold Markdown. Most evidence is prose, and parsing
    it was most of a 200-trace report's time (bench/html_report.py)."""
    if _MARKUP.search(text) or _BLOCK_START.search(text):
        return None
    paragraphs = [p for p in re.split(r"\n(?:[ ]*\n)+", text.strip("\n")) if p]
    escaped = (html.escape(p, quote=False).replace('"', "&quot;") for p in paragraphs)
    return "".join(f"<p>{p}</p>\n" for p in escaped)


@lru_cache(maxsize=4096)
def markdown_html(text: str) -> str:
    """``text`` (untrusted Markdown) as HTML with no live element: see the module. The same
    text (an instruction a trace repeats, a user's stock reply) is rendered once."""
    prose = _prose_html(text)
    return prose if prose is not None else _parser().render(text)
