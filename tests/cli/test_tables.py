"""Tables a person can read at 80 columns: identifiers whole on one line, evidence printed as
written (never as Rich markup), and accuracy in --json exact (the tables round it)."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from rejudge.cli._tables import FitTable
from tests.cli.test_judge_cli import _seed

LONG = "sweep-SmolLM2-135M-Instruct-c5-d2-s1-restate"
ODD = "odd[bold]run[/bold]"


def _lines(output: str) -> list[str]:
    return output.splitlines()


def test_runs_at_80_columns_keeps_every_run_name_and_model_whole(run_cli, tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    _seed(db, LONG)
    _seed(db, ODD)
    out = run_cli("runs", env={"COLUMNS": "80"})
    assert out.exit_code == 0, out.output
    assert max(len(line) for line in _lines(out.output)) <= 80
    # whole, on one line: not "sweep-Sm…", not folded
    assert any(LONG in line for line in _lines(out.output)), out.output
    assert any(f"m-{LONG}" in line for line in _lines(out.output)), out.output
    # a name holding markup prints as written
    assert ODD in out.output and f"m-{ODD}" in out.output


def test_a_table_too_narrow_for_its_identifiers_prints_rows_as_lines() -> None:
    fit = FitTable.of("Runs", ["run", "model", "status"], [[LONG, "m[x]", "completed"]])
    console = Console(width=50, record=True, color_system=None)
    console.print(fit)
    assert console.export_text().splitlines() == [
        "Runs",
        LONG,
        "  model: m[x]",
        "  status: completed",
    ]


def test_a_title_and_headers_holding_markup_print_as_written() -> None:
    # titles and headers carry names from the data: a model, a rule set's ref
    fit = FitTable.of(f"vs {ODD}", ["", "[red]standard@2[/red]"], [["plain", "1.0"]])
    console = Console(width=100, record=True, color_system=None)
    console.print(fit)
    text = console.export_text()
    assert f"vs {ODD}" in text and "[red]standard@2[/red]" in text, text


def test_descriptive_columns_wrap_or_drop_and_the_caption_says_so() -> None:
    rows = [[LONG, "a reason that is long enough to need wrapping at this width " * 2]]
    console = Console(width=60, record=True, color_system=None)
    console.print(FitTable.of(None, ["run", "reason"], rows))
    assert "left out at this width: reason" in console.export_text()
    wide = Console(width=100, record=True, color_system=None)
    wide.print(FitTable.of(None, ["run", "reason"], rows))
    text = wide.export_text()
    assert LONG in text and "left out" not in text and "wrapping" in text


def test_json_accuracy_is_exact(run_cli, tmp_path: Path) -> None:
    _seed(tmp_path / "cli.db", "r1")
    result = run_cli("--json", "judge", "r1", "--tier", "golden", "--rules", "standard@1")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)["summary"]
    counts = summary["verdict_counts"]
    assert summary["accuracy"] == counts["PASS"] / (counts["PASS"] + counts["FAIL"])


def test_text_from_files_prints_as_written(run_cli, tmp_path: Path) -> None:
    """A rule set's description and the path a suite was given are the user's text: printed
    as written, never read as Rich markup ('[bold]' shown, nothing dropped)."""
    import shutil

    import yaml

    shipped = Path(__file__).parents[2]
    data = yaml.safe_load((shipped / "judge/rulesets/standard@2.yaml").read_text(encoding="utf-8"))
    data.update(name="mine", description="uses [red]colour[/red] words")
    rules = tmp_path / "mine[bold].yaml"
    rules.write_text(yaml.safe_dump(data), encoding="utf-8")
    shown = run_cli("rules", "show", str(rules))
    assert shown.exit_code == 0, shown.output
    assert "uses [red]colour[/red] words" in shown.output
    suite = tmp_path / "odd[bold]suite[/bold]"
    shutil.copytree(shipped / "suites/data/retail", suite)
    # wide enough for the path whole: a longer word is folded at the terminal's width
    checked = run_cli("suite", "validate", str(suite), env={"COLUMNS": "400"})
    assert checked.exit_code == 0, checked.output
    assert f"{suite}: valid" in checked.output
