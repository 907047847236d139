"""What every command shares: settings, the store (opened on first use), output helpers.

Output has one path: a command hands :meth:`AppContext.emit` its result (a typed result of
:mod:`rejudge.model._results`, or plain data) and a renderer for people; under ``--json`` the
result's JSON goes through :func:`write_json`, the one JSON writer of the CLI. ``--json`` is
read both before the command (``rejudge --json runs``) and after it (``rejudge runs --json``,
the :func:`json_option` every command that emits data carries).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click
from rich.console import Console
from rich.markup import escape

from rejudge._settings import Settings
from rejudge.cli._tables import FitTable
from rejudge.errors import InvalidInputError
from rejudge.store import Store

if TYPE_CHECKING:  # only named in annotations: the CLI's start loads no model classes
    from rejudge.model import Rubric, RuleSet

__all__ = [
    "AppContext",
    "count_option",
    "file_option",
    "folder_option",
    "seconds_option",
    "emit_listing",
    "emit_versioned",
    "pass_app",
    "table",
    "json_option",
    "write_json",
    "write_file",
    "to_jsonable",
]

F = TypeVar("F", bound=Callable[..., Any])


class AppContext:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        # lines wrap at word boundaries at the terminal's width (COLUMNS, else 80 when piped):
        # a line longer than the terminal would be folded mid-word by the terminal itself
        self.console = Console(highlight=False, soft_wrap=False)
        self._store: Store | None = None
        #: set by a command's own ``--json`` (:func:`json_option`)
        self.json_requested = False

    @property
    def json(self) -> bool:
        """Machine-readable output: ``rejudge --json CMD`` or ``rejudge CMD --json``."""
        return self.settings.json or self.json_requested

    @property
    def store(self) -> Store:
        """The configured store, migrated on first use (a newer schema is refused)."""
        if self._store is None:
            self._store = Store.open(self.settings.db_url)
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def emit(self, data: Any, render: Callable[[Console], None] | None = None) -> None:
        """Print ``data`` as JSON under --json (or without a renderer), otherwise ``render``."""
        if self.json or render is None:
            write_json(data)
        else:
            render(self.console)


pass_app = click.make_pass_decorator(AppContext)


def emit_versioned(
    app: AppContext, thing: RuleSet | Rubric, body: Callable[[Console], None]
) -> None:
    """``rules show`` and ``rubrics show``: the thing whole with its ref and hash as JSON, or
    its ref and hash in a bold line, then ``body``."""
    data = {**thing.model_dump(mode="json"), "ref": thing.ref, "hash": thing.hash}

    def render(c: Console) -> None:
        c.print(f"[bold]{escape(thing.ref)}[/bold]  {thing.hash}")
        body(c)

    app.emit(data, render)


def emit_listing(
    app: AppContext, title: str, rows: Sequence[Mapping[str, Any]], columns: dict[str, str]
) -> None:
    """A listing command (``tiers``, ``import list``): the rows as JSON, or a table of the keys
    ``columns`` names (heading -> key), in its order."""

    def render(c: Console) -> None:
        c.print(table(title, list(columns), [[r[key] for key in columns.values()] for r in rows]))

    app.emit(rows, render)


def to_jsonable(data: Any) -> Any:
    """A typed result's JSON form (its ``to_json``), a list's item by item, or the data itself."""
    if isinstance(data, list):
        return [to_jsonable(item) for item in data]
    to_json = getattr(data, "to_json", None)
    return to_json() if callable(to_json) else data


def write_json(data: Any, *, one_line: bool = False) -> None:
    """The CLI's one JSON writer: indented, UTF-8 as is, anything else by ``str``.

    ``one_line`` prints it on a single line, for output a script reads line by line while the
    command keeps running (``serve-local``).
    """
    indent = None if one_line else 2
    click.echo(json.dumps(to_jsonable(data), indent=indent, ensure_ascii=False, default=str))


def write_file(path: Path | str, text: str, *, append: bool = False) -> None:
    """The CLI's one file writer (UTF-8): a new file is written to a temporary file next to it
    and renamed, so a reader never sees half of it; ``append`` adds to the end (a GitHub step
    summary). A path that cannot be written is one clear error naming it."""
    target = Path(path)
    try:
        if append:
            with target.open("a", encoding="utf-8", newline="") as handle:
                handle.write(text)
            return
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or Path("."))
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
            os.chmod(tmp, 0o644)  # mkstemp's 0600 would hide the report from a CI's uploader
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise InvalidInputError(f"cannot write {target}: {exc.strerror or exc}") from None


def _request_json(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    app = ctx.find_object(AppContext)
    if value and app is not None:
        app.json_requested = True


def json_option(command: F) -> F:
    """The per-command ``--json`` flag (``rejudge runs --json``): the same as the global one."""
    option = click.option(
        "--json",
        "json_output",
        is_flag=True,
        expose_value=False,
        callback=_request_json,
        help="Machine-readable output (the same as `rejudge --json ...`).",
    )
    return option(command)


def count_option(
    flag: str, default: int, help: str, *, most: int | None = None
) -> Callable[[F], F]:
    """An option taking a whole number of at least 1 (threads, requests at once, tokens) and
    at most ``most`` (None: no bound), its default shown in ``--help``."""
    return click.option(
        flag, type=click.IntRange(min=1, max=most), default=default, show_default=True, help=help
    )


def seconds_option(flag: str, dest: str, default: float, help: str) -> Callable[[F], F]:
    """An option taking a time limit in seconds (more than 0), its default shown in ``--help``."""
    return click.option(
        flag,
        dest,
        type=click.FloatRange(min=0, min_open=True),
        default=default,
        show_default=True,
        help=help,
    )


def file_option(
    flag: str, dest: str, help: str, *, required: bool = False, metavar: str | None = None
) -> Callable[[F], F]:
    """An option naming a file (a path; a folder there is refused)."""
    return click.option(
        flag,
        dest,
        type=click.Path(path_type=Path, dir_okay=False),
        required=required,
        metavar=metavar,
        help=help,
    )


def folder_option(flag: str, dest: str, help: str, *, required: bool = False) -> Callable[[F], F]:
    """An option naming a folder (a path; a file there is refused)."""
    return click.option(
        flag, dest, type=click.Path(path_type=Path, file_okay=False), required=required, help=help
    )


def table(title: str | None, columns: list[str], rows: list[list[Any]]) -> FitTable:
    """The CLI's one way to print a table: identifiers whole, cells literal (:mod:`._tables`)."""
    return FitTable.of(title, columns, rows)
