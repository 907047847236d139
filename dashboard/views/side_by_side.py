"""Side by side: one case under two evaluations, both traces round by round.

``?a=<evaluation>&b=<evaluation>&case=<case id>&rep=<repetition>`` opens it directly (Compare,
Rule impact, pass^k and the live monitor link here), so a link can be pasted into an issue.
Arguments that differ from the other side's call in the same place are marked; below the
rounds, both judgments with the cause of the change, and the rule settings that differ.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.common import (
    context,
    figure,
    md_escape,
    num,
    query_int,
    verdict_shown,
)
from rejudge.dashboard.evidence import render_ending, render_round, show_table
from rejudge.dashboard.opening import evaluations_or_stop, pick_pair
from rejudge.dashboard.paging import LISTED_FLIPS
from rejudge.dashboard.sidebyside import call_highlights, flip_labels, settings_diff
from rejudge.dashboard.textdiff import output_text, text_diff
from rejudge.store import JudgmentBody

from rejudge.model import RuleSet

ctx = context()
url = ctx.db_url

st.title("Side by side")
# Compare's opening pair, so the page opens on a pair with flips to show
ev_a, ev_b = pick_pair(url, evaluations_or_stop(url))

flips = data.flips(url, ev_a.id, ev_b.id, limit=LISTED_FLIPS)
# natural order: "r2" before "r10", as text sorting put them the other way round
flip_choices = flip_labels((f.case, f.repetition) for f in flips)
c1, c2, c3, c4 = st.columns([3, 3, 1, 1])
if "sbs_case" not in st.session_state:
    st.session_state["sbs_case"] = str(st.query_params.get("case") or "")
    st.session_state["sbs_rep"] = query_int("rep") or 0
    # B may show another repetition (pass^k opens a passing and a failing one of one case)
    rep_b = query_int("rep_b")
    st.session_state["sbs_rep_b"] = st.session_state["sbs_rep"] if rep_b is None else rep_b
    if not st.session_state["sbs_case"]:
        # no case in the address: open on the first flip, else B's first failing case
        opening = data.opening_case(url, ev_a.id, ev_b.id)
        if opening is not None:
            st.session_state["sbs_case"], rep = opening
            st.session_state["sbs_rep"] = st.session_state["sbs_rep_b"] = rep
            if f"{opening[0]} · r{rep}" in flip_choices:
                st.session_state["sbs_flip"] = f"{opening[0]} · r{rep}"


def _picked() -> None:
    # a flip picked from the list fills the case and repetition (typing one still works)
    value = st.session_state.get("sbs_flip")
    if value:
        case_key, _, rep = value.rpartition(" · r")
        st.session_state["sbs_case"] = case_key
        st.session_state["sbs_rep"] = st.session_state["sbs_rep_b"] = int(rep)


# a full list is the first flips only: its length is no count of the comparison's flips
listed = f"the first {len(flips):,} flips" if len(flips) == LISTED_FLIPS else f"{len(flips)} flips"
with c1:
    choices = ["", *flip_choices]
    st.selectbox(
        f"A flipped case ({listed})",
        choices,
        key="sbs_flip",
        on_change=_picked,
        format_func=lambda v: v or "(pick, or type a case id)",
    )
with c2:
    case = st.text_input("Case id", key="sbs_case").strip()
with c3:
    repetition = int(st.number_input("Repetition A", 0, 10_000, key="sbs_rep"))
with c4:
    repetition_b = int(st.number_input("Repetition B", 0, 10_000, key="sbs_rep_b"))
if not case:
    st.info("Pick a flipped case, or type a case id.")
    st.stop()
st.query_params.update({"case": case, "rep": str(repetition)})
if repetition_b != repetition:
    st.query_params["rep_b"] = str(repetition_b)
elif "rep_b" in st.query_params:
    del st.query_params["rep_b"]


def _side(
    ev_id: int, repetition: int
) -> tuple[dict[str, Any], dict[str, Any], JudgmentBody | None, int | None]:
    trace_id = data.evaluation_trace(url, ev_id, case, repetition)
    if trace_id is None:
        return {}, {}, None, None
    detail = data.trace_detail(url, trace_id)
    judgment = data.judgment_body(url, ev_id, trace_id)
    body = (detail.body if detail else None) or {}
    case_body = (detail.case_body if detail else None) or {}
    return body, case_body, judgment, trace_id


def _highlighter(marks: dict[tuple[int, int], set[str]]) -> Callable[[int, int], set[str]]:
    """The calls of round ``r``, call ``c`` to mark on one side (bound to that side's marks)."""
    return lambda r, c: marks.get((r, c), set())


def _hash(trace_id: int) -> str | None:
    detail = data.trace_detail(url, trace_id)
    return detail.hash if detail else None


body_a, case_a, judgment_a, trace_a = _side(ev_a.id, repetition)
body_b, case_b, judgment_b, trace_b = _side(ev_b.id, repetition_b)
if trace_a is None and trace_b is None:
    st.warning(md_escape(f"Neither evaluation judged {case} repetition {repetition}."))
    st.stop()

# ---------------------------------------------------------------- the two judgments
# the cause is the judge's comparison's (the flip of this case and repetition), never worked out
# here; two different repetitions are no flip of the comparison
flip = next(
    (
        f
        for f in flips
        if (f.case, f.repetition) == (case, repetition) and repetition_b == repetition
    ),
    None,
)
heads = st.columns(2)
for column, name, ev, judgment, case_body, trace_id in (
    (heads[0], "A", ev_a, judgment_a, case_a, trace_a),
    (heads[1], "B", ev_b, judgment_b, case_b, trace_b),
):
    with column:
        st.markdown(
            md_escape(f"{name}: evaluation #{ev.id} · {ev.run} · {ev.tier} · {ev.rule_set}")
        )
        if judgment is None:
            st.warning(f"Evaluation {name} judged no trace of this case and repetition.")
            continue
        m = st.columns(2)
        figure(m[0], f"Verdict {name}", verdict_shown(judgment, case_body))
        figure(m[1], f"Partial {name}", num(judgment.get("partial_score")))
        # codes as text, not a metric: metric values are cut to the column's width
        st.markdown(f"**Taxonomy:** {md_escape(', '.join(judgment.get('taxonomy') or []) or '—')}")
        reasons = judgment.get("reasons") or []
        if reasons:  # one list, not an element per reason
            st.markdown("\n".join(f"- {md_escape(str(r))}" for r in reasons))
        st.page_link(
            "views/trace_viewer.py",
            label=f"Trace {name} in the trace viewer (raw exchanges)",
            icon=":material/manage_search:",
            query_params={"run": str(ev.run_id), "trace": str(trace_id), "ev": str(ev.id)},
        )
if judgment_a and judgment_b:
    if judgment_a.get("verdict") == judgment_b.get("verdict"):
        st.caption("Same verdict.")
    elif flip is not None:
        st.info(
            f"Verdict {flip.from_verdict} → {flip.to_verdict}; cause: **{', '.join(flip.causes) or flip.cause}** "
            "(the judgment inputs that differ, as `rejudge compare` names them)."
        )
    else:
        st.info(
            f"Verdict {judgment_a.get('verdict')} → {judgment_b.get('verdict')} "
            f"(repetition {repetition} against {repetition_b}: not a flip of the comparison)."
        )

if trace_a is not None and trace_a == trace_b:
    st.info(
        f"A and B show the same trace (#{trace_a}): the rounds below are one trace twice; only "
        "the judgments can differ."
    )
elif trace_a is not None and trace_b is not None and _hash(trace_a) == _hash(trace_b):
    st.info("A and B are two traces with the same content (the same trace hash).")

# ---------------------------------------------------------------- what the model said
st.subheader("Model output, A → B")
said_a, said_b = output_text(body_a), output_text(body_b)
diff = text_diff(said_a, said_b)
if not said_a and not said_b:
    st.caption("Neither side has model text (only calls).")
elif not diff:
    st.caption("The same text on both sides.")
else:
    # evidence: shown as text in a code box, never as Markdown
    st.code(diff, language="diff", wrap_lines=True, height=min(360, 24 * (diff.count("\n") + 2)))

# ---------------------------------------------------------------- rounds, aligned
st.subheader("Rounds")
marks_a = call_highlights(body_a, body_b)
marks_b = call_highlights(body_b, body_a)
rounds_a = body_a.get("rounds") or []
rounds_b = body_b.get("rounds") or []
for position in range(max(len(rounds_a), len(rounds_b))):
    col_a, col_b = st.columns(2)
    for column, body, rounds, marks in (
        (col_a, body_a, rounds_a, marks_a),
        (col_b, body_b, rounds_b, marks_b),
    ):
        with column:
            if position < len(rounds):
                render_round(
                    body,
                    position,
                    highlight=_highlighter(marks),
                )
            else:
                st.caption(f"(no round {position})")
end_a, end_b = st.columns(2)
with end_a:
    render_ending(body_a)
with end_b:
    render_ending(body_b)

# ---------------------------------------------------------------- rule settings
st.subheader("Rule settings that differ")
if ev_a.rule_set_id == ev_b.rule_set_id:
    st.caption(f"Both use {md_escape(ev_a.rule_set)}.")
else:
    setting_diffs = settings_diff(
        RuleSet.model_validate(data.rule_set_body(url, ev_a.rule_set_id)),
        RuleSet.model_validate(data.rule_set_body(url, ev_b.rule_set_id)),
    )
    if setting_diffs:
        show_table(
            [
                {
                    "setting": d["path"],
                    f"A · {ev_a.rule_set}": repr(d["a"]),
                    f"B · {ev_b.rule_set}": repr(d["b"]),
                }
                for d in setting_diffs
            ]
        )
    else:
        st.caption("Only their labels differ: every setting is the same.")
