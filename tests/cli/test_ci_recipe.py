"""docs/ci-recipe.md end to end: record a few retail cases against a loopback model, review and
lock them, stop the model, then run the recipe's shell script verbatim with bash (the installed
`rejudge`, the network blocked) and check it passes, and that a changed cassette or a changed rule
set fails the build. The GitHub Actions example must run the same script."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from rejudge import suites
from rejudge.cli import cli

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "recorder"))
from recorder_fakes import (  # noqa: E402
    FakeModelServer,
    Reply,
    instruction_of,
    openai_reply,
    round_of,
)

DOCS = Path(__file__).resolve().parents[2] / "docs"
RECIPE_MARK = "# rejudge-ci-recipe"
BIN = Path(sys.executable).parent
RETAIL = suites.load_suite("retail")
CASE_IDS = [c.id for c in RETAIL.cases if c.golden.calls][:5]
WRONG = CASE_IDS[1]  # the model answers this one without calling: a FAIL to review
GOLDEN = {c.instruction: c for c in RETAIL.cases}


def recipe_script() -> str:
    text = (DOCS / "ci-recipe.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    (script,) = [b for b in blocks if RECIPE_MARK in b]
    return script


def oracle(path: str, body: dict[str, Any], headers: dict[str, str]) -> Reply:
    case = GOLDEN.get(instruction_of(body))
    if case is None:
        return Reply(status=400, body={"error": {"message": "unknown instruction"}})
    calls = [c for c in case.golden.calls for _ in range(c.count)]
    rnd = round_of(body)
    if case.id != WRONG and rnd < len(calls):
        golden = calls[rnd]
        return Reply(body=openai_reply([(golden.tool, json.dumps(golden.params))]))
    return Reply(body=openai_reply(text="Done."))


def invoke(db: str, cassettes: Path, *args: str) -> Any:
    result = CliRunner().invoke(
        cli,
        ["--db", db, "--cassettes", str(cassettes), *args],
        env={"REJUDGE_DB": None, "REJUDGE_CASSETTES": None},
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's repository after the one-time setup: cassettes + a store with a reviewed baseline."""
    root = tmp_path_factory.mktemp("repo")
    store_file = root / ".rejudge" / "store.db"
    store_file.parent.mkdir()
    db = f"sqlite:///{store_file}"
    cassettes = root / "cassettes"
    case_args = [arg for cid in CASE_IDS for arg in ("--case", cid)]
    with FakeModelServer(oracle) as server:
        invoke(
            db, cassettes, "record", "--suite", "retail", "--model", "oracle",
            "--provider", "local", "--base-url", server.base_url, "--name", "main-run",
            *case_args,
        )  # fmt: skip
    judged = json.loads(
        invoke(
            db, cassettes, "judge", "main-run", "--tier", "golden", "--rules", "standard@2",
            "--json",
        ).output
    )  # fmt: skip
    ev = str(judged["evaluation"])
    assert judged["summary"]["verdict_counts"]["FAIL"] >= 1
    rows = list(csv.DictReader(io.StringIO(invoke(db, cassettes, "review", "export", ev).output)))
    assert {r["case"] for r in rows} >= {WRONG}
    for row in rows:
        row.update(label="confirmed", reviewer="lead", note="no call where one was needed")
    filled = root / "review.csv"
    with filled.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    invoke(db, cassettes, "review", "import", str(filled))
    invoke(db, cassettes, "baseline", "lock", ev, "--name", "main", "--require-review")
    script = root / "ci" / "rejudge-gate.sh"
    script.parent.mkdir()
    script.write_text(recipe_script())
    return root


def run_recipe(repo: Path, work: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("REJUDGE_") and "PROXY" not in k.upper()
    }
    env.update(
        {
            "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}",
            "REJUDGE_STORE_SNAPSHOT": ".rejudge/store.db",
            "REJUDGE_RUN": "main-run",
            "REJUDGE_BASELINE": "main",
            "REJUDGE_WORK": str(work),
            "OPENAI_API_KEY": "sk-must-not-be-used",
        }
    )
    env.update(extra)
    return subprocess.run(
        ["bash", "ci/rejudge-gate.sh"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.skipif(shutil.which("bash") is None, reason="the recipe is a bash script")
def test_recipe_passes_then_fails_the_build(repo: Path, tmp_path: Path) -> None:
    assert (BIN / "rejudge").exists(), "rejudge must be installed in the test environment"
    before = digest(repo / ".rejudge" / "store.db")

    summary = tmp_path / "step-summary.md"
    ok = run_recipe(repo, tmp_path / "w1", GITHUB_ACTIONS="true", GITHUB_STEP_SUMMARY=str(summary))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "rejudge gate passed" in ok.stdout and "no regression" in ok.stdout
    # the gate's cases as JUnit XML (one per case, plus the gate) and a GitHub step summary
    junit = ET.parse(tmp_path / "w1" / "junit.xml").getroot()
    names = [tc.get("name") for tc in junit.iter("testcase")]
    assert sorted(names) == sorted([f"{c} [r0]" for c in CASE_IDS] + ["baseline main"])
    assert "baseline main" in summary.read_text() and "no regression" in summary.read_text()
    assert f"{len(CASE_IDS)} of {len(CASE_IDS)}" in " ".join(
        ok.stdout.split()
    )  # every trace replayed and matched
    report = json.loads((tmp_path / "w1" / "report.json").read_text())
    assert report["calibration"]["fails"]["coverage"] == 1.0
    assert report["calibration"]["misjudgment_rate"] == 0.0
    assert digest(repo / ".rejudge" / "store.db") == before  # CI worked on a scratch copy

    # a different rule set than the baseline's: the gate refuses the comparison
    rules = run_recipe(repo, tmp_path / "w2", REJUDGE_RULES="standard@1")
    assert rules.returncode == 1
    assert "judge changed from baseline 'main' (rules changed" in rules.stderr + rules.stdout

    # the harness changed (here: a cassette answers differently): replay fails the build
    victim = repo / "cassettes" / "main-run" / f"{CASE_IDS[0]}__r0.yaml"
    original = victim.read_text()
    try:
        data = yaml.safe_load(original)
        request = json.loads(data["interactions"][0]["request"]["body"])
        request["messages"][0]["content"] += " (edited)"
        data["interactions"][0]["request"]["body"] = json.dumps(request)
        victim.write_text(yaml.safe_dump(data))
        broken = run_recipe(repo, tmp_path / "w3")
    finally:
        victim.write_text(original)
    assert broken.returncode == 1
    assert CASE_IDS[0] in broken.stdout + broken.stderr
    assert "rejudge gate passed" not in broken.stdout


def test_missing_settings_and_cassettes_fail_clearly(repo: Path, tmp_path: Path) -> None:
    unset = run_recipe(repo, tmp_path / "w", REJUDGE_RUN="")
    assert unset.returncode != 0 and "REJUDGE_RUN" in unset.stderr
    gone = run_recipe(repo, tmp_path / "w", REJUDGE_RUN="other-run")
    assert gone.returncode == 1 and "no cassettes for other-run" in gone.stderr


def test_github_workflow_runs_the_recipe() -> None:
    workflow = yaml.safe_load((DOCS / "github-actions-rejudge.yml").read_text())
    (job,) = workflow["jobs"].values()
    runs = [step.get("run", "") for step in job["steps"]]
    assert "bash ci/rejudge-gate.sh" in runs
    for name in ("REJUDGE_STORE_SNAPSHOT", "REJUDGE_RUN", "REJUDGE_BASELINE"):
        assert name in job["env"] and name in recipe_script()
    assert job["env"]["REJUDGE_RULES"] == "standard@2"
    assert not any("API_KEY" in str(v) for v in job["env"].values())
