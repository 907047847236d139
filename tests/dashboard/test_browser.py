"""`rejudge dashboard` for real: the command starts Streamlit on a free loopback port and headless
Chromium (Debian's package, driven by Playwright) opens the compare page, reads the flip count
and saves a screenshot. Skips only when Debian's chromium is absent."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from click.testing import CliRunner
from rejudge.store import Store

from rejudge.cli import _COMMANDS, cli
from rejudge.cli.dashboard import dashboard, dashboard_env, streamlit_command
from tests.conftest import PG_URL_PREFIX, _admin, drop_schema, require_postgres
from tests.dashboard.conftest import judge_compare
from tests.dashboard.factory import GZIP, PYDANTIC_AI, Built, build_imported, build_store

CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
)
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _rejudge_argv(*args: str) -> list[str]:
    """`rejudge ARGS` as a subprocess (registering the command if the shell does not yet)."""
    if "dashboard" in _COMMANDS:
        return [sys.executable, "-m", "rejudge", *args]
    boot = (
        "from rejudge.cli import cli; from rejudge.cli.dashboard import dashboard; "
        "cli.add_command(dashboard); cli.main(prog_name='rejudge')"
    )
    return [sys.executable, "-c", boot, *args]


def test_command_line_is_headless_on_loopback_and_never_holds_the_store(tmp_path: Path) -> None:
    url = "postgresql+psycopg://u:hunter2@127.0.0.1/db"
    command = streamlit_command(host="127.0.0.1", port=8765)
    assert command[1:4] == ["-m", "rejudge.dashboard.serve", "run"]  # Streamlit's CLI, preloaded
    assert command[4].endswith("dashboard/app.py") and Path(command[4]).is_file()
    pairs = dict(zip(command[5::2], command[6::2], strict=True))
    assert pairs == {
        "--server.headless": "true",
        "--server.address": "127.0.0.1",
        "--server.port": "8765",
        "--browser.gatherUsageStats": "false",
        "--client.toolbarMode": "minimal",
        "--server.fileWatcherType": "none",
    }
    assert "--" not in command and not any("hunter2" in part for part in command)
    # the store goes in the app's environment, which other local users cannot read
    assert dashboard_env(url, tmp_path / "c") == {
        "REJUDGE_DASHBOARD_DB": url,
        "REJUDGE_DASHBOARD_CASSETTES": str((tmp_path / "c").resolve()),
    }


def test_dry_run_through_the_cli_migrates_and_prints(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setitem(cli.commands, "dashboard", dashboard)
    url = f"sqlite:///{tmp_path / 'r.db'}"
    result = CliRunner().invoke(
        cli, ["--db", url, "dashboard", "--port", "9999", "--dry-run"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert "--server.port 9999" in result.output and f"REJUDGE_DASHBOARD_DB={url}" in result.output
    assert (tmp_path / "r.db").exists()  # the store was opened (and migrated) first
    bad = CliRunner().invoke(cli, ["--db", "mysql://x/y", "dashboard", "--dry-run"])
    assert bad.exit_code == 1 and "Error:" in bad.output


@contextlib.contextmanager
def _dashboard(
    url: str, tmp_path: Path, cassettes: Path | None = None
) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """`rejudge --db URL dashboard` as a user starts it, until its health check answers."""
    port = _free_port()
    log = open(tmp_path / "dashboard.log", "wb")  # noqa: SIM115 - closed below
    folder = ["--cassettes", str(cassettes)] if cassettes is not None else []
    proc = subprocess.Popen(
        _rejudge_argv("--db", url, *folder, "dashboard", "--port", str(port)),
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(
                    f"http://127.0.0.1:{port}/_stcore/health", timeout=2
                ) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                log.flush()
                pytest.fail(
                    "rejudge dashboard did not come up: "
                    + (tmp_path / "dashboard.log").read_text(errors="replace")[-2000:]
                )
            time.sleep(0.3)
        yield port, proc
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(timeout=5)
        log.close()


def _argv_holding(needle: str) -> list[tuple[int, str]]:
    """Every live process whose command line holds ``needle`` (read from /proc/*/cmdline)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if needle in argv:
            found.append((int(entry.name), argv))
    return found


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Built, Built, int]]:
    """A factory store with an ad-hoc import of real cassettes beside it, served for real."""
    url = f"sqlite:///{tmp_path / 'rejudge.db'}"
    built = build_store(url, cases=12, repeat=3)
    imported = build_imported(url, tmp_path / "cassettes")
    with _dashboard(url, tmp_path, tmp_path / "cassettes") as (port, _proc):
        yield built, imported, port


@pytest.mark.slow
@pytest.mark.postgres
def test_a_password_in_the_store_url_is_in_no_process_argv(tmp_path: Path) -> None:
    """`rejudge --db postgresql+psycopg://user:PASSWORD@host/db dashboard` leaves no process
    (neither itself nor Streamlit) whose argv other local users could read the password in."""
    require_postgres()
    password = f"pw-{uuid.uuid4().hex[:16]}"
    schema = f"rejudge_argv_{uuid.uuid4().hex[:10]}"
    _admin(f'CREATE SCHEMA "{schema}"')
    # trust authentication accepts any password, so the URL works and still holds one
    url = PG_URL_PREFIX.replace("postgres@", f"postgres:{password}@", 1)
    url += f"?options=-csearch_path%3D{schema}"
    try:
        with _dashboard(url, tmp_path) as (port, proc):
            assert proc.poll() is None
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as r:
                assert r.status == 200
            assert _argv_holding(password) == []
            # the started process became Streamlit (exec), and the store reached it anyway
            own = (Path("/proc") / str(proc.pid) / "cmdline").read_bytes().split(b"\0")
            assert b"rejudge.dashboard.serve" in own and b"run" in own
            environ = (Path("/proc") / str(proc.pid) / "environ").read_bytes()
            assert password.encode() in environ
    finally:
        drop_schema(schema)


@pytest.mark.slow
@pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install -y chromium)"
)
def test_compare_page_in_headless_chromium(served: tuple[Built, int], tmp_path: Path) -> None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the playwright package is missing: pip install -e '.[dev]'")
    built, _imported, port = served
    a, b = built.evaluations["a1"], built.evaluations["b1"]
    expected = judge_compare(built.url, a, b)
    shot = tmp_path / "compare.png"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"http://127.0.0.1:{port}/compare?a={a}&b={b}", timeout=60_000)
            metric = page.locator(".rj-figure", has_text="Flips")
            value = metric.locator(".rj-figure-value")
            value.wait_for(timeout=60_000)
            flips = value.inner_text().strip()
            accuracy_a = (
                page.locator(".rj-figure", has_text="Accuracy A")
                .locator(".rj-figure-value")
                .inner_text()
                .strip()
            )
            page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=30_000)
            page.wait_for_timeout(1000)  # let the charts and the flips grid paint
            page.screenshot(path=str(shot), full_page=True)
            # the address people type: the overview itself, not a "Page not found" modal
            page.goto(f"http://127.0.0.1:{port}/overview", timeout=60_000)
            page.get_by_role("heading", name="Overview").first.wait_for(timeout=60_000)
            page.wait_for_timeout(1000)
            not_found = page.get_by_text("Page not found").count()
            icon = page.locator("link[rel='shortcut icon']").get_attribute("href") or ""
            deploy = page.get_by_text("Deploy", exact=True).count()
        finally:
            browser.close()
    assert not_found == 0
    assert not icon.startswith("http") or icon.startswith("http://127.0.0.1")  # no CDN favicon
    assert deploy == 0  # the developer toolbar is hidden
    assert flips == str(len(expected["flips"]))
    assert accuracy_a == f"{100 * expected['accuracy_a']:.1f}%"
    assert shot.exists() and shot.stat().st_size > 10_000


def _trace_ids(url: str, run: int) -> dict[str, int]:
    store = Store.open(url)
    try:
        return {t.case_key: t.id for t in store.traces.run_traces(run)}
    finally:
        store.close()


def _flip_with_a_difference(built: Built, a: int, b: int) -> dict:
    """The first flip of A → B whose traces differ in some call (same place, another tool or
    other arguments), and the argument the side-by-side page must mark."""
    store = Store.open(built.url)
    try:
        for flip in judge_compare(built.url, a, b)["flips"]:
            bodies = [
                store.traces.trace_detail(
                    store.traces.evaluation_trace(ev, flip["case"], flip["repetition"])
                ).body
                for ev in (a, b)
            ]
            for r, rnd in enumerate(bodies[0]["rounds"]):
                other = bodies[1]["rounds"][r]["calls"] if r < len(bodies[1]["rounds"]) else []
                for i, call in enumerate(rnd["calls"]):
                    twin = other[i] if i < len(other) else None
                    if twin is None or twin["name"] != call["name"]:
                        return {**flip, "argument": sorted(call["arguments"])[0]}
    finally:
        store.close()
    pytest.fail("the factory store has no flip whose traces differ in a call")


@pytest.mark.slow
@pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install -y chromium)"
)
def test_from_a_flip_to_the_evidence_and_real_cassettes_offline(
    served: tuple[Built, Built, int], tmp_path: Path
) -> None:
    """Compare → pick a flip → the side-by-side page marks the argument that differs; the
    trace viewer opens a pydantic-ai and a gzip cassette's raw exchange; and not one request
    the pages make leaves 127.0.0.1 (Playwright's request log)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the playwright package is missing: pip install -e '.[dev]'")
    built, imported, port = served
    a, b = built.evaluations["a1"], built.evaluations["b1"]
    flip = _flip_with_a_difference(built, a, b)
    traces = _trace_ids(imported.url, imported.runs["run-imported"])
    requests: list[str] = []
    base = f"http://127.0.0.1:{port}"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.on("request", lambda request: requests.append(request.url))
            page.goto(f"{base}/compare?a={a}&b={b}", timeout=60_000)
            picker = page.locator(
                '[data-testid="stSelectbox"]', has_text="Open a flip side by side"
            )
            picker.wait_for(timeout=60_000)
            picker.click()
            label = f"{flip['case']} · r{flip['repetition']} · {flip['from']}→{flip['to']}"
            page.keyboard.type(label)
            page.keyboard.press("Enter")
            page.wait_for_timeout(1500)
            main = page.locator('[data-testid="stMain"]')
            main.locator('[data-testid="stPageLink"]', has_text="Side by side").click()
            page.wait_for_url("**/side_by_side?**", timeout=30_000)
            marked = page.get_by_text(f"differs: {flip['argument']}").first
            marked.wait_for(timeout=60_000)
            assert f"case={flip['case']}" in page.url
            page.screenshot(path=str(tmp_path / "side_by_side.png"), full_page=True)

            raw_texts = {}
            for case, host in (
                ("imported-0", "api.anthropic.com"),
                ("imported-1", "api.openai.com"),
            ):
                run = imported.runs["run-imported"]
                page.goto(f"{base}/trace?run={run}&trace={traces[case]}", timeout=60_000)
                exchange = page.locator(
                    '[data-testid="stExpander"]', has_text=f"POST https://{host}"
                ).first
                exchange.wait_for(timeout=60_000)
                exchange.locator("summary").first.click()  # its own title, not a folded value
                exchange.get_by_role("tab", name="Raw").click()
                # the Raw tab's first box: the response body as recorded (escaped text)
                code = exchange.locator('[role="tabpanel"]:visible pre.rj-text').first
                code.wait_for(timeout=30_000)
                page.wait_for_timeout(500)
                raw_texts[case] = code.inner_text()
        finally:
            browser.close()
    # the decoded bodies: pydantic-ai's parsed_body (an Anthropic tool_use) and gzip JSON
    assert '"tool_use"' in raw_texts["imported-0"], PYDANTIC_AI
    assert "chat.completion" in raw_texts["imported-1"], GZIP
    assert requests
    outside = [
        u
        for u in requests
        if urlsplit(u).scheme in ("http", "https", "ws", "wss")
        and urlsplit(u).hostname != "127.0.0.1"
    ]
    assert outside == [], outside
