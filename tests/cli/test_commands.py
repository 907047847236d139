"""Every registered command loads and answers --help (guards the lazy registry)."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from rejudge.cli import _COMMANDS, _SUBCOMMANDS, cli

DESIGN_COMMANDS = {
    "demo", "db", "suite", "generate", "record", "replay", "renormalize", "import", "runs",
    "traces", "judge", "rejudge", "report", "compare", "baseline", "rules", "sweep",
    "serve-local", "dashboard",
}  # fmt: skip


def test_every_design_command_is_registered() -> None:
    assert DESIGN_COMMANDS <= set(_COMMANDS)


@pytest.mark.parametrize("name", sorted(_COMMANDS))
def test_command_help(name: str) -> None:
    result = CliRunner().invoke(cli, [name, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output


def test_root_help_lists_everything() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0, result.output
    for name in _COMMANDS:
        assert name in result.output


@pytest.mark.parametrize("group", sorted(_SUBCOMMANDS))
def test_attached_subcommands(group: str) -> None:
    command = cli.get_command(click.Context(cli), group)
    assert isinstance(command, click.Group)
    for ref in _SUBCOMMANDS[group]:
        module, attr = ref.split(":")
        sub = getattr(__import__(module, fromlist=[attr]), attr)
        assert sub.name in command.commands
