from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from rejudge.judge import load_rule_set
from rejudge.store import Store

from rejudge.cli import cli
from rejudge.services import judge_run
from tests.judge.conftest import call, case, gcall, saved_run, trace


@pytest.fixture
def run_cli(tmp_path: Path) -> Callable[..., Result]:
    """Invoke the CLI through click's runner against a fresh SQLite store in tmp_path."""
    db_url = f"sqlite:///{tmp_path / 'cli.db'}"

    def invoke(*args: str, db: str | None = db_url, env: dict[str, str] | None = None) -> Result:
        runner = CliRunner()
        argv = (["--db", db] if db else []) + list(args)
        return runner.invoke(
            cli, argv, env={"REJUDGE_DB": None, "REJUDGE_CASSETTES": None, **(env or {})}
        )

    return invoke


def import_as_one_run(
    run_cli: Callable[..., Result], path: Path, importer: str, name: str
) -> dict[str, Any]:
    """``rejudge --json import PATH --name NAME`` (the importer detected), which must store the
    run; then the same file named with ``import with IMPORTER`` must be a lookup (nothing
    inserted) and ``replay NAME`` must re-derive the run from it. Returns the first import's
    JSON (its ``importer``, ``reason`` and ``result``) for the caller's own checks."""
    out = run_cli("--json", "import", str(path), "--name", name)
    assert out.exit_code == 0, out.output
    data: dict[str, Any] = json.loads(out.output)
    assert data["importer"] == importer, data
    assert data["result"]["run"] == name and data["result"]["inserted"] > 0, data
    again = run_cli("--json", "import", "with", importer, str(path), "--name", name)
    assert again.exit_code == 0, again.output
    assert json.loads(again.output)["inserted"] == 0
    replayed = run_cli("replay", name)
    assert replayed.exit_code == 0, replayed.output
    return data


CASES = [
    case(gcall("get_order", order_id=f"W44{i}"), id=f"k{i}", dimension=f"D{i % 2 + 1}")
    for i in range(1, 7)
]
# k1, k2 answer a wrong order (FAIL); the others are right (PASS)
TRACES = [
    trace(call("get_order", order_id="W448" if i <= 2 else f"W44{i}"), case_id=f"k{i}")
    for i in range(1, 7)
]


@pytest.fixture
def world(tmp_path: Path, run_cli: Callable[..., Result]) -> dict[str, Any]:
    """A run r1 of six cases judged under the golden tier (two FAIL, four PASS) in the store
    ``run_cli`` uses: its url, evaluation id and folder."""
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    store = Store.open(url)
    try:
        saved_run(store, CASES, TRACES)
        ev = judge_run(store, "r1", "golden", load_rule_set("standard@2")).evaluation_id
    finally:
        store.close()
    return {"url": url, "ev": ev, "tmp": tmp_path}
