"""`rejudge import cassettes DIR [--suite NAME]`: store cassettes recorded anywhere as traces."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from rejudge.cli._context import AppContext, json_option, pass_app, table
from rejudge.services import import_cassettes

__all__ = ["import_group", "import_cassettes_cmd"]


@click.group("import")
def import_group() -> None:
    """Bring outside evidence into the store."""


@import_group.command("cassettes")
@click.argument("directory", type=click.Path(path_type=Path))
@click.option("--suite", "suite", metavar="NAME", help="Suite whose cases the cassettes record.")
@click.option("--name", "run_name", metavar="RUN", help="Run name [default: derived from content].")
@click.option(
    "--mapping",
    "mapping",
    type=click.Path(path_type=Path, dir_okay=False),
    help="File mapping cassette files to case ids [default: DIR/rejudge-import.json if present].",
)
@click.option(
    "--copy/--no-copy",
    "copy",
    default=True,
    show_default=True,
    help="Copy the cassettes under --cassettes/<run>/ so the run does not depend on DIR.",
)
@json_option
@pass_app
def import_cassettes_cmd(
    app: AppContext,
    directory: Path,
    suite: str | None,
    run_name: str | None,
    mapping: Path | None,
    copy: bool,
) -> None:
    """Import every cassette under DIRECTORY as the traces of one imported run.

    With --suite, a file <case>.yaml (or <case>__r<k>.yaml) records that case; without it each
    cassette becomes an ad-hoc case with no golden calls.
    """
    result = import_cassettes(
        directory,
        app.store,
        suite,
        run_name=run_name,
        mapping_file=mapping,
        copy_to=app.settings.cassettes_dir if copy else None,
    )
    data = result.summary()

    def render(c: Console) -> None:
        rows = [
            [t["file"], t["case"], t["repetition"], t["status"], t["rounds"], t["calls"]]
            for t in data["traces"]
        ]
        c.print(table(None, ["file", "case", "rep", "status", "rounds", "calls"], rows))
        c.print(
            f"run {data['run']} (suite {data['suite']}): {data['inserted']} trace(s) stored, "
            f"{data['skipped']} already there"
        )

    app.emit(data, render)
