"""`rejudge import tau-bench`: the shipped GPT-4o airline file becomes one run of 50 cases x 4
repetitions with τ-bench's reward on every trace; importing it again is a lookup; a bad file
stores nothing and says why in one line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from click.testing import Result
from rejudge.store import Store
from rejudge.store._tables import RunRow, TraceRow

from rejudge.importers import SHIPPED_TAU_BENCH
from rejudge.services import import_tau_bench, run_external_verdicts
from tests.store.store_factories import count_rows

FILE = SHIPPED_TAU_BENCH / "gpt-4o-airline.json"
TOOLS = SHIPPED_TAU_BENCH / "tools.json"


def test_the_file_is_one_run_with_its_rewards(store: Store) -> None:
    result = import_tau_bench(FILE, store, tools=TOOLS, run_name="tau")
    assert (result.cases, result.trials, result.inserted, result.verdicts) == (50, 4, 200, 200)
    run = store.runs.get_run("tau")
    assert run.harness_mode == "imported" and run.config.repeat == 4
    rewards = {
        (f"task-{e['task_id']:03d}", e["trial"]): e["reward"] for e in json.loads(FILE.read_text())
    }
    stored = {
        (v.case_key, v.repetition): v.verdict.value for v in run_external_verdicts(store, "tau")
    }
    assert stored == rewards
    again = import_tau_bench(FILE, store, tools=TOOLS, run_name="tau")
    assert (again.inserted, again.skipped, again.verdicts) == (0, 200, 0)
    assert count_rows(store, TraceRow) == 200


def test_a_bad_file_stores_nothing(run_cli: Callable[..., Result], tmp_path: Path) -> None:
    data = json.loads(FILE.read_text())[:4]
    data[1]["trial"] = data[0]["trial"]
    data[1]["task_id"] = data[0]["task_id"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    result = run_cli("import", "tau-bench", str(bad), "--tools", str(TOOLS))
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and result.output.startswith("Error: ")
    assert "appears twice" in result.output and "nothing imported" in result.output
    db = Store.open(f"sqlite:///{tmp_path / 'cli.db'}")
    assert count_rows(db, RunRow) == 0 and count_rows(db, TraceRow) == 0
    other = tmp_path / "other.json"
    other.write_text("{}")
    result = run_cli("import", "tau-bench", str(other))
    assert result.exit_code == 1 and "not a τ-bench trajectory file" in result.output
