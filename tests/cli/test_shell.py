"""The CLI shell: settings resolution, one-line errors, db commands, runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from rejudge.store import head_revision

from rejudge._settings import resolve_settings


def test_settings_flag_beats_env_beats_default() -> None:
    env = {"REJUDGE_DB": "sqlite:///env.db", "REJUDGE_CASSETTES": "envcas"}
    assert resolve_settings(environ={}).db_url == "sqlite:///rejudge.db"
    assert str(resolve_settings(environ={}).cassettes_dir) == "cassettes"
    assert resolve_settings(environ=env).db_url == "sqlite:///env.db"
    assert str(resolve_settings(environ=env).cassettes_dir) == "envcas"
    flagged = resolve_settings(db="sqlite:///flag.db", cassettes="flagcas", environ=env)
    assert flagged.db_url == "sqlite:///flag.db"
    assert str(flagged.cassettes_dir) == "flagcas"


def test_db_upgrade_and_current(run_cli) -> None:
    result = run_cli("--json", "db", "current")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["revision"] is None
    result = run_cli("--json", "db", "upgrade")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["revision"] == head_revision()
    current = json.loads(run_cli("--json", "db", "current").output)
    assert current["up_to_date"] is True


def test_env_selects_database(run_cli, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'from_env.db'}"
    result = run_cli("db", "upgrade", db=None, env={"REJUDGE_DB": url})
    assert result.exit_code == 0, result.output
    assert (tmp_path / "from_env.db").exists()


def test_runs_on_fresh_database_migrates_and_is_empty(run_cli) -> None:
    result = run_cli("--json", "runs")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == []


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("not a url", "malformed database URL"),
        ("mysql://root@127.0.0.1/test", "unsupported database"),
        ("sqlite:////definitely/missing/folder/x.db", "does not exist"),
        ("postgresql+psycopg://postgres@127.0.0.1:1/test", "cannot connect"),
    ],
)
def test_bad_database_urls_give_one_line(run_cli, url: str, fragment: str) -> None:
    result = run_cli("runs", db=url)
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("Error: ")
    assert fragment in lines[0]
    assert "Traceback" not in result.output


def test_newer_database_is_refused(run_cli, tmp_path: Path) -> None:
    from rejudge.store import make_engine
    from sqlalchemy import text

    assert run_cli("db", "upgrade").exit_code == 0
    engine = make_engine(f"sqlite:///{tmp_path / 'cli.db'}")
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = 'ffff_from_the_future'"))
    engine.dispose()
    result = run_cli("runs")
    assert result.exit_code == 1
    assert result.output.startswith("Error: ")
    assert "newer" in result.output and "ffff_from_the_future" in result.output


def test_usage_error_exits_2(run_cli) -> None:
    assert run_cli("no-such-command").exit_code == 2


def test_module_entry_point_runs(tmp_path: Path) -> None:
    import subprocess

    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "rejudge",
            "--db",
            f"sqlite:///{tmp_path / 'm.db'}",
            "--json",
            "runs",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []


def test_facade_exports() -> None:
    import rejudge

    assert rejudge.Store.__name__ == "Store"
    assert issubclass(rejudge.RejudgeError, Exception)
    with pytest.raises(AttributeError):
        _ = rejudge.no_such_name  # type: ignore[attr-defined]
