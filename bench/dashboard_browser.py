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
same page configuration, the same twelve pages and sidebar links, each page only its heading.
No page of the dashboard can be ready sooner than its floor page on the same machine, so the
ratio of the two says what the dashboard's own work costs.

``--synthetic N`` serves a store of N synthetic traces instead of ``--db`` (issue 39: "every page
under 2 s cold on a 100k-trace store"): built once under ``--workdir`` through the store's bulk
path (``tests/dashboard/factory.py``: ``save_traces`` and ``save_judgments`` in batches; run-a
judged under rules t@1 and t@2, run-b under t@1, 10 repetitions per case, so N traces carry
1.5 N judgments) and reused when present.

``--elements`` measures what one Streamlit element costs a page on first use, instead of the
dashboard: the floor app's pages become a bare page (its heading) and one page per element of
:data:`ELEMENTS` (the heading and that element), served by Streamlit alone; the table adds each
page's cold and warm time over the bare page. No store is read (``--db`` is not needed).

    python bench/dashboard_browser.py --db sqlite:////tmp/dash-demo.db [--repeat 3]
        [--warm reload|new-context] [--python PYTHON] [--floor] [--pages compare,review] [--json OUT]
    python bench/dashboard_browser.py --synthetic 100000 [--workdir /tmp/rejudge-browser-bench]
    python bench/dashboard_browser.py --elements [--repeat 5] [--json OUT]
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
    ("models", "Models", "Models"),
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
# --elements: one page per element, each as a page of the dashboard would draw it
ELEMENTS = {
    "bare": "",
    "html table": "st.html('<table><tr><th>case</th><td>c001</td></tr></table>')",
    "json": "st.json({'city': 'Paris', 'days': [1, 2, 3]})",
    "metric": "st.metric('Accuracy', '72.2%', '+3.1 pts')",
    "dataframe": "st.dataframe({'case': [f'c{i:03}' for i in range(30)], 'passed': [1] * 30})",
    "text_input": "st.text_input('Filter')",
    "multiselect": "st.multiselect('Runs', ['a', 'b', 'c'], default=['a'])",
    "selectbox": "st.selectbox('Tier', ['golden', 'state'])",
    "vega_lite_chart": "st.vega_lite_chart({'x': [1, 2, 3], 'y': [3, 1, 2]}, {'mark': 'line', "
    "'encoding': {'x': {'field': 'x', 'type': 'quantitative'}, "
    "'y': {'field': 'y', 'type': 'quantitative'}}})",
    "code": "st.code('def f(x):\\n    return x + 1\\n' * 10, language='python')",
    "expander": "st.expander('More').write('inside')",
    "tabs": "st.tabs(['A', 'B'])[0].write('inside')",
    "download_button": "st.download_button('CSV', 'a,b\\n1,2\\n', file_name='x.csv')",
}
# the floor app: the dashboard's page configuration and navigation, no content but headings
# (and, with --elements, the page's element under it)
FLOOR_APP = """
import streamlit as st

st.set_option("client.toolbarMode", "minimal")
st.set_page_config(page_title="rejudge", page_icon="\u2696\ufe0f", layout="wide")
PAGES = {pages!r}
BODIES = {bodies!r}


def _page(heading, body):
    def show():
        st.title(heading)
        exec(body)

    return show


pages = [
    st.Page(
        _page(heading, BODIES.get(label, "")),
        title=label,
        url_path=address or "home",
        default=not address,
    )
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


def _floor_app(folder: Path, pages: list[tuple[str, str, str]], bodies: dict[str, str]) -> Path:
    path = folder / "floor_app.py"
    path.write_text(FLOOR_APP.format(pages=pages, bodies=bodies))
    return path


def _element_pages() -> list[tuple[str, str, str]]:
    """(address, label, heading) per element; the bare page is the app's home."""
    return [
        ("" if name == "bare" else name.replace(" ", "_"), name, f"Probe {name}")
        for name in ELEMENTS
    ]


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
    # PYTHONSAFEPATH: `python -m rejudge` must not import the package from the working folder
    # (run from one checkout's root, another checkout's interpreter served a mix of the two and
    # timed out on every page: the 2026-12-06 runs said so)
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env={**os.environ, "PYTHONSAFEPATH": "1"},
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
        with contextlib.suppress(ProcessLookupError):  # a server that exited by itself
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


def _between(browser, base: str, label: str, heading: str, home: str) -> float:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(base + "/", timeout=45_000)
        _ready(page, home)
        link = page.locator('[data-testid="stSidebar"] [data-testid="stPageLink"]', has_text=label)
        started = time.perf_counter()
        link.first.click()
        return _ready(page, heading) - started
    finally:
        page.close()


SYNTHETIC_REPEAT = 10  # repetitions per case in a --synthetic store


def synthetic_store(workdir: Path, traces: int) -> str:
    """The URL of a store of ``traces`` synthetic traces under ``workdir``, built through the
    store's bulk path the first time (two runs of ``traces / 2`` each) and reused after."""
    sys.path.insert(0, str(ROOT))
    from tests.dashboard.factory import build_store

    workdir.mkdir(parents=True, exist_ok=True)
    db, done = workdir / f"synthetic-{traces}.db", workdir / f"synthetic-{traces}.json"
    url = f"sqlite:///{db}"
    if db.exists() and done.exists():
        return url
    db.unlink(missing_ok=True)
    cases = max(1, traces // (2 * SYNTHETIC_REPEAT))
    started = time.perf_counter()
    built = build_store(url, cases=cases, repeat=SYNTHETIC_REPEAT, seed=11)
    took = time.perf_counter() - started
    info = {"traces": built.traces, "judgments": built.judgments, "build_s": round(took, 1)}
    done.write_text(json.dumps(info))
    print(
        f"built {db}: {built.traces:,} traces, {built.judgments:,} judgments in {took:.0f} s "
        f"({db.stat().st_size / 1e6:.0f} MB)",
        file=sys.stderr,
    )
    return url


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="the store the dashboard serves (not with --elements)")
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
        help="comma-separated addresses or labels of the pages to measure (default: all; "
        "'' is the home page: Overview, or bare with --elements)",
    )
    parser.add_argument(
        "--elements",
        action="store_true",
        help="measure what each Streamlit element costs on first use (a bare page and one page "
        "per element, Streamlit alone) instead of the dashboard",
    )
    parser.add_argument(
        "--synthetic",
        type=int,
        metavar="N",
        help="serve a store of N synthetic traces (built under --workdir once) instead of --db",
    )
    parser.add_argument("--workdir", default="/tmp/rejudge-browser-bench")
    parser.add_argument("--json")
    args = parser.parse_args()
    if args.synthetic:
        args.db = synthetic_store(Path(args.workdir), args.synthetic)
    if not args.elements and not args.db:
        parser.error("--db is required (or --synthetic N, or --elements)")
    app_pages = _element_pages() if args.elements else PAGES
    pages = app_pages
    if args.pages is not None:
        wanted = args.pages.split(",")
        pages = [
            p
            for p in app_pages
            if p[0] in wanted or p[1] in wanted or (p[0] == "" and "overview" in wanted)
        ]
    home = app_pages[0][2]
    pythons = args.python or [sys.executable]
    floor_python = pythons[0]  # the floor app is served by the first interpreter's Streamlit
    scratch = Path(tempfile.mkdtemp(prefix="rejudge-floor-"))
    floor_app = None
    if args.floor or args.elements:
        floor_app = _floor_app(scratch, app_pages, ELEMENTS if args.elements else {})
    if args.elements:
        pythons = [FLOOR]
    elif args.floor:
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
                        served = (floor_python, floor_app) if py == FLOOR else (py, None)
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
                                    times["between"].append(
                                        _between(browser, base, label, heading, home)
                                    )
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
        bare = rows[py].get("bare") if args.elements else None
        if bare is not None and not (bare["cold"] and bare["warm"]):
            bare = None  # the bare page failed: nothing to subtract
        print(
            "| page | cold (s) | warm (s) | between pages (s) |"
            + (" cold over bare (s) | warm over bare (s) |" if bare else "")
        )
        print("|---|---:|---:|---:|" + ("---:|---:|" if bare else ""))
        for label, times in rows[py].items():
            line = f"| {label} | {med(times['cold'])} | {med(times['warm'])} "
            line += f"| {med(times['between'])} |"
            if bare:
                for kind in ("cold", "warm"):
                    if times[kind]:
                        over = statistics.median(times[kind]) - statistics.median(bare[kind])
                        line += f" {over:+.2f} |"
                    else:
                        line += " — |"
            print(line)
        print()
    if args.json:
        Path(args.json).write_text(
            json.dumps({py: {"start": starts[py], "pages": rows[py]} for py in pythons}, indent=2)
        )


if __name__ == "__main__":
    main()
