"""Trends: accuracy over the runs' recording time, one line per (model, tier, rule set).

It opens on a readable selection: one tier (the newest evaluation's), the newest rules of that
tier, the newest few runs; everything else is one picker away ("all" in each). A store with
dozens of evaluations would otherwise draw dozens of long legend entries and squeeze the plot.

Drawn as static HTML (the lines as SVG, the histogram as bars, the table as a table) and worked
out in plain Python: a Vega-Lite chart and a data grid make a cold page fetch and boot their
frontend chunks after the script is done, and pandas cost the script a tenth of a second here
for a few dozen rows (bench/README.md, "Compare and Trends cold").
"""

from __future__ import annotations

import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.charts import Bar, bars
from rejudge.dashboard.common import context, figure, filters_widget
from rejudge.dashboard.evidence_html import table_html
from rejudge.dashboard.lines_html import LinePoint, Tick, lines_html
from rejudge.dashboard.trend_rows import Row, by_recording, when

ctx = context()
url = ctx.db_url
ALL = "all"
FEW_RUNS = 6
# points closer together than this in recording time are drawn run by run, not on a clock
# axis (whose ticks would read ":50", seconds of one minute)
CLOCK_SPAN_S = 6 * 3600
CLOCK_TICKS = 6


st.title("Trends")
options = data.filter_options(url)
filters = filters_widget(options, keys=("suite", "model"))
points = data.trend_points(url, filters)
if not points:
    st.info("No evaluations match.")
    st.stop()
runs = {e.id: (e.run_id, e.run) for e in data.evaluations(url)}
rows = [Row(p, *runs.get(p.evaluation, (-1, "?"))) for p in points]
newest = max(rows, key=lambda r: r.point.evaluation)

c1, c2, c3 = st.columns([1, 1, 2])
tiers = sorted({r.point.tier for r in rows})
tier = c1.selectbox("Tier", [ALL, *tiers], index=1 + tiers.index(newest.point.tier), key="tr_tier")
in_tier = rows if tier == ALL else [r for r in rows if r.point.tier == tier]
rule_sets = sorted({r.point.rule_set for r in in_tier})
latest_rules = max(in_tier, key=lambda r: r.point.evaluation).point.rule_set
rules = c2.selectbox(
    "Rule set", [ALL, *rule_sets], index=1 + rule_sets.index(latest_rules), key="tr_rules"
)
chosen = in_tier if rules == ALL else [r for r in in_tier if r.point.rule_set == rules]
by_time: dict[int, Row] = {}  # each run once, in recording order
for row in sorted(chosen, key=by_recording):
    by_time.setdefault(row.run_id, row)
run_labels = {run_id: f"#{run_id} · {r.run}" for run_id, r in by_time.items()}
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
    chosen = [r for r in chosen if r.run_id in picked]
st.caption(
    f"{len(chosen)} of {len(rows)} evaluation(s) shown: pick another tier, rule set or runs "
    "above (empty or 'all' shows every one)."
)

figure(st, "Evaluations", len(chosen))
scored = [r for r in chosen if r.accuracy_pct is not None]
left_out = len(chosen) - len(scored)
if left_out:
    st.caption(f"{left_out} evaluation(s) with nothing scored (no PASS or FAIL) are not plotted.")
recorded = [r.point.recorded_at for r in scored]
clock = [t for t in recorded if t is not None]
span = (max(clock) - min(clock)).total_seconds() if clock and len(clock) == len(recorded) else 0.0


if span >= CLOCK_SPAN_S:
    first, last = min(clock), max(clock)
    step = (last - first) / (CLOCK_TICKS - 1)
    ticks = [
        Tick((first + i * step).timestamp(), (first + i * step).strftime("%Y-%m-%d %H:%M"))
        for i in range(CLOCK_TICKS)
    ]
    plotted = [
        LinePoint(r.line, t.timestamp(), pct, r.tip)
        for r, t in zip(scored, clock, strict=True)
        if (pct := r.accuracy_pct) is not None
    ]
    x_title, slanted = "run recorded at", False
else:
    # recorded within hours of each other: one place per run, in recording order (only the
    # runs that have a point)
    shown = {r.run_id for r in scored}
    places = {run_id: i for i, run_id in enumerate(i for i in by_time if i in shown)}
    ticks = [Tick(place, run_labels[run_id]) for run_id, place in places.items()]
    plotted = [
        LinePoint(r.line, places[r.run_id], pct, r.tip)
        for r in scored
        if (pct := r.accuracy_pct) is not None
    ]
    x_title, slanted = "run (in recording order)", True
st.html(
    lines_html(
        plotted,
        ticks,
        x_title=x_title,
        y_title="accuracy %",
        slanted=slanted,
        legend_title="model · tier · rule set",
    )
)
st.caption("Points sit at the run's recording date; re-judging an old run keeps it there.")
newest_first = sorted(
    chosen,
    key=lambda r: (r.point.recorded_at is not None, r.point.recorded_at, r.point.evaluation),
    reverse=True,
)
# headings unbroken, cells broken between words only (a long run name widens the table, which
# scrolls), not "evaluat|ion"
TABLE_STYLE = (
    "<style>.rj-trends th{white-space:nowrap!important}"
    ".rj-trends td{overflow-wrap:break-word!important}</style>"
)
st.html(
    f'{TABLE_STYLE}<div class="rj-trends" style="max-height:420px;overflow:auto">'
    + table_html(
        [
            {
                "evaluation": r.point.evaluation,
                "recorded": when(r.point.recorded_at),
                "judged": when(r.point.created_at),
                "run": r.run,
                "model": r.point.model,
                "suite": r.point.suite,
                "tier": r.point.tier,
                "rule_set": r.point.rule_set,
                "accuracy %": "—" if r.accuracy_pct is None else f"{r.accuracy_pct:.1f}",
                "scored": r.point.scored,
            }
            for r in newest_first
        ]
    )
    + "</div>"
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
    st.markdown("**Judgments per partial score**")
    bars(
        [
            Bar(label=f"{b.low:.1f}–{b.high:.1f}", series=b.verdict, value=b.n, text=str(b.n))
            for b in sorted(hist, key=lambda b: (b.bucket, b.verdict))
        ]
    )
else:
    st.caption("No partial scores in the selected evaluations.")
