"""The line-chart renderer (pure, Trends): every label, legend entry and hover text comes back as
given, points sit where their values say, and nothing it was given becomes a tag."""

from __future__ import annotations

import base64
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from rejudge.dashboard.lines_html import HEIGHT, LinePoint, Tick, lines_html
from streamlit.testing.v1 import AppTest

from tests.dashboard.conftest import ShownLines, html_lines, lines_in

TAG = re.compile(r"<\s*/?\s*([a-zA-Z]+)")
OURS = {"div", "img", "span", "ul", "li"}
SVG = {"svg", "line", "text", "title", "polyline", "circle"}
HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)> & \"quoted\" 'single'"


def _shown(markup: str) -> ShownLines:
    (chart,) = lines_in([markup])
    return chart


def _picture(markup: str) -> str:
    found = re.search(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', markup)
    assert found
    return base64.b64decode(found.group(1)).decode()


def test_hostile_names_are_text_everywhere() -> None:
    markup = lines_html(
        [LinePoint(HOSTILE, 0, 50.0, HOSTILE), LinePoint(HOSTILE, 1, 60.0, "b")],
        [Tick(0, HOSTILE), Tick(1, "b")],
        x_title=HOSTILE,
        y_title="accuracy %",
        slanted=True,
        legend_title=HOSTILE,
    )
    assert set(TAG.findall(markup)) <= OURS
    assert set(TAG.findall(_picture(markup))) <= SVG
    chart = _shown(markup)
    assert chart.legend == [HOSTILE]
    assert chart.points == [HOSTILE, "b"]
    assert chart.x_labels == [HOSTILE, "b"]


@settings(deadline=None)  # a loaded machine is slow, not wrong
@given(
    st.lists(
        st.tuples(st.sampled_from(["m1", "m2", "m3"]), st.floats(0, 100), st.floats(0, 100)),
        min_size=1,
        max_size=20,
    )
)
def test_points_sit_at_their_values_and_each_line_once_in_the_legend(
    raw: list[tuple[str, float, float]],
) -> None:
    points = [LinePoint(line, x, y, f"{line} {i}") for i, (line, x, y) in enumerate(raw)]
    markup = lines_html(points, [], x_title="x", y_title="y")
    chart = _shown(markup)
    assert chart.legend == list(dict.fromkeys(p.line for p in points))
    assert sorted(chart.points) == sorted(p.tip for p in points)
    tops = {
        tip: float(top)
        for tip, top in re.findall(r'title="([^"]*)" style="[^"]*;top:([0-9.]+)%', markup)
    }
    plot_top, plot_bottom = 100 * 12 / HEIGHT, 100 * (HEIGHT - 50) / HEIGHT
    for p in points:  # y = 0 on the axis, y = 100 at the top of the plot, linear between
        expected = plot_bottom - (plot_bottom - plot_top) * p.y / 100
        assert abs(tops[p.tip] - expected) < 0.02


def test_the_trends_page_draws_its_lines_as_html(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """No Vega-Lite chart and no data grid on Trends: each makes a cold page fetch and boot its
    frontend chunk (bench/README.md, "Compare and Trends cold")."""
    from tests.dashboard.conftest import APP
    from tests.dashboard.factory import build_store

    built = build_store(f"sqlite:///{tmp_path / 'r.db'}", cases=3, repeat=1, with_run_b=True)
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.session_state["db_url"] = built.url
    at.run()
    at.switch_page("views/trends.py")
    at.run()
    assert not at.exception
    assert not at.get("vega_lite_chart") and not at.get("arrow_data_frame")
    assert len(html_lines(at)) == 1
