"""``rejudge import list`` lists every importer, plugins' too; ``rejudge import with NAME PATH``
runs any of them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from click.testing import Result


def test_import_list_names_the_built_ins_and_a_plugin(
    run_cli: Callable[..., Result], toy_importer: Path
) -> None:
    out = run_cli("--json", "import", "list")
    assert out.exit_code == 0, out.output
    rows = {r["name"]: r for r in json.loads(out.output)}
    assert {"bfcl-results", "cassettes", "inspect", "tau-bench", "toy"} <= set(rows)
    assert rows["toy"]["summary"] == "a toy log as one run (a test's plugin)"
    assert rows["tau-bench"]["sources"] == ["tau-bench", "tau2-bench"]
    table = run_cli("import", "list")
    assert table.exit_code == 0 and "toy" in table.output and "cassettes" in table.output


def test_import_with_runs_a_plugin_importer(
    run_cli: Callable[..., Result], toy_importer: Path
) -> None:
    out = run_cli("--json", "import", "with", "toy", str(toy_importer), "--name", "toy-cli")
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["run"] == "toy-cli"
    assert json.loads(out.output)["inserted"] == 2
    runs = run_cli("--json", "runs")
    assert "toy-cli" in runs.output


def test_import_with_prints_a_table_without_json(
    run_cli: Callable[..., Result], toy_importer: Path
) -> None:
    out = run_cli("import", "with", "toy", str(toy_importer), "--name", "toy-table")
    assert out.exit_code == 0, out.output
    assert "Imported with toy" in out.output and "toy-table" in out.output
    assert not out.output.lstrip().startswith("{")  # a table for people, not the JSON


def test_import_with_an_unknown_importer_is_one_line(run_cli: Callable[..., Result]) -> None:
    out = run_cli("import", "with", "nope", ".")
    assert out.exit_code == 1
    assert out.output.startswith("Error: unknown importer 'nope' (known: bfcl-results, ")


def test_import_with_a_bad_option_is_a_usage_error(
    run_cli: Callable[..., Result], toy_importer: Path
) -> None:
    out = run_cli("import", "with", "toy", str(toy_importer), "-o", "nonsense")
    assert out.exit_code == 2 and "KEY=VALUE" in out.output
