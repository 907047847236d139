"""The evidence renderer (pure): whatever text or value it gets comes back as the same text once
the entities are decoded, and nothing it was given becomes a tag, an attribute or a link."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser

from hypothesis import given
from hypothesis import strategies as st
from rejudge.dashboard.evidence_html import (
    cell_text,
    json_html,
    markdown_block_html,
    table_html,
    text_html,
)

from tests.dashboard.conftest import TableParser

PRE = re.compile(r'^<pre class="(rj-text|rj-json)" style="[^"<>]*">(.*)</pre>$', re.S)
TAG = re.compile(r"<\s*/?\s*([a-zA-Z]+)")
OURS = {"pre", "details", "summary", "table", "thead", "tbody", "tr", "th", "td"}
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(st.text())
def test_text_comes_back_verbatim_and_inert(value: str) -> None:
    shown = text_html(value)
    match = PRE.match(shown)
    assert match and match.group(1) == "rj-text"
    assert html.unescape(match.group(2)) == value
    assert "<" not in match.group(2) and '"' not in match.group(2)
    assert set(TAG.findall(shown)) <= OURS


@given(json_values, st.booleans())
def test_json_comes_back_as_the_same_value(value: object, expanded: bool) -> None:
    shown = json_html(value, expanded=expanded)
    assert shown.startswith("<pre") == expanded
    body = re.search(r'<pre class="rj-json"[^>]*>(.*)</pre>', shown, re.S)
    assert body and json.loads(html.unescape(body.group(1))) == value
    assert set(TAG.findall(shown)) <= OURS


class _Markup(HTMLParser):
    """Every tag and attribute name a browser would build from the markup."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attributes: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes.update(name for name, _ in attrs)


def test_hostile_text_makes_no_tag_attribute_or_link() -> None:
    hostile = '<img src=x onerror="alert(1)"><a href="https://evil.example">x</a><script>1</script>'
    for shown in (text_html(hostile), json_html({"k": hostile}), table_html([{hostile: hostile}])):
        markup = _Markup()
        markup.feed(shown)
        assert markup.tags <= OURS and markup.attributes <= {"class", "style"}
        assert hostile not in shown  # only its escaped form is there


def test_a_height_scrolls_and_a_folded_value_says_its_size() -> None:
    assert "max-height:360px;overflow:auto" in text_html("x", height=360)
    assert "max-height" not in text_html("x")
    assert "2 key(s)" in json_html({"a": 1, "b": 2}, expanded=False)
    assert "3 item(s)" in json_html([1, 2, 3], expanded=False)


def test_a_table_keeps_its_columns_rows_and_cells() -> None:
    rows = [{"tool": "get<order>", "ok": True, "args": {"id": 1}}, {"tool": "x", "extra": None}]
    parser = TableParser()
    parser.feed(table_html(rows))
    (table,) = parser.tables
    assert table[0] == ["tool", "ok", "args", "extra"]
    assert table[1] == ["get<order>", "True", '{"id": 1}', ""]
    assert table[2] == ["x", "", "", "—"]
    assert cell_text(None) == "—" and cell_text(1.5) == "1.5" and cell_text([1]) == "[1]"


def test_a_message_renders_its_markdown_and_nothing_live() -> None:
    shown = markdown_block_html(
        "First line\nsecond line\n\n**Booked** the flight:\n\n- UA 12\n- UA 13\n\n"
        '<script>alert(1)</script> <img src=x onerror="alert(2)"> [a](javascript:alert(3))'
    )
    assert shown.startswith('<div class="rj-md"') and "overflow-wrap:break-word" in shown
    assert "<strong>Booked</strong>" in shown and shown.count("<li>") == 2
    # the paragraph keeps its line break (a soft break, not a literal "\n" shown as text)
    assert "First line\nsecond line" in shown and "\\n" not in shown
    # a tag, an event handler or a link in the text is shown as text, escaped
    assert "&lt;script&gt;" in shown and "&lt;img" in shown
    assert "<script" not in shown and "<img" not in shown and "<a " not in shown
    assert {t.lower() for t in TAG.findall(shown)} == {"div", "p", "strong", "ul", "li"}
