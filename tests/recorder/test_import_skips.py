"""Folder import reports per file (issue 16, item 6): a file that cannot be read is listed with
its reason and skipped, the others import, the exit code says whether anything was skipped
(0 none, 3 some, 1 nothing imported), and ``--strict`` makes any skip an error with nothing
stored. Everything through the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from rejudge.store import Store

from rejudge.cli import cli

REAL = Path("/work/shared/real-cassettes")
WEATHER = REAL / "pydantic-ai/test_tool_choice_matrix_auto-openai.yaml"

REALTIME = {
    "interactions": [
        {
            "request": {
                "method": "GET",
                "uri": "wss://api.openai.com/v1/realtime?model=gpt-4o-realtime-preview",
                "body": None,
                "headers": {"upgrade": ["websocket"], "connection": ["Upgrade"]},
            },
            "response": {
                "status": {"code": 101, "message": "Switching Protocols"},
                "headers": {"upgrade": ["websocket"]},
                "body": {"string": ""},
            },
        }
    ],
    "version": 1,
}


def _bad_files(folder: Path) -> dict[str, str]:
    """Each unreadable file and a word its reason must hold."""
    (folder / "broken.yaml").write_text("interactions:\n  - request: [unclosed\n")
    (folder / "realtime.yaml").write_text(yaml.safe_dump(REALTIME))
    (folder / "package.json").write_text('{"name": "my-app", "version": "1.0.0"}')
    # a YAML file by extension and syntax, not a cassette by content
    (folder / "settings.yml").write_text("model: gpt-4o\nretries: 3\n")
    return {
        "broken.yaml": "invalid YAML",
        "realtime.yaml": "no model exchange",
        "package.json": "not a cassette",
        "settings.yml": "not a cassette",
    }


def _invoke(tmp_path: Path, *args: str):
    base = ["--db", f"sqlite:///{tmp_path / 'r.db'}", "--cassettes", str(tmp_path / "cas")]
    return CliRunner().invoke(cli, [*base, "import", "cassettes", *args])


def _counts(tmp_path: Path) -> tuple[int, int]:
    store = Store.open(f"sqlite:///{tmp_path / 'r.db'}")
    try:
        return len(store.runs.list_runs()), store.traces.count_traces()
    finally:
        store.close()


def test_unreadable_files_are_listed_and_skipped_exit_3(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(WEATHER, src / "good.yaml")
    bad = _bad_files(src)
    result = _invoke(tmp_path, str(src), "--json")
    assert result.exit_code == 3, result.output
    data = json.loads(result.output)
    assert data["inserted"] == 1 and [t["file"] for t in data["traces"]] == ["good.yaml"]
    reasons = {f["file"]: f["reason"] for f in data["skipped_files"]}
    assert sorted(reasons) == sorted(bad)
    for name, word in bad.items():
        assert word in reasons[name] and "\n" not in reasons[name], (name, reasons[name])
    assert _counts(tmp_path) == (1, 1)

    table = _invoke(tmp_path, str(src))
    assert table.exit_code == 3, table.output
    lines = [line for line in table.output.splitlines() if line.startswith("skipped ")]
    assert len(lines) == len(bad)  # one line per skipped file, with its reason
    for name, word in bad.items():
        assert any(line.startswith(f"skipped {name}: ") and word in line for line in lines)
    assert "Traceback" not in table.output


def test_nothing_skipped_exits_0(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(WEATHER, src / "good.yaml")
    (src / "notes.txt").write_text("not a cassette by name: never looked at")
    result = _invoke(tmp_path, str(src), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["skipped_files"] == []


def test_nothing_importable_exits_1_with_one_line(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    _bad_files(src)
    result = _invoke(tmp_path, str(src))
    assert result.exit_code == 1
    (line,) = result.output.strip().splitlines()
    assert line.startswith("Error: ") and "none of the 4 file(s) could be imported" in line
    assert _counts(tmp_path) == (0, 0)


@pytest.mark.parametrize("bad", ["broken.yaml", "realtime.yaml", "package.json", "settings.yml"])
def test_strict_makes_any_skip_an_error_with_nothing_stored(tmp_path: Path, bad: str) -> None:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(WEATHER, src / "good.yaml")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    _bad_files(scratch)
    shutil.copy(scratch / bad, src / bad)
    result = _invoke(tmp_path, str(src), "--strict")
    assert result.exit_code == 1, result.output
    (line,) = result.output.strip().splitlines()
    assert line.startswith("Error: ") and bad in line
    assert _counts(tmp_path) == (0, 0)
    assert not (tmp_path / "cas").exists()
