"""Trends: accuracy over the runs' recording time, one line per (model, tier, rule set).

It opens on a readable selection: one tier (the newest evaluation's), the newest rules of that
tier, the newest few runs; everything else is one picker away ("all" in each). A store with
dozens of evaluations would otherwise draw dozens of long legend entries and squeeze the plot.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.charts import chart, field
from rejudge.dashboard.common import context, figure, filters_widget

ctx = context()
url = ctx.db_url
ALL = "all"
FEW_RUNS = 6
# points closer together than this in recording time are drawn run by run, not on a clock
# axis (whose ticks would read ":50", seconds of one minute)
CLOCK_SPAN_S = 6 * 3600

st.title("Trends")
options = data.filter_options(url)
filters = filters_widget(options, keys=("suite", "model"))
points = data.trend_points(url, filters)
if not points:
    st.info("No evaluations match.")
    st.stop()
frame = pd.DataFrame(points)
runs = {e.id: (e.run_id, e.run) for e in data.evaluations(url)}
frame["run_id"] = frame["evaluation"].map(lambda i: runs.get(i, (None, "?"))[0])
frame["run"] = frame["evaluation"].map(lambda i: runs.get(i, (None, "?"))[1])
newest = frame.sort_values("evaluation").iloc[-1]

c1, c2, c3 = st.columns([1, 1, 2])
tiers = sorted(frame["tier"].unique())
tier = c1.selectbox("Tier", [ALL, *tiers], index=1 + tiers.index(newest["tier"]), key="tr_tier")
in_tier = frame if tier == ALL else frame[frame["tier"] == tier]
rule_sets = sorted(in_tier["rule_set"].unique())
latest_rules = in_tier.sort_values("evaluation").iloc[-1]["rule_set"]
rules = c2.selectbox(
    "Rule set", [ALL, *rule_sets], index=1 + rule_sets.index(latest_rules), key="tr_rules"
)
chosen = in_tier if rules == ALL else in_tier[in_tier["rule_set"] == rules]
by_time = chosen.sort_values(["recorded_at", "run_id"]).drop_duplicates("run_id")
run_labels = {int(r.run_id): f"#{int(r.run_id)} · {r.run}" for r in by_time.itertuples()}
if "tr_runs" in st.session_state:  # runs of another tier or rule set are no option now
    st.session_state["tr_runs"] = [r for r in st.session_state["tr_runs"] if r in run_labels]
picked = c3.multiselect(
    "Runs",
    list(run_labels),
    default=list(run_labels)[-FEW_RUNS:],
    format_func=run_labels.__getitem__,
    key="tr_runs",
    placeholder="all",
)
if picked:
    chosen = chosen[chosen["run_id"].isin(picked)]
st.caption(
    f"{len(chosen)} of {len(frame)} evaluation(s) shown: pick another tier, rule set or runs "
    "above (empty or 'all' shows every one)."
)

chosen = chosen.copy()
chosen["accuracy %"] = chosen["accuracy"].astype(float) * 100
# one line per thing measured: a model under one tier and one rule set (joining different
# tiers or rule sets in one line would draw a change of yardstick as a change of the model)
chosen["line"] = chosen["model"] + " · " + chosen["tier"] + " · " + chosen["rule_set"]
figure(st, "Evaluations", len(chosen))
scored = chosen.dropna(subset=["accuracy %"])
left_out = len(chosen) - len(scored)
if left_out:
    st.caption(f"{left_out} evaluation(s) with nothing scored (no PASS or FAIL) are not plotted.")
span = (
    (scored["recorded_at"].max() - scored["recorded_at"].min()).total_seconds()
    if len(scored) and scored["recorded_at"].notna().all()
    else 0.0
)
if span >= CLOCK_SPAN_S:
    x = field("recorded_at:T", title="run recorded at", axis={"format": "%Y-%m-%d %H:%M"})
else:
    # recorded within hours of each other: one place per run, in recording order
    order = [run_labels.get(int(i), str(i)) for i in by_time["run_id"]]
    scored = scored.assign(run_label=scored["run_id"].map(lambda i: run_labels.get(int(i), "?")))
    x = field(
        "run_label:N",
        sort=order,
        title="run (in recording order)",
        axis={"labelAngle": -30, "labelLimit": 220},
    )
chart(
    scored,
    "line",
    point=True,
    x=x,
    y=field("accuracy %:Q", scale={"domain": [0, 100]}),
    color=field(
        "line:N",
        title="model · tier · rule set",
        legend={"orient": "bottom", "columns": 2, "labelLimit": 0},
    ),
    tooltip=[
        "evaluation:Q",
        "run:N",
        "model:N",
        "suite:N",
        "tier:N",
        "rule_set:N",
        "accuracy %:Q",
        "scored:Q",
        "recorded_at:T",
        "created_at:T",
    ],
)
st.caption("Points sit at the run's recording date; re-judging an old run keeps it there.")
st.dataframe(
    chosen.sort_values(["recorded_at", "evaluation"], ascending=False)[
        [
            "evaluation",
            "recorded_at",
            "created_at",
            "run",
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
hist_filters = dict(filters)
if tier != ALL:
    hist_filters["tier"] = [tier]
if rules != ALL:
    hist_filters["rule_set"] = [rules]
hist = data.partial_histogram(url, hist_filters)
if hist:
    hframe = pd.DataFrame(hist)
    hframe["range"] = hframe.apply(lambda r: f"{r['low']:.1f}–{r['high']:.1f}", axis=1)
    chart(
        hframe,
        "bar",
        x=field("range:N", sort=None, title="partial score"),
        y=field("n:Q", title="judgments"),
        color="verdict:N",
        tooltip=["range:N", "verdict:N", "n:Q"],
    )
else:
    st.caption("No partial scores in the selected evaluations.")
