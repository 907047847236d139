"""`rejudge suite ...` through the root command (registered here if the lead has not yet)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import rejudge.cli as root

BROKEN = Path(__file__).parent / "broken"


@pytest.fixture
def run_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Result]:
    monkeypatch.setitem(root._COMMANDS, "suite", "rejudge.cli.suite:suite")
    db_url = f"sqlite:///{tmp_path / 'cli.db'}"

    def invoke(*args: str) -> Result:
        return CliRunner().invoke(
            root.cli, ["--db", db_url, *args], env={"REJUDGE_DB": None, "REJUDGE_CASSETTES": None}
        )

    return invoke


def test_list_json_keys(run_cli: Callable[..., Result]) -> None:
    result = run_cli("--json", "suite", "list")
    assert result.exit_code == 0, result.output
    entries = {e["name"]: e for e in json.loads(result.output)}
    retail = entries["retail"]
    assert set(retail) == {"name", "cases", "hash", "dimensions", "negative"}
    assert retail["cases"] == 72 and retail["negative"] == 12
    assert retail["dimensions"] == {"D1": 18, "D2": 18, "D3": 18, "D4": 18}
    human = run_cli("suite", "list")
    assert human.exit_code == 0 and "retail" in human.output and "72" in human.output


def test_list_stored_shows_the_store_snapshots(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    db_url = f"sqlite:///{tmp_path / 'cli.db'}"  # the store run_cli points at
    empty = run_cli("suite", "list", "--stored")
    assert empty.exit_code == 0 and "No suite in the store yet" in empty.output
    assert json.loads(run_cli("--json", "suite", "list", "--stored").output) == []
    loaded = json.loads(run_cli("--json", "suite", "load", "retail").output)
    entries = json.loads(run_cli("--json", "suite", "list", "--stored").output)
    assert len(entries) == 1
    (entry,) = entries
    # the built-in listing's keys and figures, plus where it is in the store
    builtin = {e["name"]: e for e in json.loads(run_cli("--json", "suite", "list").output)}
    assert {k: entry[k] for k in builtin["retail"]} == builtin["retail"]
    assert entry["hash"] == loaded["hash"] and entry["domain"] == "retail"
    assert entry["runs"] == 0 and isinstance(entry["id"], int)
    from rejudge.store import Store

    from rejudge.model import RunConfig

    store = Store.open(db_url)
    try:
        store.runs.create_run(
            name="r", suite=store.suites.get_suite("retail"), config=RunConfig(model="m")
        )
    finally:
        store.close()
    (entry,) = json.loads(run_cli("--json", "suite", "list", "--stored").output)
    assert entry["runs"] == 1
    human = run_cli("suite", "list", "--stored")
    assert human.exit_code == 0 and "Suites in the store" in human.output
    assert "retail" in human.output and "72" in human.output


def test_validate_valid_and_broken(run_cli: Callable[..., Result], tmp_path: Path) -> None:
    ok = run_cli("suite", "validate", "retail")
    assert ok.exit_code == 0 and "retail: valid" in ok.output
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "suite.json").write_text(
        json.dumps({"name": "bad", "domain": "retail", "format_version": 1})
    )
    shutil.copy(BROKEN / "many_at_once.jsonl", folder / "cases.jsonl")
    bad = run_cli("suite", "validate", str(folder))
    assert bad.exit_code == 1
    cases = folder / "cases.jsonl"
    assert f"{cases}:4: fc-d1-004: golden.calls[0].tool: unknown tool 'nope'" in bad.output
    assert f"{cases}:2: -: <line>: invalid JSON" in bad.output
    assert "6 problem(s)" in bad.output
    as_json = run_cli("--json", "suite", "validate", str(folder))
    assert as_json.exit_code == 1
    data = json.loads(as_json.output)
    assert data["valid"] is False and len(data["problems"]) == 6
    assert data["problems"][0] == {
        "file": str(cases),
        "line": 2,
        "case": None,
        "field": "<line>",
        "message": data["problems"][0]["message"],
    }


def test_selftest(run_cli: Callable[..., Result]) -> None:
    human = run_cli("suite", "selftest", "retail", "--no-judge")
    assert human.exit_code == 0, human.output
    assert "72 of 72 cases pass" in human.output
    data = json.loads(run_cli("--json", "suite", "selftest", "retail", "--no-judge").output)
    assert data["ok"] is True and data["failed"] == 0 and len(data["results"]) == 72


def test_load_is_an_immutable_snapshot(run_cli: Callable[..., Result]) -> None:
    first = json.loads(run_cli("--json", "suite", "load", "retail").output)
    again = json.loads(run_cli("--json", "suite", "load", "retail").output)
    assert first == again and first["cases"] == 72 and first["hash"].startswith("sha256:")


def test_unknown_suite_is_a_one_line_error(run_cli: Callable[..., Result]) -> None:
    result = run_cli("suite", "selftest", "nope")
    assert result.exit_code == 1
    assert result.output.startswith("Error: no suite named or at 'nope'")
    assert "Traceback" not in result.output


def test_selftest_judges_every_golden_trace_under_every_applicable_tier(
    run_cli: Callable[..., Result],
) -> None:
    result = run_cli("--json", "suite", "selftest", "retail")
    assert result.exit_code == 0, result.output[-2000:]
    data = json.loads(result.output)
    assert data["judged"] is True and data["ok"] is True
    for entry in data["results"]:
        assert entry["verdicts"], entry["case"]
        assert set(entry["verdicts"].values()) == {"PASS"}, entry
        assert "golden" in entry["verdicts"]
