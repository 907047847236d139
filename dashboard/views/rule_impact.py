"""Rule impact: one run under two rule sets — which cases flipped, and the rule-set diff."""

from __future__ import annotations

import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.common import (
    FLIP_COLUMNS,
    context,
    delta_shown,
    figure,
    md_escape,
    p_value,
    page_picker,
    pct,
    pick_run,
)
from rejudge.dashboard.evidence import show_table
from rejudge.dashboard.explained import likely
from rejudge.dashboard.links import flips_frame, flips_table, follow_click
from rejudge.dashboard.opening import pick_two
from rejudge.dashboard.paging import FLIPS_PAGE, shown_range
from rejudge.dashboard.sidebyside import settings_diff
from rejudge.store import EvaluationSummary

from rejudge.model import FLIP_DIRECTIONS, RuleSet

ctx = context()
url = ctx.db_url

st.title("Rule impact")
st.caption("One run's traces judged under two rule sets: what the rule change did, case by case.")

all_evals = data.evaluations(url)
by_run: dict[int, list[EvaluationSummary]] = {}
for ev in all_evals:
    by_run.setdefault(ev.run_id, []).append(ev)
candidates = [r for r in data.runs(url) if len(by_run.get(r.id, [])) >= 2]
if not candidates:
    st.info(
        "No run has two evaluations yet. Re-judge one under other rules: "
        "`rejudge rejudge RUN --rules R`."
    )
    st.stop()


def _rule_pair(evs: list[EvaluationSummary]) -> tuple[int, int] | None:
    """Two evaluations of one tier under the two newest rule sets it was judged under (what
    the page is for): the golden tier's when it has such a pair, else the first tier's."""
    tiers = sorted({e.tier for e in evs}, key=lambda t: (t != "golden", t))
    for tier in tiers:
        newest: dict[int, int] = {}  # rule set -> position of its newest evaluation
        for position, ev in enumerate(evs):
            if ev.tier == tier:
                newest[ev.rule_set_id] = position
        if len(newest) >= 2:
            before, after = sorted(newest.values())[-2:]
            return before, after
    return None


# open on the largest run that has such a pair (a rule change matters where there are traces)
paired = [i for i, r in enumerate(candidates) if _rule_pair(by_run[r.id])]
largest = max(paired, key=lambda i: (candidates[i].traces, candidates[i].id), default=0)
top, left, right = st.columns(3)  # one row of pickers: the answer below fits the screen
with top:
    run = pick_run("Run", candidates, key="run", default_index=largest)
if run is None:
    st.stop()
evals = by_run[run.id]
ev_a, ev_b = pick_two(
    evals,
    ("Rules A (before)", "Rules B (after)"),
    ("ra", "rb"),
    _rule_pair(evals) or (0, 1),
    columns=(left, right),
)
a, b = ev_a.id, ev_b.id
if ev_a.rule_set == ev_b.rule_set:
    st.warning(
        md_escape(f"Both evaluations use {ev_a.rule_set}")
        + ": pick two different rule sets to see a rule change's impact."
    )
if ev_a.tier != ev_b.tier:
    st.warning(md_escape(f"The tiers differ ({ev_a.tier} vs {ev_b.tier}): flips mix two changes."))

# the figures, the first page of flips and every flip's codes (the "Why" counts them all), from
# one read
read = data.rule_impact(url, a, b)
if read is None:
    st.stop()
s = read.figures
cmp = s.comparison
m1, m2, m3, m4 = st.columns(4)
figure(m1, f"Accuracy under {ev_a.rule_set}", pct(cmp.accuracy_a))
figure(
    m2,
    f"Accuracy under {ev_b.rule_set}",
    pct(cmp.accuracy_b),
    delta=delta_shown(s.delta),
)
figure(m3, "Flips", s.flip_count)
# one run under two rule sets is two judges of the same traces: their agreement, never a test
if cmp.judges is not None:
    kappa = cmp.judges.kappa
    figure(m4, "Cohen's kappa", "n/a" if kappa is None else f"{kappa:.3f}")
    m4.caption(md_escape(cmp.judges.sentence()))
elif cmp.mcnemar_p is not None:
    figure(m4, "McNemar p (exact)", p_value(cmp.mcnemar_p))
else:
    figure(m4, "Cohen's kappa", "—", note=f"not a judge comparison ({cmp.kind})")
if cmp.kind != "judge":
    st.warning(md_escape(s.reading))

diff = settings_diff(
    RuleSet.model_validate(data.rule_set_body(url, ev_a.rule_set_id)),
    RuleSet.model_validate(data.rule_set_body(url, ev_b.rule_set_id)),
)
changed_paths = [d["path"] for d in diff]


# counted over every flip, kept as counts (dashboard/explained.py): the page lists 1,000 flips
counted = data.explained(url, a, b, tuple(changed_paths))

# why they flipped, first: each changed setting, its two values and the flips it likely
# explains; the last row counts the flips no changed setting explains
st.subheader(md_escape(f"Why: {ev_a.rule_set} → {ev_b.rule_set}"))
if diff:
    show_table(
        [
            {
                "setting": d["path"],
                f"A · {ev_a.rule_set}": repr(d["a"]),
                f"B · {ev_b.rule_set}": repr(d["b"]),
                "flips it likely explains": counted.by_setting.get(d["path"], 0),
            }
            for d in diff
        ]
        + [
            {
                "setting": "(none of them)",
                "flips it likely explains": counted.unexplained,
            }
        ]
    )
    st.caption(
        "A flip is explained by the changed settings that govern the failure codes that "
        "appeared or disappeared (or the tier's applying, for a SKIP on one side); a flip can "
        "have several. The side-by-side page shows both judgments in full."
    )
else:
    st.caption("The two rule sets have identical settings.")

st.subheader(f"Flipped cases ({counted.flips})")
direction = st.selectbox("Direction", ["all", *FLIP_DIRECTIONS], key="ri_dir")
chosen = None if direction == "all" else direction
# a page of flips at a time, as on Compare: the first, unfiltered, is the one read with the
# figures; another page or a direction selects from every flip (read then, once)
if chosen is None:
    total, rows = s.flip_count, list(s.comparison.flips)
else:
    total, rows = data.every_flip_page(url, a, b, 0, FLIPS_PAGE, direction=chosen)
start = (page_picker(total, key="ri_page") - 1) * FLIPS_PAGE
if start:
    total, rows = data.every_flip_page(url, a, b, start, FLIPS_PAGE, direction=chosen)
if total > FLIPS_PAGE:
    st.caption(f"{total} flips; showing {shown_range(start, len(rows))}.")
if not rows:
    st.success("No case changed verdict between these two rule sets.")
else:
    frame = flips_frame(rows).rename(columns=FLIP_COLUMNS)
    frame["codes before"] = frame["taxonomy_from"].map(lambda t: ", ".join(t or []))
    frame["codes after"] = frame["taxonomy_to"].map(lambda t: ", ".join(t or []))
    frame["likely rule change"] = [", ".join(likely(r, changed_paths)) or "—" for r in rows]
    columns = ["case", "repetition", "from", "to", "likely rule change", "codes before"]
    flips_table(frame[[*columns, "codes after", "cause"]], rows, a, b, key="ri")

follow_click()
