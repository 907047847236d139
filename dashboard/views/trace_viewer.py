"""Trace viewer: a case's rounds as cards, golden vs actual, the judgment, the raw exchange.

``?run=&trace=&ev=`` in the URL opens one trace under one evaluation, ``?tv_case=`` searches
for a case (the links of the other pages use them).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.cassette import load_exchanges
from rejudge.dashboard.common import (
    context,
    eval_label,
    md_escape,
    num,
    pick_run,
    query_int,
    verdict_shown,
)
from rejudge.dashboard.diffview import diff_tables
from rejudge.dashboard.evidence import (
    render_exchanges,
    render_rounds,
    round_blocks,
    show_text,
    show_value,
)

LISTED = 2000

ctx = context()
url = ctx.db_url

st.title("Trace viewer")
runs = data.runs(url)
if not runs:
    st.info("No runs yet. Record one with `rejudge record`, or try `rejudge demo`.")
    st.stop()

c1, c2, c3 = st.columns([2, 1, 2])
with c1:
    run = pick_run("Run", runs, key="run")
if run is None:
    st.stop()
if "tv_case" not in st.session_state and st.query_params.get("tv_case"):
    st.session_state["tv_case"] = str(st.query_params["tv_case"])  # a link naming a case
with c2:
    case_text = st.text_input("Search cases", key="tv_case", placeholder="case id contains")
search = case_text.strip() or None
total = data.run_trace_count(url, run.id, search)
traces = data.run_traces(url, run.id, search)
if not traces:
    st.info("No trace matches.")
    st.stop()
trace_ids = [t.id for t in traces]
by_id = {t.id: t for t in traces}
labels = {t.id: f"{t.case_key} · r{t.repetition} · {t.status}" for t in traces}
wanted = query_int("trace")
if wanted is not None and wanted not in by_id and search is None and total > len(traces):
    # a linked trace beyond the listed ones: list it too, so the link opens it
    linked = data.trace_detail(url, wanted)
    if linked is not None and linked.run_id == run.id:
        trace_ids.insert(0, wanted)
        labels[wanted] = f"{linked.case_key} · r{linked.repetition} · {linked.status}"
with c3:
    trace_id = st.selectbox(
        "Trace (case · repetition)",
        trace_ids,
        index=trace_ids.index(wanted) if wanted in trace_ids else 0,
        key="tv_trace",
        format_func=lambda i: labels.get(i, f"trace #{i}"),
    )
shown_note = "" if total <= len(traces) else f"; listing the first {len(traces)}: search to narrow"
st.caption(f"{total} trace(s) in this run{' match' if search else ''}{shown_note}.")
if trace_id is None:
    st.stop()
st.query_params["trace"] = str(trace_id)
detail = data.trace_detail(url, int(trace_id))
if detail is None:
    st.error("That trace is gone from the store.")
    st.stop()
body: dict[str, Any] = detail.body or {}
case_body: dict[str, Any] = detail.case_body or {}

evals = [e for e in data.evaluations(url) if e.run_id == run.id]
judgment: dict[str, Any] | None = None
if evals:
    ev_ids = [e.id for e in evals]
    ev_wanted = query_int("ev")
    ev_by_id = {e.id: e for e in evals}
    ev_id = st.selectbox(
        "Judged under",
        ev_ids,
        index=ev_ids.index(ev_wanted) if ev_wanted in ev_ids else len(ev_ids) - 1,
        key="tv_ev",
        format_func=lambda i: eval_label(ev_by_id[i]),
    )
    if ev_id is not None:
        st.query_params["ev"] = str(ev_id)
        judgment = data.judgment_body(url, int(ev_id), int(trace_id))

st.markdown("**Instruction**")
show_text(str(case_body.get("instruction", "")))
timings = body.get("timings") or {}
head = st.columns(5)
head[0].metric("Status", body.get("status", detail.status))
head[1].metric("Rounds", len(body.get("rounds") or []))
head[2].metric("Calls", sum(len(r.get("calls") or []) for r in body.get("rounds") or []))
elapsed = timings.get("elapsed_s") or timings.get("wall_s")
head[3].metric("Time", "—" if elapsed is None else f"{float(elapsed):.2f} s")
if judgment is not None:
    head[4].metric("Verdict", verdict_shown(judgment, case_body))
if body.get("error"):
    err = body["error"]
    st.error(md_escape(f"Trace error ({err.get('kind')}): {err.get('message')}"))

# ---------------------------------------------------------------- round cards
st.subheader("Rounds")
raw_round_times = timings.get("rounds")
round_times = raw_round_times if isinstance(raw_round_times, list) else []


def _round_time(index: int) -> str:
    if index < len(round_times):
        value = round_times[index]
        if isinstance(value, dict):
            value = value.get("elapsed_s", value.get("duration_s"))
        if isinstance(value, int | float):
            return f" · {value:.2f} s"
    return ""


exchanges = load_exchanges(ctx.cassettes_dir, detail.cassette_path, timings)
render_rounds(body, round_time=_round_time, blocks=round_blocks(exchanges))

# ---------------------------------------------------------------- judgment
st.subheader("Judgment")
if judgment is None:
    st.caption("This run has no evaluation yet (`rejudge judge RUN --tier T`).")
else:
    j1, j2, j3 = st.columns(3)
    j1.metric("Verdict", verdict_shown(judgment, case_body))
    j2.metric("Partial score", num(judgment.get("partial_score")))
    j3.metric("Taxonomy", ", ".join(judgment.get("taxonomy") or []) or "—")
    for reason in judgment.get("reasons") or []:
        st.markdown(f"- {md_escape(str(reason))}")
    diff = judgment.get("diff") or []
    st.markdown("**Golden vs actual**, call by call")
    call_rows, argument_rows = diff_tables(diff)
    if call_rows:
        st.dataframe(pd.DataFrame(call_rows), hide_index=True, width="stretch")
        if argument_rows:
            st.markdown("**Argument by argument**")
            st.dataframe(pd.DataFrame(argument_rows), hide_index=True, width="stretch")
    else:
        st.caption("The judgment holds no call-by-call diff.")
    if judgment.get("partial_breakdown"):
        st.caption(
            "Partial score breakdown (diagnostic, never decides the verdict): "
            + ", ".join(f"{k} {v:.2f}" for k, v in judgment["partial_breakdown"].items())
        )

g1, g2 = st.columns(2)
with g1:
    st.markdown("**Golden calls**")
    show_value((case_body.get("golden") or {}).get("calls") or [])
with g2:
    st.markdown("**Actual calls**")
    show_value(
        [
            {"name": c.get("name"), "arguments": c.get("arguments"), "ok": c.get("ok")}
            for r in body.get("rounds") or []
            for c in r.get("calls") or []
        ]
    )

# ---------------------------------------------------------------- raw exchange
st.subheader("Raw HTTP exchanges")
render_exchanges(exchanges)
