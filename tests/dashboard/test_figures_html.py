"""Headline figures as escaped HTML: read back as a person reads them, hostile text inert."""

from __future__ import annotations

from html.parser import HTMLParser

from hypothesis import given
from hypothesis import strategies as st
from rejudge.dashboard.figures_html import figure_html

from tests.dashboard.conftest import figures_in

HOSTILE = '<a href="https://evil.example">x</a> **bold** <img src=x onerror=alert(1)> &amp;'


def test_a_figure_reads_back_with_its_delta_and_note() -> None:
    shown = figures_in(figure_html("Accuracy B", "72.2%", note="95% Wilson", delta="+3.1 pts"))
    assert len(shown) == 1
    f = shown[0]
    assert (f.label, f.value, f.delta, f.note) == ("Accuracy B", "72.2%", "+3.1 pts", "95% Wilson")


def test_none_is_a_dash_and_no_delta_draws_none() -> None:
    block = figure_html("Kappa", None)
    assert figures_in(block)[0].value == "—"
    assert "rj-figure-delta" not in block and "rj-figure-note" not in block


def test_the_sign_of_the_delta_picks_its_colour() -> None:
    rise, fall = figure_html("x", 1, delta="+1.0 pts"), figure_html("x", 1, delta="-1.0 pts")
    assert "#0f7a36" in rise and "#c1121f" not in rise
    assert "#c1121f" in fall and "#0f7a36" not in fall


def test_hostile_text_makes_no_tag_attribute_or_link() -> None:
    block = figure_html(HOSTILE, HOSTILE, note=HOSTILE, delta=HOSTILE)
    seen: list[tuple[str, list[str]]] = []

    class Tags(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            seen.append((tag, [name for name, _value in attrs]))

    Tags().feed(block)
    assert {tag for tag, _ in seen} == {"div", "span"}  # no <a>, no <img>
    assert {name for _, names in seen for name in names} == {"class", "style", "title"}
    f = figures_in(block)[0]
    assert (f.label, f.value, f.note) == (HOSTILE, HOSTILE, HOSTILE)


@given(
    label=st.text(min_size=1, max_size=40).filter(lambda t: t.strip() == t),
    value=st.text(max_size=40),
)
def test_any_text_reads_back_unchanged(label: str, value: str) -> None:
    f = figures_in(figure_html(label, value))[0]
    assert (f.label, f.value) == (label, value)  # line breaks too: the parser keeps text as is


def test_a_long_word_takes_the_smaller_size_and_no_value_breaks_anywhere() -> None:
    number = figure_html("Rounds", "15")
    word = figure_html("Status", "completed")
    assert "font-size:2.25rem" in number and "font-size:1.5rem" in word
    for shown in (number, word):
        assert "overflow-wrap:anywhere" not in shown.split('class="rj-figure-value"')[1]
