"""`rejudge dashboard`: the Streamlit app against the configured store, on loopback by default."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from rejudge.cli._context import AppContext, file_option, pass_app
from rejudge.dashboard import CASSETTES_ENV, DB_ENV, PRICES_ENV
from rejudge.services import read_price_table
from rejudge.store import redact_url

__all__ = ["dashboard", "streamlit_command", "dashboard_env", "app_path"]


def app_path() -> Path:
    import rejudge.dashboard as package

    return Path(package.__file__).resolve().parent / "app.py"


def streamlit_command(*, host: str, port: int) -> list[str]:
    """The command line that serves the app (the store goes in its environment, see
    :func:`dashboard_env`)."""
    # Streamlit's command line, through a launcher that imports the app's heavy modules while
    # the server starts (rejudge.dashboard.serve), so the first page does not wait for them
    return [
        sys.executable,
        "-m",
        "rejudge.dashboard.serve",
        "run",
        str(app_path()),
        "--server.headless",
        "true",
        "--server.address",
        host,
        "--server.port",
        str(port),
        "--browser.gatherUsageStats",
        "false",
        "--client.toolbarMode",
        "minimal",
        # a served dashboard, not an app being edited: no watcher polls the app's files for
        # changes to rerun on (a thread pool checking every page module once a second)
        "--server.fileWatcherType",
        "none",
    ]


def dashboard_env(
    db_url: str, cassettes_dir: Path | None, prices_file: Path | None = None
) -> dict[str, str]:
    """The app's store, cassettes folder and price table, passed in the environment and not on
    the command line: a database URL can hold a password, and every local user can read a
    process's argv (``ps``), not its environment."""
    env = {DB_ENV: db_url}
    if cassettes_dir is not None:
        env[CASSETTES_ENV] = str(cassettes_dir.resolve())
    if prices_file is not None:
        env[PRICES_ENV] = str(prices_file.resolve())
    return env


@click.command()
@click.option("--port", type=click.IntRange(1, 65535), default=8501, show_default=True)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on (loopback by default; 0.0.0.0 exposes it to the network).",
)
@click.option(
    "--dry-run", is_flag=True, hidden=True, help="Print the command instead of running it."
)
@file_option(
    "--prices",
    "prices_file",
    "Price table (rejudge-prices@1 JSON): the Report page and the trace viewer show costs.",
)
@pass_app
def dashboard(
    app: AppContext, port: int, host: str, dry_run: bool, prices_file: Path | None
) -> None:
    """Start the Streamlit dashboard on the configured store (Ctrl+C stops it)."""
    # migrate (or refuse a newer schema) before the app starts, so its errors read like ours
    app.store  # noqa: B018 - opening the store checks and migrates it
    app.close()
    if prices_file is not None:
        read_price_table(prices_file)  # a bad table is refused here, in one line, not in a page
    command = streamlit_command(host=host, port=port)
    app_env = dashboard_env(app.settings.db_url, app.settings.cassettes_dir, prices_file)
    if dry_run:
        shown = {**app_env, DB_ENV: redact_url(app.settings.db_url)}
        click.echo(" ".join([*(f"{k}={v}" for k, v in sorted(shown.items())), *command]))
        return
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(
            f"warning: listening on {host}: the dashboard has no login, so anyone who can reach "
            "this address can read the store",
            err=True,
        )
    click.echo(
        f"rejudge dashboard on http://{host}:{port} (store {redact_url(app.settings.db_url)}); "
        "Ctrl+C stops it",
        err=True,
    )
    env = {**os.environ, **app_env}
    env.setdefault("STREAMLIT_BROWSER_GATHER_USAGE_STATS", "false")
    sys.stdout.flush()
    sys.stderr.flush()
    # replace this process with Streamlit rather than wait on a child: this process's own
    # command line may hold the URL (``rejudge --db postgresql://user:PASSWORD@...``), and every
    # local user can read a live process's argv; after exec only Streamlit's argv (no URL) is left
    os.execve(command[0], command, env)
