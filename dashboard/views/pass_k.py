"""pass^k and consistency: per case, how many repetitions passed; the pass^k curve."""

from __future__ import annotations

from urllib.parse import urlencode

import pandas as pd
import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.charts import chart, field
from rejudge.dashboard.common import NOT_SCORABLE, context, figure, pct
from rejudge.dashboard.links import clickable_table, follow_click, pair_url
from rejudge.dashboard.opening import evaluations_or_stop, pick_newest
from rejudge.dashboard.sidebyside import pair_link

ctx = context()
url = ctx.db_url

st.title("pass^k and consistency")
st.caption(
    "pass^k is the chance that k independent repetitions of a case all pass (τ-bench's unbiased "
    "estimator: the mean over cases of C(c, k) / C(n, k), n scored repetitions, c passes)."
)
ev = pick_newest(evaluations_or_stop(url, "No evaluations yet."))
ev_id = ev.id
histogram = data.pass_histogram(url, ev_id)
curve = data.pass_curve(url, ev_id)

all_pass = sum(h.cases for h in histogram if h.n > 0 and h.c == h.n)
all_fail = sum(h.cases for h in histogram if h.n > 0 and h.c == 0)
mixed = sum(h.cases for h in histogram if 0 < h.c < h.n)
unscored = sum(h.cases for h in histogram if h.n == 0)
m = st.columns(5)
figure(m[0], "Repetitions (max)", max((h.n for h in histogram), default=0))
figure(m[1], "Always pass", all_pass)
figure(m[2], "Always fail", all_fail)
figure(m[3], "Inconsistent", mixed)
figure(m[4], "Never scored", unscored)

most = max((h.n for h in histogram), default=0)
per_all = data.per_case_passes(url, ev_id, False)
recorded = max((c.repetitions for c in per_all), default=0)
if most <= 1 and recorded > 1:
    # repetitions exist; what is missing is something to score them against
    st.info(
        f"pass^k needs scored repetitions: the cases have up to {recorded} repetitions, but at "
        f"most {most} of a case's is scored (the rest are {NOT_SCORABLE}: SKIP or AGENT_ERROR, "
        "e.g. an ad-hoc case with no golden call to score against), so there is no k > 1 to "
        "estimate."
    )
elif most <= 1:
    st.info(
        "pass^k needs repetitions: every case of this evaluation was scored at most once, so "
        "there is no k > 1 to estimate. Record each case several times "
        "(`rejudge record --suite NAME --model M --repeat 5`), judge that run, and come back."
    )
elif curve:
    frame = pd.DataFrame(curve)
    # in % like the metrics above it (not fractions)
    frame["pass^k %"] = frame["pass^k"].map(lambda v: None if v is None else 100 * v)
    st.subheader("pass^k curve")
    cols = st.columns(min(len(curve), 8))
    for column, point in zip(cols, curve, strict=False):
        figure(column, f"pass^{point['k']}", pct(point["pass^k"]))
    chart(
        frame,
        "line",
        point=True,
        x=field("k:O", title="k (repetitions that must all pass)"),
        y=field("pass^k %:Q", scale={"domain": [0, 100]}, title="pass^k (%)"),
        tooltip=["k:Q", "pass^k %:Q", "cases:Q"],
    )
    st.dataframe(
        frame[["k", "pass^k %", "cases"]],
        hide_index=True,
        column_config={"pass^k %": st.column_config.NumberColumn(format="%.1f%%")},
    )
else:
    st.caption("No scored repetitions.")

st.subheader("Per case")
only_mixed = st.toggle("Only inconsistent cases", key="pk_mixed")
per_case = data.per_case_passes(url, ev_id, only_mixed)
if per_case:
    frame = pd.DataFrame(per_case)
    frame["pass rate"] = frame.apply(
        lambda r: 100 * r["passed"] / r["scored"] if r["scored"] else None, axis=1
    )
    # an inconsistent case opens a passing and a failing repetition side by side; any other
    # case opens its traces in the trace viewer
    frame["evidence"] = [
        pair_url(ev_id, ev_id, c.case, c.first_pass, c.first_fail)
        if c.first_pass is not None and c.first_fail is not None
        else "trace?" + urlencode({"run": str(ev.run_id), "ev": str(ev_id), "tv_case": c.case})
        for c in per_case
    ]
    clickable_table(
        frame[["case", "scored", "passed", "repetitions", "pass rate", "evidence"]],
        list(frame["evidence"]),
        key="pk_cases",
        column_config={
            "pass rate": st.column_config.ProgressColumn(
                "pass rate", min_value=0, max_value=100, format="%.0f%%"
            ),
            "evidence": st.column_config.LinkColumn(display_text="open"),
        },
    )
    st.caption(f"Showing up to 500 cases, inconsistent ones first ({len(per_case)} shown).")
    # case -> its first passing and first failing repetition, for the cases that have both
    by_case = {
        c.case: (c.first_pass, c.first_fail)
        for c in per_case
        if c.first_pass is not None and c.first_fail is not None
    }
    if by_case:
        left, right = st.columns([3, 1])
        with left:
            chosen = st.selectbox(
                "Open an inconsistent case: a passing and a failing repetition side by side",
                list(by_case),
                key="pk_open",
            )
        if chosen is not None:
            first_pass, first_fail = by_case[chosen]
            with right:
                st.page_link(
                    "views/side_by_side.py",
                    label="Side by side",
                    icon=":material/view_column_2:",
                    query_params=pair_link(ev_id, ev_id, chosen, first_pass, first_fail),
                )

follow_click()
