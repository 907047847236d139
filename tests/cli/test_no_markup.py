"""The read commands print verdicts styled, never as Rich markup text (issue 39 item 6).

Table cells are printed literally (rejudge/cli/_tables.py), so a renderer that put a markup
string such as ``[red]FAIL[/]`` in a cell printed it as text. Each command here runs on a small
seeded SQLite store at 80 and 120 columns, with NO_COLOR, and forced onto a colour terminal;
``review summary`` shows an open reviewer's flag in its table (the ``open`` status cell).
"""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from tests.cli.test_judge_cli import _seed

MARKUP = ("[/]", "[red]", "[green]", "[bold]", "[yellow]", "[dim]", "[/red]", "[/green]")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
ENVIRONMENTS = {
    "80 columns": {"COLUMNS": "80"},
    "120 columns": {"COLUMNS": "120"},
    "NO_COLOR": {"COLUMNS": "80", "NO_COLOR": "1"},
    "colour terminal": {"COLUMNS": "120", "FORCE_COLOR": "1"},
}


@pytest.fixture()
def evaluations(run_cli, tmp_path) -> tuple[int, int]:
    """Two evaluations of one run: standard@1 (b FAILs) and standard@2 (b PASSes); the first's
    FAIL flagged ``judge_wrong`` by a reviewer and left open."""
    _seed(tmp_path / "cli.db")
    ids = []
    for rules in ("standard@1", "standard@2"):
        result = run_cli("--json", "judge", "r1", "--tier", "golden", "--rules", rules)
        assert result.exit_code == 0, result.output
        ids.append(json.loads(result.output)["evaluation"])
    queue = run_cli("review", "export", str(ids[0]))
    assert queue.exit_code == 0, queue.output
    rows = list(csv.DictReader(io.StringIO(queue.output)))
    assert rows, queue.output
    rows[0].update(label="judge_wrong", reviewer="ana")
    path = tmp_path / "flagged.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerow(rows[0])
    imported = run_cli("review", "import", str(path))
    assert imported.exit_code == 0, imported.output
    return ids[0], ids[1]


def _plain(output: str) -> str:
    return ANSI.sub("", output)


@pytest.mark.parametrize("env", list(ENVIRONMENTS.values()), ids=list(ENVIRONMENTS))
def test_report_and_compare_print_no_markup(run_cli, evaluations, env) -> None:
    a, b = evaluations
    outputs = {
        "report": run_cli("report", str(a), env=env),
        "compare": run_cli("compare", str(a), str(b), env=env),
        "runs": run_cli("runs", env=env),
        "review summary": run_cli("review", "summary", str(a), env=env),
    }
    for name, result in outputs.items():
        assert result.exit_code == 0, (name, result.output)
        text = _plain(result.output)
        leaked = [tag for tag in MARKUP if tag in text]
        assert not leaked, f"{name} printed markup {leaked}:\n{text}"
    # the verdicts are still there, as words: the report's case table and the compare's flip
    report = _plain(outputs["report"].output)
    assert "FAIL" in report and "PASS" in report
    assert "FAIL -> PASS" in " ".join(_plain(outputs["compare"].output).split())
    # the reviewer's flag is listed, its status a word
    flagged = _plain(outputs["review summary"].output)
    assert "judge_wrong" in flagged and "open" in flagged, flagged
    if "FORCE_COLOR" in env and "NO_COLOR" not in env:
        # on a colour terminal the verdicts are coloured, not spelt out as tags
        assert ANSI.search(outputs["report"].output), outputs["report"].output
