"""`rejudge db upgrade | current` and `rejudge runs`."""

from __future__ import annotations

import click
from rich.console import Console

from rejudge.cli._context import AppContext, json_option, pass_app, table
from rejudge.model import TraceStatuses
from rejudge.services import database_revision, list_runs_with_statuses, upgrade_database
from rejudge.store import redact_url


@click.group()
def db() -> None:
    """Database schema: apply migrations, show the current revision."""


@db.command("upgrade")
@json_option
@pass_app
def db_upgrade(app: AppContext) -> None:
    """Apply every migration up to this version's head."""
    revision, head = upgrade_database(app.settings.db_url)
    data = {"db": redact_url(app.settings.db_url), "revision": revision, "head": head}
    app.emit(
        data, lambda c: c.print(f"{data['db']} is at revision {revision} (head)", markup=False)
    )


@db.command("current")
@json_option
@pass_app
def db_current(app: AppContext) -> None:
    """Show the database's schema revision (no migration is applied)."""
    revision, head = database_revision(app.settings.db_url)
    data = {
        "db": redact_url(app.settings.db_url),
        "revision": revision,
        "head": head,
        "up_to_date": revision == head,
    }

    def render(c: Console) -> None:
        state = "up to date" if revision == head else f"head is {head}; run `rejudge db upgrade`"
        c.print(
            f"{data['db']}: revision {revision or 'none (empty database)'} ({state})", markup=False
        )

    app.emit(data, render)


@click.command()
@json_option
@pass_app
def runs(app: AppContext) -> None:
    """List recorded and imported runs."""
    rows, statuses = list_runs_with_statuses(app.store)
    no_trace = TraceStatuses()
    data = [
        {
            "id": r.name,
            "run_id": r.id,
            "suite": r.suite,
            "model": r.model,
            "provider": r.provider,
            "harness_mode": r.harness_mode,
            "repeat": r.repeat,
            "traces": r.traces,
            # how the traces ended, as the store holds them (the run's own status is below)
            "trace_statuses": statuses.get(r.id, no_trace).as_dict(),
            "status": r.status,
            "started_at": r.started_at,
        }
        for r in rows
    ]

    def render(c: Console) -> None:
        if not data:
            c.print("No runs yet. Record one with `rejudge record`, or try `rejudge demo`.")
            return
        c.print(
            table(
                "Runs",
                # traces before harness: a narrow terminal leaves descriptive columns out last
                # first, and how the traces ended matters more than the harness mode
                ["run", "suite", "model", "provider", "traces", "harness", "status"],
                [
                    [
                        r.name,
                        r.suite,
                        r.model,
                        r.provider,
                        statuses.get(r.id, no_trace).describe(),
                        r.harness_mode,
                        r.status,
                    ]
                    for r in rows
                ],
            )
        )

    app.emit(data, render)
