"""The ``rejudge`` command: a thin shell over the library.

Every command parses, calls one library function and renders. Errors the library raises on
purpose (``RejudgeError``) print as one ``Error: ...`` line and exit 1; usage errors exit 2;
nothing prints a traceback unless REJUDGE_DEBUG=1.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import click

from rejudge._settings import ENV_CASSETTES, ENV_DB, resolve_settings
from rejudge.cli._context import AppContext
from rejudge.errors import NotFoundError, RejudgeError

__all__ = ["main", "cli"]

# command name -> "module:attribute"; imported only when used so `rejudge --help` stays fast
_COMMANDS: dict[str, str] = {
    "baseline": "rejudge.cli.judge:baseline",
    "compare": "rejudge.cli.judge:compare",
    "cost": "rejudge.cli.cost:cost",
    "dashboard": "rejudge.cli.dashboard:dashboard",
    "db": "rejudge.cli.db:db",
    "demo": "rejudge.cli.demo:demo",
    "export": "rejudge.cli.export:export",
    "generate": "rejudge.cli.generate:generate",
    "import": "rejudge.cli.import_:import_group",
    "judge": "rejudge.cli.judge:judge_cmd",
    "record": "rejudge.cli.record:record",
    "rejudge": "rejudge.cli.judge:rejudge_cmd",
    "renormalize": "rejudge.cli.record:renormalize",
    "replay": "rejudge.cli.record:replay",
    "report": "rejudge.cli.judge:report",
    "review": "rejudge.cli.review:review",
    "rubrics": "rejudge.cli.rubrics:rubrics",
    "rules": "rejudge.cli.rules:rules",
    "runs": "rejudge.cli.db:runs",
    "serve-local": "rejudge.cli.serve_local:serve_local",
    "suite": "rejudge.cli.suite:suite",
    "sweep": "rejudge.cli.sweep:sweep",
    "tiers": "rejudge.cli.tiers:tiers",
    "traces": "rejudge.cli.record:traces",
}

# subcommands that live in another module than their group (BFCL interop extends two groups)
_SUBCOMMANDS: dict[str, list[str]] = {
    "suite": ["rejudge.cli.bfcl:import_bfcl"],
    "import": ["rejudge.cli.bfcl:bfcl_results"],
}


def _load(ref: str) -> click.Command:
    module_name, attr = ref.split(":")
    command: click.Command = getattr(importlib.import_module(module_name), attr)
    return command


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _matches(param: click.Parameter, field: str) -> bool:
    """Whether option ``param`` sets ``field``: by its name, or by its flag (``--name`` sets
    ``name`` whatever the command calls it)."""
    return isinstance(param, click.Option) and (
        param.name == field.replace("-", "_") or f"--{field.replace('_', '-')}" in param.opts
    )


def _flag_for(group: click.Group, ctx: click.Context, field: str | None) -> str | None:
    """The option of the invoked command that set ``field`` (a library error's context), so the
    message names the flag the library does not know about; ``None`` when no one option did.
    A global option (``--db``) is named with its environment variable, which sets it too."""
    if not field or ctx.invoked_subcommand is None:
        return None
    command = group.get_command(ctx, ctx.invoked_subcommand)
    pending, flags = [command] if command is not None else [], set()
    while pending:
        current = pending.pop()
        if isinstance(current, click.Group):
            pending.extend(current.commands.values())
        for param in current.params:
            if _matches(param, field):
                flags.add(max(param.opts, key=len))
    if not flags:
        for param in group.params:
            if _matches(param, field) and param.name in _GLOBAL_ENV:
                return f"{max(param.opts, key=len)} / {_GLOBAL_ENV[param.name]}"
    return flags.pop() if len(flags) == 1 else None


# the global options that an environment variable sets too (rejudge._settings reads them)
_GLOBAL_ENV: dict[str, str] = {"db": ENV_DB, "cassettes": ENV_CASSETTES}

# the command that helps when a named thing is missing, by the field the lookup was for
_NOT_FOUND_HINTS: dict[str, str] = {
    "run": "see `rejudge runs`",
    "evaluation": "see `rejudge runs`",
    "baseline": "lock one with `rejudge baseline lock EVAL --name NAME`",
    "rules": "or give a YAML/JSON file path for your own",
    "rubric": "or give a YAML/JSON file path for your own",
}


def _cli_message(group: click.Group, ctx: click.Context, exc: RejudgeError) -> str:
    """A library error as the CLI prints it: the flag that set the field it is about first, and,
    for a missing thing, the command that lists what there is."""
    message = _one_line(str(exc))
    flag = _flag_for(group, ctx, exc.field)
    if flag:
        message = f"{flag}: {message}"
    hint = _NOT_FOUND_HINTS.get(exc.field or "") if isinstance(exc, NotFoundError) else None
    return f"{message} ({hint})" if hint else message


class _RejudgeGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(_COMMANDS))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in _COMMANDS:
            command = _load(_COMMANDS[cmd_name])
            if isinstance(command, click.Group):
                for ref in _SUBCOMMANDS.get(cmd_name, []):
                    sub = _load(ref)
                    if sub.name not in command.commands:
                        command.add_command(sub)
            return command
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except RejudgeError as exc:
            raise click.ClickException(_cli_message(self, ctx, exc)) from exc
        except KeyboardInterrupt:
            raise click.ClickException("interrupted") from None
        except Exception as exc:
            if os.environ.get("REJUDGE_DEBUG"):
                raise
            raise click.ClickException(
                _one_line(
                    f"unexpected {type(exc).__name__}: {exc} "
                    "(set REJUDGE_DEBUG=1 for a traceback, and please report it)"
                )
            ) from exc


@click.group(cls=_RejudgeGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db", "db", metavar="URL", help="Database URL [env REJUDGE_DB; default sqlite:///rejudge.db]."
)
@click.option(
    "--cassettes",
    "cassettes",
    metavar="DIR",
    help="Cassette folder [env REJUDGE_CASSETTES; default ./cassettes].",
)
@click.option("--json", "json_output", is_flag=True, help="Machine-readable output.")
@click.version_option(package_name="rejudge")
@click.pass_context
def cli(ctx: click.Context, db: str | None, cassettes: str | None, json_output: bool) -> None:
    """Record LLM tool-calling runs once; re-judge them offline under any tier or rule version."""
    ctx.obj = AppContext(resolve_settings(db=db, cassettes=cassettes, json_output=json_output))
    ctx.call_on_close(ctx.obj.close)


def main(argv: list[str] | None = None) -> None:
    cli.main(args=argv if argv is not None else sys.argv[1:], prog_name="rejudge")
