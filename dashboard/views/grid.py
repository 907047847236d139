"""Models: N runs x cases for one suite, each run's pass rate with its counts and interval.

``?suite=&tier=&rules=`` in the URL chooses the view (a view is a link); an unknown value is
said on the page and the default view shown. Opens on the suite with the most runs judged
under one tier (the newest such suite on a tie), under the tier most of its runs share.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.common import context, url_choice
from rejudge.dashboard.evidence import show_table
from rejudge.dashboard.grid import cell_text
from rejudge.dashboard.opening import evaluations_or_stop
from rejudge.store import EvaluationSummary

ctx = context()
url = ctx.db_url

st.title("Models")
st.caption(
    "Runs of one suite side by side, case by case: each run's newest evaluation under the tier "
    "(and rules) chosen. Rates are PASS / (PASS + FAIL) with a 95% Wilson interval: where two "
    "intervals overlap, the grid alone does not rank the two runs (Compare runs the paired test)."
)
evaluations = evaluations_or_stop(url)

# (suite, tier) -> run -> its newest evaluation
newest: dict[tuple[str, str], dict[int, EvaluationSummary]] = {}
for ev in sorted(evaluations, key=lambda e: e.id):
    newest.setdefault((ev.suite, ev.tier), {})[ev.run_id] = ev
widest = max(newest, key=lambda k: (len(newest[k]), max(e.id for e in newest[k].values())))
suites = sorted({s for s, _t in newest})
f1, f2, f3 = st.columns(3)
with f1:
    wanted_suite = url_choice("suite", suites, widest[0])
    suite = st.selectbox("Suite", suites, index=suites.index(wanted_suite), key="grid_suite")
tiers = sorted(
    {t for s, t in newest if s == suite},
    key=lambda t: (-len(newest[(suite, t)]), t != "golden", t),
)
with f2:
    wanted_tier = url_choice("tier", tiers, tiers[0]) if suite == wanted_suite else tiers[0]
    tier = st.selectbox("Tier", tiers, index=tiers.index(wanted_tier), key="grid_tier")
in_view = [e for e in evaluations if e.suite == suite and e.tier == tier]
rule_sets = ["newest of each run", *sorted({e.rule_set for e in in_view})]
with f3:
    wanted_rules = url_choice("rules", rule_sets[1:], None) if tier == wanted_tier else None
    rules = st.selectbox(
        "Rules",
        rule_sets,
        index=rule_sets.index(wanted_rules) if wanted_rules else 0,
        key="grid_rules",
    )
st.query_params.update({"suite": suite, "tier": tier})
if rules == rule_sets[0]:
    st.query_params.pop("rules", None)
    chosen = newest[(suite, tier)]
else:
    st.query_params["rules"] = rules
    chosen = {}
    for ev in sorted(in_view, key=lambda e: e.id):
        if ev.rule_set == rules:
            chosen[ev.run_id] = ev

columns = [
    (ev.id, f"{ev.run} · {ev.model}") for ev in sorted(chosen.values(), key=lambda e: e.run_id)
]
grid = data.case_grid(url, tuple(columns))
# short column heads (run names are long): r1, r2, ... named in full in the table of rates
heads = [
    f"r{i + 1} · {label.split(' · ')[0].split('/')[-1]}" for i, (_, label) in enumerate(columns)
]
head_of = {evaluation: h for (evaluation, _), h in zip(columns, heads, strict=True)}
ranked = sorted(grid.rates, key=lambda r: (-(r.rate or 0.0), r.label))
show_table(
    [
        {
            "column": head_of[r.evaluation].split(" · ")[0],
            "run · model": r.label,
            "pass rate [95% interval] (PASS of scored)": r.shown(),
            "evaluation": f"#{r.evaluation}",
        }
        for r in ranked
    ]
)
st.subheader(f"Case by case ({len(grid.cases)} cases × {len(columns)} runs)")
frame = pd.DataFrame(
    [
        {"case": case, **{h: cell_text(p, n) for h, (p, n) in zip(heads, row, strict=True)}}
        for case, row in zip(grid.cases, grid.cells, strict=True)
    ]
)
st.dataframe(frame, hide_index=True, width="stretch", height=400)
