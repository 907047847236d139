"""Agreement with an external verdict: per tier, rejudge's PASS/FAIL against the external
verdict stored on the traces (τ-bench's reward), Cohen's kappa, and every disagreeing trace
with rejudge's causes: why a trajectory got 0, or what rejudge saw that the reward missed."""

from __future__ import annotations

from urllib.parse import urlencode

import pandas as pd
import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.charts import Bar, bars
from rejudge.dashboard.common import context, figure, md_escape, num, pct, pick_evaluation
from rejudge.dashboard.evidence import show_text, show_value
from rejudge.dashboard.external import external_checked
from rejudge.dashboard.links import clickable_table, follow_click, pair_url
from rejudge.dashboard.opening import evaluations_or_stop
from rejudge.dashboard.sidebyside import pair_link

from rejudge.errors import NotFoundError
from rejudge.model import EXTERNAL_PASS_AT, Agreement
from rejudge.services import evaluation_agreement

ctx = context()
url = ctx.db_url

st.title("Agreement with an external verdict")
st.caption(
    "Rows: rejudge's verdict (PASS/FAIL); columns: the external verdict (1/0). Traces either "
    "side did not score are left out of the table. Kappa is Cohen's: agreement beyond chance."
)


@st.cache_data(show_spinner=False, ttl=60)
def _agreement(db_url: str, evaluation_id: int) -> Agreement | str:
    """The typed agreement, or why there is none (the run carries no external verdict)."""
    try:
        return evaluation_agreement(data.store(db_url), evaluation_id)
    except NotFoundError as exc:
        return str(exc)


rows = evaluations_or_stop(url, "No evaluations yet.")
# open on the newest evaluation of a run that carries an external verdict (the page is for them)
external_runs = data.runs_with_external_verdicts(url)
with_external = [i for i, r in enumerate(rows) if r.run_id in external_runs]
if not with_external:
    st.info(
        "No run carries an external verdict. Import one with its verdicts, e.g. "
        "`rejudge import tau-bench FILE`, and judge it."
    )


def _opening(positions: list[int]) -> int:
    """The evaluation the page opens on: the state tier (the one that replays τ-bench's check)
    of the run with the most traces carrying an external verdict, under its newest rules; else
    the newest evaluation of such a run."""
    if not positions:
        return len(rows) - 1
    state = [i for i in positions if rows[i].tier == "state"] or positions
    return max(state, key=lambda i: (rows[i].judgments, rows[i].id))


ev = pick_evaluation("Evaluation", rows, key="ev", default_index=_opening(with_external))
if ev is None:
    st.stop()
result = _agreement(url, ev.id)
if isinstance(result, str):
    st.info(result)
    st.stop()

source = result.source
mine = result.tier(ev.tier)
m = st.columns(4)
figure(m[0], "Source", source)
figure(m[1], "Traces with a verdict", result.traces)
figure(m[2], f"{source} success", result.external_success())
if mine is not None:
    # the answer to "does this tier agree?": the share, with the count it is a share of
    table = mine.table
    figure(
        m[3],
        f"{ev.tier} agrees",
        f"{pct(table.agreement)} ({table.pass_1 + table.fail_0} of {table.total})",
        note="traces both sides scored",
    )
hat = result.external_pass_hat_k.values
if hat:
    st.caption(
        md_escape(
            " · ".join(f"{source} pass^{k} {pct(value)}" for k, value in list(hat.items())[:8])
        )
    )

# every trace of this evaluation against the external verdict, the disagreements first: a
# row opens the trace, whose head says what was compared (for the state tier: the final-state
# diff) — the answer to "why", also where the two agree
values = data.external_values(url, ev.run_id, source)
cases = data.evaluation_report(url, ev.id).cases
listed = []
for c in cases:
    value = values.get((c.case, c.repetition))
    if value is None or c.verdict not in ("PASS", "FAIL"):
        continue
    agrees = (c.verdict == "PASS") == (value >= EXTERNAL_PASS_AT)
    listed.append((agrees, c, value))
listed.sort(key=lambda item: (item[0], item[1].verdict != "FAIL"))
st.subheader(f"Traces under {ev.tier} ({len(listed)})")
if listed:
    st.caption(
        f"rejudge's {ev.tier} verdict beside {source}'s, disagreements first. Click a row to "
        "open its trace: the verdict, its causes and what was compared sit at the top."
    )
    clickable_table(
        pd.DataFrame(
            [
                {
                    "case": c.case,
                    "rep": c.repetition,
                    "rejudge": c.verdict,
                    source: value,
                    "agree": "yes" if agrees else "NO",
                    "causes": ", ".join(c.taxonomy),
                }
                for agrees, c, value in listed
            ]
        ),
        [
            "trace?"
            + urlencode(
                {
                    "run": str(ev.run_id),
                    "ev": str(ev.id),
                    "tv_case": c.case,
                    "rep": str(c.repetition),
                }
            )
            for _agrees, c, _value in listed
        ],
        key="agree_traces",
        height=250,
    )

summary = pd.DataFrame(
    [
        {
            "tier": t.tier,
            "evaluation": t.evaluation,
            "PASS / 1": t.table.pass_1,
            "PASS / 0": t.table.pass_0,
            "FAIL / 1": t.table.fail_1,
            "FAIL / 0": t.table.fail_0,
            "agreement": pct(t.table.agreement),
            "kappa": num(t.table.kappa),
            "left out": t.not_scored + t.no_external,
        }
        for t in result.tiers
    ]
)
st.subheader("Per tier")
st.dataframe(summary, hide_index=True, width="stretch")

tiers = [t.tier for t in result.tiers]
tier = st.selectbox(
    "Disagreements of tier",
    tiers,
    index=tiers.index(ev.tier) if ev.tier in tiers else 0,
    key="agree_tier",
)
chosen = result.tier(tier)
if chosen is None:  # no tier of the run applies to its cases: the table above is empty
    st.caption("No tier of this run judged a case, so no disagreement to show.")
    st.stop()
grid = st.columns(2)
figure(grid[0], "rejudge FAIL, external 1", chosen.table.fail_1)
figure(grid[1], "rejudge PASS, external 0", chosen.table.pass_0)
if chosen.causes:
    st.caption("Causes rejudge names where the external verdict gave 1")
    # full cause names: TOOL_UNEXPECTED and TOOL_UNEXPECTED_ARGS must not both read TOOL_UNEXP…
    ranked = sorted(chosen.causes.items(), key=lambda kv: (-kv[1], kv[0]))
    bars([Bar(label=c, series="", value=n, text=f"{n} trace(s)") for c, n in ranked])
disagreements = chosen.disagreements
# disagreements come from an evaluation's rows, so the tier names its evaluation (the service
# always does; only a TierAgreement built without one has None)
chosen_ev = chosen.evaluation
if disagreements and chosen_ev is not None:
    details = data.external_details(url, ev.run_id, source)
    # side by side against another tier's evaluation of the same run, when there is one
    others = [t.evaluation for t in result.tiers if t.tier != tier and t.evaluation is not None]
    other = others[0] if others else chosen_ev
    # evidence text (reasons quote the model's arguments) goes in a dataframe, never as markup
    table = pd.DataFrame(
        [
            {
                "case": d.case,
                "rep": d.repetition,
                "kind": d.kind,
                "causes": ", ".join(d.causes) or "-",
                "rejudge's first reason": d.reasons[0]
                if d.reasons
                else "rejudge found nothing wrong",
                f"what {source} checked": external_checked(details.get((d.case, d.repetition))),
                "side by side": pair_url(chosen_ev, other, d.case, d.repetition),
            }
            for d in disagreements
        ]
    )
    # a row opens its trace under this tier: the verdict, what was compared and the diff on top
    opened = [
        "trace?"
        + urlencode(
            {
                "run": str(ev.run_id),
                "ev": str(chosen_ev),
                "tv_case": d.case,
                "rep": str(d.repetition),
            }
        )
        for d in disagreements
    ]
    st.caption(
        f"{len(disagreements)} disagreement(s). Click a row to open its trace under {tier}; "
        "the link column opens the two tiers side by side."
    )
    clickable_table(
        table,
        opened,
        key="agree_rows",
        column_config={"side by side": st.column_config.LinkColumn(display_text="open")},
    )
    labels = {i: f"{d.case} · r{d.repetition} · {d.kind}" for i, d in enumerate(disagreements)}
    picked = st.selectbox(
        "Inspect a disagreement", list(labels), key="agree_pick", format_func=labels.__getitem__
    )
    if picked is not None:
        d = disagreements[int(picked)]
        left, right = st.columns(2)
        with left:
            st.markdown(f"**rejudge** ({md_escape(tier)}): {d.verdict}")
            for reason in d.reasons or ["rejudge found nothing wrong"]:
                show_text(str(reason))
            st.page_link(
                "views/side_by_side.py",
                label="Side by side",
                icon=":material/view_column_2:",
                query_params=pair_link(chosen_ev, other, d.case, d.repetition),
            )
        with right:
            st.markdown(f"**{md_escape(source)}**: {d.external}, as it recorded it")
            show_value(details.get((d.case, d.repetition)), expanded=True)
elif disagreements:  # listed in the JSON below; without an evaluation there is no page to open
    st.caption(f"{len(disagreements)} disagreement(s), but this tier names no evaluation.")
else:
    st.caption("No disagreement.")
with st.expander("As JSON (what `rejudge report EVAL --against external --json` prints)"):
    show_value(result.to_json())

follow_click()
