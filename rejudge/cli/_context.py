"""What every command shares: settings, the store (opened on first use), output helpers."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from rejudge.settings import Settings
from rejudge.store.repository import Store

__all__ = ["AppContext", "pass_app", "table"]


class AppContext:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.console = Console(highlight=False, soft_wrap=True)
        self._store: Store | None = None

    @property
    def json(self) -> bool:
        return self.settings.json

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
        """Print ``data`` as JSON under --json, otherwise call ``render``."""
        if self.json or render is None:
            click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))
        else:
            render(self.console)


pass_app = click.make_pass_decorator(AppContext)


def table(title: str | None, columns: list[str], rows: list[list[Any]]) -> Table:
    out = Table(title=title, show_lines=False)
    for column in columns:
        out.add_column(column)
    for row in rows:
        out.add_row(*["" if v is None else str(v) for v in row])
    return out
