"""The bar-chart renderer (pure): every label and printed value comes back as given, a bar's
width is its share of the scale, and nothing it was given becomes a tag or an attribute."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rejudge.dashboard.bars import Bar, bars_html

from tests.dashboard.conftest import BarsParser

TAG = re.compile(r"<\s*/?\s*([a-zA-Z]+)")
OURS = {"table", "tbody", "tr", "th", "td", "div"}
values = st.none() | st.floats(min_value=0, max_value=1e6, allow_nan=False)
bar_lists = st.lists(
    st.builds(
        Bar, label=st.text(), series=st.sampled_from(["A", "B"]), value=values, text=st.text()
    ),
    min_size=1,
    max_size=12,
)


def _read(markup: str) -> list[tuple[str, str, float, str]]:
    parser = BarsParser()
    parser.feed(markup)
    (chart,) = parser.charts
    return chart


def _grouped(bars: list[Bar]) -> list[Bar]:
    order = list(dict.fromkeys(b.label for b in bars))
    return [b for label in order for b in bars if b.label == label]


@given(bar_lists)
def test_labels_and_values_come_back_grouped_in_first_seen_order(bars: list[Bar]) -> None:
    shown = _read(bars_html(bars))
    assert [(label, series, text) for label, series, _w, text in shown] == [
        (b.label, b.series, b.text) for b in _grouped(bars)
    ]


@given(bar_lists, st.floats(min_value=1, max_value=1e6))
def test_a_bar_is_its_share_of_the_scale(bars: list[Bar], scale: float) -> None:
    shown = _read(bars_html(bars, scale_max=scale))
    for bar, (_l, _s, width, _t) in zip(_grouped(bars), shown, strict=True):
        expected = 0.0 if bar.value is None else min(100.0, 100 * bar.value / scale)
        assert width == pytest.approx(expected, abs=0.01)


def test_the_longest_bar_fills_the_track_by_default() -> None:
    shown = _read(bars_html([Bar("x", "", 4, "4"), Bar("y", "", 2, "2"), Bar("z", "", 0, "0")]))
    assert [(label, width) for label, _s, width, _t in shown] == [("x", 100), ("y", 50), ("z", 0)]
    assert all(series == "" for _l, series, _w, _t in shown)  # one series: no series column


@given(bar_lists)
def test_nothing_given_becomes_markup(bars: list[Bar]) -> None:
    shown = bars_html(bars)
    assert set(TAG.findall(shown)) <= OURS
    assert "<a" not in shown.lower() and "href" not in shown.lower()


def test_hostile_labels_are_text() -> None:
    label = '<img src=x onerror="alert(1)"> [link](https://example.com)'
    shown = bars_html([Bar(label, "A", 1.0, "<b>1</b>")])
    assert "<img" not in shown and "<b>" not in shown  # escaped: text inside a cell
    assert _read(shown) == [(label, "A", 100.0, "<b>1</b>")]
