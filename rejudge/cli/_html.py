"""``--html FILE`` of `rejudge report` and `rejudge compare`: one service call for the page's
data, one pure renderer (:mod:`rejudge.dashboard.report_html`,
:mod:`rejudge.dashboard.compare_html`), one file written through the CLI's one writer (a path
that cannot be written is one ``Error:`` line).

What is printed after: one line naming the file and its size, or under ``--json`` the same
facts as an object (``written``, ``bytes``, ``timelines``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console

from rejudge import __version__
from rejudge.cli._context import AppContext, write_file

__all__ = ["html_option", "write_report_html", "write_compare_html"]

F = TypeVar("F", bound=Callable[..., Any])


def html_option(command: F) -> F:
    option = click.option(
        "--html",
        "html_path",
        type=click.Path(path_type=Path),
        default=None,
        metavar="FILE",
        help="Write the result as one self-contained HTML page (no script, no network needed "
        "to open it), with the timeline of each failing or flipped trace.",
    )
    return option(command)


def _written(app: AppContext, path: Path, text: str, timelines: int, what: str) -> None:
    write_file(path, text)
    size = len(text.encode("utf-8"))
    facts = {"written": str(path), "bytes": size, "timelines": timelines}

    def render(c: Console) -> None:
        c.print(
            f"wrote {path} ({size / 1024:.0f} KiB): {what}, {timelines} trace timeline(s)",
            markup=False,
            highlight=False,
            # one line however long the path: a script reads the file's name from it whole
            soft_wrap=True,
        )

    app.emit(facts, render)


def write_report_html(app: AppContext, evaluation: str, path: Path) -> None:
    from rejudge.dashboard.report_html import report_page
    from rejudge.services import report_page_data

    data = report_page_data(app.store, evaluation, app.settings.cassettes_dir)
    text = report_page(
        data.report,
        data.timelines,
        agreements=data.agreements,
        generator=f"rejudge {__version__}",
    )
    _written(app, path, text, len(data.timelines), "summary, calibration, failing traces")


def write_compare_html(app: AppContext, eval_a: str, eval_b: str, path: Path) -> None:
    from rejudge.dashboard.compare_html import compare_page
    from rejudge.services import compare_page_data

    data = compare_page_data(app.store, eval_a, eval_b, app.settings.cassettes_dir)
    text = compare_page(data.comparison, data.timelines, generator=f"rejudge {__version__}")
    _written(app, path, text, len(data.timelines), "summary, flips and causes, flipped traces")
