"""Dashboard pages in a real browser: from navigation to content, cold and warm.

Starts ``rejudge --db URL dashboard`` on a free loopback port and drives Debian's chromium with
Playwright. A page is *ready* when its title heading is on screen, Streamlit's script has
finished (``stApp``'s ``data-test-script-state`` is ``notRunning``) and the main area's text
has stopped changing (it is timed at the last change; 0.8 s of quiet confirm it), which is when
a person can read it. Per page:

- *cold*: the first load after a fresh server start (no cached read, no cached resource; the
  server restarts before every page so no page warms another's cache);
- *warm*: the same address loaded again in a new tab (a new session, the server's caches warm);
- *between pages*: from the Overview, a click on the page's sidebar link (the same session).

The first start (process start to the health check answering) is timed too. Prints a Markdown
table of medians; nothing is asserted (a loaded machine makes a page slow, not wrong).

    python bench/dashboard_browser.py --db sqlite:////tmp/dash-demo.db [--repeat 3] [--json OUT]
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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def _server(db: str, cassettes: str | None) -> Iterator[tuple[int, float]]:
    port = _free_port()
    argv = [sys.executable, "-m", "rejudge", "--db", db]
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


def _load(browser, url: str, heading: str) -> float:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        started = time.perf_counter()
        page.goto(url, timeout=45_000)
        return _ready(page, heading) - started
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
    parser.add_argument("--json")
    args = parser.parse_args()
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    rows: dict[str, dict[str, list[float]]] = {}
    starts: list[float] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_FLAGS)
        try:
            for address, label, heading in PAGES:
                times = rows.setdefault(label, {"cold": [], "warm": [], "between": []})
                for _ in range(args.repeat):
                    with _server(args.db, args.cassettes) as (port, start_s):
                        starts.append(start_s)
                        base = f"http://127.0.0.1:{port}"
                        try:
                            times["cold"].append(_load(browser, f"{base}/{address}", heading))
                            times["warm"].append(_load(browser, f"{base}/{address}", heading))
                            if address:
                                times["between"].append(_between(browser, base, label, heading))
                        except Exception as exc:  # a page this checkout lacks: say so, go on
                            print(f"{label}: {type(exc).__name__}", file=sys.stderr)
                            break
        finally:
            browser.close()

    def med(values: list[float]) -> str:
        return f"{statistics.median(values):.2f}" if values else "—"

    print(f"server start to health check: median {med(starts)} s over {len(starts)} starts\n")
    print("| page | cold (s) | warm (s) | between pages (s) |")
    print("|---|---:|---:|---:|")
    for label, times in rows.items():
        print(
            f"| {label} | {med(times['cold'])} | {med(times['warm'])} | {med(times['between'])} |"
        )
    if args.json:
        Path(args.json).write_text(json.dumps({"start": starts, "pages": rows}, indent=2))


if __name__ == "__main__":
    main()
