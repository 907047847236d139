"""A flip caused by the model judge names it, in the dashboard and in the static compare report,
read in headless Chromium (issue 39: "every flip names its cause ... and the model judge").

The store is real: a run's traces judged twice by the model-graded tier over real HTTP (a
loopback OpenAI-compatible judge server, recorded as judge cassettes), once by judge model
``judge-a`` and once by ``judge-b``, the second replying the opposite verdict. `rejudge
dashboard` serves it; `rejudge compare A B --html` writes the file. What each must show comes
from the compare service (what `rejudge compare --json` prints), not from figures written here.
Skips only when Debian's chromium is absent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from rejudge.recorder import JudgeEndpoint, RetryPolicy
from rejudge.store import Store

from rejudge.cli import cli
from rejudge.model import JudgeModel
from rejudge.services import ModelGradedOptions, compare_evaluations, judge_run_model_graded
from tests.dashboard.test_browser import CHROMIUM, CHROMIUM_FLAGS, _dashboard
from tests.judge.conftest import saved_run
from tests.services.judge_server import JudgeServer, serve, verdict_reply
from tests.services.test_model_graded import CASES, RUBRIC, TRACES

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed"),
]
MAIN = '[data-testid="stMain"]'
READY = '[data-testid="stApp"][data-test-script-state="notRunning"]'


def _contrary(body: dict[str, Any], n: int) -> tuple[int, dict[str, str], str | None]:
    status, headers, text = verdict_reply(body, n)
    data = json.loads(text or "{}")
    return status, headers, json.dumps({**data, "success": not data["success"]})


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, int, int]:
    """(store URL, its folder, evaluation by judge-a, evaluation by judge-b)."""
    root = tmp_path_factory.mktemp("judge-flips")
    url = f"sqlite:///{root / 'judges.db'}"
    store = Store.open(url)
    try:
        saved_run(store, CASES, TRACES)
        evaluations = []
        for model, reply in (("judge-a", verdict_reply), ("judge-b", _contrary)):
            with serve(JudgeServer(reply)) as base:
                options = ModelGradedOptions(
                    rubric=RUBRIC,
                    judge=JudgeModel(model=model),
                    cassettes=root / "cassettes",
                    endpoint=JudgeEndpoint(
                        base_url=base,
                        retry=RetryPolicy(max_retries=2, base_delay_s=0.0, max_delay_s=0.0),
                    ),
                    record="new_episodes",
                )
                evaluations.append(judge_run_model_graded(store, "r1", options).evaluation)
    finally:
        store.close()
    return url, root, evaluations[0], evaluations[1]


@pytest.fixture(scope="module")
def expected(judged: tuple[str, Path, int, int]) -> dict[str, Any]:
    url, _root, a, b = judged
    store = Store.open(url, migrate=False)
    try:
        found = compare_evaluations(store, a, b).to_json()
    finally:
        store.close()
    # the store holds what the test is about: flips, each caused by the judge model alone
    assert found["flips"] and all(f["causes"] == ["judge model changed"] for f in found["flips"])
    return found


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            yield browser.new_page(viewport={"width": 1400, "height": 1000})
        finally:
            browser.close()


def test_compare_page_names_the_judge_model_as_the_cause(
    judged: tuple[str, Path, int, int], expected: dict[str, Any], page: Any
) -> None:
    url, root, a, b = judged
    with _dashboard(url, root) as (port, _proc):
        page.goto(f"http://127.0.0.1:{port}/compare?a={a}&b={b}", timeout=60_000)
        page.get_by_role("heading", name="Flips").first.wait_for(timeout=60_000)
        page.locator(READY).wait_for(timeout=60_000)
        page.wait_for_timeout(500)
        text = page.locator(MAIN).inner_text()
    flips = len(expected["flips"])
    # the reading names what changed in the judge, and the flips' count by cause names it too
    assert "another judge: judge model changed" in text
    assert f"{flips} flips match (judge model changed: {flips})" in text
    # each side says which judge model judged it
    assert "judge-a" in text and "judge-b" in text


def test_compare_report_names_the_judge_model_as_the_cause(
    judged: tuple[str, Path, int, int], expected: dict[str, Any], page: Any
) -> None:
    url, root, a, b = judged
    out = root / "compare.html"
    result = CliRunner().invoke(
        cli, ["--db", url, "compare", str(a), str(b), "--html", str(out)], env={"COLUMNS": "120"}
    )
    assert result.exit_code == 0, result.output
    page.route(
        "**/*",
        lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort(),
    )
    page.goto(out.as_uri(), timeout=30_000)
    flips = page.locator("h2", has_text="Flips").locator("xpath=following-sibling::table[2]")
    heads = [h.inner_text().strip() for h in flips.locator("thead th").all()]
    rows = [
        dict(zip(heads, [c.inner_text().strip() for c in tr.locator("td").all()], strict=True))
        for tr in flips.locator("tbody tr").all()
    ]
    assert [(r["case"], r["cause"]) for r in rows] == [
        (f["case"], ", ".join(f["causes"])) for f in expected["flips"]
    ]
    by_cause = page.locator("h2", has_text="Flips").locator("xpath=following-sibling::table[1]")
    assert by_cause.locator("tbody tr td").first.inner_text().strip() == "judge model changed"
    assert "another judge: judge model changed" in page.locator("body").inner_text()
