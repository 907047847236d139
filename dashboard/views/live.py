"""Live monitor: follows a run while `rejudge record` writes it, refreshing on its own."""

from __future__ import annotations

from datetime import UTC, datetime

import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.common import (
    NO_CALL_BADGE,
    context,
    figure,
    md_escape,
    pick_run,
    store_errors,
    tool_badge,
)
from rejudge.dashboard.evidence import ANSWER_BADGE, REPLY_BADGE
from rejudge.dashboard.sidebyside import pair_link

ctx = context()
url = ctx.db_url
REFRESH_S = 2

st.title("Live monitor")
runs = data.live_runs(url)
if not runs:
    st.info("No runs yet. Start one with `rejudge record --suite NAME --model M`.")
    st.stop()
running = [i for i, r in enumerate(runs) if r.status == "running"]
run = pick_run("Run", runs, key="run", default_index=running[-1] if running else -1)
if run is None:
    st.stop()
run_id = run.id


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _span(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    if seconds < 90:
        return f"{seconds} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


# a finished run does not change: it is drawn once, not redrawn every REFRESH_S seconds
LIVE = run.status == "running"


@st.fragment(run_every=REFRESH_S if LIVE else None)
def monitor() -> None:
    # the fragment reruns on its own, outside the app's error handling: a store that stops or
    # a file that is deleted while the page is open gives one line here too
    gone = data.store_gone(url)
    if gone is not None:
        st.error(md_escape(gone))
        return
    with store_errors(data.store(url)):
        _monitor()


def _monitor() -> None:
    progress = data.run_progress(url, run_id)
    if progress is None:
        st.error("The run is gone from the store.")
        return
    run_now = progress.run
    # a recording of a subset counts the traces of its own cases against its own total
    done = run_now.traces if progress.planned_done is None else progress.planned_done
    expected = max(run_now.expected_traces, 1)
    started = run_now.started_at
    end = run_now.finished_at if run_now.status != "running" else None
    now = datetime.now(UTC)
    elapsed = ((end or now) - started).total_seconds() if started else 0.0
    remaining = max(expected - done, 0)
    if run_now.status != "running":
        eta = "done"
    elif done:
        # a span ("about 30 s"), never a clock-like "12:16" that reads as a time of day
        eta = "about " + _span(elapsed / done * remaining)
    else:
        eta = "—"
    st.progress(min(done / expected, 1.0), text=f"{done} / {expected} traces · {run_now.status}")
    m = st.columns(6)
    figure(m[0], "Traces", f"{done} / {expected}")
    figure(m[1], "Completed", progress.statuses.get("completed", 0))
    figure(m[2], "Agent errors", progress.statuses.get("agent_error", 0))
    # an episode cut at its step budget ended without finishing: counted apart, not hidden
    figure(
        m[3],
        "Step limit",
        progress.statuses.get("step_limit", 0),
        note="traces that hit their round budget before the conversation ended",
    )
    figure(m[4], "Elapsed", _duration(elapsed))
    figure(m[5], "Time left", eta, note="at the pace of the traces recorded so far")
    others = {
        k: v
        for k, v in progress.statuses.items()
        if k not in ("completed", "agent_error", "step_limit") and v
    }
    ended = "".join(f" · {v} {k}" for k, v in sorted(others.items()))
    refresh = (
        f"Refreshes every {REFRESH_S} s (last {now.strftime('%H:%M:%S')} UTC)."
        if run_now.status == "running"
        else f"The run is {run_now.status}: shown once, not refreshed."
    )
    st.caption(
        f"Tool calls: {progress.calls_ok} ok · {progress.calls_failed} failed · "
        f"{progress.calls_unexecuted} not executed{md_escape(ended)}. {refresh}"
    )
    evals = data.live_evaluations(url, run_id)
    if evals:
        last = evals[-1]
        st.markdown(
            f"**Pass counts so far** (evaluation #{last.id}, {last.tier}, "
            f"{last.rule_set}): {last.PASS} PASS · {last.FAIL} FAIL · "
            f"{last.SKIP} SKIP · {last.AGENT_ERROR} AGENT_ERROR"
        )
    if run_now.status == "running":
        pending = data.pending_cases(url, run_id)
        if pending:
            nxt = pending[0]
            st.info(
                f"In progress: **{md_escape(nxt.case)}** r{nxt.done} "
                f"({nxt.done} of {nxt.repetitions} repetitions done)"
            )
    st.subheader("Finished traces (newest first)")
    latest_ev = evals[-1].id if evals else None
    # the newest evaluation of another run on the same suite: each trace opens side by side
    # with that run's trace of the same case (what changed since then)
    earlier = (
        [
            e
            for e in data.evaluations(url)
            if e.suite == run_now.suite and e.run_id != run_id and e.tier == evals[-1].tier
        ]
        if evals
        else []
    )
    versus = earlier[-1].id if earlier else None
    for trace in data.recent_traces(url, run_id):
        last_round = len(trace.rounds) - 1
        rounds = " &nbsp;→&nbsp; ".join(
            " ".join(tool_badge(name, ok) for name, ok in calls)
            if calls
            # a completed trace's closing round without a call is its answer; one a user
            # message follows is a reply to the user; only a round that is neither is flagged
            else (
                ANSWER_BADGE
                if i == last_round and trace.status == "completed"
                else REPLY_BADGE
                if i in trace.answered
                else NO_CALL_BADGE
            )
            for i, calls in enumerate(trace.rounds)
        )
        status = "" if trace.status == "completed" else f" :red-badge[{trace.status}]"
        row, link, pair = st.columns([6, 1, 1])
        row.markdown(f"{md_escape(trace.case_key)} r{trace.repetition}{status} &nbsp; {rounds}")
        params = {"run": str(run_id), "trace": str(trace.id)}
        if latest_ev is not None:
            params["ev"] = str(latest_ev)
        with link:
            st.page_link(
                "views/trace_viewer.py",
                label="evidence",
                icon=":material/manage_search:",
                query_params=params,
            )
        if versus is not None and latest_ev is not None:
            with pair:
                st.page_link(
                    "views/side_by_side.py",
                    label=f"vs #{versus}",
                    icon=":material/view_column_2:",
                    query_params=pair_link(versus, latest_ev, trace.case_key, trace.repetition),
                )


monitor()
