"""Every page in headless Chromium, as a person walks them: on the demo store (`rejudge demo`)
and on the world corpus (tests/data/world imported). Each page must show its heading and
content, no traceback and no exception box; every link on it points into the dashboard
(evidence is never a link); and a few things a person looks for are on screen. One browser for
the whole session; skips only when Debian's chromium is absent."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rejudge.store import Store

from tests.dashboard.factory import Built
from tests.dashboard.test_browser import CHROMIUM, CHROMIUM_FLAGS, _dashboard

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed"),
]
# (address, heading) of every page
PAGES = [
    ("", "Overview"),
    ("report", "Report"),
    ("compare", "Compare"),
    ("models", "Models"),
    ("rule_impact", "Rule impact"),
    ("trace", "Trace viewer"),
    ("side_by_side", "Side by side"),
    ("pass_k", "pass^k and consistency"),
    ("agreement", "Agreement with an external verdict"),
    ("review", "Review"),
    ("live", "Live monitor"),
    ("trends", "Trends"),
]
READY = '[data-testid="stApp"][data-test-script-state="notRunning"]'


# module scope, not session: Playwright's sync API runs an event loop in the main thread while
# it is open, and every later test that calls asyncio.run() (the recorder's) would fail
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the playwright package is missing: pip install -e '.[dev]'")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def world_served(
    world: Built, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Built, int]]:
    root = tmp_path_factory.mktemp("world-browser")
    with _dashboard(world.url, root, world.cassettes_dir) as (port, _proc):
        yield world, port


def _settled(page: Any, quiet_ms: int = 400, limit_s: float = 60.0) -> str:
    """The main area's text once the script has finished and the text stops changing (the
    elements of a finished run still mount for a moment after the script's state flips)."""
    import time

    deadline = time.monotonic() + limit_s
    main = page.locator('[data-testid="stMain"]')
    last, same = None, 0
    while time.monotonic() < deadline:
        page.locator(READY).wait_for(timeout=60_000)
        text = main.inner_text()
        same = same + 1 if text == last else 0
        if same >= 2:  # unchanged over two quiet spells
            return text
        last = text
        page.wait_for_timeout(quiet_ms)
    return last or ""


def _open(
    browser: Any, url: str, heading: str, expect: tuple[str, ...] = ()
) -> tuple[Any, str, list[str]]:
    """The page at ``url`` once ready: (page, the main area's text, its links' hrefs).

    ``expect``: texts that must be on screen; each is waited for (up to 60 s) before the text
    is read. On a loaded machine a finished script's widgets and metrics can mount after its
    markdown has been quiet for a while, so "settled" alone may read a page half drawn."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(url, timeout=60_000)
    page.get_by_role("heading", name=heading).first.wait_for(timeout=60_000)
    main = page.locator('[data-testid="stMain"]')
    for wanted in expect:
        main.get_by_text(wanted, exact=False).first.wait_for(timeout=60_000)
    text = _settled(page)
    hrefs = [a.get_attribute("href") or "" for a in main.locator("a[href]").all()]
    return page, text, hrefs


def _walk(
    browser: Any, base: str, expect: dict[str, tuple[str, ...]] | None = None
) -> dict[str, str]:
    seen: dict[str, str] = {}
    for address, heading in PAGES:
        wanted = (expect or {}).get(address, ())
        page, text, hrefs = _open(browser, f"{base}/{address}", heading, wanted)
        try:
            assert page.locator('[data-testid="stException"]').count() == 0, address
            assert "Traceback" not in text and "Error:" not in text[:200], (address, text[:500])
            # every link leads into the dashboard: evidence (URIs, model names) is never one
            outside = [h for h in hrefs if h.startswith(("http", "//")) and not h.startswith(base)]
            assert outside == [], (address, outside)
            seen[address] = text
        finally:
            page.close()
    return seen


def test_every_page_of_the_demo_store(browser: Any, demo_served: tuple[str, int]) -> None:
    url, port = demo_served
    base = f"http://127.0.0.1:{port}"
    seen = _walk(browser, base, {"trace": ("Round 0", "Tokens in / out")})
    assert "Accuracy = PASS / (PASS + FAIL)" in seen[""]
    assert "Top failures" in seen["report"] and "Download CSV" in seen["report"]
    assert "comparable: false" not in seen["compare"]
    # the opening pair says what it compares: two runs get a verdict, two judges who is stricter
    assert "Verdict:" in seen["compare"] or (
        "Judge comparison" in seen["compare"] and "stricter on" in seen["compare"]
    )
    # opens on the run with external verdicts
    # opens on the newest run with external verdicts (τ-bench's or one of τ²'s)
    assert "bench success" in seen["agreement"], seen["agreement"][:3000]
    assert "Round 0" in seen["trace"] and "Tokens in / out" in seen["trace"]
    assert "of 128 evaluation(s) shown" in seen["trends"] or "evaluation(s) shown" in seen["trends"]
    # the sidebar's Compare link keeps the pair opened last
    page, _text, _hrefs = _open(browser, f"{base}/compare?a=1&b=2", "Compare")
    try:
        page.locator('[data-testid="stSidebar"] a', has_text="Report").first.click()
        page.get_by_role("heading", name="Report").first.wait_for(timeout=60_000)
        page.locator(READY).wait_for(timeout=60_000)
        link = page.locator('[data-testid="stSidebar"] a', has_text="Compare").first
        assert (link.get_attribute("href") or "").endswith("compare?a=1&b=2")
    finally:
        page.close()


def test_every_page_of_the_world_corpus(browser: Any, world_served: tuple[Built, int]) -> None:
    world, port = world_served
    base = f"http://127.0.0.1:{port}"
    _walk(browser, base)
    store = Store.open(world.url)
    try:
        search = next(
            t.id
            for t in store.traces.run_traces(world.runs["world"])
            if "test_web_search_tool/" in (store.traces.trace_detail(t.id).cassette_path or "")
        )
    finally:
        store.close()
    page, text, _hrefs = _open(
        browser,
        f"{base}/trace?run={world.runs['world']}&trace={search}",
        "Trace viewer",
        ("server tool input · web_search", "Let me search more specifically"),
    )
    page.close()
    # a provider's search round: its blocks in order, labelled, the text after the search apart
    first = text.index("server tool input · web_search")
    assert first < text.index("server tool result · web_search_tool_result")
    assert "Let me search more specifically" in text


def test_the_trace_list_is_drawn_when_opened(browser: Any, demo_served: tuple[str, int]) -> None:
    _url, port = demo_served
    page, text, _hrefs = _open(browser, f"http://127.0.0.1:{port}/trace", "Trace viewer")
    try:
        main = page.locator('[data-testid="stMain"]')
        assert main.locator('[data-testid="stDataFrame"]').count() == 0  # closed: no grid yet
        main.locator('[data-testid="stExpander"] summary', has_text="List (").first.click()
        grid = main.locator('[data-testid="stDataFrame"]').first
        grid.wait_for(timeout=60_000)
        assert grid.is_visible() and "List (" in text
    finally:
        page.close()
