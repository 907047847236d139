"""Trace viewer: a case's rounds as cards, golden vs actual, the judgment, the raw exchange."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.cassette import load_exchanges
from rejudge.dashboard.common import NO_CALL_BADGE, context, eval_label, num, pick_run, tool_badge
from rejudge.dashboard.diffview import diff_tables

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
with c2:
    case_text = st.text_input("Case contains", key="tv_case")
traces = data.run_traces(url, run.id, case_text or None)
if not traces:
    st.info("No trace matches.")
    st.stop()
trace_ids = [t.id for t in traces]
by_id = {t.id: t for t in traces}
raw = st.query_params.get("trace")
wanted = int(raw) if raw is not None and str(raw).isdigit() else None
with c3:
    trace_id = st.selectbox(
        "Trace (case · repetition)",
        trace_ids,
        index=trace_ids.index(wanted) if wanted in trace_ids else 0,
        key="tv_trace",
        format_func=lambda i: f"{by_id[i].case_key} · r{by_id[i].repetition} · {by_id[i].status}",
    )
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
    raw_ev = st.query_params.get("ev")
    ev_wanted = int(raw_ev) if raw_ev is not None and str(raw_ev).isdigit() else None
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

st.markdown(f"**Instruction:** {case_body.get('instruction', '')}")
timings = body.get("timings") or {}
head = st.columns(5)
head[0].metric("Status", body.get("status", detail.status))
head[1].metric("Rounds", len(body.get("rounds") or []))
head[2].metric("Calls", sum(len(r.get("calls") or []) for r in body.get("rounds") or []))
elapsed = timings.get("elapsed_s") or timings.get("wall_s")
head[3].metric("Time", "—" if elapsed is None else f"{float(elapsed):.2f} s")
if judgment is not None:
    head[4].metric("Verdict", judgment.get("verdict", "?"))
if body.get("error"):
    err = body["error"]
    st.error(f"Trace error ({err.get('kind')}): {err.get('message')}")

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


for position, rnd in enumerate(body.get("rounds") or []):
    calls = rnd.get("calls") or []
    with st.container(border=True):
        number = int(rnd.get("index", position)) + 1
        badges = (
            " ".join(
                tool_badge(c.get("name", "?"), c.get("ok"), c.get("parse_error") is not None)
                for c in calls
            )
            if calls
            else NO_CALL_BADGE
        )
        st.markdown(f"**Round {number}**{_round_time(position)} &nbsp; {badges}")
        if rnd.get("text"):
            st.caption(rnd["text"])
        for call in calls:
            with st.expander(f"{call.get('name')} — arguments and result"):
                if call.get("parse_error"):
                    st.error(f"arguments did not parse: {call['parse_error']}")
                    st.code(call.get("arguments_raw") or "", language="json")
                else:
                    st.json(call.get("arguments") or {})
                if call.get("error"):
                    st.warning(call["error"])
                st.json(call.get("result") if call.get("result") is not None else {})

# ---------------------------------------------------------------- judgment
st.subheader("Judgment")
if judgment is None:
    st.caption("This run has no evaluation yet (`rejudge judge RUN --tier T`).")
else:
    j1, j2, j3 = st.columns(3)
    j1.metric("Verdict", judgment.get("verdict", "?"))
    j2.metric("Partial score", num(judgment.get("partial_score")))
    j3.metric("Taxonomy", ", ".join(judgment.get("taxonomy") or []) or "—")
    for reason in judgment.get("reasons") or []:
        st.markdown(f"- {reason}")
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
    st.json((case_body.get("golden") or {}).get("calls") or [])
with g2:
    st.markdown("**Actual calls**")
    st.json(
        [
            {"name": c.get("name"), "arguments": c.get("arguments"), "ok": c.get("ok")}
            for r in body.get("rounds") or []
            for c in r.get("calls") or []
        ]
    )

# ---------------------------------------------------------------- raw exchange
st.subheader("Raw HTTP exchange")
view = load_exchanges(ctx.cassettes_dir, detail.cassette_path)
if view is None:
    st.caption("This trace has no cassette (e.g. an imported result).")
elif view.error:
    st.warning(view.error)
else:
    st.caption(f"{len(view.exchanges)} exchange(s) from `{view.path}`")
    for i, ex in enumerate(view.exchanges, start=1):
        with st.expander(f"#{i} {ex['method']} {ex['uri']} → {ex['status']}"):
            st.markdown("**Request**")
            st.code(ex["request_body"] or "(empty)", language="json")
            st.markdown("**Response**")
            st.code(ex["response_body"] or "(empty)", language="json")
