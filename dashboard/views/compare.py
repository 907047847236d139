"""Compare two evaluations as the judge compares them: its kind first (evidence: McNemar and a
verdict; judge: who is stricter, agreement and kappa; mixed: said loudly), then accuracy with
intervals, flips, per-group and taxonomy. Nothing about A against B is computed here."""

from __future__ import annotations

import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.charts import Bar, bars
from rejudge.dashboard.common import (
    FLIP_CAUSES,
    FLIP_COLUMNS,
    context,
    delta_shown,
    figure,
    judge_headline,
    md_escape,
    p_value,
    page_picker,
    pct,
)
from rejudge.dashboard.evidence import show_value
from rejudge.dashboard.evidence_html import table_html
from rejudge.dashboard.links import flips_frame, flips_table, follow_click
from rejudge.dashboard.opening import evaluations_or_stop, pick_pair
from rejudge.dashboard.paging import FLIPS_PAGE, shown_range
from rejudge.store import EvaluationSummary

from rejudge.model import FLIP_DIRECTIONS, SIGNIFICANCE_LEVEL

ctx = context()
url = ctx.db_url

st.title("Compare")
ev_a, ev_b = pick_pair(url, evaluations_or_stop(url))
a, b = ev_a.id, ev_b.id
# the sidebar's Compare link comes back to this pair
st.session_state["compare_pair"] = {"a": str(a), "b": str(b)}
s = data.compare_figures(url, a, b)  # its flips are selected below (data.flips)
if s is None:
    st.error("One of the evaluations is gone from the store; pick another.")
    st.stop()
cmp = s.comparison  # the judge's figures, shown as it computed them

if not cmp.comparable:
    st.error(
        "**comparable: false** — these evaluations do not line up, so no verdict or delta is "
        "given; the counts below are each side's own:\n\n"
        + "\n".join(f"- {md_escape(r)}" for r in cmp.reasons),
        icon="🚨",
    )


def _counts(ev: EvaluationSummary) -> str:
    # what accuracy leaves out is shown beside it, so "0.0% (n=2)" cannot hide 70 unscored
    return (
        f"n={ev.scored} scored ({ev.PASS} PASS · {ev.FAIL} FAIL) · "
        f"{ev.SKIP} SKIP · {ev.AGENT_ERROR} AGENT_ERROR"
    )


def _interval(ci: tuple[float, float], scored: int) -> str:
    # with nothing scored there is no accuracy, so no interval either (not "0.0%–100.0%")
    return "no interval: nothing scored" if scored == 0 else f"95% CI {pct(ci[0])} – {pct(ci[1])}"


# what kind of comparison this is decides how every figure below reads
if cmp.kind == "mixed":
    st.error(md_escape(s.reading), icon="🚨")
elif cmp.kind == "judge":
    st.info(md_escape(s.reading))
elif cmp.kind == "same":
    st.caption(md_escape(s.reading))
# a model judge's side comes with how far it can be trusted (a weak judge says so)
for line, weak in cmp.judge_headlines():
    judge_headline(st, line, weak)

m1, m2, m3, m4, m5 = st.columns(5)
figure(
    m1,
    "Accuracy A",
    pct(cmp.accuracy_a),
    note=f"95% Wilson interval over {s.scored_a} scored" if s.scored_a else "nothing scored",
)
m1.caption(f"{_interval(s.ci_a, s.scored_a)}; {_counts(ev_a)}")
figure(
    m2, "Accuracy B", pct(cmp.accuracy_b), delta=delta_shown(s.delta) if cmp.comparable else None
)
m2.caption(f"{_interval(s.ci_b, s.scored_b)}; {_counts(ev_b)}")
if not cmp.comparable:
    figure(m3, "Delta (B − A)", "—", note="not comparable: no delta is given")
    figure(m4, "McNemar p (exact)", "—", note="not comparable: no test is run")
elif cmp.judges is not None:
    # two judges of the same traces: who is stricter and how far they agree, never a test
    figure(m3, "Stricter", cmp.judges.stricter or "neither")
    m3.caption(f"A on {cmp.judges.a_stricter} · B on {cmp.judges.b_stricter}")
    kappa = cmp.judges.kappa
    figure(m4, "Cohen's kappa", "n/a" if kappa is None else f"{kappa:.3f}")
    m4.caption(f"agreement {pct(cmp.judges.agreement)} over {cmp.judges.total} both scored")
else:
    figure(m3, "Delta (B − A)", "—" if s.delta is None else f"{100 * s.delta:+.1f} pts")
    if cmp.mcnemar_p is None:
        figure(m4, "McNemar p (exact)", "—", note=f"not an evidence comparison ({cmp.kind})")
    else:
        figure(m4, "McNemar p (exact)", p_value(cmp.mcnemar_p))
figure(m5, "Flips", s.flip_count)
m5.caption(f"{s.pass_to_fail} PASS→FAIL · {s.fail_to_pass} FAIL→PASS · {s.other_flips} other")
if s.same_evaluation:
    st.info("A and B are the same evaluation: pick two different ones.")
if s.differences:
    st.caption(
        "What differs: " + "; ".join(md_escape(f"{d.field}: {d.a} → {d.b}") for d in s.differences)
    )

if cmp.judges is not None and cmp.comparable:
    st.markdown("**Agreement of the two judges** (pairs both scored)")
    # static HTML, not st.table: its frontend chunk (and Arrow's) cost a cold page its fetch
    st.html(
        table_html(
            [
                {"": "A PASS", "B PASS": cmp.judges.pass_pass, "B FAIL": cmp.judges.pass_fail},
                {"": "A FAIL", "B PASS": cmp.judges.fail_pass, "B FAIL": cmp.judges.fail_fail},
            ]
        )
    )
if cmp.kind == "evidence" and cmp.comparable and cmp.mcnemar_p is not None:
    verdict = cmp.verdict
    message = (
        f"**Verdict: {verdict}** (exact McNemar on "
        f"{s.pass_to_fail + s.fail_to_pass} discordant PASS/FAIL pairs, "
        f"p {p_value(cmp.mcnemar_p, prefix=True)}, α = {SIGNIFICANCE_LEVEL})"
    )
    if verdict == "B better":
        st.success(message)
    elif verdict == "B worse":
        st.warning(message)
    else:
        st.info(message)

with st.expander("As JSON (the keys of `rejudge compare --json`, without the flips list)"):
    # the figures come without their flips (data.compare_figures): an expander's body runs
    # closed too, and dumping 25,800 flips (a 100k store) took a second of every open
    show_value({k: v for k, v in cmp.to_json().items() if k not in ("flips", "meta_a", "meta_b")})

# ---------------------------------------------------------------- flips
st.subheader("Flips")
pair_groups = data.pair_group_counts(url, a, b)
f1, f2, f3, f4 = st.columns(4)
direction = f1.selectbox("Direction", ["all", *FLIP_DIRECTIONS], key="flip_dir")
case_text = f2.text_input("Case contains", key="flip_case")
dims = f3.multiselect(
    "Dimension", sorted(pair_groups.dimension_a), key="flip_dims", placeholder="all"
)
causes = f4.multiselect("Cause", list(FLIP_CAUSES), key="flip_causes", placeholder="all")
flt = {
    "direction": None if direction == "all" else direction,
    "case_contains": case_text or None,
    "dimensions": tuple(dims) or None,
    "causes": tuple(causes) or None,
}
counts = data.flip_count(url, a, b, **flt)
# a page of flips at a time: only the page shown is read (unfiltered: 1,000 of the 25,466
# flips of run-a against run-b at 100k, where the page read all of them)
start = (page_picker(counts["total"], key="flip_page") - 1) * FLIPS_PAGE
shown = data.flips(url, a, b, limit=FLIPS_PAGE, start=start, **flt)
by_cause = ", ".join(f"{k}: {v}" for k, v in counts.items() if k != "total") or "none"
st.caption(f"{counts['total']} flips match ({by_cause}); showing {shown_range(start, len(shown))}.")
if shown:
    frame = flips_frame(shown).rename(columns=FLIP_COLUMNS)
    # every input that differs, as `rejudge compare` lists them (a model judge's rubric, model
    # or parameters too), not only the first
    frame["cause"] = [", ".join(f.causes) or f.cause for f in shown]
    frame["taxonomy_a"] = frame["taxonomy_from"].map(lambda t: ", ".join(t or []))
    frame["taxonomy_b"] = frame["taxonomy_to"].map(lambda t: ", ".join(t or []))
    columns = ["case", "repetition", "from", "to", "cause", "dimension", "category"]
    flips_table(frame[[*columns, "taxonomy_a", "taxonomy_b"]], shown, a, b, key="cmp")

# ---------------------------------------------------------------- per group charts


def _group_bars(by: str) -> list[Bar]:
    if by == "dimension":
        ga, gb = pair_groups.dimension_a, pair_groups.dimension_b
    else:
        ga, gb = pair_groups.category_a, pair_groups.category_b
    rows = []
    for key in dict.fromkeys([*ga, *gb]):
        for label, groups in (("A", ga), ("B", gb)):
            g = groups.get(key)
            if g is None:
                continue
            # a group with nothing scored has no accuracy: no bar (not a full-width "null" one)
            accuracy = None if g.accuracy is None else 100 * g.accuracy
            text = "— (nothing scored)" if accuracy is None else f"{accuracy:.1f}% (n={g.scored})"
            rows.append(Bar(label=str(key), series=label, value=accuracy, text=text))
    return rows


st.subheader("Per dimension and category")
c1, c2 = st.columns(2)
for column, by in ((c1, "dimension"), (c2, "category")):
    with column:
        group_bars = _group_bars(by)
        if not group_bars:
            st.caption(f"No {by} data.")
            continue
        st.markdown(f"**Accuracy per {by} (%)**")
        bars(group_bars, scale_max=100)

st.subheader("Taxonomy counts")
ta = data.taxonomy_counts(url, a)
tb = data.taxonomy_counts(url, b)
codes = sorted(set(ta) | set(tb), key=lambda c: (-(ta.get(c, 0) + tb.get(c, 0)), c))
if codes:
    st.caption("Judgments naming each failure cause, in A and in B (B's change from A)")
    bars(
        [
            bar
            for c in codes
            for bar in (
                Bar(label=c, series="A", value=ta.get(c, 0), text=str(ta.get(c, 0))),
                Bar(
                    label=c,
                    series="B",
                    value=tb.get(c, 0),
                    text=f"{tb.get(c, 0)} ({tb.get(c, 0) - ta.get(c, 0):+d})",
                ),
            )
        ]
    )
else:
    st.caption("Neither evaluation names a failure cause.")

follow_click()
