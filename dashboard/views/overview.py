"""Overview: runs, evaluations and baselines, filtered by suite, model, tier and rule set."""

from __future__ import annotations

import pandas as pd
import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.common import context, filters_widget

ctx = context()
url = ctx.db_url

st.title("Overview")
options = data.filter_options(url)
filters = filters_widget(options, keys=("suite", "model", "tier", "rule_set"))

runs = data.runs(url, {k: v for k, v in filters.items() if k in ("suite", "model")})
evaluations = data.evaluations(url, filters)
baselines = data.baselines(url)

c1, c2, c3, c4 = st.columns(4)
c1.metric("Runs", len(runs))
c2.metric("Evaluations", len(evaluations))
c3.metric("Judgments", sum(e.judgments for e in evaluations))
c4.metric("Baselines", len(baselines))

st.subheader("Runs")
if runs:
    st.dataframe(
        pd.DataFrame(runs)[
            [
                "id",
                "run",
                "model",
                "provider",
                "suite",
                "harness_mode",
                "repetitions",
                "traces",
                "expected_traces",
                "status",
                "started_at",
                "finished_at",
            ]
        ],
        hide_index=True,
        width="stretch",
    )
else:
    st.info("No runs match. Record one with `rejudge record`, or try `rejudge demo`.")

st.subheader("Evaluations")
if evaluations:
    frame = pd.DataFrame(evaluations)
    frame["accuracy"] = frame["accuracy"].astype(float) * 100
    st.dataframe(
        frame[
            [
                "id",
                "run",
                "model",
                "suite",
                "tier",
                "rule_set",
                "accuracy",
                "PASS",
                "FAIL",
                "SKIP",
                "AGENT_ERROR",
                "avg_partial",
                "status",
                "created_at",
            ]
        ],
        hide_index=True,
        width="stretch",
        column_config={
            "accuracy": st.column_config.NumberColumn("accuracy", format="%.1f%%"),
            "avg_partial": st.column_config.NumberColumn("avg partial", format="%.3f"),
        },
    )
    st.caption(
        "Accuracy = PASS / (PASS + FAIL). SKIP and AGENT_ERROR are shown, never in the denominator."
    )
else:
    st.info("No evaluations match. Judge a run with `rejudge judge RUN --tier T`.")

st.subheader("Baselines")
if baselines:
    st.dataframe(pd.DataFrame(baselines), hide_index=True, width="stretch")
else:
    st.caption("No baselines locked yet (`rejudge baseline lock EVAL --name NAME`).")
