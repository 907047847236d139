"""The server's CPU for a dashboard page's cold open in a real browser: what a page costs the
server, which a loaded machine stretches in wall time but hardly changes.

Starts the dashboard as ``bench/dashboard_browser.py`` does (``rejudge --db URL dashboard``, a
fresh server per open, with an empty folder for kept results, so each open computes), opens the
page in Debian's chromium and waits until it is ready (the same test as that bench), and reads
the CPU time (user + system) of every process of the server's session from ``/proc`` before the
navigation and once the page is ready. With ``--python`` given twice or more (two checkouts'
venvs) their opens alternate, page by page; ``--db`` given as often as ``--python`` opens each
interpreter's own store (a checkout whose migrations are newer upgrades a store the older one
would refuse: each its copy of the same store). ``--floor`` adds Streamlit's own floor app to
the rotation (``bench/dashboard_browser.py --floor``: the same pages, headings only, served by
the first interpreter's Streamlit on the first store), so that what is Streamlit's work (serving
the bundle, the session, the websocket) and what is the dashboard's can be told apart. Prints
each open and the medians; Linux only.

    python bench/dashboard_server_cpu.py --db sqlite:////work/m/p39c/synthetic-100000.db \
        --pages review,report --repeat 3 --python BEFORE/.venv/bin/python --python .venv/bin/python
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dashboard_browser as browser  # noqa: E402 - the bench beside this one

TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid: str) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # a process that ended meanwhile
        return None
    return text[text.rindex(")") + 2 :].split()  # the fields after the command's name


def _session_of_port(port: int) -> int:
    """The session of the server process listening on ``port`` (its command line names it)."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--server.port" in argv and str(port).encode() in argv:
            fields = _stat(pid)
            if fields is not None:
                return int(fields[3])
    raise RuntimeError(f"no server process for port {port}")


def _session_cpu(session: int) -> float:
    """User + system CPU seconds of the session's live processes."""
    total = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        fields = _stat(pid)
        if fields is not None and int(fields[3]) == session:
            total += int(fields[11]) + int(fields[12])
    return total / TICKS


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", action="append", required=True, help="one, or one a --python")
    parser.add_argument("--pages", default="review,report", help="addresses, comma-separated")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--python", action="append", help="an interpreter (default: this one)")
    parser.add_argument("--floor", action="store_true", help="also Streamlit's floor app")
    args = parser.parse_args()
    pythons = args.python or [sys.executable]
    if len(args.db) not in (1, len(pythons)):
        parser.error("give --db once, or once for each --python")
    dbs = dict(zip(pythons, args.db * len(pythons) if len(args.db) == 1 else args.db, strict=True))
    floor_app = None
    if args.floor:
        scratch = Path(tempfile.mkdtemp(prefix="rejudge-floor-"))
        floor_app = browser._floor_app(scratch, browser.PAGES, {})
        pythons = [*pythons, browser.FLOOR]
        dbs[browser.FLOOR] = args.db[0]
    headings = {address: heading for address, _label, heading in browser.PAGES}
    found: dict[tuple[str, str], list[tuple[float, float]]] = {}
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as pw:
        chrome = pw.chromium.launch(
            executable_path=chromium, headless=True, args=browser.CHROMIUM_FLAGS
        )
        try:
            for address in args.pages.split(","):
                for _ in range(args.repeat):
                    for python in pythons:
                        # an empty folder for kept results: the open computes (dashboard/kept.py)
                        os.environ["TMPDIR"] = tempfile.mkdtemp(prefix="rejudge-server-cpu-")
                        served = (
                            (pythons[0], floor_app) if python == browser.FLOOR else (python, None)
                        )
                        with browser._server(dbs[python], None, *served) as (port, _start):
                            session = _session_of_port(port)
                            page = chrome.new_page(viewport={"width": 1400, "height": 1000})
                            try:
                                cpu, started = _session_cpu(session), time.perf_counter()
                                page.goto(f"http://127.0.0.1:{port}/{address}", timeout=45_000)
                                ready = browser._ready(page, headings[address]) - started
                                cpu = _session_cpu(session) - cpu
                            finally:
                                page.close()
                        found.setdefault((address, python), []).append((cpu, ready))
                        print(f"{address} {python}: server CPU {cpu:.2f} s, ready {ready:.2f} s")
        finally:
            chrome.close()
    print("| page | python | server CPU, each open (s) | median | ready, median (s) |")
    print("|---|---|---|---:|---:|")
    for (address, python), opens in found.items():
        each = " / ".join(f"{cpu:.2f}" for cpu, _ in opens)
        cpu_median = statistics.median(cpu for cpu, _ in opens)
        ready_median = statistics.median(ready for _, ready in opens)
        print(f"| {address} | {python} | {each} | {cpu_median:.2f} | {ready_median:.2f} |")


if __name__ == "__main__":
    main()
