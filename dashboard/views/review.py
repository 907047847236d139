"""Review: label each FAIL (and anomaly-flagged judgments, and a sample of PASSes) as confirmed,
judge wrong, golden wrong or unclear. One click (or key 1-4) per label, a note, progress through
the queue, and the calibration figures of the evaluation.

The page parses its widgets and calls one service per action (:mod:`rejudge.services._review_page`:
open the evaluation, show an item's labels, label it). The evaluation's rows are kept per
evaluation and the queue per review stamp (``dashboard.data.review_state``), so Next is a cache
hit and a label rebuilds the queue from rows already in memory; a label shows at once.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.common import context, figure, md_escape, num, pct, pick_evaluation
from rejudge.dashboard.diffview import diff_tables
from rejudge.dashboard.evidence import render_rounds, show_table, show_text, show_value
from rejudge.dashboard.opening import evaluations_or_stop
from rejudge.dashboard.paging import around
from rejudge.judge import QueueItem

from rejudge.errors import RejudgeError
from rejudge.services import judgment_labels, label_judgment, review_stamp

LABELS = (
    ("confirmed", "Confirmed", "1", ":material/check_circle:"),
    ("judge_wrong", "Judge wrong", "2", ":material/gavel:"),
    ("golden_wrong", "Golden wrong", "3", ":material/edit_note:"),
    ("unclear", "Unclear", "4", ":material/help:"),
)

ctx = context()
url = ctx.db_url
st.title("Review")
st.caption(
    "Every FAIL, every anomaly-flagged judgment and a seeded sample of PASSes (false passes hide "
    "there). Keys: 1 confirmed · 2 judge wrong · 3 golden wrong · 4 unclear · N next · P previous."
)

evaluations = evaluations_or_stop(url)
c1, c2, c3, c4 = st.columns([3, 2, 1, 1])
with c1:
    ev_row = pick_evaluation(
        "Evaluation", evaluations, key="ev", default_index=len(evaluations) - 1
    )
if ev_row is None:
    st.stop()
ev_id = ev_row.id
if "rv_reviewer" not in st.session_state:
    # remembered in the address, so a reload or a bookmark keeps the reviewer's name
    st.session_state["rv_reviewer"] = str(st.query_params.get("reviewer") or "")
with c2:
    reviewer = st.text_input("Reviewer", key="rv_reviewer", placeholder="your name").strip()
if reviewer:
    st.query_params["reviewer"] = reviewer
elif "reviewer" in st.query_params:
    del st.query_params["reviewer"]
with c3:
    sample = int(st.number_input("PASS sample", 0, 10_000, 10, key="rv_sample"))
with c4:
    seed = int(st.number_input("Seed", 0, 2**31 - 1, 0, key="rv_seed"))

store = data.store(url)
# the queue and figures, kept between clicks under the evaluation's review stamp: a label (or a
# resolution) changes the stamp, so the next rerun rebuilds them; Next and Previous do not
state = data.review_state(url, ev_id, sample, seed, ev_row.judgments, review_stamp(store, ev_id))
queue, figures = state.queue, state.figures

done = state.reviewed
st.progress(done / len(queue) if queue else 1.0, text=f"{done} of {len(queue)} reviewed")
m = st.columns(6)
# every rate with the counts it is a rate of: "100% (12 of 12)", never a bare "100%"
counts, fails = figures.figures, figures.figures.fails
figure(m[0], "Reviewed", f"{counts.reviewed} of {counts.judgments}")
figure(m[1], "FAIL coverage", f"{pct(fails.coverage)} ({fails.reviewed} of {fails.total})")
figure(
    m[2],
    "Misjudgment rate",
    f"{pct(counts.misjudgment_rate)} ({counts.misjudged} of {counts.reviewed})",
)
figure(m[3], "Golden errors", str(counts.golden_errors))
figure(m[4], "Unclear", str(counts.unclear))
figure(m[5], "Kappa", num(counts.agreement.kappa))
if figures.ready_to_lock:
    st.success(
        "Fully reviewed: `rejudge baseline lock EVAL --name N --require-review` will lock it."
    )
else:
    st.caption(f"{figures.gaps} review gap(s) before a `--require-review` lock.")

if figures.flagged:
    with st.expander(
        f"Flagged by reviewers: {len(figures.flagged)} "
        f"({sum(1 for f in figures.flagged if not f.resolved)} open)"
    ):
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "case": f.case,
                        "rep": f.repetition,
                        "label": f.label,
                        "reviewer": f.reviewer,
                        "suite": f.suite,
                        "note": f.note or "",
                        "status": f.resolution if f.resolved else "open",
                    }
                    for f in figures.flagged
                ]
            ),
            hide_index=True,
            width="stretch",
        )

if not queue:
    st.info("Nothing to review: no FAIL, no anomaly, and no PASS sample asked for.")
    st.stop()

only_open = st.toggle("Unreviewed only", value=False, key="rv_open")
shown = [item for item in queue if not (only_open and item.reviewed)]
if not shown:
    st.success("Every item in the queue is reviewed.")
    st.stop()
ids = [item.judgment_id for item in shown]
by_id = {item.judgment_id: item for item in shown}
pending = st.session_state.pop("rv_item_next", None)
if pending in ids:  # set by a label click: move on before the picker is drawn
    st.session_state["rv_item"] = pending
if st.session_state.get("rv_item") not in ids:
    first_open = next((i for i in ids if not by_id[i].reviewed), ids[0])
    st.session_state["rv_item"] = first_open


def _step(offset: int) -> None:
    current = st.session_state.get("rv_item")
    position = ids.index(current) if current in ids else 0
    st.session_state["rv_item"] = ids[(position + offset) % len(ids)]


def _why(item: QueueItem) -> list[str]:
    # "FAIL" as the reason a FAIL is queued says nothing the verdict does not
    return [r for r in item.reasons if r != item.verdict]


def _label(item_id: int) -> str:
    item = by_id[item_id]
    mark = "✓" if item.reviewed else "·"
    why = "; ".join(_why(item))
    return f"{mark} {item.case} · r{item.repetition} · {item.verdict}" + (
        f" · {why}" if why else ""
    )


n1, n2, n3 = st.columns([1, 6, 1])
with n1:
    st.button("Previous", on_click=_step, args=(-1,), shortcut="P", key="rv_prev")
with n2:
    # a window of the queue around the current item, not all of it (dashboard/paging.py)
    listed = around(ids, st.session_state["rv_item"])
    item_id = st.selectbox(
        "Item", listed, key="rv_item", format_func=_label, label_visibility="collapsed"
    )
    if len(listed) < len(ids):
        st.caption(
            f"Item {ids.index(int(item_id)) + 1:,} of {len(ids):,}; the list shows the "
            f"{len(listed)} around it, Previous and Next go through all."
        )
with n3:
    st.button("Next", on_click=_step, args=(1,), shortcut="N", key="rv_next")
item = by_id[int(item_id)]

# ---------------------------------------------------------------- labels
note = st.text_area("Note", key=f"rv_note_{item_id}", placeholder="why (optional)", height=68)
buttons = st.columns(len(LABELS))
for column, (label, title, key, icon) in zip(buttons, LABELS, strict=True):
    with column:
        # the shortcut shows on the button itself: no "(1)" in the title as well
        clicked = st.button(title, key=f"rv_{label}", icon=icon, shortcut=key, width="stretch")
    if clicked:
        gone = data.store_gone(url)
        if not reviewer:
            st.warning("Enter your name as reviewer first.")
        elif gone is not None:
            # never write a label that nothing will keep (an orphaned WAL of a deleted file)
            st.error(md_escape(gone))
        else:
            try:
                label_judgment(store, ev_id, int(item_id), label, reviewer, note=note)
            except RejudgeError as exc:
                st.error(md_escape(str(exc)))
            else:
                st.toast(md_escape(f"{item.case} r{item.repetition}: {title}"))
                st.session_state["rv_item_next"] = state.next_open(int(item_id))
                st.rerun()

history = judgment_labels(store, int(item_id))
if history:
    st.markdown("**Labels so far** (newest last; a reviewer's latest counts)")
    show_table(
        [
            {
                "reviewer": r.reviewer,
                "label": r.label,
                "note": r.note or "",
                "at": str(r.created_at),
                "resolution": r.resolution or "",
            }
            for r in history
        ]
    )

# ---------------------------------------------------------------- the evidence
h = st.columns([1, 1, 4])
figure(h[0], "Verdict", item.verdict)
figure(h[1], "Partial score", num(item.partial_score))
# codes and reasons as text, not metrics: a metric cuts its value to the column ("TOOL_UNEXP…")
with h[2]:
    st.markdown(f"**Taxonomy:** {md_escape(', '.join(item.taxonomy) or '—')}")
    st.markdown(f"**Why queued:** {md_escape('; '.join(item.reasons))}")
detail = data.trace_detail(url, item.trace_id)
judgment = data.judgment_body(url, ev_id, item.trace_id)
case_body: dict[str, Any] = (detail.case_body if detail else None) or {}
body: dict[str, Any] = (detail.body if detail else None) or {}
st.markdown("**Instruction**")
show_text(str(case_body.get("instruction", "")))
st.page_link(
    "views/trace_viewer.py",
    label="Open in the trace viewer (raw exchange)",
    icon=":material/manage_search:",
    query_params={"run": str(ev_row.run_id), "trace": str(item.trace_id), "ev": str(ev_id)},
)

left, right = st.columns(2)
with left:
    st.markdown("**Rounds**")
    render_rounds(body)
with right:
    st.markdown("**Golden vs actual**")
    call_rows, argument_rows = diff_tables((judgment or {}).get("diff") or [])
    if call_rows:
        show_table(call_rows)
    if argument_rows:
        show_table(argument_rows)
    reasons = (judgment or {}).get("reasons") or []
    if reasons:  # one list, not an element per reason
        st.markdown("\n".join(f"- {md_escape(str(r))}" for r in reasons))
    st.markdown("**Golden calls**")
    show_value((case_body.get("golden") or {}).get("calls") or [])
