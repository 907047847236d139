"""Runs: one recording or import of a suite under one configuration. Created once by name (the
same name and inputs again resumes it; other inputs are refused), planned, finished, listed.

``RunRepository`` is ``store.runs``; the reads for browsing a run's traces and usage it inherits
from :mod:`rejudge.store._run_reads`.
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from rejudge.store._errors import ConflictError, NotFoundError
from rejudge.store._read_common import listed_runs
from rejudge.store._records import (
    RunRecord,
    SuiteRecord,
    run_differences,
    run_record_from_row,
)
from rejudge.store._run_reads import RunReads
from rejudge.store._tables import (
    _T_REG,
    _T_RUN,
    _T_SUITE,
    utcnow,
)
from sqlalchemy import func, select, update

from rejudge.model import RunConfig

__all__ = ["RunListing"]


class RunListing(NamedTuple):
    """One run as ``rejudge db runs`` lists it: its suite's name and how many traces it holds."""

    id: int
    name: str
    suite: str
    model: str
    provider: str
    harness_mode: str
    repeat: int
    traces: int
    status: str
    started_at: datetime
    finished_at: datetime | None


class RunRepository(RunReads):
    """``store.runs``: create or resume, plan, finish, read and list runs."""

    def create_run(
        self,
        *,
        name: str,
        suite: SuiteRecord,
        config: RunConfig,
        prompt_hash: str | None = None,
        resume: bool = True,
    ) -> RunRecord:
        """Create run ``name``, or return it unchanged to resume when its inputs match."""
        config_body = config.model_dump(mode="json")
        config_hash = config.identity_hash
        with self._begin() as c:
            existing = c.execute(select(_T_RUN).where(_T_RUN.c.name == name)).first()
            if existing is not None:
                if not resume:
                    raise ConflictError(
                        f"run {name!r} already exists; choose another run name",
                        run=name,
                        field="name",
                    )
                if existing.config_hash != config_hash or existing.suite_id != suite.id:
                    raise ConflictError(
                        f"run {name!r} exists with a different suite or configuration ("
                        + run_differences(existing, suite, config)
                        + "); run it with the same options to resume it, or choose another run "
                        "name to record a new run",
                        run=name,
                        field="name",
                    )
                return run_record_from_row(existing)
            registry_hash = c.execute(
                select(_T_REG.c.hash).where(_T_REG.c.id == suite.registry_id)
            ).scalar_one()
            row = {
                "name": name,
                "suite_id": suite.id,
                "registry_id": suite.registry_id,
                "model": config.model,
                "provider": config.provider,
                "base_url": config.base_url,
                "harness_mode": config.harness_mode,
                "config": config_body,
                "config_hash": config_hash,
                "suite_hash": suite.hash,
                "registry_hash": registry_hash,
                "prompt_hash": prompt_hash,
                "status": "running",
                "started_at": utcnow(),
            }
            c.execute(self._insert_ignore(_T_RUN, ["name"]), [row])
            created = c.execute(select(_T_RUN).where(_T_RUN.c.name == name)).one()
        return run_record_from_row(created)

    def get_run(self, ref: str | int) -> RunRecord:
        """A run by name, or by numeric id."""
        query = select(_T_RUN)
        if isinstance(ref, int) or (isinstance(ref, str) and ref.isdigit()):
            query = query.where((_T_RUN.c.id == int(ref)) | (_T_RUN.c.name == str(ref)))
        else:
            query = query.where(_T_RUN.c.name == ref)
        with self._connect() as c:
            row = c.execute(query.order_by(_T_RUN.c.id)).first()
        if row is None:
            raise NotFoundError(f"no run {ref!r} in the store", run=ref, field="run")
        return run_record_from_row(row)

    def count_runs_by_suite(self) -> dict[int, int]:
        """suite snapshot id -> how many runs were recorded or imported on it."""
        query = select(_T_RUN.c.suite_id, func.count()).group_by(_T_RUN.c.suite_id)
        with self._connect() as c:
            return {int(suite_id): int(n) for suite_id, n in c.execute(query).all()}

    def list_runs(self) -> list[RunListing]:
        """Every run with its suite name and trace count (one query); an import in progress
        (:mod:`rejudge.store._staging`) is none yet."""
        query = listed_runs(_T_RUN, _T_SUITE.c.name.label("suite_name"))
        with self._connect() as c:
            rows = c.execute(query).all()
        return [
            RunListing(
                id=r.id,
                name=r.name,
                suite=r.suite_name,
                model=r.model,
                provider=r.provider,
                harness_mode=r.harness_mode,
                repeat=(r.config or {}).get("repeat", 1),
                traces=int(r.traces or 0),
                status=r.status,
                started_at=r.started_at,
                finished_at=r.finished_at,
            )
            for r in rows
        ]

    def plan_run(self, run_id: int, case_ids: list[str] | None) -> None:
        """Record which cases the recording now starting plans (None: every case of the suite),
        so a reader knows how many traces to expect while it runs."""
        with self._begin() as c:
            c.execute(
                update(_T_RUN)
                .where(_T_RUN.c.id == run_id)
                .values(planned_cases=list(case_ids) if case_ids is not None else None)
            )

    def finish_run(self, run_id: int, status: str = "finished") -> None:
        with self._begin() as c:
            c.execute(
                update(_T_RUN)
                .where(_T_RUN.c.id == run_id)
                .values(status=status, finished_at=utcnow())
            )
