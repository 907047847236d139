"""The static reports in a real browser: headless Chromium (Debian's, driven by Playwright)
opens `rejudge report --html` and `rejudge compare --html` files of the shipped τ-bench import
(200 traces) from file:// with every network request aborted and finds the headings and
figures (how long generating them takes is bench/html_report.py's to measure, not an assert's); the page of the hostile imported store fetches nothing, runs nothing and
holds no image, link or script. Skips only when Debian's chromium is absent."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from rejudge.dashboard.report_html import report_page
from rejudge.judge import load_rule_set
from rejudge.store import Store

from rejudge.cli import cli
from rejudge.services import evaluation_report, judge_run, trace_timeline
from tests.dashboard.factory import build_imported
from tests.dashboard.test_browser import CHROMIUM, CHROMIUM_FLAGS
from tests.judge.conftest import tau_store

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install -y chromium)"
    ),
]


@pytest.fixture(scope="module")
def tau_pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """report --html of the τ-bench run under the state tier, and compare --html of it against
    the golden tier, written by the CLI."""
    root = tmp_path_factory.mktemp("tau-html")
    url = f"sqlite:///{root / 'tau.db'}"
    store = tau_store(url)
    try:
        rules = load_rule_set("standard@2")
        state = judge_run(store, "tau", "state", rules).evaluation_id
        golden = judge_run(store, "tau", "golden", rules).evaluation_id
    finally:
        store.close()
    pages = {"report": root / "report.html", "compare": root / "compare.html"}
    runner = CliRunner()
    for argv in (
        ["report", str(state), "--html", str(pages["report"])],
        ["compare", str(golden), str(state), "--html", str(pages["compare"])],
    ):
        result = runner.invoke(cli, ["--db", url, *argv], env={"REJUDGE_DB": None})
        assert result.exit_code == 0, result.output
    return pages


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            yield chromium
        finally:
            chromium.close()


def _open_offline(browser, path: Path) -> tuple[object, list[str], list[str]]:
    """``path`` opened from disk with every request but the file itself aborted: the page, the
    seconds to its load event, the other requests it made, and console errors."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    requests: list[str] = []
    errors: list[str] = []
    own = path.as_uri()

    def guard(route) -> None:
        if route.request.url == own:
            route.continue_()
        else:
            route.abort()

    page.route("**/*", guard)
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(own, wait_until="load")
    return page, [r for r in requests if r != own], errors


def test_the_report_opens_offline_with_its_headings(browser, tau_pages) -> None:
    path = tau_pages["report"]
    assert path.stat().st_size < 5 * 1024 * 1024
    page, others, errors = _open_offline(browser, path)
    try:
        assert others == [] and errors == []
        headings = page.locator("h2").all_inner_texts()
        assert {"Summary", "Calibration"} <= set(headings)
        failing = [h for h in headings if h.startswith("Failing traces (")]
        assert failing and page.locator("details.rj-trace").count() == int(
            failing[0].split("(")[1].rstrip(")")
        )
        accuracy = page.locator('[data-key="accuracy"]')
        assert accuracy.is_visible() and "scored)" in accuracy.inner_text()
        box = accuracy.bounding_box()
        assert box is not None and box["y"] + box["height"] <= 900  # in the first viewport
        # the τ-bench verdicts are this run's calibration
        assert page.locator("h3", has_text="Against tau-bench").count() == 1
        # a folded trace opens on a click, no script needed
        first = page.locator("details.rj-trace").first
        first.locator(":scope > summary").click()
        assert first.locator("li.rj-step").first.is_visible()
        assert first.get_attribute("open") is not None
    finally:
        page.close()


def test_the_comparison_opens_offline_with_its_flips(browser, tau_pages) -> None:
    page, others, errors = _open_offline(browser, tau_pages["compare"])
    try:
        assert others == [] and errors == []
        flips = int(page.locator('[data-key="flips"]').get_attribute("data-value") or "-1")
        assert flips > 0
        assert page.locator("h2", has_text=f"Flips ({flips}) and their causes").count() == 1
        assert page.locator("details.rj-trace").count() == flips
    finally:
        page.close()


def test_hostile_evidence_fetches_nothing_and_runs_nothing(browser, tmp_path: Path) -> None:
    built = build_imported(f"sqlite:///{tmp_path / 'h.db'}", tmp_path / "c")
    store = Store.open(built.url)
    try:
        ev = built.evaluations["imported"]
        timelines = []
        for row in store.judgments.iter_evaluation_rows(ev):
            detail = store.traces.trace_detail(int(row.trace_id))
            assert detail is not None and detail.body is not None
            timelines.append(
                trace_timeline(detail.body, detail.case_body, detail.cassette_path, tmp_path / "c")
            )
        report = evaluation_report(store, ev, with_calibration=True)
    finally:
        store.close()
    path = tmp_path / "hostile.html"
    path.write_text(report_page(report, timelines), encoding="utf-8")
    page, others, errors = _open_offline(browser, path)
    try:
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        page.wait_for_timeout(200)  # what an opened fold would fetch, it would ask for now
        assert others == [] and errors == []
        live = page.evaluate(
            "document.querySelectorAll('img, a[href], script, iframe, object, embed').length"
        )
        assert live == 0
        text = page.locator("body").inner_text()
        assert "![pixel](http://203.0.113.9/pixel.png)" in text  # shown, as text
    finally:
        page.close()
