"""`--json` after a command's name is the global `rejudge --json CMD`: every command that emits
data accepts it, through one shared option, and both forms print the same JSON."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest

from rejudge.cli import _COMMANDS, _SUBCOMMANDS, _load, cli
from tests.cli.test_judge_cli import _seed

#: commands with no JSON output: they stream rows or files, or start a server
NO_JSON = {
    "dashboard",
    "export eval",  # JSON Lines / CSV / Parquet rows
    "export run",
}
#: commands still without the shared option (none left: a new command takes ``@json_option``)
PENDING: set[str] = set()


def _leaves(
    name: str, command: click.Command, ctx: click.Context
) -> list[tuple[str, click.Command]]:
    if isinstance(command, click.Group):
        out = []
        for sub in command.list_commands(ctx):
            child = command.get_command(ctx, sub)
            if child is not None:
                out += _leaves(f"{name} {sub}", child, ctx)
        return out
    return [(name, command)]


def _every_command() -> list[tuple[str, click.Command]]:
    ctx = click.Context(cli)
    out = []
    for name in sorted(_COMMANDS):
        command = cli.get_command(ctx, name)
        assert command is not None, name
        for ref in _SUBCOMMANDS.get(name, []):
            assert _load(ref).name in getattr(command, "commands", {}), ref
        out += _leaves(name, command, ctx)
    return out


def test_every_command_that_emits_data_takes_json_after_its_name() -> None:
    missing = [
        name
        for name, command in _every_command()
        if name not in NO_JSON | PENDING
        and not any("--json" in p.opts for p in command.params if isinstance(p, click.Option))
    ]
    assert missing == []


@pytest.fixture()
def store_with_evaluations(run_cli, tmp_path: Path) -> None:
    _seed(tmp_path / "cli.db")
    for argv in (
        ("judge", "r1", "--tier", "golden", "--rules", "standard@1"),
        ("judge", "r1", "--tier", "golden", "--rules", "standard@2"),
        ("baseline", "lock", "1", "--name", "main"),
    ):
        assert run_cli(*argv).exit_code == 0


READ_COMMANDS = [
    ("runs",),
    ("traces", "r1"),
    ("traces", "r1", "--case", "a"),
    ("suite", "list"),
    ("suite", "list", "--stored"),
    ("suite", "validate", "retail"),
    ("rules", "list"),
    ("rules", "show", "standard@2"),
    ("rules", "diff", "standard@1", "standard@2"),
    ("report", "1"),
    ("compare", "1", "2"),
    ("review", "summary", "1"),
    ("baseline", "check", "2", "--against", "main", "--allow-mismatch"),
    ("db", "current"),
]


@pytest.mark.parametrize("argv", READ_COMMANDS, ids=" ".join)
def test_both_forms_print_the_same_json(run_cli, store_with_evaluations, argv) -> None:
    before = run_cli("--json", *argv)
    after = run_cli(*argv, "--json")
    assert before.exit_code == after.exit_code, (before.output, after.output)
    assert after.output == before.output
    json.loads(after.output)  # JSON, not a table


def test_without_json_the_tables_are_printed(run_cli, store_with_evaluations) -> None:
    out = run_cli("runs")
    assert out.exit_code == 0 and "Runs" in out.output
    with pytest.raises(json.JSONDecodeError):
        json.loads(out.output)


def test_replay_and_renormalize_print_the_same_json_in_both_forms(
    run_cli, store_with_evaluations
) -> None:
    """The recording commands' JSON is the same whichever side of the name --json is on (the
    replay's wall-clock time aside)."""
    for argv in (("renormalize", "r1", "--dry-run"), ("replay", "r1")):
        before = run_cli("--json", *argv)
        after = run_cli(*argv, "--json")
        assert before.exit_code == after.exit_code, (before.output, after.output)
        first, second = json.loads(before.output), json.loads(after.output)
        first.pop("elapsed_s", None), second.pop("elapsed_s", None)
        assert first == second and first["run"] == "r1"


def test_import_prints_the_same_json_in_both_forms(run_cli, tmp_path: Path) -> None:
    folder = Path(__file__).resolve().parents[2] / "cassettes" / "smollm2-retail-oracle"
    argv = ("import", "cassettes", str(folder), "--suite", "retail", "--no-copy")
    before = run_cli("--json", *argv)
    after = run_cli(*argv, "--json", db=f"sqlite:///{tmp_path / 'other.db'}")
    assert before.exit_code == after.exit_code == 0, (before.output, after.output)
    assert after.output == before.output
    assert json.loads(after.output)["inserted"] == 3
