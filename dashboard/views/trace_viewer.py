"""Trace viewer: a case's rounds as cards, golden vs actual, the judgment, the raw exchange; a
trace's cost beside its tokens when the dashboard has a price table (``--prices``).

``?run=&trace=&ev=`` in the URL opens one trace under one evaluation, ``?tv_case=`` searches
for a case (the links of the other pages use them).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.common import (
    context,
    eval_label,
    figure,
    judge_headline,
    md_escape,
    num,
    pick_run,
    query_int,
    verdict_shown,
)
from rejudge.dashboard.costs import no_prices_note, prices, tokens_metric, trace_cost_shown
from rejudge.dashboard.diffview import diff_tables
from rejudge.dashboard.evidence import (
    render_exchanges,
    render_rounds,
    round_blocks,
    show_table,
    show_text,
    show_value,
)
from rejudge.dashboard.links import ROW_CLICK, clicked_row
from rejudge.dashboard.timeline_html import timeline_html
from rejudge.dashboard.verdict_html import verdict_head, verdict_head_html
from rejudge.judge.tiers import MODEL_GRADED
from rejudge.store import JudgmentBody, TraceRowSummary

from rejudge.errors import RejudgeError
from rejudge.services import load_exchanges, trace_cost, trace_timeline

LISTED = 2000

ctx = context()
url = ctx.db_url

st.title("Trace viewer")
price_table = prices(ctx)
runs = data.runs(url)
if not runs:
    st.info("No runs yet. Record one with `rejudge record`, or try `rejudge demo`.")
    st.stop()

c1, c2 = st.columns([2, 3])
with c1:
    run = pick_run("Run", runs, key="run")
if run is None:
    st.stop()
evals = [e for e in data.evaluations(url) if e.run_id == run.id]
ev_by_id = {e.id: e for e in evals}
ev_id: int | None = None
with c2:
    if evals:
        ev_ids = [e.id for e in evals]
        ev_wanted = query_int("ev")
        ev_id = st.selectbox(
            "Judged under",
            ev_ids,
            index=ev_ids.index(ev_wanted) if ev_wanted in ev_ids else len(ev_ids) - 1,
            key="tv_ev",
            format_func=lambda i: eval_label(ev_by_id[i]),
        )
        if ev_id is not None:
            st.query_params["ev"] = str(ev_id)
    else:
        st.caption("This run has no evaluation yet (`rejudge judge RUN --tier T`).")

# ---------------------------------------------------------------- filters
if "tv_case" not in st.session_state and st.query_params.get("tv_case"):
    st.session_state["tv_case"] = str(st.query_params["tv_case"])  # a link naming a case
f1, f2, f3, f4 = st.columns([2, 2, 2, 3])
verdicts = f1.multiselect(
    "Verdict", ["PASS", "FAIL", "SKIP", "AGENT_ERROR"], key="tv_verdict", placeholder="all"
)
codes = sorted(data.taxonomy_counts(url, ev_id)) if ev_id is not None else []
causes = f2.multiselect("Cause", codes, key="tv_cause", placeholder="all")
tools = data.run_tools(url, run.id)
tool = f3.selectbox("Tool called", ["", *tools], key="tv_tool", format_func=lambda t: t or "any")
case_text = f4.text_input("Search", key="tv_case", placeholder="case id, or any text in the trace")
search = case_text.strip() or None
filtering = bool(verdicts or causes or tool or search)
total = data.run_trace_count(url, run.id)
traces = data.trace_rows(url, run.id, ev_id, tuple(verdicts), tuple(causes), tool or None, search)
if not traces:
    st.info("No trace matches.")
    st.stop()
by_id = {t.id: t for t in traces}
trace_ids = [t.id for t in traces]


def _label(t: TraceRowSummary) -> str:
    verdict = f" · {t.verdict}" if t.verdict else ""
    return f"{t.case_key} · r{t.repetition} · {t.status}{verdict}"


labels = {t.id: _label(t) for t in traces}
wanted = query_int("trace")
rep_wanted = query_int("rep")
if wanted is None and search and rep_wanted is not None:
    # a link naming a case and a repetition (the Report page's): open exactly that trace
    wanted = next(
        (t.id for t in traces if t.case_key == search and t.repetition == rep_wanted), None
    )
if wanted is not None and wanted not in by_id and not filtering and total > len(traces):
    # a linked trace beyond the listed ones: list it too, so the link opens it
    linked = data.trace_detail(url, wanted)
    if linked is not None and linked.run_id == run.id:
        trace_ids.insert(0, wanted)
        labels[wanted] = f"{linked.case_key} · r{linked.repetition} · {linked.status}"
pending = st.session_state.pop("tv_trace_next", None)
if pending in trace_ids:  # a row clicked in the list, or Previous / Next
    st.session_state["tv_trace"] = pending
elif st.session_state.get("tv_trace") not in trace_ids:
    st.session_state["tv_trace"] = wanted if wanted in trace_ids else trace_ids[0]


def _step(offset: int) -> None:
    current = st.session_state.get("tv_trace")
    position = trace_ids.index(current) if current in trace_ids else 0
    st.session_state["tv_trace_next"] = trace_ids[(position + offset) % len(trace_ids)]


n1, n2, n3 = st.columns([1, 8, 1])
with n1:
    st.button("Previous", on_click=_step, args=(-1,), key="tv_prev", width="stretch")
with n2:
    trace_id = st.selectbox(
        "Trace (case · repetition)",
        trace_ids,
        key="tv_trace",
        format_func=lambda i: labels.get(i, f"trace #{i}"),
        label_visibility="collapsed",
    )
with n3:
    st.button("Next", on_click=_step, args=(1,), key="tv_next", width="stretch")
if trace_id is None:
    st.stop()
st.query_params["trace"] = str(trace_id)
detail = data.trace_detail(url, int(trace_id))
if detail is None:
    st.error("That trace is gone from the store.")
    st.stop()
body: dict[str, Any] = detail.body or {}
case_body: dict[str, Any] = detail.case_body or {}
judgment: JudgmentBody | None = None
ev_tier = ""
if ev_id is not None:
    judgment = data.judgment_body(url, int(ev_id), int(trace_id))
    ev_tier = ev_by_id[int(ev_id)].tier

# ---------------------------------------------------------------- the answer first
# why the case got its verdict sits at the top; the evidence is folded below it
if judgment is None:
    st.caption("No judgment of this trace under the chosen evaluation.")
else:
    st.html(
        verdict_head_html(
            verdict_head(judgment, verdict_shown=verdict_shown(judgment, case_body), tier=ev_tier),
            title=f"{detail.case_key} · r{detail.repetition} · {ev_tier}",
        )
    )
    if ev_tier == MODEL_GRADED and ev_id is not None:
        # a model judge's verdict and causes come with how far the judge can be trusted
        calibration = data.judge_calibration(url, int(ev_id))
        judge_headline(st, calibration.headline, calibration.warning is not None)
timings = body.get("timings") or {}
exchanges = load_exchanges(ctx.cassettes_dir, detail.cassette_path, timings)
if exchanges is not None and exchanges.error:
    # the rest of the trace comes from the store and still renders
    st.warning(md_escape(f"Evidence missing: {exchanges.error}"))
usage = body.get("usage") or {}
head = st.columns(5)
figure(head[0], "Status", body.get("status", detail.status))
figure(head[1], "Rounds", len(body.get("rounds") or []))
figure(head[2], "Calls", sum(len(r.get("calls") or []) for r in body.get("rounds") or []))
elapsed = timings.get("elapsed_s") or timings.get("wall_s")
# latency always: when the trace recorded no time, its cassette's exchanges did
latencies = [
    e.latency_ms for e in (exchanges.exchanges if exchanges else []) if e.latency_ms is not None
]
if elapsed is not None:
    figure(head[3], "Time", f"{float(elapsed):.2f} s")
elif latencies:
    figure(
        head[3],
        "Time",
        f"{sum(latencies) / 1000:.2f} s",
        note=f"the model's latency over {len(latencies)} recorded exchange(s)",
    )
else:
    figure(head[3], "Time", "—", note="neither the trace nor a cassette recorded a time")
tokens_in = usage.get("input_tokens")
tokens_out = usage.get("output_tokens")
cost = (
    None
    if price_table is None
    else trace_cost(
        price_table,
        run.model,
        tokens_in if isinstance(tokens_in, int) else None,
        tokens_out if isinstance(tokens_out, int) else None,
    )
)
tokens_shown, tokens_help = tokens_metric(usage, cost)
figure(head[4], "Tokens in / out", tokens_shown, note=tokens_help)
if price_table is None:
    no_prices_note(head[4])
if body.get("error"):
    err = body["error"]
    st.error(md_escape(f"Trace error ({err.get('kind')}): {err.get('message')}"))
listed = len(traces)
if filtering:
    note = f"{listed} trace(s) in this run match" + ("" if listed < LISTED else " (the first)")
else:
    note = f"{total} trace(s) in this run" + (
        "" if total <= listed else f"; listing the first {listed}: filter to narrow"
    )
st.caption(note + ". Previous / Next step through them; a row of the list opens its trace.")


def _pick_row() -> None:
    row = clicked_row(st.session_state["tv_list"]["selection"])
    if row is not None and row < len(traces):
        st.session_state["tv_trace_next"] = traces[row].id


# drawn only while open (a rerun opens it): a closed list is one label, not a data grid the
# browser loads and mounts before the page is readable; a filter opens it
listing = st.expander(f"List ({listed})", expanded=filtering, key="tv_list_open", on_change="rerun")
if filtering or listing.open:
    listing.dataframe(
        pd.DataFrame(
            [
                {
                    "case": t.case_key,
                    "rep": t.repetition,
                    "status": t.status,
                    "verdict": t.verdict or "—",
                    "causes": ", ".join(t.taxonomy),
                    "tools": ", ".join(t.tools),
                    "rounds": t.round_count,
                    "tokens in": t.input_tokens,
                    "tokens out": t.output_tokens,
                    "time (s)": t.elapsed_s,
                    **(
                        {}
                        if price_table is None
                        else {
                            "cost": trace_cost_shown(
                                trace_cost(price_table, run.model, t.input_tokens, t.output_tokens)
                            )
                        }
                    ),
                }
                for t in traces
            ]
        ),
        key="tv_list",
        on_select=_pick_row,
        selection_mode=ROW_CLICK,
        hide_index=True,
        width="stretch",
        column_config={"time (s)": st.column_config.NumberColumn(format="%.2f")},
    )
with st.expander("Instruction", expanded=False):
    show_text(str(case_body.get("instruction", "")))


def _judgment_in_full(judgment: JudgmentBody) -> None:
    j1, j2, j3 = st.columns(3)
    figure(j1, "Verdict", verdict_shown(judgment, case_body))
    figure(j2, "Partial score", num(judgment.get("partial_score")))
    figure(j3, "Taxonomy", ", ".join(judgment.get("taxonomy") or []) or "—")
    reasons = judgment.get("reasons") or []
    if reasons:  # one list, not an element per reason
        st.markdown("\n".join(f"- {md_escape(str(r))}" for r in reasons))
    diff = judgment.get("diff") or []
    st.markdown("**Golden vs actual**, call by call")
    call_rows, argument_rows = diff_tables(diff)
    if call_rows:
        show_table(call_rows)
        if argument_rows:
            st.markdown("**Argument by argument**")
            show_table(argument_rows)
    else:
        st.caption("The judgment holds no call-by-call diff.")
    if judgment.get("partial_breakdown"):
        st.caption(
            "Partial score breakdown (diagnostic, never decides the verdict): "
            + ", ".join(f"{k} {v:.2f}" for k, v in judgment["partial_breakdown"].items())
        )


# ---------------------------------------------------------------- judgment
# the judgment in full and the calls side by side, folded: the head above answers first
with st.expander("Judgment in full: every reason, golden vs actual call by call"):
    if judgment is None:
        st.caption("No judgment of this trace under the chosen evaluation.")
    else:
        _judgment_in_full(judgment)
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

# ---------------------------------------------------------------- timeline
# the trace in order with each step's latency and tokens and each call's diff against golden
# (the same renderer as `rejudge report --html`); drawn only while open, like the list
timeline = st.expander(
    "Timeline: step by step, with latency, tokens and the argument diff against golden",
    key="tv_timeline_open",
    on_change="rerun",
)
if timeline.open:
    try:
        shown = trace_timeline(body, case_body, detail.cassette_path, ctx.cassettes_dir, judgment)
    except (RejudgeError, ValueError) as exc:  # a body this rejudge does not read as a trace
        timeline.caption(md_escape(f"No timeline: {exc}"))
    else:
        timeline.html(timeline_html(shown))

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


render_rounds(body, round_time=_round_time, blocks=round_blocks(exchanges))

# ---------------------------------------------------------------- raw exchange
st.subheader("Raw HTTP exchanges")
render_exchanges(exchanges)
