"""Report: one evaluation as ``rejudge report EVAL`` prints it (summary, top failures, worst
tools, anomalies, every case), the run's cost when the dashboard has a price table
(``rejudge dashboard --prices``), with filters over the cases and downloads of what is shown.

``?ev=<evaluation>`` opens one directly (Overview's table links here). Each case opens its trace
in the trace viewer. The CSV and JSONL downloads hold exactly the rows the filters leave.
"""

from __future__ import annotations

import json
from functools import partial
from urllib.parse import urlencode

import pandas as pd
import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.common import (
    context,
    figure,
    judge_headline,
    num,
    pct,
    url_multiselect,
    verdict_caption,
)
from rejudge.dashboard.costs import no_prices_note, prices, run_cost_caption
from rejudge.dashboard.evidence import show_table, show_value
from rejudge.dashboard.exports import export_csv
from rejudge.dashboard.links import clickable_table, follow_click
from rejudge.dashboard.opening import evaluations_or_stop, pick_newest
from rejudge.dashboard.report_view import LISTED, shown_rows
from rejudge.judge.tiers import MODEL_GRADED
from rejudge.store import EvaluationSummary

from rejudge.model import ReportRow
from rejudge.services import evaluation_reasons

ctx = context()
url = ctx.db_url


def _shown(ev: EvaluationSummary, filters: tuple[list[str], list[str], str]) -> list[ReportRow]:
    # every row the filters leave, from the whole report (read only when a download asks)
    return shown_rows(data.evaluation_report(url, ev.id).cases, *filters)


def _csv(ev: EvaluationSummary, filters: tuple[list[str], list[str], str]) -> str:
    return export_csv(ev, _shown(ev, filters), evaluation_reasons(data.store(url), ev.id))


def _jsonl(ev: EvaluationSummary, filters: tuple[list[str], list[str], str]) -> str:
    return "".join(json.dumps(c.to_json(), ensure_ascii=False) + "\n" for c in _shown(ev, filters))


st.title("Report")
ev = pick_newest(evaluations_or_stop(url))
# the summary, the filters' choices and the listed rows, never the report's every row: at
# 50,000 rows reading the whole report back was most of the page's time (dashboard/report_view)
options = data.report_options(url, ev.id)
summary = options.summary
counts = summary.verdict_counts

m = st.columns(5)
figure(m[0], "Accuracy", pct(summary.accuracy))
figure(m[1], "Scored", summary.scored_count)
figure(m[2], "PASS / FAIL", f"{counts.PASS} / {counts.FAIL}")
figure(m[3], "SKIP / AGENT_ERROR", f"{counts.SKIP} / {counts.AGENT_ERROR}")
figure(m[4], "Average partial", num(summary.average_partial_score))
st.caption(verdict_caption(ev))
calibration = data.judge_calibration(url, ev.id) if ev.tier == MODEL_GRADED else None
if calibration is not None:  # a model judge's verdicts come with how far to trust them
    judge_headline(st, calibration.headline, calibration.warning is not None)
st.subheader("Cases")
verdicts, codes = options.verdicts, options.codes
f1, f2, f3 = st.columns([2, 2, 3])
with f1:  # kept in the URL: a filtered report is a link
    picked_verdicts = url_multiselect("Verdict", verdicts, key="rp_verdict", param="verdict")
with f2:
    picked_codes = url_multiselect("Cause", codes, key="rp_cause", param="cause")
text = f3.text_input("Case contains", key="rp_text").strip()
filters = (list(picked_verdicts), list(picked_codes), text)
rows = data.report_rows(url, ev.id, tuple(picked_verdicts), tuple(picked_codes), text)
listed = rows.listed
st.caption(
    f"{rows.matching} of {options.cases} case(s) match"
    + (
        f"; the grid lists the first {LISTED:,} (filter to narrow; the downloads hold all "
        f"{rows.matching:,})."
        if rows.matching > LISTED
        else "."
    )
)
if rows.matching:
    frame = pd.DataFrame(
        [
            {
                "case": c.case,
                "rep": c.repetition,
                "verdict": c.verdict,
                "causes": ", ".join(c.taxonomy),
                "partial": c.partial_score,
                "trace": "trace?"
                + urlencode(
                    {
                        "run": str(ev.run_id),
                        "ev": str(ev.id),
                        "tv_case": c.case,
                        "rep": str(c.repetition),
                    }
                ),
            }
            for c in listed
        ]
    )
    d1, d2, _ = st.columns([1, 1, 4])
    d1.download_button(
        "Download CSV",
        # built when clicked (on Streamlit's download thread): the judge's reasons are read
        # from every judgment body, work a page that only shows the table need not do
        partial(_csv, ev, filters),
        file_name=f"evaluation-{ev.id}-cases.csv",
        mime="text/csv",
        key="rp_csv",
    )
    d2.download_button(
        "Download JSONL",
        partial(_jsonl, ev, filters),  # built when clicked, as the CSV is
        file_name=f"evaluation-{ev.id}-cases.jsonl",
        mime="application/x-ndjson",
        key="rp_jsonl",
    )
    clickable_table(
        frame,
        list(frame["trace"]),
        key="rp_cases",
        column_config={
            "partial": st.column_config.NumberColumn(format="%.2f"),
            "trace": st.column_config.LinkColumn(display_text="open"),
        },
    )

if calibration is not None and calibration.against:
    show_table(
        [
            {
                "against": a.name,
                "unit": a.unit,
                "both scored": a.items,
                "PASS·1 / PASS·0 / FAIL·1 / FAIL·0": (
                    f"{a.table.pass_1} / {a.table.pass_0} / {a.table.fail_1} / {a.table.fail_0}"
                ),
                "agreement": pct(a.table.agreement),
                "kappa": num(a.kappa),
                "stricter": a.stricter or "neither",
                "judge unscored": a.judge_unscored,
            }
            for a in calibration.against
        ]
    )
usage = data.run_usage(url, ev.run_id)
price_table = prices(ctx)
if usage.traces:
    st.caption(
        f"Tokens over the run's {usage.traces} trace(s): {usage.input_tokens:,} in · "
        f"{usage.output_tokens:,} out ({usage.with_usage} trace(s) record usage); wall time "
        + (f"{usage.elapsed_s:.1f} s" if usage.elapsed_s is not None else "not recorded")
        + "."
    )
    if price_table is None:
        no_prices_note()
    elif ctx.prices_file is not None:
        st.caption(run_cost_caption(data.run_cost(url, ev.run_id, str(ctx.prices_file))))

left, right = st.columns(2)
with left:
    st.markdown("**Top failures** (primary cause)")
    top = summary.top_failures
    if top:  # small read-only tables: static HTML, not data grids the browser mounts
        show_table([{"code": t.code, "FAILs": t.count, "share": pct(t.share)} for t in top])
    else:
        st.caption("No FAIL names a cause.")
with right:
    st.markdown("**Worst tools**")
    worst = summary.worst_tools
    if worst:
        show_table([w.to_json() for w in worst])
    else:
        st.caption("No tool is implicated in a FAIL.")
anomalies = summary.anomalies
if anomalies:
    with st.expander(f"Anomalies ({len(anomalies)})"):
        show_table(
            [{"case": a.case, "rep": a.repetition, "flags": ", ".join(a.flags)} for a in anomalies]
        )

# drawn while open: a whole report's JSON is long, and a closed expander would still carry it
as_json = st.expander(
    "As JSON (what `rejudge report EVAL --json` prints)", key="rp_json_open", on_change="rerun"
)
if as_json.open:
    with as_json:
        show_value(data.evaluation_report(url, ev.id).to_json())

follow_click()
