"""Trends: accuracy per model, suite, tier and rule set over time; partial-score distribution."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.common import context, filters_widget

ctx = context()
url = ctx.db_url

st.title("Trends")
options = data.filter_options(url)
filters = filters_widget(options, keys=("suite", "model", "tier", "rule_set"))
points = data.trend_points(url, filters)
if not points:
    st.info("No evaluations match.")
    st.stop()

group = st.radio(
    "One line per", ["model", "suite", "tier", "rule_set"], horizontal=True, key="tr_group"
)
frame = pd.DataFrame(points)
frame["accuracy %"] = frame["accuracy"].astype(float) * 100
st.metric("Evaluations", len(frame))
chart = (
    alt.Chart(frame.dropna(subset=["accuracy %"]))
    .mark_line(point=True)
    .encode(
        x=alt.X("created_at:T", title="evaluated at"),
        y=alt.Y("accuracy %:Q", scale=alt.Scale(domain=[0, 100])),
        color=alt.Color(f"{group}:N"),
        tooltip=["evaluation", "model", "suite", "tier", "rule_set", "accuracy %", "scored"],
    )
)
st.altair_chart(chart, width="stretch")
st.dataframe(
    frame[
        ["evaluation", "created_at", "model", "suite", "tier", "rule_set", "accuracy %", "scored"]
    ],
    hide_index=True,
    width="stretch",
    column_config={"accuracy %": st.column_config.NumberColumn(format="%.1f")},
)

st.subheader("Partial scores")
st.caption("Diagnostic only (never decides a verdict): a slow drift shows here first.")
hist = data.partial_histogram(url, filters)
if hist:
    hframe = pd.DataFrame(hist)
    hframe["range"] = hframe.apply(lambda r: f"{r['low']:.1f}–{r['high']:.1f}", axis=1)
    st.altair_chart(
        alt.Chart(hframe)
        .mark_bar()
        .encode(
            x=alt.X("range:N", sort=None, title="partial score"),
            y=alt.Y("n:Q", title="judgments"),
            color="verdict:N",
            tooltip=["range", "verdict", "n"],
        ),
        width="stretch",
    )
else:
    st.caption("No partial scores in the selected evaluations.")
