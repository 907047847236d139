"""The six questions of issue 39, asked of the demo store in headless Chromium as a new user
would: each starts at the Overview, counts its clicks (at most 3) and finds the answer inside
the first screen of a 1280x800 window, with nothing scrolled. The answers are checked against
what the services (the CLI's numbers) say, not against hard-coded figures."""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from rejudge.dashboard.exports import EXPORT_COLUMNS
from rejudge.store import Store

from rejudge.services import evaluation_agreement, evaluation_reasons, evaluation_report
from tests.dashboard.conftest import judge_compare
from tests.dashboard.test_browser import CHROMIUM
from tests.dashboard.test_browser_walk import READY, _settled, browser

__all__ = ["browser"]  # the module-scoped browser fixture, shared with the page walk

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed"),
]
WIDTH, HEIGHT = 1280, 800
MAX_CLICKS = 3
ROW_PX = 35  # a data grid's header and rows are 35 px tall (Streamlit's default)
MAIN = '[data-testid="stMain"]'


class Walk:
    """A page in a 1280x800 window, opened at the Overview, that counts the clicks made."""

    def __init__(self, page: Any, base: str) -> None:
        self.page, self.base, self.clicks = page, base, 0
        page.goto(f"{base}/", timeout=60_000)
        self.wait_for("Overview")

    def wait_for(self, heading: str) -> str:
        self.page.get_by_role("heading", name=heading).first.wait_for(timeout=60_000)
        self.page.locator(READY).wait_for(timeout=60_000)
        return _settled(self.page)

    def sidebar(self, label: str, heading: str) -> str:
        """Click a page's link in the sidebar; the page's main text once it has settled."""
        self.clicks += 1
        self.page.locator('[data-testid="stSidebar"]').get_by_role(
            "link", name=label, exact=True
        ).click()
        return self.wait_for(heading)

    def row(self, grid: Any, index: int, heading: str) -> str:
        """Click the middle of row ``index`` of a data grid (a cell, not its checkbox)."""
        grid.wait_for(timeout=60_000)
        box = grid.bounding_box()
        assert box is not None
        self.clicks += 1
        self.page.mouse.click(
            box["x"] + box["width"] * 0.3, box["y"] + ROW_PX * (index + 1) + ROW_PX / 2
        )
        return self.wait_for(heading)

    def click(self, locator: Any) -> None:
        self.clicks += 1
        locator.click()

    def query(self) -> dict[str, str]:
        return {k: v[0] for k, v in parse_qs(urlsplit(self.page.url).query).items()}

    def on_first_screen(self, locator: Any) -> str:
        """``locator``'s text, asserting it lies inside the first 1280x800 screen, unscrolled,
        and that no more than three clicks led here."""
        assert self.clicks <= MAX_CLICKS, self.clicks
        scrolled = self.page.evaluate(
            "() => window.scrollY > 0 || [...document.querySelectorAll('*')]"
            ".some(e => e.scrollTop > 0 && !e.closest('[data-testid=\"stDataFrame\"]'))"
        )
        assert not scrolled, "the page was scrolled"
        locator.first.wait_for(timeout=60_000)
        box = locator.first.bounding_box()
        assert box is not None, "not drawn"
        assert box["y"] >= 0 and box["y"] + box["height"] <= HEIGHT, box
        return str(locator.first.inner_text())


@pytest.fixture
def walk(browser: Any, demo_served: tuple[str, int]) -> Iterator[Walk]:
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT}, accept_downloads=True)
    try:
        yield Walk(page, f"http://127.0.0.1:{demo_served[1]}")
    finally:
        page.close()


def _store(url: str) -> Store:
    return Store.open(url, migrate=False)


def _figure(walk: Walk, label: str) -> str:
    """A headline figure's value, once it is asserted on the first screen."""
    figure = walk.page.locator(f"{MAIN} .rj-figure").filter(
        has=walk.page.locator(".rj-figure-label", has_text=label)
    )
    walk.on_first_screen(figure)
    return str(figure.first.locator(".rj-figure-value").inner_text())


def _table(walk: Walk, has_text: str) -> list[dict[str, str]]:
    """A static table (``rj-table``) holding ``has_text``, asserted on the first screen."""
    table = walk.page.locator(f"{MAIN} table.rj-table", has_text=has_text)
    walk.on_first_screen(table)
    heads = [h.inner_text().strip() for h in table.first.locator("thead th").all()]
    return [
        dict(zip(heads, [c.inner_text().strip() for c in tr.locator("td").all()], strict=True))
        for tr in table.first.locator("tbody tr").all()
    ]


def test_a_why_did_this_case_fail(walk: Walk, demo_served: tuple[str, int]) -> None:
    walk.sidebar("Report", "Report")
    ev = int(walk.query()["ev"])
    store = _store(demo_served[0])
    try:
        failing = [c for c in evaluation_report(store, ev).cases if c.verdict == "FAIL"]
    finally:
        store.close()
    assert failing, "the opening evaluation has a FAIL to explain"
    # the cases list FAILs first: its first row is the first FAIL of the report
    walk.row(walk.page.locator(f'{MAIN} [data-testid="stDataFrame"]').first, 0, "Trace viewer")
    head = walk.on_first_screen(walk.page.locator(".rj-head"))
    assert walk.on_first_screen(walk.page.locator(".rj-verdict")) == "FAIL"
    causes = walk.on_first_screen(walk.page.locator(".rj-causes"))
    assert causes == "Causes: " + (", ".join(failing[0].taxonomy) or "none named")
    assert f"{failing[0].case} · r{failing[0].repetition}" in head
    assert walk.query()["ev"] == str(ev)
    # the evidence is folded below the head: its long sections are closed expanders
    folded = walk.page.locator(f'{MAIN} [data-testid="stExpander"] details:not([open])')
    assert folded.count() >= 2


def test_b_what_flipped_between_two_rule_versions_and_why(
    walk: Walk, demo_served: tuple[str, int]
) -> None:
    walk.sidebar("Rule impact", "Rule impact")
    query = walk.query()
    expected = judge_compare(demo_served[0], int(query["ra"]), int(query["rb"]))
    flips = len(expected["flips"])
    assert flips > 0 and _figure(walk, "Flips") == str(flips)
    why = _table(walk, "flips it likely explains")
    assert why[-1]["setting"] == "(none of them)"
    # every flip is explained by a changed setting: none is left to "(none of them)"
    assert why[-1]["flips it likely explains"] == "0"
    named = {row["setting"] for row in why[:-1] if int(row["flips it likely explains"]) > 0}
    assert named, why
    assert all(int(row["flips it likely explains"]) <= flips for row in why)


def test_c_does_the_state_tier_agree_with_tau_bench(
    walk: Walk, demo_served: tuple[str, int]
) -> None:
    walk.sidebar("Agreement", "Agreement with an external verdict")
    ev = int(walk.query()["ev"])
    store = _store(demo_served[0])
    try:
        agreement = evaluation_agreement(store, ev)
    finally:
        store.close()
    state = agreement.tier("state")
    assert state is not None and state.evaluation == ev, "opens on the state tier"
    table = state.table
    agreed = table.pass_1 + table.fail_0
    shown = _figure(walk, "state agrees")
    assert shown.endswith(f"({agreed} of {table.total})"), shown
    # where not: the list puts disagreements first; its first row opens that trace, whose
    # head says what the state tier compared and which fields differ
    walk.row(walk.page.locator(f'{MAIN} [data-testid="stDataFrame"]').first, 0, "Trace viewer")
    compared = walk.on_first_screen(walk.page.locator(".rj-compared"))
    assert compared.startswith("Compared: the final state after re-executing")
    verdict = walk.on_first_screen(walk.page.locator(".rj-verdict"))
    if verdict == "FAIL" and "differ in" in compared:
        diff = _table(walk, "expected (golden)")
        assert diff and all(row["expected (golden)"] != row["actual"] for row in diff)
    else:
        assert "the two are equal" in compared or "differ" in compared


def test_d_which_model_is_better_on_tau2(walk: Walk, demo_served: tuple[str, int]) -> None:
    walk.sidebar("Models", "Models")
    assert walk.query()["suite"].startswith("tau2")
    rates = _table(walk, "pass rate [95% interval]")
    assert len(rates) >= 2
    store = _store(demo_served[0])
    try:
        for row in rates:
            summary = evaluation_report(store, int(row["evaluation"].lstrip("#"))).summary
            counts = summary.verdict_counts
            scored = counts.PASS + counts.FAIL
            shown = row["pass rate [95% interval] (PASS of scored)"]
            assert shown.endswith(f"({counts.PASS} of {scored})"), shown
            assert shown.startswith(f"{100 * counts.PASS / scored:.1f}% [")
    finally:
        store.close()
    # ranked: the better run first
    firsts = [float(r["pass rate [95% interval] (PASS of scored)"].split("%")[0]) for r in rates]
    assert firsts == sorted(firsts, reverse=True)


def test_e_is_the_live_run_healthy(walk: Walk, demo_served: tuple[str, int]) -> None:
    walk.sidebar("Live monitor", "Live monitor")
    store = _store(demo_served[0])
    try:
        runs = {r.run: r.id for r in store.catalog.run_summaries()}
        statuses = store.catalog.trace_statuses()
    finally:
        store.close()
    # the imported τ-bench run has episodes cut at their step limit: pick it (two clicks)
    run_id = runs["tau-bench-gpt-4o-airline"]
    walk.click(walk.page.locator(f'{MAIN} [data-testid="stSelectbox"]').first)
    walk.click(walk.page.get_by_role("option", name="tau-bench-gpt-4o-airline", exact=False).first)
    walk.page.wait_for_function(f"() => location.search.includes('run={run_id}')", timeout=60_000)
    text = walk.wait_for("Live monitor")
    step_limit = dict(statuses[run_id].counts).get("step_limit", 0)
    assert step_limit > 0 and _figure(walk, "Step limit") == str(step_limit)
    assert "shown once, not refreshed" in text
    # plain replies read as replies; "no call" is left for an episode that did not complete
    for line in text.splitlines():
        if "⚠ no call" in line:
            assert "step_limit" in line or "error" in line, line
    assert "reply to the user" in text
    # a finished run is not refreshed: the script stays idle and the page the same
    time.sleep(5)
    assert walk.page.locator(READY).count() == 1
    assert walk.page.locator(MAIN).inner_text() == text


def test_f_export_what_i_see(walk: Walk, demo_served: tuple[str, int]) -> None:
    walk.sidebar("Report", "Report")
    ev = int(walk.query()["ev"])
    button = walk.page.get_by_role("button", name="Download CSV")
    walk.on_first_screen(button)
    with walk.page.expect_download(timeout=60_000) as info:
        walk.click(button)
    path = info.value.path()
    assert path is not None
    with open(path, encoding="utf-8") as handle:
        rows = list(csv.DictReader(io.StringIO(handle.read())))
    assert walk.clicks <= MAX_CLICKS
    store = _store(demo_served[0])
    try:
        summary = next(e for e in store.catalog.evaluation_summaries(ids=[ev]))
        report = evaluation_report(store, ev)
        reasons = evaluation_reasons(store, ev)
    finally:
        store.close()
    assert rows and tuple(rows[0]) == EXPORT_COLUMNS
    assert len(rows) == len(report.cases)
    by_case = {(c.case, c.repetition): c for c in report.cases}
    for row in rows:
        assert (row["run"], row["model"], row["tier"], row["rules"]) == (
            summary.run,
            summary.model,
            summary.tier,
            summary.rule_set,
        )
        case = by_case[(row["case"], int(row["repetition"]))]
        assert row["verdict"] == case.verdict and row["causes"] == "; ".join(case.taxonomy)
        said = reasons.get((case.case, case.repetition), ())
        assert row["reasons"] == " | ".join(" ".join(r.split()) for r in said)
    assert any(r["verdict"] == "FAIL" and r["reasons"] for r in rows)
