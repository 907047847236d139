"""Overview: runs, evaluations and baselines, filtered by suite, model, tier and rule set."""

from __future__ import annotations

import pandas as pd
import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.common import (
    context,
    delta_shown,
    figure,
    filters_widget,
    judge_headline,
    pct,
)
from rejudge.dashboard.links import clickable_table, follow_click
from rejudge.judge.tiers import MODEL_GRADED
from rejudge.store import EvaluationSummary

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
figure(c1, "Runs", len(runs))
figure(c2, "Evaluations", len(evaluations))
figure(c3, "Judgments", sum(e.judgments for e in evaluations))
figure(c4, "Baselines", len(baselines))

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
        figure(
            k1,
            f"Latest: #{latest.id} · {latest.run} · {latest.tier} · {latest.rule_set}",
            pct(latest.accuracy),
            delta=delta_shown(delta),
        )
        k1.caption(
            f"{latest.PASS} PASS · {latest.FAIL} FAIL · {latest.SKIP} SKIP · "
            f"{latest.AGENT_ERROR} AGENT_ERROR"
        )
        if latest.tier == MODEL_GRADED:  # a model judge's accuracy says how far to trust it
            calibration = data.judge_calibration(url, latest.id)
            judge_headline(k1, calibration.headline, calibration.warning is not None)
        if base is None or baseline is None:  # (base is None whenever baseline is)
            figure(k2, "Baseline", "—")
            k2.caption(
                "No baseline on this suite and tier (`rejudge baseline lock EVAL --name NAME`)."
            )
        else:
            figure(k2, f"Baseline {baseline.name}: #{base.id} · {base.run}", pct(base.accuracy))
            with k3:
                st.page_link(
                    "views/compare.py",
                    label="Compare",
                    icon=":material/compare_arrows:",
                    query_params={"a": str(base.id), "b": str(latest.id)},
                )


def _previous(ev: EvaluationSummary) -> str | None:
    """Compare's address for ``ev`` against the evaluation before it on the same run and tier
    (a rule change), else on the same suite and tier (a model or prompt change)."""
    older = [e for e in all_evaluations if e.id < ev.id and e.tier == ev.tier]
    same_run = [e for e in older if e.run_id == ev.run_id]
    same_suite = [e for e in older if e.suite == ev.suite]
    candidates = same_run or same_suite
    return f"compare?a={candidates[-1].id}&b={ev.id}" if candidates else None


all_evaluations = data.evaluations(url)

st.subheader("Runs")
st.caption("Click a row to open the run's traces; an evaluation's row opens its report.")
if runs:
    frame = pd.DataFrame(runs)
    frame["traces link"] = [f"trace?run={r.id}" for r in runs]
    # how the traces ended, as the store holds them: "200 (completed 195, step_limit 5)"
    statuses = data.trace_statuses(url)
    frame["trace statuses"] = [statuses[r.id].describe() if r.id in statuses else "0" for r in runs]
    clickable_table(
        frame[
            [
                "id",
                "run",
                "model",
                "provider",
                "suite",
                "harness_mode",
                "repetitions",
                "traces",
                "trace statuses",
                "expected_traces",
                "status",
                "started_at",
                "finished_at",
                "traces link",
            ]
        ],
        [str(u) for u in frame["traces link"]],
        key="ov_runs",
        column_config={"traces link": st.column_config.LinkColumn("open", display_text="traces")},
    )
else:
    st.info("No runs match. Record one with `rejudge record`, or try `rejudge demo`.")

st.subheader("Evaluations")
if evaluations:
    frame = pd.DataFrame(evaluations)
    # text, so an evaluation with nothing scored reads "—", never "None"
    frame["accuracy"] = frame["accuracy"].map(pct)
    frame["report"] = [f"report?ev={e.id}" for e in evaluations]
    frame["compare"] = [_previous(e) for e in evaluations]
    # a model judge's row says how far its verdicts can be trusted (a weak judge, in words)
    frame["judge"] = [
        data.judge_calibration(url, e.id).headline if e.tier == MODEL_GRADED else ""
        for e in evaluations
    ]
    clickable_table(
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
                "judge",
                "status",
                "created_at",
                "report",
                "compare",
            ]
        ],
        list(frame["report"]),
        key="ov_evals",
        column_config={
            "avg_partial": st.column_config.NumberColumn("avg partial", format="%.3f"),
            "report": st.column_config.LinkColumn("report", display_text="open"),
            "compare": st.column_config.LinkColumn(
                "vs previous",
                display_text="compare",
                help="against the previous evaluation "
                "of the same run and tier (or, failing that, of the same suite and tier)",
            ),
        },
    )
    st.caption(
        "Accuracy = PASS / (PASS + FAIL). SKIP and AGENT_ERROR are shown, never in the denominator."
    )
else:
    st.info("No evaluations match. Judge a run with `rejudge judge RUN --tier T`.")

st.subheader("Baselines")
if baselines:
    frame = pd.DataFrame(baselines)
    frame["report"] = [f"report?ev={b.evaluation_id}" for b in baselines]
    clickable_table(
        frame,
        list(frame["report"]),
        key="ov_baselines",
        column_config={"report": st.column_config.LinkColumn("report", display_text="open")},
    )
else:
    st.caption("No baselines locked yet (`rejudge baseline lock EVAL --name NAME`).")

follow_click()
