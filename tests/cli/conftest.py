from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from rejudge.cli import cli


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
