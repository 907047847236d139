"""Text a person or a trace supplies prints as written (issue 39): a baseline's name, a review's
resolution and a trace's call arguments holding ``[bold]`` are neither read as Rich markup nor
shown with the backslash of an escape, by the real commands over a real SQLite store.
(tests/test_architecture_markup.py checks the same on the CLI's source.)"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import Result
from rejudge.store import Store

from rejudge.model import Round, ToolCall, Trace
from tests.cli.test_judge_cli import CASES, _seed
from tests.cli.test_review_cli import read_csv, write_csv

WIDE = {"COLUMNS": "200"}


def _words(result: Result) -> str:
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_a_baseline_name_holding_markup_prints_as_written(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    _seed(tmp_path / "cli.db")
    judged = run_cli("--json", "judge", "r1", "--tier", "golden", "--rules", "standard@2")
    ev = json.loads(judged.output)["evaluation"]
    locked = run_cli("baseline", "lock", str(ev), "--name", "[bold]main[/bold]", env=WIDE)
    assert f"baseline [bold]main[/bold] locked on evaluation {ev} " in _words(locked)


def test_a_resolution_holding_markup_prints_as_written(
    world: dict[str, Any], run_cli: Callable[..., Result]
) -> None:
    rows = read_csv(run_cli("review", "export", str(world["ev"]), "--format", "csv").output)
    rows[0].update(label="judge_wrong", reviewer="ana")
    imported = run_cli("review", "import", str(write_csv(world["tmp"] / "l.csv", rows[:1])))
    assert imported.exit_code == 0, imported.output
    store = Store.open(world["url"])
    try:
        [review] = store.reviews.list_reviews()
    finally:
        store.close()
    resolution = "fixed in [red]rules v3[/red] \\[sic]"
    resolved = run_cli("review", "resolve", str(review.id), "--resolution", resolution, env=WIDE)
    assert f"review {review.id} resolved: {resolution}" in _words(resolved)


def test_call_arguments_holding_markup_print_as_written(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    raw = '{"id": "[bold]W441[/bold]"}'
    sent = ToolCall(name="get_order", arguments=json.loads(raw), arguments_raw=raw, ok=True)
    rounds = [Round(index=0, calls=[sent]), Round(index=1, text="[red]done[/red]")]
    _seed(tmp_path / "cli.db", traces=[Trace(case_id=CASES[0].id, rounds=rounds)])
    shown = _words(run_cli("traces", "r1", env=WIDE))
    assert f"get_order({raw}) -> ok" in shown and "[red]done[/red]" in shown, shown
    assert "traces of r1" in shown, shown  # titled by the run, not by the CLI's command
