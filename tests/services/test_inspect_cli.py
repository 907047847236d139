"""`rejudge import inspect LOG` end to end on SQLite: a log written by inspect-ai becomes a run
whose traces judge like any other and whose Inspect scores are external verdicts; the same log
again is a lookup; a bad log stores nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from rejudge.store import Store

from rejudge.cli import cli
from rejudge.services import run_external_verdicts

DATA = Path(__file__).parents[1] / "data" / "inspect"


def _cli(db: str, *args: str):
    return CliRunner().invoke(cli, ["--db", db, *args])


def test_import_judge_and_external_verdicts(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'r.db'}"
    first = _cli(db, "--json", "import", "inspect", str(DATA / "notes.json"), "--name", "notes")
    assert first.exit_code == 0, first.output
    data = json.loads(first.output)
    assert data["inserted"] == 3 and data["external_verdicts"] == 3 and data["epochs"] == 1
    again = _cli(db, "--json", "import", "inspect", str(DATA / "notes.json"), "--name", "notes")
    assert json.loads(again.output)["inserted"] == 0 and json.loads(again.output)["skipped"] == 3

    judged = _cli(db, "--json", "judge", "notes", "--tier", "golden")
    assert judged.exit_code == 0, judged.output
    report = _cli(db, "--json", "report", str(json.loads(judged.output)["evaluation"]))
    verdicts = {(r["case"], r["verdict"]) for r in json.loads(report.output)["cases"]}
    assert {("read-n1", "PASS"), ("read-then-add", "PASS")} <= verdicts
    store = Store.open(db)
    stored = {
        (v.case_key, v.verdict.source, v.verdict.value)
        for v in run_external_verdicts(store, "notes")
    }
    store.close()
    assert ("read-n1", "inspect/includes", 1.0) in stored
    assert ("missing", "inspect/includes", 0.0) in stored


def test_a_bad_log_stores_nothing(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'r.db'}"
    bad = tmp_path / "cut.json"
    raw = (DATA / "notes.json").read_bytes()
    bad.write_bytes(raw[:1000])
    result = _cli(db, "import", "inspect", str(bad))
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 1 and len(lines) == 1 and lines[0].startswith("Error: ")
    assert "is not a complete Inspect AI log" in lines[0]
    runs = _cli(db, "--json", "runs")
    assert runs.exit_code == 0 and json.loads(runs.output) == []


def test_a_log_written_now_by_the_installed_inspect(tmp_path: Path) -> None:
    pytest.importorskip(
        "inspect_ai",
        reason="inspect-ai is not installed (it writes the log this test reads; not in any extra)",
    )
    out = tmp_path / "logs"
    out.mkdir()
    done = subprocess.run(
        [sys.executable, str(DATA / "make_logs.py"), str(out)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    db = f"sqlite:///{tmp_path / 'r.db'}"
    for name in ("notes.eval", "notes.json"):
        result = _cli(db, "--json", "import", "inspect", str(out / name), "--name", name)
        assert result.exit_code == 0, result.output
        assert json.loads(result.output)["samples"] == 3
