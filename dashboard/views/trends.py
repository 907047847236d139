"""Trends: accuracy over recording time, one line per (model, tier, rule set); partial scores."""

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

frame = pd.DataFrame(points)
frame["accuracy %"] = frame["accuracy"].astype(float) * 100
# one line per thing measured: a model under one tier and one rule set (joining different
# tiers or rule sets in one line would draw a change of yardstick as a change of the model)
frame["line"] = frame["model"] + " · " + frame["tier"] + " · " + frame["rule_set"]
st.metric("Evaluations", len(frame))
scored = frame.dropna(subset=["accuracy %"])
left_out = len(frame) - len(scored)
if left_out:
    st.caption(f"{left_out} evaluation(s) with nothing scored (no PASS or FAIL) are not plotted.")
chart = (
    alt.Chart(scored)
    .mark_line(point=True)
    .encode(
        x=alt.X("recorded_at:T", title="run recorded at"),
        y=alt.Y("accuracy %:Q", scale=alt.Scale(domain=[0, 100])),
        color=alt.Color("line:N", title="model · tier · rule set", legend=alt.Legend(labelLimit=0)),
        tooltip=[
            "evaluation",
            "model",
            "suite",
            "tier",
            "rule_set",
            "accuracy %",
            "scored",
            "recorded_at",
            "created_at",
        ],
    )
)
st.altair_chart(chart, width="stretch")
st.caption("Points sit at the run's recording date; re-judging an old run keeps it there.")
st.dataframe(
    frame.sort_values(["recorded_at", "evaluation"], ascending=False)[
        [
            "evaluation",
            "recorded_at",
            "created_at",
            "model",
            "suite",
            "tier",
            "rule_set",
            "accuracy %",
            "scored",
        ]
    ],
    hide_index=True,
    width="stretch",
    column_config={
        "accuracy %": st.column_config.NumberColumn(format="%.1f"),
        "recorded_at": st.column_config.DatetimeColumn("recorded"),
        "created_at": st.column_config.DatetimeColumn("judged"),
    },
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
