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

from functools import lru_cache

from markdown_it import MarkdownIt

__all__ = ["markdown_html"]

# the rules that would turn text into an address the browser follows or fetches
_LIVE_RULES = ["link", "image", "autolink", "reference", "linkify"]


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table")
    md.disable([r for r in _LIVE_RULES if r in _known_rules(md)])
    return md


def _known_rules(md: MarkdownIt) -> set[str]:
    return set(md.get_all_rules()["core"] + md.get_all_rules()["block"]) | set(
        md.get_all_rules()["inline"] + md.get_all_rules().get("inline2", [])
    )


def markdown_html(text: str) -> str:
    """``text`` (untrusted Markdown) as HTML with no live element: see the module."""
    return _parser().render(text)
