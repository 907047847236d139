"""The dashboard's charts are Vega-Lite specs written out (dashboard.charts, no Altair at run
time): each is the spec Altair builds for the same chart, so the frontend draws the same."""

from __future__ import annotations

from typing import Any

import altair as alt
import pandas as pd
import pytest
from rejudge.dashboard.charts import SCHEMA, field, spec

FRAME = pd.DataFrame(
    {
        "dimension": ["a", "b"],
        "evaluation": ["A", "B"],
        "accuracy": [50.0, 75.0],
        "scored": [2, 4],
        "recorded_at": pd.to_datetime(["2026-01-01", "2026-01-02"]),
    }
)


def _altair(chart: alt.Chart) -> dict[str, Any]:
    with alt.theme.enable("none"):  # what Streamlit does before it serializes a chart
        built = chart.to_dict()
    built.pop("data")
    built.pop("datasets")
    return built


CASES = [
    (
        # Compare's per-group bars
        alt.Chart(FRAME)
        .mark_bar()
        .encode(
            y=alt.Y("dimension:N", axis=alt.Axis(labelLimit=0, title=None)),
            yOffset="evaluation:N",
            x=alt.X("accuracy:Q", scale=alt.Scale(domain=[0, 100]), title="accuracy %"),
            color="evaluation:N",
            tooltip=["dimension", "evaluation", "accuracy", "scored"],
        ),
        spec(
            "bar",
            y=field("dimension:N", axis={"labelLimit": 0, "title": None}),
            yOffset="evaluation:N",
            x=field("accuracy:Q", scale={"domain": [0, 100]}, title="accuracy %"),
            color="evaluation:N",
            tooltip=["dimension:N", "evaluation:N", "accuracy:Q", "scored:Q"],
        ),
    ),
    (
        # Trends' line with points, on a time axis, a sorted legend and an inferred tooltip
        alt.Chart(FRAME)
        .mark_line(point=True)
        .encode(
            x=alt.X("recorded_at:T", title="t", axis=alt.Axis(format="%Y-%m-%d %H:%M")),
            y=alt.Y("accuracy:Q", scale=alt.Scale(domain=[0, 100])),
            color=alt.Color(
                "dimension:N", title="line", legend=alt.Legend(orient="bottom", columns=2)
            ),
            tooltip=["evaluation", "scored", "recorded_at"],
        ),
        spec(
            "line",
            point=True,
            x=field("recorded_at:T", title="t", axis={"format": "%Y-%m-%d %H:%M"}),
            y=field("accuracy:Q", scale={"domain": [0, 100]}),
            color=field("dimension:N", title="line", legend={"orient": "bottom", "columns": 2}),
            tooltip=["evaluation:N", "scored:Q", "recorded_at:T"],
        ),
    ),
    (
        # Agreement's causes, sorted by count; Trends' histogram, in the data's order
        alt.Chart(FRAME)
        .mark_bar()
        .encode(
            y=alt.Y("dimension:N", sort="-x", axis=alt.Axis(labelLimit=0, title=None)),
            x=alt.X("scored:Q", sort=None, title="n"),
        ),
        spec(
            "bar",
            y=field("dimension:N", sort="-x", axis={"labelLimit": 0, "title": None}),
            x=field("scored:Q", sort=None, title="n"),
        ),
    ),
]


@pytest.mark.parametrize(("altair_chart", "written"), CASES)
def test_a_written_spec_is_altairs(altair_chart: alt.Chart, written: dict[str, Any]) -> None:
    assert written == _altair(altair_chart)


def test_the_schema_is_the_installed_altairs() -> None:
    assert SCHEMA == alt.SCHEMA_URL
