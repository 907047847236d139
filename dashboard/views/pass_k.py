"""pass^k and consistency: per case, how many repetitions passed; the pass^k curve."""

from __future__ import annotations

import pandas as pd
import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.common import context, pct, pick_evaluation
from rejudge.dashboard.stats import pass_curve

ctx = context()
url = ctx.db_url

st.title("pass^k and consistency")
st.caption(
    "pass^k is the chance that k independent repetitions of a case all pass (τ-bench's unbiased "
    "estimator: the mean over cases of C(c, k) / C(n, k), n scored repetitions, c passes)."
)
rows = data.evaluations(url)
if not rows:
    st.info("No evaluations yet.")
    st.stop()
ev = pick_evaluation("Evaluation", rows, key="ev", default_index=len(rows) - 1)
if ev is None:
    st.stop()
ev_id = ev.id
histogram = data.pass_histogram(url, ev_id)
curve = pass_curve(histogram)

all_pass = sum(h.cases for h in histogram if h.n > 0 and h.c == h.n)
all_fail = sum(h.cases for h in histogram if h.n > 0 and h.c == 0)
mixed = sum(h.cases for h in histogram if 0 < h.c < h.n)
unscored = sum(h.cases for h in histogram if h.n == 0)
m = st.columns(5)
m[0].metric("Repetitions (max)", max((h.n for h in histogram), default=0))
m[1].metric("Always pass", all_pass)
m[2].metric("Always fail", all_fail)
m[3].metric("Inconsistent", mixed)
m[4].metric("Never scored", unscored)

if curve:
    frame = pd.DataFrame(curve)
    st.subheader("pass^k curve")
    cols = st.columns(min(len(curve), 8))
    for column, point in zip(cols, curve, strict=False):
        column.metric(f"pass^{point['k']}", pct(point["pass^k"]))
    st.line_chart(frame, x="k", y="pass^k")
    st.dataframe(frame, hide_index=True)
else:
    st.caption("No scored repetitions.")

st.subheader("Per case")
only_mixed = st.toggle("Only inconsistent cases", key="pk_mixed")
per_case = data.per_case_passes(url, ev_id, only_mixed)
if per_case:
    frame = pd.DataFrame(per_case)
    frame["pass rate"] = frame.apply(
        lambda r: r["passed"] / r["scored"] if r["scored"] else None, axis=1
    )
    st.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        column_config={
            "pass rate": st.column_config.ProgressColumn("pass rate", min_value=0, max_value=1)
        },
    )
    st.caption(f"Showing up to 500 cases, inconsistent ones first ({len(per_case)} shown).")
