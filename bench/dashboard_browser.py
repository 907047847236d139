"""Dashboard pages in a real browser: from navigation to content, cold and warm.

Starts ``rejudge --db URL dashboard`` on a free loopback port and drives Debian's chromium with
Playwright. A page is *ready* when its title heading is on screen, Streamlit's script has
finished (``stApp``'s ``data-test-script-state`` is ``notRunning``) and the main area's text
has stopped changing (it is timed at the last change; 0.8 s of quiet confirm it), which is when
a person can read it. Per page:

- *cold*: the first load after a fresh server start (no cached read, no cached resource; the
  server restarts before every page so no page warms another's cache);
- *warm*: the same page reloaded (a new session, the server's caches warm, and the browser's
  cache too: Streamlit's hashed bundles are served ``immutable``). ``--warm new-context`` loads it
  in a second fresh browser context instead, which re-downloads and re-parses every bundle (what
  this script measured as warm before 2026-12-02);
- *between pages*: from the Overview, a click on the page's sidebar link (the same session).

The first start (process start to the health check answering) is timed too. Prints a Markdown
table of medians; nothing is asserted (a loaded machine makes a page slow, not wrong).

``--floor`` measures Streamlit's own floor beside the app, in alternating rounds: an app with the
same page configuration, the same eleven pages and sidebar links, each page only its heading.
No page of the dashboard can be ready sooner than its floor page on the same machine, so the
ratio of the two says what the dashboard's own work costs.

    python bench/dashboard_browser.py --db sqlite:////tmp/dash-demo.db [--repeat 3]
        [--warm reload|new-context] [--python PYTHON] [--floor] [--pages compare,review] [--json OUT]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# (address, sidebar label, heading): every page of the app as a person opens it
PAGES = [
    ("", "Overview", "Overview"),
    ("compare", "Compare", "Compare"),
    ("rule_impact", "Rule impact", "Rule impact"),
    ("trace", "Trace viewer", "Trace viewer"),
    ("side_by_side", "Side by side", "Side by side"),
    ("pass_k", "pass^k", "pass^k and consistency"),
    ("agreement", "Agreement", "Agreement with an external verdict"),
    ("review", "Review", "Review"),
    ("live", "Live monitor", "Live monitor"),
    ("trends", "Trends", "Trends"),
    ("report", "Report", "Report"),
]
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
READY = '[data-testid="stApp"][data-test-script-state="notRunning"]'
FLOOR = "floor"
# the floor app: the dashboard's page configuration and navigation, no content but headings
FLOOR_APP = """
import streamlit as st

st.set_option("client.toolbarMode", "minimal")
st.set_page_config(page_title="rejudge", page_icon="\u2696\ufe0f", layout="wide")
PAGES = {pages!r}


def _page(heading):
    def show():
        st.title(heading)

    return show


pages = [
    st.Page(_page(heading), title=label, url_path=address or "home", default=not address)
    for address, label, heading in PAGES
]
page = st.navigation(pages, position="hidden")
with st.sidebar:
    for entry in pages:
        st.page_link(entry, label=entry.title)
page.run()
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _floor_app(folder: Path) -> Path:
    path = folder / "floor_app.py"
    path.write_text(FLOOR_APP.format(pages=PAGES))
    return path


@contextlib.contextmanager
def _server(
    db: str, cassettes: str | None, python: str, floor_app: Path | None = None
) -> Iterator[tuple[int, float]]:
    port = _free_port()
    if floor_app is not None:  # served as `rejudge dashboard` serves the app, minus the preload
        argv = [python, "-m", "streamlit", "run", str(floor_app), "--server.headless", "true"]
        argv += ["--server.address", "127.0.0.1", "--server.port", str(port)]
        argv += ["--browser.gatherUsageStats", "false", "--client.toolbarMode", "minimal"]
        argv += ["--server.fileWatcherType", "none"]
    else:
        argv = [python, "-m", "rejudge", "--db", db]
        if cassettes:
            argv += ["--cassettes", cassettes]
        argv += ["dashboard", "--port", str(port)]
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError("the dashboard exited before answering") from None
                time.sleep(0.05)
        yield port, time.perf_counter() - started
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _ready(page, heading: str, quiet_s: float = 0.8) -> float:
    """Wait until the page is readable: its heading shown, the script finished and the main
    area's text unchanged for ``quiet_s`` (the elements of a finished run still mount for a
    moment). Returns the moment the text reached its final state (perf_counter)."""
    page.get_by_role("heading", name=heading).first.wait_for(timeout=45_000)
    main = page.locator('[data-testid="stMain"]')
    last, since = None, time.perf_counter()
    while True:
        page.locator(READY).wait_for(timeout=45_000)
        text = main.inner_text()
        now = time.perf_counter()
        if text != last:
            last, since = text, now
        elif now - since >= quiet_s:
            return since
        page.wait_for_timeout(50)


def _load(browser, url: str, heading: str, *, warm: str = "reload") -> tuple[float, float]:
    """(cold, warm): the first load in a fresh browser context, then the same page again,
    reloaded (``warm="reload"``) or in another fresh context (``"new-context"``)."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        started = time.perf_counter()
        page.goto(url, timeout=45_000)
        cold = _ready(page, heading) - started
        if warm == "reload":
            started = time.perf_counter()
            page.reload(timeout=45_000)
            return cold, _ready(page, heading) - started
    finally:
        page.close()
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        started = time.perf_counter()
        page.goto(url, timeout=45_000)
        return cold, _ready(page, heading) - started
    finally:
        page.close()


def _between(browser, base: str, label: str, heading: str) -> float:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(base + "/", timeout=45_000)
        _ready(page, "Overview")
        link = page.locator('[data-testid="stSidebar"] [data-testid="stPageLink"]', has_text=label)
        started = time.perf_counter()
        link.first.click()
        return _ready(page, heading) - started
    finally:
        page.close()


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--cassettes")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--warm", choices=("reload", "new-context"), default="reload")
    parser.add_argument(
        "--python",
        action="append",
        help="the interpreter whose rejudge serves the app (default: this one); given twice "
        "or more (e.g. two checkouts' venvs), their rounds alternate, so a before/after pair "
        "shares the machine's load",
    )
    parser.add_argument(
        "--floor",
        action="store_true",
        help="also measure Streamlit's floor (the same pages, headings only), rounds alternating",
    )
    parser.add_argument(
        "--pages",
        help="comma-separated addresses of the pages to measure (default: all; '' is Overview)",
    )
    parser.add_argument("--json")
    args = parser.parse_args()
    pages = PAGES
    if args.pages is not None:
        wanted = args.pages.split(",")
        pages = [p for p in PAGES if p[0] in wanted or (p[0] == "" and "overview" in wanted)]
    pythons = args.python or [sys.executable]
    scratch = Path(tempfile.mkdtemp(prefix="rejudge-floor-"))
    floor_app = _floor_app(scratch) if args.floor else None
    if args.floor:
        pythons = [*pythons, FLOOR]
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    rows = {py: {} for py in pythons}  # python -> page -> cold/warm/between -> seconds
    starts: dict[str, list[float]] = {py: [] for py in pythons}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_FLAGS)
        try:
            for address, label, heading in pages:
                failed: set[str] = set()
                for _ in range(args.repeat):
                    for py in pythons:
                        if py in failed:
                            continue
                        times = rows[py].setdefault(label, {"cold": [], "warm": [], "between": []})
                        served = (pythons[0], floor_app) if py == FLOOR else (py, None)
                        with _server(args.db, args.cassettes, *served) as (port, start_s):
                            starts[py].append(start_s)
                            base = f"http://127.0.0.1:{port}"
                            try:
                                cold, warm = _load(
                                    browser, f"{base}/{address}", heading, warm=args.warm
                                )
                                times["cold"].append(cold)
                                times["warm"].append(warm)
                                if address:
                                    times["between"].append(_between(browser, base, label, heading))
                            except Exception as exc:  # a page this checkout lacks: say so
                                print(f"{py}: {label}: {type(exc).__name__}", file=sys.stderr)
                                failed.add(py)
        finally:
            browser.close()
            shutil.rmtree(scratch, ignore_errors=True)

    def med(values: list[float]) -> str:
        return f"{statistics.median(values):.2f}" if values else "—"

    for py in pythons:
        if len(pythons) > 1:
            print(f"## {py}\n")
        print(
            f"server start to health check: median {med(starts[py])} s over "
            f"{len(starts[py])} starts\n"
        )
        print("| page | cold (s) | warm (s) | between pages (s) |")
        print("|---|---:|---:|---:|")
        for label, times in rows[py].items():
            print(
                f"| {label} | {med(times['cold'])} | {med(times['warm'])} "
                f"| {med(times['between'])} |"
            )
        print()
    if args.json:
        Path(args.json).write_text(
            json.dumps({py: {"start": starts[py], "pages": rows[py]} for py in pythons}, indent=2)
        )


if __name__ == "__main__":
    main()
