"""`rejudge import cassettes` through click (the command module, before and after registration)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from rejudge._settings import resolve_settings
from rejudge.cli._context import AppContext
from rejudge.cli.import_ import import_group

REAL = Path("/work/shared/real-cassettes")


def _run(args: list[str], db: str, cassettes: Path, json_output: bool = True):
    app = AppContext(resolve_settings(db=db, cassettes=str(cassettes), json_output=json_output))
    try:
        return CliRunner().invoke(import_group, args, obj=app, catch_exceptions=False)
    finally:
        app.close()


def test_import_cassettes_json_and_copies(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(REAL / "simonw-llm/test_tools_streaming_variant_a.yaml", src / "fc-d1-001.yaml")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    result = _run(
        ["cassettes", str(src), "--suite", "retail", "--name", "imp"], db, tmp_path / "cas"
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["run"] == "imp" and data["inserted"] == 1 and data["suite"] == "retail"
    assert data["traces"] == [
        {
            "file": "fc-d1-001.yaml",
            "case": "fc-d1-001",
            "repetition": 0,
            "status": "completed",
            "rounds": 2,
            "calls": 1,
        }
    ]
    assert (tmp_path / "cas" / "imp" / "fc-d1-001.yaml").is_file()
    again = json.loads(
        _run(
            ["cassettes", str(src), "--suite", "retail", "--name", "imp"], db, tmp_path / "cas"
        ).output
    )
    assert again["inserted"] == 0 and again["skipped"] == 1


def test_import_cassettes_table_output_without_copy(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'r.db'}"
    result = _run(
        ["cassettes", str(REAL / "pydantic-ai"), "--no-copy"],
        db,
        tmp_path / "cas",
        json_output=False,
    )
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())  # as words: where a line wraps is the terminal's width
    assert "7 trace(s) stored" in said and "imported-pydantic-ai" in said
    assert not (tmp_path / "cas").exists()
