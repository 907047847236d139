"""Overview: runs, evaluations and baselines, filtered by suite, model, tier and rule set."""

from __future__ import annotations

import pandas as pd
import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.common import context, delta_shown, filters_widget, md_escape, pct

ctx = context()
url = ctx.db_url

st.title("Overview")
options = data.filter_options(url)
filters = filters_widget(options, keys=("suite", "model", "tier", "rule_set"))

# newest first: what a user opens the overview for is the latest run and evaluation
runs = sorted(
    data.runs(url, {k: v for k, v in filters.items() if k in ("suite", "model")}),
    key=lambda r: r.id,
    reverse=True,
)
evaluations = sorted(data.evaluations(url, filters), key=lambda e: e.id, reverse=True)
baselines = sorted(data.baselines(url), key=lambda b: b.id, reverse=True)

c1, c2, c3, c4 = st.columns(4)
c1.metric("Runs", len(runs))
c2.metric("Evaluations", len(evaluations))
c3.metric("Judgments", sum(e.judgments for e in evaluations))
c4.metric("Baselines", len(baselines))

if evaluations:
    latest = evaluations[0]
    by_id = data.evaluations_by_id(url, tuple(b.evaluation_id for b in baselines))
    # the newest baseline locked on the same suite and tier (what the latest is held against)
    baseline = next(
        (
            b
            for b in baselines
            if b.evaluation_id in by_id
            and by_id[b.evaluation_id].suite == latest.suite
            and by_id[b.evaluation_id].tier == latest.tier
            and b.evaluation_id != latest.id
        ),
        None,
    )
    with st.container(border=True):
        k1, k2, k3 = st.columns([2, 2, 1])
        base = by_id[baseline.evaluation_id] if baseline is not None else None
        delta = (
            None
            if base is None or base.accuracy is None or latest.accuracy is None
            else latest.accuracy - base.accuracy
        )
        k1.metric(
            md_escape(f"Latest: #{latest.id} · {latest.run} · {latest.tier} · {latest.rule_set}"),
            pct(latest.accuracy),
            delta=delta_shown(delta),
        )
        k1.caption(
            f"{latest.PASS} PASS · {latest.FAIL} FAIL · {latest.SKIP} SKIP · "
            f"{latest.AGENT_ERROR} AGENT_ERROR"
        )
        if base is None:
            k2.metric("Baseline", "—")
            k2.caption(
                "No baseline on this suite and tier (`rejudge baseline lock EVAL --name NAME`)."
            )
        else:
            k2.metric(
                md_escape(f"Baseline {baseline.name}: #{base.id} · {base.run}"), pct(base.accuracy)
            )
            with k3:
                st.page_link(
                    "views/compare.py",
                    label="Compare",
                    icon=":material/compare_arrows:",
                    query_params={"a": str(base.id), "b": str(latest.id)},
                )

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
    # text, so an evaluation with nothing scored reads "—", never "None"
    frame["accuracy"] = frame["accuracy"].map(pct)
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
