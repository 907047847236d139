"""Honest summaries (issue 36 item 6): the demo, ``rejudge runs`` and the dashboard count how a
run's traces ended as the store holds them. τ-bench stopped five GPT-4o conversations at its
step limit: "200 (completed 195, step_limit 5)", never "completed 200"."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from rejudge.store import Store

from rejudge.cli import cli
from rejudge.model import TraceStatuses
from rejudge.services import DemoResult
from rejudge.services._demo import DEMO_TAU_RUN


def _stored(url: str) -> tuple[dict[str, TraceStatuses], dict[str, Counter[str]]]:
    """Per run name: the store's counts, and the statuses of its traces read one by one."""
    store = Store.open(url)
    try:
        counts = store.catalog.trace_statuses()
        names = {r.id: r.name for r in store.runs.list_runs()}
        one_by_one = {
            names[run_id]: Counter(t.trace.status for t in store.traces.iter_traces(run_id))
            for run_id in counts
        }
        return {names[k]: v for k, v in counts.items()}, one_by_one
    finally:
        store.close()


def test_the_store_counts_every_status_of_every_run(demo_run: tuple[str, DemoResult]) -> None:
    url, _ = demo_run
    counts, one_by_one = _stored(url)
    assert counts.keys() == one_by_one.keys() and counts
    for run, statuses in counts.items():
        assert statuses.as_dict() == dict(one_by_one[run]), run
    tau = counts[DEMO_TAU_RUN]
    assert tau.as_dict() == {"completed": 195, "step_limit": 5}
    assert tau.describe() == "200 (completed 195, step_limit 5)"


def test_the_demo_reports_the_imported_runs_as_stored(demo_run: tuple[str, DemoResult]) -> None:
    url, result = demo_run
    counts, _ = _stored(url)
    imported = [r for r in result.runs if r.source is not None]
    assert {r.run for r in imported} >= {DEMO_TAU_RUN}
    for run in imported:
        assert run.outcomes == counts[run.run].as_dict(), run.run
        assert sum(run.outcomes.values()) == run.traces
    demo_json: dict[str, Any] = result.to_json()
    [tau] = [r for r in demo_json["runs"] if r["run"] == DEMO_TAU_RUN]
    assert tau["outcomes"] == {"completed": 195, "step_limit": 5}


def test_runs_shows_the_statuses_in_its_table_and_json(demo_store: tuple[str, Path]) -> None:
    url, _ = demo_store
    runner = CliRunner()
    env = {"REJUDGE_DB": None, "REJUDGE_CASSETTES": None, "COLUMNS": "400"}
    listed = runner.invoke(cli, ["--db", url, "--json", "runs"], env=env)
    assert listed.exit_code == 0, listed.output
    [tau] = [r for r in json.loads(listed.output) if r["id"] == DEMO_TAU_RUN]
    assert tau["trace_statuses"] == {"completed": 195, "step_limit": 5}
    assert tau["traces"] == 200
    table = runner.invoke(cli, ["--db", url, "runs"], env=env)
    assert table.exit_code == 0, table.output
    [line] = [line for line in table.output.splitlines() if DEMO_TAU_RUN in line]
    assert "200 (completed 195, step_limit 5)" in line
