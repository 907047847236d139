"""Compare's opening state and its honest empties (AppTest, SQLite): without A and B in the
address it opens on the newest pair that can be compared; the sidebar's Compare link keeps the
pair; an accuracy with nothing scored reads "—" with no interval and no bar."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.dashboard.conftest import app_on, html_bars, html_tables, judge_compare, metrics
from tests.dashboard.factory import Built, build_store

SQLITE_ONLY = pytest.mark.parametrize("built", ["sqlite"], indirect=True)


@SQLITE_ONLY
def test_compare_opens_on_the_newest_comparable_pair(built: Built) -> None:
    # the newest evaluation (run-c: another harness mode, half the cases) compares with nothing
    assert max(built.evaluations.values()) == built.evaluations["c1"]
    at = app_on(built, "compare")
    a, b = at.selectbox(key="pick_a").value, at.selectbox(key="pick_b").value
    assert (a, b) == (built.evaluations["a2"], built.evaluations["b1"])
    assert not any("comparable: false" in e.value for e in at.error)


@SQLITE_ONLY
def test_the_sidebar_compare_link_keeps_the_pair(built: Built) -> None:
    a, b = built.evaluations["a1"], built.evaluations["b1"]
    at = app_on(built, "compare", a=str(a), b=str(b))
    at.switch_page("views/overview.py").run()
    links = [p for p in at.sidebar.get("page_link") if "compare" in p.proto.page]
    assert links and links[0].proto.query_string == f"a={a}&b={b}"


def test_nothing_scored_reads_a_dash_without_interval_or_bar(tmp_path: Path) -> None:
    built = build_store(f"sqlite:///{tmp_path / 'r.db'}", cases=3, repeat=1, with_run_b=False)
    from rejudge.store import Store

    store = Store.open(built.url)
    try:  # every judgment of a2 becomes SKIP: nothing scored
        from rejudge.store._tables import _T_EJ

        with store.engine.begin() as c:
            c.execute(
                _T_EJ.update()
                .where(_T_EJ.c.evaluation_id == built.evaluations["a2"])
                .values(verdict="SKIP")
            )
    finally:
        store.close()
    at = app_on(built, "compare", a=str(built.evaluations["a1"]), b=str(built.evaluations["a2"]))
    assert metrics(at)["Accuracy B"] == "—"
    captions = [c.value.replace("\\", "") for c in at.caption]
    assert any(c.startswith("no interval: nothing scored") for c in captions)
    assert not any("0.0% – 100.0%" in c for c in captions)
    # every group of B is listed with no bar, A's are drawn
    per_dimension = html_bars(at)[0]
    b_side = [bar for bar in per_dimension if bar[1] == "B"]
    assert b_side and all(w == 0 and t == "— (nothing scored)" for _l, _s, w, t in b_side)
    assert any(w > 0 for _l, s, w, _t in per_dimension if s == "A")


def _figures_only(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """The pages' comparisons, as the dashboard asks the compare service for them: each call's
    ``with_flips`` (a call that asks for every flip fails the page)."""
    from rejudge.dashboard import summary

    asked: list[bool] = []
    original = summary.compare_evaluations

    def figures(store: Any, a: int, b: int, *, with_flips: bool = True) -> Any:
        asked.append(with_flips)
        assert not with_flips, "the whole comparison was computed"
        return original(store, a, b, with_flips=with_flips)

    monkeypatch.setattr(summary, "compare_evaluations", figures)
    return asked


def test_compare_opens_on_one_page_of_flips(
    fresh_built: Built, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The figures and the first page of flips, with the right total, while the service was
    asked for that page alone and the whole comparison (every flip) was never computed; the
    next page reads the next flips."""
    from rejudge.dashboard import data, paging

    built = fresh_built
    a, b = built.evaluations["a1"], built.evaluations["b1"]
    every = judge_compare(built.url, a, b)["flips"]
    assert len(every) > 6  # more than two pages of 3
    asked: list[tuple[int, int | None, int]] = []
    original = data.comparison_flips

    def counting(store: Any, a: int, b: int, *, start: int = 0, limit: int | None = None) -> Any:
        got = original(store, a, b, start=start, limit=limit)
        asked.append((start, limit, len(got)))
        return got

    monkeypatch.setattr(data, "comparison_flips", counting)
    figures_only = _figures_only(monkeypatch)
    monkeypatch.setattr(paging, "FLIPS_PAGE", 3)
    at = app_on(built, "compare", a=str(a), b=str(b))

    def shown() -> list[tuple[str, int]]:
        table = at.dataframe[0].value
        return list(zip(table["case"], table["repetition"], strict=True))

    assert metrics(at)["Flips"] == str(len(every))
    assert shown() == [(f["case"], f["repetition"]) for f in every[:3]]
    assert any(c.value.startswith(f"{len(every)} flips match") for c in at.caption)
    assert asked == [(0, 3, 3)]
    at.number_input(key="flip_page").set_value(2).run()
    assert not at.exception, [e.value for e in at.exception]
    assert shown() == [(f["case"], f["repetition"]) for f in every[3:6]]
    assert asked == [(0, 3, 3), (3, 3, 3)]
    assert figures_only == [False]  # the figures, once


def test_rule_impact_shows_the_first_page_of_flips(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rule impact's flips table is the comparison's first page, under the right total, then its
    second, without the whole comparison computed: its figures, its first page and every flip's
    codes (the "Why" counts) are one read of the compare service, making only that page's
    flips; another page selects from every flip."""
    from rejudge.dashboard import data, paging

    # 40 cases: six flips of run-a under its second rule set
    built = build_store(f"sqlite:///{tmp_path / 'r.db'}", cases=40, repeat=3)
    a, b = built.evaluations["a1"], built.evaluations["a2"]
    every = judge_compare(built.url, a, b)["flips"]
    assert len(every) == 6  # two pages of 3

    figures_only = _figures_only(monkeypatch)
    first_flips: list[int] = []
    original = data.compare_first_flips

    def first(store: Any, a: int, b: int, *, limit: int) -> Any:
        first_flips.append(limit)
        found = original(store, a, b, limit=limit)
        assert len(found.comparison.flips) <= limit
        return found

    monkeypatch.setattr(data, "compare_first_flips", first)
    monkeypatch.setattr(paging, "FLIPS_PAGE", 3)
    at = app_on(built, "rule_impact", run=str(built.runs["run-a"]), ra=str(a), rb=str(b))
    assert any(h.value == f"Flipped cases ({len(every)})" for h in at.subheader)
    table = at.dataframe[-1].value
    assert list(zip(table["case"], table["repetition"], strict=True)) == [
        (f["case"], f["repetition"]) for f in every[:3]
    ]
    assert figures_only == [] and first_flips == [3]  # one read, its first page made
    at.number_input(key="ri_page").set_value(2).run()
    assert not at.exception, [e.value for e in at.exception]
    table = at.dataframe[-1].value
    assert list(zip(table["case"], table["repetition"], strict=True)) == [
        (f["case"], f["repetition"]) for f in every[3:6]
    ]


def test_side_by_side_says_a_full_list_is_the_first_flips(
    fresh_built: Built, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Side by side lists the first flips only (1,000): a full list's length is no count of the
    comparison's flips (the label read "1000 flips" for 25,466 at 100k). Its opening case is
    still the first PASS→FAIL flip of all, and one shorter than the list says its count."""
    from rejudge.dashboard import paging

    built = fresh_built
    a, b = built.evaluations["a1"], built.evaluations["b1"]
    every = judge_compare(built.url, a, b)["flips"]
    assert len(every) > 3
    monkeypatch.setattr(paging, "LISTED_FLIPS", 3)
    at = app_on(built, "side_by_side", a=str(a), b=str(b))
    assert at.selectbox(key="sbs_flip").label == "A flipped case (the first 3 flips)"
    ordered = sorted(every, key=lambda f: (f["case"], f["repetition"]))
    first = next((f for f in ordered if (f["from"], f["to"]) == ("PASS", "FAIL")), ordered[0])
    assert at.text_input(key="sbs_case").value == first["case"]

    monkeypatch.setattr(paging, "LISTED_FLIPS", len(every) + 1)
    at = app_on(built, "side_by_side", a=str(a), b=str(b))
    assert at.selectbox(key="sbs_flip").label == f"A flipped case ({len(every)} flips)"


@SQLITE_ONLY
def test_two_judges_show_their_agreement_table(built: Built) -> None:
    """The 2x2 table of two judges of the same traces (a static table since it stopped being
    ``st.table``, whose frontend chunk a cold page fetched) holds the judge's own counts."""
    a, b = built.evaluations["a1"], built.evaluations["a2"]
    judges = judge_compare(built.url, a, b)["judges"]["table"]
    at = app_on(built, "compare", a=str(a), b=str(b))
    assert not at.get("table")
    table = next(t for t in html_tables(at) if t and "B PASS" in t[0])
    assert table == [
        {"": "A PASS", "B PASS": str(judges["pass_pass"]), "B FAIL": str(judges["pass_fail"])},
        {"": "A FAIL", "B PASS": str(judges["fail_pass"]), "B FAIL": str(judges["fail_fail"])},
    ]
