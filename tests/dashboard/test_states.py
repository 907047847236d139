"""Honest states and drill-down, through AppTest on stores the tests build (SQLite): Compare on
an incomparable pair, p-values and zero deltas, pass^k with one repetition, Rule impact's
defaults and settings diff, Overview newest first with its baseline card, Trends by recording
date, and the side-by-side page reached by URL and from Compare's flips."""

from __future__ import annotations

from pathlib import Path

import pytest
from rejudge.dashboard.common import delta_shown, p_value
from rejudge.dashboard.sidebyside import differing_arguments, settings_diff
from rejudge.store import Store
from streamlit.testing.v1 import AppTest

from rejudge.model import RuleSet
from tests.dashboard.conftest import (
    app_on,
    figures,
    html_lines,
    html_tables,
    judge_compare,
    metrics,
)
from tests.dashboard.factory import Built, build_store

SQLITE_ONLY = pytest.mark.parametrize("built", ["sqlite"], indirect=True)


def _metric(at, label: str):
    return next(f for f in figures(at) if f.label == label)


def test_p_values_and_deltas_read_as_people_read_them() -> None:
    assert p_value(3.2e-06) == "< 0.0001" and p_value(3.2e-06, prefix=True) == "< 0.0001"
    assert p_value(0.03125) == "0.0312" and p_value(0.5, prefix=True) == "= 0.5000"
    assert p_value(None) == "—"
    assert delta_shown(0.0) is None and delta_shown(0.0004) is None  # rounds to +0.0: no arrow
    assert delta_shown(None) is None
    assert delta_shown(0.773) == "+77.3 pts" and delta_shown(-0.05) == "-5.0 pts"


@SQLITE_ONLY
def test_compare_suppresses_verdict_and_delta_when_not_comparable(built: Built) -> None:
    a, c = built.evaluations["a1"], built.evaluations["c1"]
    at = app_on(built, "compare", a=str(a), b=str(c))
    assert any("comparable: false" in e.value for e in at.error)
    shown = metrics(at)
    assert shown["Delta (B − A)"] == "—" and shown["McNemar p (exact)"] == "—"
    assert not _metric(at, "Accuracy B").delta
    notes = [m.value for m in (*at.info, *at.success, *at.warning)]
    assert not any("Verdict" in n for n in notes)


@SQLITE_ONLY
def test_compare_shows_what_accuracy_leaves_out(built: Built) -> None:
    a, b = built.evaluations["a1"], built.evaluations["b1"]
    at = app_on(built, "compare", a=str(a), b=str(b))
    store = Store.open(built.url)
    try:
        rows = {r.id: r for r in store.catalog.evaluation_summaries(ids=[a, b])}
    finally:
        store.close()
    captions = [c.value for c in at.caption]
    for ev in (a, b):
        row = rows[ev]
        expected = f"{row.SKIP} SKIP · {row.AGENT_ERROR} AGENT_ERROR"
        assert any(expected in c and f"n={row.scored} scored" in c for c in captions), expected


@SQLITE_ONLY
def test_a_zero_delta_has_no_arrow(built: Built) -> None:
    a = built.evaluations["a1"]
    at = app_on(built, "compare", a=str(a), b=str(a))
    assert metrics(at)["Delta (B − A)"] == "+0.0 pts"
    assert not _metric(at, "Accuracy B").delta


def test_pass_k_with_one_repetition_says_how_to_record_more(tmp_path: Path) -> None:
    built = build_store(f"sqlite:///{tmp_path / 'r.db'}", cases=4, repeat=1, with_run_b=False)
    at = app_on(built, "pass_k", ev=str(built.evaluations["a1"]))
    assert any("--repeat" in i.value for i in at.info)
    assert not at.get("vega_lite_chart") and not any(
        f.label.startswith("pass^") for f in figures(at)
    )


@SQLITE_ONLY
def test_pass_k_links_an_inconsistent_case_side_by_side(built: Built) -> None:
    ev = built.evaluations["a1"]
    at = app_on(built, "pass_k", ev=str(ev))
    table = next(d.value for d in at.dataframe if "evidence" in d.value.columns)
    mixed = table[(table["passed"] > 0) & (table["passed"] < table["scored"])]
    assert len(mixed) and all(u.startswith("side_by_side?") for u in mixed["evidence"])
    assert all("rep_b=" in u for u in mixed["evidence"])
    links = [p for p in at.get("page_link") if "side_by_side" in p.proto.page]
    assert links


@SQLITE_ONLY
def test_rule_impact_opens_on_one_tier_under_two_rule_sets(built: Built) -> None:
    at = app_on(built, "rule_impact", run=str(built.runs["run-a"]))
    a = at.selectbox(key="pick_ra").value
    b = at.selectbox(key="pick_rb").value
    assert {a, b} == {built.evaluations["a1"], built.evaluations["a2"]}
    why = next(t for t in html_tables(at) if "setting" in t[0])
    assert list(why[0]) == ["setting", "A · t@1", "B · t@2", "flips it likely explains"]
    flips = next(d.value for d in at.dataframe if "side by side" in d.value.columns)
    assert all(u.startswith("side_by_side?a=") for u in flips["side by side"])


def test_a_rule_sets_description_is_no_setting() -> None:
    one = RuleSet(name="r", version="1", description="first", settings={"free_text_rule": None})
    two = RuleSet(
        name="r", version="2", description="second", settings={"free_text_rule": "free_text"}
    )
    assert [d["path"] for d in settings_diff(one, two)] == ["settings.free_text_rule"]
    same = RuleSet(name="r", version="3", description="third", settings={"free_text_rule": None})
    assert settings_diff(one, same) == []


@SQLITE_ONLY
def test_overview_is_newest_first_with_the_latest_card(built: Built) -> None:
    at = app_on(built)
    runs = at.dataframe[0].value
    evals = at.dataframe[1].value
    assert list(runs["id"]) == sorted(runs["id"], reverse=True)
    assert list(evals["id"]) == sorted(evals["id"], reverse=True)
    latest = max(built.evaluations.values())
    assert any(label.startswith(f"Latest: #{latest} ") for label in metrics(at))
    assert "None" not in set(evals["accuracy"].astype(str))


def test_overview_holds_the_latest_against_its_baseline(tmp_path: Path) -> None:
    built = build_store(f"sqlite:///{tmp_path / 'r.db'}", cases=6, repeat=2)
    base = built.evaluations["a1"]
    store = Store.open(built.url)
    try:
        store.baselines.save_baseline(
            name="before", evaluation_id=base, report_hash="0" * 64, input_hashes={}, report={}
        )
        accuracy = {r.id: r.accuracy for r in store.catalog.evaluation_summaries()}
    finally:
        store.close()
    at = app_on(built)
    shown = metrics(at)
    label = next(k for k in shown if k.startswith("Baseline before"))
    assert shown[label] == f"{100 * accuracy[base]:.1f}%"
    latest = max(built.evaluations.values())
    delta = _metric(at, next(k for k in shown if k.startswith("Latest:"))).delta
    assert delta == delta_shown(accuracy[latest] - accuracy[base]) or (not delta)


@SQLITE_ONLY
def test_trends_plot_by_recording_date_one_line_per_model_tier_rules(built: Built) -> None:
    at = app_on(built, "trends")
    table = next(t for t in html_tables(at) if t and "recorded" in t[0])
    assert all(row["recorded"] != "—" for row in table)
    assert any("recording date" in c.value for c in at.caption)
    # one line per model · tier · rule set, each point saying when its run was recorded
    (lines,) = html_lines(at)
    drawn = {
        f"{r['model']} · {r['tier']} · {r['rule_set']}" for r in table if r["accuracy %"] != "—"
    }
    assert sorted(lines.legend) == sorted(drawn)
    shown = sorted(p.split("\n")[0] for p in lines.points)
    assert shown == sorted(
        f"evaluation: {r['evaluation']}" for r in table if r["accuracy %"] != "—"
    )
    assert all(f"recorded_at: {r['recorded']}" in "\n".join(lines.points) for r in table)


# ---------------------------------------------------------------- side by side


def _flip(built: Built, a: str, b: str) -> dict:
    flips = judge_compare(built.url, built.evaluations[a], built.evaluations[b])["flips"]
    assert flips, "the factory store must hold a flip between these evaluations"
    return flips[0]


@SQLITE_ONLY
def test_side_by_side_by_url_shows_both_judgments_and_the_cause(built: Built) -> None:
    flip = _flip(built, "a1", "a2")
    a, b = built.evaluations["a1"], built.evaluations["a2"]
    at = app_on(
        built, "side_by_side", a=str(a), b=str(b), case=flip["case"], rep=str(flip["repetition"])
    )
    shown = metrics(at)
    assert shown["Verdict A"] == flip["from"] and shown["Verdict B"] == flip["to"]
    assert any(f"cause: **{flip['cause']}**" in i.value for i in at.info)
    rules = next(t for t in html_tables(at) if "setting" in t[0])
    assert [row["setting"] for row in rules] == ["settings.free_text_rule"]


@SQLITE_ONLY
def test_side_by_side_marks_the_arguments_that_differ(built: Built) -> None:
    a, b = built.evaluations["a1"], built.evaluations["b1"]
    store = Store.open(built.url)
    try:
        checked = 0
        for flip in judge_compare(built.url, a, b)["flips"][:8]:
            bodies = []
            for ev in (a, b):
                trace = store.traces.evaluation_trace(ev, flip["case"], flip["repetition"])
                detail = store.traces.trace_detail(trace)
                bodies.append(detail.body)
            at = app_on(
                built,
                "side_by_side",
                a=str(a),
                b=str(b),
                case=flip["case"],
                rep=str(flip["repetition"]),
            )
            marked = [m.value for m in at.markdown if "differs:" in m.value]
            # expected from the bodies: a call whose twin (same round, same place) is another
            # tool or absent differs in every argument; else the arguments that differ
            expected = 0
            for mine, theirs in (bodies, bodies[::-1]):
                for r, rnd in enumerate(mine["rounds"]):
                    other = theirs["rounds"][r]["calls"] if r < len(theirs["rounds"]) else []
                    for i, call in enumerate(rnd["calls"]):
                        twin = other[i] if i < len(other) else None
                        if twin is None or twin["name"] != call["name"]:
                            expected += bool(call["arguments"])
                        else:
                            expected += bool(
                                differing_arguments(call["arguments"], twin["arguments"])
                            )
            assert len(marked) == expected
            checked += expected
        assert checked, "no flip of the factory store has a call that differs"
    finally:
        store.close()


@SQLITE_ONLY
def test_compare_links_each_flip_to_the_side_by_side_page(built: Built) -> None:
    a, b = built.evaluations["a1"], built.evaluations["a2"]
    at = app_on(built, "compare", a=str(a), b=str(b))
    table = at.dataframe[0].value
    for _, row in table.iterrows():
        url = row["side by side"]
        assert url.startswith(f"side_by_side?a={a}&b={b}&case={row['case']}")
    links = [p for p in at.get("page_link") if "side_by_side" in p.proto.page]
    assert links


def _opening(at: AppTest) -> tuple[str, int, dict[str, str]]:
    """The case, repetition and verdicts Side by side shows."""
    shown = metrics(at)
    return at.text_input(key="sbs_case").value, int(at.number_input(key="sbs_rep").value), shown


@SQLITE_ONLY
def test_side_by_side_opens_on_the_first_flip_and_names_a_missing_case(built: Built) -> None:
    a, b = built.evaluations["a1"], built.evaluations["a2"]
    flips = judge_compare(built.url, a, b)["flips"]
    in_order = sorted(flips, key=lambda f: (f["case"], f["repetition"]))
    # a PASS that became a FAIL first (what a reviewer of a new rule version looks at), else any
    regressions = [f for f in in_order if (f["from"], f["to"]) == ("PASS", "FAIL")]
    first = (regressions or in_order)[0]
    at = app_on(built, "side_by_side", a=str(a), b=str(b))
    case, rep, shown = _opening(at)
    assert (case, rep) == (first["case"], first["repetition"])
    assert (shown["Verdict A"], shown["Verdict B"]) == (first["from"], first["to"])
    assert any(f"cause: **{first['cause']}**" in i.value for i in at.info)
    # nothing flipped (A is B): B's first failing trace, by case and repetition
    ev = built.evaluations["b1"]
    store = Store.open(built.url)
    try:
        rows = list(store.judgments.iter_evaluation_rows(ev))
    finally:
        store.close()
    failing = min((r.case_key, r.repetition) for r in rows if r.verdict == "FAIL")
    case, rep, shown = _opening(app_on(built, "side_by_side", a=str(ev), b=str(ev)))
    assert (case, rep) == failing and shown["Verdict B"] == "FAIL"
    # emptied, it asks for a case
    at.text_input(key="sbs_case").set_value("").run()
    assert any("Pick a flipped case" in i.value for i in at.info)
    at = app_on(built, "side_by_side", a=str(a), b=str(b), case="no-such-case", rep="0")
    assert any("Neither evaluation judged" in w.value for w in at.warning)


@SQLITE_ONLY
def test_trace_viewer_counts_its_traces_and_searches(built: Built) -> None:
    run = built.runs["run-a"]
    at = app_on(built, "trace_viewer", run=str(run))
    assert any(c.value.startswith("36 trace(s) in this run") for c in at.caption)
    at.text_input(key="tv_case").set_value("c00001").run()
    assert any(c.value.startswith("3 trace(s) in this run match") for c in at.caption)
    assert len(at.selectbox(key="tv_trace").options) == 3


@SQLITE_ONLY
def test_live_traces_link_to_their_evidence(built: Built) -> None:
    at = app_on(built, "live")
    links = [p.proto for p in at.get("page_link")]
    viewer = [p for p in links if p.page == "trace" and "trace=" in p.query_string]
    assert len(viewer) == 20  # one per finished trace shown
    # the newest evaluation of another run on the suite and tier (run-c's): side by side with it
    pairs = [p for p in links if p.page == "side_by_side" and "case=" in p.query_string]
    assert len(pairs) == 20
    assert all(p.query_string.startswith(f"a={built.evaluations['c1']}&") for p in pairs)


def test_pass_k_says_not_scorable_when_repetitions_are_not_scored(tmp_path: Path) -> None:
    built = build_store(f"sqlite:///{tmp_path / 'r.db'}", cases=3, repeat=4, with_run_b=False)
    store = Store.open(built.url)
    try:  # every repetition of a1 is SKIP: four recorded, none scorable
        from rejudge.store._tables import _T_EJ

        with store.engine.begin() as c:
            c.execute(
                _T_EJ.update()
                .where(_T_EJ.c.evaluation_id == built.evaluations["a1"])
                .values(verdict="SKIP")
            )
    finally:
        store.close()
    at = app_on(built, "pass_k", ev=str(built.evaluations["a1"]))
    notes = " ".join(i.value for i in at.info)
    assert "up to 4 repetitions" in notes and "not scorable" in notes
    assert "scored at most once" not in notes


@SQLITE_ONLY
def test_pass_k_speaks_in_percent(built: Built) -> None:
    at = app_on(built, "pass_k", ev=str(built.evaluations["a1"]))
    curve = next(d.value for d in at.dataframe if "pass^k %" in d.value.columns)
    assert curve["pass^k %"].max() > 1  # percent, not a fraction
    table = next(d.value for d in at.dataframe if "pass rate" in d.value.columns)
    assert table["pass rate"].dropna().between(0, 100).all() and table["pass rate"].max() > 1


@SQLITE_ONLY
def test_overview_rows_link_to_their_pages(built: Built) -> None:
    at = app_on(built)
    runs, evals = at.dataframe[0].value, at.dataframe[1].value
    assert all(u == f"trace?run={i}" for u, i in zip(runs["traces link"], runs["id"], strict=True))
    assert all(u == f"report?ev={i}" for u, i in zip(evals["report"], evals["id"], strict=True))
    a1, a2 = built.evaluations["a1"], built.evaluations["a2"]
    row = evals[evals["id"] == a2].iloc[0]
    assert row["compare"] == f"compare?a={a1}&b={a2}"  # the rule change on the same run


def test_trends_open_on_a_readable_selection(tmp_path: Path) -> None:
    """Nine runs under two rule sets: the page opens on the newest rules and the newest six
    runs, drawn run by run (they were recorded seconds apart: no clock axis reading ':50')."""
    built = build_store(f"sqlite:///{tmp_path / 'r.db'}", cases=3, repeat=1, with_run_b=False)
    store = Store.open(built.url)
    try:
        from rejudge.judge import load_rule_set

        from rejudge.services import judge_run

        suite = store.suites.get_suite("retail-test")
        source = store.runs.get_run("run-a")
        rows = list(store.traces.iter_traces(source.id))
        for n in range(8):
            run = store.runs.create_run(
                name=f"r{n}", suite=suite, config=source.config.model_copy()
            )
            pks = store.suites.get_case_pks(suite.id)
            store.traces.save_traces([(run.id, pks[t.case_key], t.trace, None, None) for t in rows])
            judge_run(store, f"r{n}", "golden", load_rule_set("standard@2"))
    finally:
        store.close()
    at = app_on(built, "trends")
    assert at.selectbox(key="tr_tier").value == "golden"
    assert at.selectbox(key="tr_rules").value == "standard@2"
    assert len(at.multiselect(key="tr_runs").value) == 6
    assert metrics(at)["Evaluations"] == "6"
    # run by run, in recording order: the x axis names the newest six runs, no clock time
    (lines,) = html_lines(at)
    assert [label.split(" · ")[1] for label in lines.x_labels] == [f"r{n}" for n in range(2, 8)]
    assert len(lines.points) == 6


@SQLITE_ONLY
def test_trace_viewer_filters_steps_and_opens_a_named_repetition(built: Built) -> None:
    run, ev = built.runs["run-a"], built.evaluations["a1"]
    at = app_on(built, "trace_viewer", run=str(run), ev=str(ev))
    at.multiselect(key="tv_verdict").set_value(["FAIL"]).run()
    listed = next(d.value for d in at.dataframe if "verdict" in d.value.columns)
    assert len(listed) and set(listed["verdict"]) == {"FAIL"}
    first = at.selectbox(key="tv_trace").value
    at.button(key="tv_next").click().run()
    second = at.selectbox(key="tv_trace").value
    assert second != first
    at.button(key="tv_prev").click().run()
    assert at.selectbox(key="tv_trace").value == first
    # a cause of the evaluation, a tool the run called: each narrows the list
    at.multiselect(key="tv_verdict").set_value([]).run()
    tools = at.selectbox(key="tv_tool").options
    at.selectbox(key="tv_tool").set_value(tools[1]).run()
    listed = next(d.value for d in at.dataframe if "tools" in d.value.columns)
    assert len(listed) and all(tools[1] in t for t in listed["tools"])
    # the Report page's link: a case and a repetition
    at = app_on(built, "trace_viewer", run=str(run), ev=str(ev), tv_case="c00002", rep="1")
    assert (
        at.selectbox(key="tv_trace")
        .format_func(at.selectbox(key="tv_trace").value)
        .startswith("c00002 · r1 ")
    )
    assert "Tokens in / out" in metrics(at)


@SQLITE_ONLY
def test_side_by_side_says_when_both_sides_are_one_trace_and_diffs_the_text(built: Built) -> None:
    from rejudge.dashboard.textdiff import output_text, text_diff

    a1, a2, b1 = (built.evaluations[k] for k in ("a1", "a2", "b1"))
    same = app_on(built, "side_by_side", a=str(a1), b=str(a2), case="c00000", rep="0")
    assert any("same trace" in i.value for i in same.info)
    other = app_on(built, "side_by_side", a=str(a1), b=str(b1), case="c00000", rep="0")
    assert not any("same trace" in i.value for i in other.info)
    store = Store.open(built.url)
    try:
        bodies = [
            store.traces.trace_detail(store.traces.evaluation_trace(ev, "c00000", 0)).body
            for ev in (a1, b1)
        ]
    finally:
        store.close()
    expected = text_diff(output_text(bodies[0]), output_text(bodies[1]))
    shown = [c.value for c in other.code if c.language == "diff"]
    assert shown == ([expected] if expected else [])
    assert text_diff("[round 0]\nyes", "[round 0]\nno").splitlines()[-2:] == ["-yes", "+no"]


def test_a_trace_whose_cassette_is_gone_names_the_file_and_renders_the_rest(
    fresh_built: Built,
) -> None:
    run = fresh_built.runs["run-a"]
    store = Store.open(fresh_built.url)
    try:
        trace = store.traces.run_traces(run)[0]
        detail = store.traces.trace_detail(trace.id)
    finally:
        store.close()
    assert detail is not None and detail.cassette_path and fresh_built.cassettes_dir is not None
    gone = fresh_built.cassettes_dir / detail.cassette_path
    gone.unlink()
    at = app_on(
        fresh_built,
        "trace_viewer",
        run=str(run),
        trace=str(trace.id),
        ev=str(fresh_built.evaluations["a1"]),
    )
    warnings = [w.value.replace("\\", "") for w in at.warning]
    assert any("Evidence missing" in w and gone.name in w for w in warnings), warnings
    # the rest comes from the store and renders: the verdict head, the rounds, the figures
    heads = [h.proto.body for h in at.get("html") if 'class="rj-head"' in h.proto.body]
    assert len(heads) == 1 and 'class="rj-verdict"' in heads[0]
    assert "**Round 0**" in "\n".join(m.value for m in at.markdown)
    assert metrics(at)["Rounds"] != "—"
