"""What the commands that can run on Dask share: ``--engine/--scheduler/--workers`` (parsed
into a :class:`rejudge.services.DaskEngine`) and the progress bar their partitions tick."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeRemainingColumn,
)

from rejudge.cli._context import AppContext
from rejudge.services import DaskEngine

__all__ = ["progress_bar", "parse_engine", "engine_options"]


@contextmanager
def progress_bar(app: AppContext, total: int, label: str) -> Iterator[Any]:
    """A rich progress bar on stderr (silent under --json or when stderr is not a terminal)."""
    console = Console(file=sys.stderr)
    disabled = app.json or not console.is_terminal
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=disabled,
        transient=False,
    ) as bar:
        # the description column reads markup; a label names a file, a rule set's ref or a
        # model, so it prints as written
        task = bar.add_task(escape(label), total=total or None)
        yield _Tick(bar, task)


class _Tick:
    """What :func:`progress_bar` yields: called with a count of items done; ``total(n)`` sets
    the bar's length when the service learns it (the CLI never counts in the store itself)."""

    def __init__(self, bar: Progress, task: TaskID) -> None:
        self.bar, self.task = bar, task

    def __call__(self, n: int) -> None:
        self.bar.advance(self.task, n)

    def total(self, n: int) -> None:
        self.bar.update(self.task, total=n or None)


def parse_engine(engine: str, scheduler: str | None, workers: int) -> DaskEngine | None:
    """``--engine``/``--scheduler``/``--workers`` -> the Dask engine to run on, or None for
    this machine's processes."""
    if engine == "dask":
        return DaskEngine(scheduler=scheduler, workers=workers)
    if scheduler is not None:
        raise click.UsageError("--scheduler needs --engine dask")
    return None


_Command = TypeVar("_Command", bound=Callable[..., Any])


def engine_options(
    *, verb: str, engine_help: str, workers_help: str
) -> Callable[[_Command], _Command]:
    """The three options, as ``judge``/``rejudge`` and ``import cassettes`` carry them."""

    def decorate(fn: _Command) -> _Command:
        fn = click.option(
            "--scheduler",
            metavar="tcp://HOST:8786",
            help=f"Dask scheduler to {verb} on (--engine dask) [default: a local cluster of "
            "--workers processes].",
        )(fn)
        fn = click.option(
            "--engine",
            type=click.Choice(["process", "dask"]),
            default="process",
            show_default=True,
            help=engine_help,
        )(fn)
        return click.option(
            "--workers",
            type=click.IntRange(min=1),
            default=1,
            show_default=True,
            help=workers_help,
        )(fn)

    return decorate
