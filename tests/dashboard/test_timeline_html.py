"""The timeline and report renderers keep evidence inert (the HOSTILE corpus of the dashboard's
tests, and more), render a model's Markdown without anything live, fold long texts and show
the argument diff (rejudge.dashboard.timeline_html, markdown_html, report_html, compare_html)."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rejudge.dashboard.compare_html import compare_page
from rejudge.dashboard.markdown_html import markdown_html
from rejudge.dashboard.report_html import report_page
from rejudge.dashboard.timeline_html import FOLD_CHARS, timeline_css, timeline_html
from rejudge.judge import build_timeline
from rejudge.store import Store

from rejudge.model import Case, Golden, GoldenCall, Round, ToolCall, Trace
from rejudge.services import compare_evaluations, evaluation_report, trace_timeline
from tests.dashboard.factory import HOSTILE, build_imported

# more that would be live if it were markup: a script, a link, an event handler, a frame, a
# style that fetches, Markdown links of every kind
MORE_HOSTILE = [
    "<script>fetch('http://203.0.113.9/x')</script>",
    '<a href="http://203.0.113.9/">click</a>',
    '<img src=x onerror="alert(1)">',
    "<iframe src=http://203.0.113.9/></iframe>",
    "<style>body{background:url(http://203.0.113.9/bg.png)}</style>",
    "[link](http://203.0.113.9/) [js](javascript:alert(1)) <http://203.0.113.9/auto>",
    "[ref][r]\n\n[r]: http://203.0.113.9/ref",
    "![alt][i]\n\n[i]: http://203.0.113.9/i.png",
    "```\n</pre><script>alert(1)</script>\n```",
]
LIVE_TAGS = {"img", "a", "script", "iframe", "object", "embed", "link", "form", "input", "svg"}


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(html_text: str) -> _Tags:
    parser = _Tags()
    parser.feed(html_text)
    return parser


def assert_inert(html_text: str, *, style_tags: int = 0) -> None:
    """No live element, no address attribute, no event handler; ``<style>`` only where the
    page's own head puts it."""
    parsed = _parse(html_text)
    live = [t for t, _ in parsed.tags if t in LIVE_TAGS]
    assert not live, live
    for tag, attrs in parsed.tags:
        for name in attrs:
            assert name not in ("src", "href", "srcset", "action", "formaction"), (tag, name)
            assert not name.startswith("on"), (tag, name)
    assert sum(1 for t, _ in parsed.tags if t == "style") == style_tags


def _hostile_trace() -> tuple[Trace, Case]:
    texts = [HOSTILE, *MORE_HOSTILE]
    case = Case(
        id="h",
        dimension="d",
        category="k",
        instruction="\n\n".join(texts),
        golden=Golden(calls=[GoldenCall(tool="get_order", params={"order_id": HOSTILE})]),
    )
    rounds = [
        Round(
            index=i,
            text=text,
            calls=[
                ToolCall(
                    name="get_order",
                    arguments={"order_id": text},
                    arguments_raw="",
                    result=text,
                    ok=True,
                )
            ],
        )
        for i, text in enumerate(texts)
    ]
    return Trace(case_id="h", rounds=rounds), case


@pytest.mark.parametrize("inline", [True, False])
def test_hostile_evidence_is_text_in_the_timeline(inline: bool) -> None:
    trace, case = _hostile_trace()
    out = timeline_html(build_timeline(trace, case), inline=inline)
    assert_inert(out)
    text = "".join(_parse(out).text)
    # what would have been live is there to read, as text
    assert "<script>fetch('http://203.0.113.9/x')</script>" in text
    assert "![pixel](http://203.0.113.9/pixel.png)" in text
    assert "$x^2$" in text


def test_markdown_formats_but_makes_nothing_live() -> None:
    out = markdown_html("**bold** and `code`\n\n- one\n- two\n\n" + "\n\n".join(MORE_HOSTILE))
    assert "<strong>bold</strong>" in out and "<code>code</code>" in out and "<li>one</li>" in out
    assert_inert(out)
    assert "[js](javascript:alert(1))" in "".join(_parse(out).text)


def test_long_texts_fold_and_short_ones_do_not() -> None:
    long_text = "word " * (FOLD_CHARS // 4)
    trace = Trace(
        case_id="c", rounds=[Round(index=0, text="short"), Round(index=1, text=long_text)]
    )
    out = timeline_html(build_timeline(trace, None), inline=False)
    assert out.count("<details>") == 1
    summary = out.split("<summary", 1)[1].split("</summary>", 1)[0]
    assert f"({len(long_text)} characters)" in summary


def test_a_differing_argument_shows_in_the_diff_table() -> None:
    case = Case(
        id="c",
        dimension="d",
        category="k",
        instruction="x",
        golden=Golden(calls=[GoldenCall(tool="refund", params={"order_id": "#W1", "amount": 5})]),
    )
    call = ToolCall(name="refund", arguments={"order_id": "#W1", "amount": "5"}, ok=True, result={})
    out = timeline_html(
        build_timeline(Trace(case_id="c", rounds=[Round(index=0, calls=[call])]), case)
    )
    table = out.split('class="rj-argdiff"', 1)[1].split("</table>", 1)[0]
    cells = _parse("<table " + table).text
    assert ["amount", "changed", "5", '"5"'] == cells[
        cells.index("amount") : cells.index("amount") + 4
    ]
    assert "order_id" in cells and "same" in cells


def test_the_stylesheet_names_every_class_the_timeline_writes() -> None:
    trace, case = _hostile_trace()
    out = timeline_html(build_timeline(trace, case), inline=False)
    used = {
        c
        for _t, a in _parse(out).tags
        for c in (a.get("class") or "").split()
        if c.startswith("rj-")
    }
    css = timeline_css()
    assert used and all(f".{c}{{" in css for c in used), used
    assert "style=" not in out  # classes only: the page's stylesheet draws them


def test_pages_of_the_imported_hostile_store_are_inert(tmp_path: Path) -> None:
    built = build_imported(f"sqlite:///{tmp_path / 'h.db'}", tmp_path)
    store = Store.open(built.url)
    try:
        ev = built.evaluations["imported"]
        timelines = []
        for row in store.judgments.iter_evaluation_rows(ev):
            detail = store.traces.trace_detail(int(row.trace_id))
            assert detail is not None and detail.body is not None
            timelines.append(
                trace_timeline(detail.body, detail.case_body, detail.cassette_path, tmp_path)
            )
        report = evaluation_report(store, ev, with_calibration=True)
        comparison = compare_evaluations(store, ev, ev)
    finally:
        store.close()
    assert len(timelines) == 3
    # the real cassettes give the rounds their figures: none is an error note
    assert all("no per-step figures" not in (t.timing_note or "") for t in timelines)
    for page in (report_page(report, timelines), compare_page(comparison, timelines)):
        assert_inert(page, style_tags=1)
        assert page.count(HOSTILE.replace("<", "&lt;").replace(">", "&gt;")[:40]) >= 3


PROSE = st.text(
    alphabet=st.sampled_from(list("ab Z9_.,:;-=+()'\"/?\n\x00\x0c\u00a0é1")) | st.characters(),
    max_size=60,
)


@settings(max_examples=600, deadline=None)
@given(PROSE)
def test_the_prose_shortcut_renders_what_markdown_it_renders(text: str) -> None:
    from rejudge.dashboard.markdown_html import _parser, _prose_html

    shortcut = _prose_html(text)
    if shortcut is not None:
        assert shortcut == _parser().render(text)


def test_the_prose_shortcut_takes_plain_replies_and_leaves_markdown() -> None:
    from rejudge.dashboard.markdown_html import _prose_html

    assert _prose_html("Sure, my user ID is mia_li_3668.\n\nThanks!") is not None
    for text in ("**bold**", "1. one", "- item", "a  \nb", "see [x](y)", "x_y_ z _e_"):
        assert _prose_html(text) is None, text
