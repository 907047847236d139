"""``rejudge import FILE``: the importer that recognises FILE imports it; a file no importer
takes is one ``Error:`` line naming each importer tried and why it refused."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

REPO = Path(__file__).resolve().parents[2]


def test_import_file_detects_an_inspect_log_and_imports_it(run_cli: Callable[..., Result]) -> None:
    log = REPO / "tests" / "data" / "inspect" / "notes.eval"
    out = run_cli("--json", "import", str(log), "--name", "detected")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["importer"] == "inspect" and data["reason"].startswith("an Inspect AI .eval")
    assert data["result"]["run"] == "detected" and data["result"]["inserted"] > 0
    # the same as naming the importer: a second import of the file is a lookup
    again = run_cli("--json", "import", "with", "inspect", str(log), "--name", "detected")
    assert again.exit_code == 0, again.output
    assert json.loads(again.output)["inserted"] == 0


def test_import_file_renders_the_choice_for_people(run_cli: Callable[..., Result]) -> None:
    log = REPO / "tests" / "data" / "inspect" / "notes.json"
    out = run_cli("import", str(log))
    assert out.exit_code == 0, out.output
    assert out.output.startswith("inspect: an Inspect AI .json log")


def test_a_file_no_importer_takes_is_one_error_line(run_cli: Callable[..., Result]) -> None:
    out = run_cli("import", str(REPO / "README.md"))
    assert out.exit_code == 1
    lines = out.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ")
    for name in ("cassettes", "inspect", "tau-bench", "bfcl-results"):
        assert f"{name}: " in lines[0]
    assert "Traceback" not in out.output


def test_the_subcommands_still_win_over_a_path(run_cli: Callable[..., Result]) -> None:
    out = run_cli("--json", "import", "list")
    assert out.exit_code == 0 and isinstance(json.loads(out.output), list)
