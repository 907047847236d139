"""The store's schema and listings as the CLI shows them: apply the migrations, read the
revision, list the runs with how their traces ended, read a run's traces. Each is one call, so
``rejudge db``, ``runs`` and ``traces`` parse, call it and print (no store read of their own)."""

from __future__ import annotations

from typing import NamedTuple

from rejudge.errors import InvalidInputError
from rejudge.model import TraceStatuses
from rejudge.store import (
    RunListing,
    RunRecord,
    Store,
    StoredTrace,
    current_revision,
    head_revision,
    make_engine,
    upgrade,
)

__all__ = [
    "DatabaseRevision",
    "RunsAndStatuses",
    "RunTraces",
    "database_revision",
    "list_runs_with_statuses",
    "run_traces",
    "upgrade_database",
]


class DatabaseRevision(NamedTuple):
    """A database's schema revision (None: an empty database) and this version's head."""

    revision: str | None
    head: str

    @property
    def up_to_date(self) -> bool:
        return self.revision == self.head


def upgrade_database(url: str) -> DatabaseRevision:
    """Apply every migration up to this version's head; the revision it is at after."""
    engine = make_engine(url)
    try:
        upgrade(engine)
        revision = current_revision(engine)
    finally:
        engine.dispose()
    return DatabaseRevision(revision, head_revision())


def database_revision(url: str) -> DatabaseRevision:
    """The database's schema revision, no migration applied."""
    engine = make_engine(url)
    try:
        revision = current_revision(engine)
    finally:
        engine.dispose()
    return DatabaseRevision(revision, head_revision())


class RunsAndStatuses(NamedTuple):
    """Every run, and how each run's traces ended (a run without traces is absent)."""

    runs: list[RunListing]
    statuses: dict[int, TraceStatuses]


def list_runs_with_statuses(store: Store) -> RunsAndStatuses:
    """``rejudge runs``: the runs and their traces' statuses."""
    return RunsAndStatuses(store.runs.list_runs(), store.catalog.trace_statuses())


class RunTraces(NamedTuple):
    run: RunRecord
    traces: list[StoredTrace]


def run_traces(store: Store, run_ref: str | int, case_key: str | None = None) -> RunTraces:
    """A run's stored traces (only ``case_key``'s when given: a case with none is an error)."""
    run = store.runs.get_run(run_ref)
    traces = list(store.traces.iter_traces(run.id, case_key=case_key))
    if case_key is not None and not traces:
        raise InvalidInputError(f"run {run.name!r} has no trace for case {case_key!r}")
    return RunTraces(run, traces)
