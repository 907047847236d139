"""Imports in progress: a big file's run staged batch by batch, visible only once sealed.

``store.staging`` holds what a streamed import (:mod:`rejudge.services._ingest_staged`) writes
before its file is read to the end: a *staged* suite (its cases added a batch at a time, under a
hash that says it is staged, ``importing:...``) and a *staged* run (status ``importing``, under a
name of its own) whose traces each batch adds in one transaction. Nothing lists them: the run
listings and the suite list leave both out, and the run's own name finds nothing until
:meth:`StagingRepository.seal` gives the suite its real hash and registry, and the run its name,
configuration and ``finished`` status, in one transaction. A process killed half-way leaves only
staged rows, which the same import run again resumes (or :meth:`StagingRepository.drop` removes).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from rejudge.store._batching import BATCH, chunks
from rejudge.store._records import (
    RunRecord,
    SuiteRecord,
    run_record_from_row,
    suite_record_from_row,
)
from rejudge.store._suites import SuiteRepository
from rejudge.store._tables import _T_ANOM, _T_CASE, _T_RUN, _T_SUITE, _T_TRACE, utcnow
from rejudge.store._unit_of_work import Repository, UnitOfWork
from sqlalchemy import delete, func, select, update

from rejudge.model import Case, RunConfig, ToolRegistry, content_hash

__all__ = ["STAGED_RUN_STATUS", "STAGED_SUITE_PREFIX"]

#: the status of a run whose import is in progress (the run listings leave such runs out)
STAGED_RUN_STATUS = "importing"
#: how a staged suite's hash begins (the suite list leaves such suites out)
STAGED_SUITE_PREFIX = "importing:"


class StagingRepository(Repository):
    """``store.staging``: create, fill, seal or drop a staged suite and run."""

    def __init__(self, uow: UnitOfWork, suites: SuiteRepository) -> None:
        super().__init__(uow)
        self._suites = suites

    def staged_run(self, name: str) -> RunRecord | None:
        """The staged run called ``name`` (None: there is none, or it is no staged run)."""
        with self._connect() as c:
            row = c.execute(
                select(_T_RUN).where(_T_RUN.c.name == name, _T_RUN.c.status == STAGED_RUN_STATUS)
            ).first()
        return run_record_from_row(row) if row is not None else None

    def stage(
        self,
        *,
        run_name: str,
        suite_name: str,
        suite_hash: str,
        domain: str,
        registry: ToolRegistry,
        config: RunConfig,
    ) -> tuple[SuiteRecord, RunRecord]:
        """A new staged suite (no cases yet; ``suite_hash`` must begin ``importing:``) and a
        staged run on it, in one transaction."""
        if not suite_hash.startswith(STAGED_SUITE_PREFIX):
            raise ValueError(f"a staged suite's hash begins {STAGED_SUITE_PREFIX!r}")
        with self._begin() as c:
            registry_id = self._suites.save_registry(registry, conn=c)
            suite_id = c.execute(
                _T_SUITE.insert().returning(_T_SUITE.c.id),
                [
                    {
                        "name": suite_name,
                        "hash": suite_hash,
                        "domain": domain,
                        "format_version": 1,
                        "registry_id": registry_id,
                        "case_count": 0,
                        "meta": {},
                        "created_at": utcnow(),
                    }
                ],
            ).scalar_one()
            c.execute(
                _T_RUN.insert(),
                [
                    {
                        "name": run_name,
                        "suite_id": suite_id,
                        "registry_id": registry_id,
                        "model": config.model,
                        "provider": config.provider,
                        "base_url": config.base_url,
                        "harness_mode": config.harness_mode,
                        "config": config.model_dump(mode="json"),
                        "config_hash": config.identity_hash,
                        "suite_hash": suite_hash,
                        "registry_hash": registry.hash,
                        "status": STAGED_RUN_STATUS,
                        "started_at": utcnow(),
                    }
                ],
            )
            suite = c.execute(select(_T_SUITE).where(_T_SUITE.c.id == suite_id)).one()
            run = c.execute(select(_T_RUN).where(_T_RUN.c.name == run_name)).one()
        return suite_record_from_row(suite), run_record_from_row(run)

    def add_cases(self, suite_id: int, cases: Sequence[tuple[int, Case]]) -> dict[str, int]:
        """Add (position, case) rows to a staged suite (a case id it holds already is left as it
        is: a resumed import adds a batch again); case id -> row id for every one given."""
        rows = []
        for position, case in cases:
            body = case.model_dump(mode="json")
            rows.append(
                {
                    "suite_id": suite_id,
                    "case_key": case.id,
                    "hash": content_hash(body),
                    "position": position,
                    "dimension": case.dimension,
                    "category": case.category,
                    "body": body,
                }
            )
        keys = [case.id for _position, case in cases]
        found: dict[str, int] = {}
        with self._begin() as c:
            for chunk in chunks(rows):
                c.execute(self._insert_ignore(_T_CASE, ["suite_id", "case_key"]), list(chunk))
            for part in chunks(keys):
                query = select(_T_CASE.c.case_key, _T_CASE.c.id).where(
                    _T_CASE.c.suite_id == suite_id, _T_CASE.c.case_key.in_(list(part))
                )
                found.update({key: pk for key, pk in c.execute(query).all()})
        return found

    def case_hashes(self, suite_id: int) -> Iterator[str]:
        """A staged suite's case hashes in position order (what its real hash is made of),
        streamed: a big import's seal hashes them as they come, never holding them all."""
        with self._connect() as c:
            query = (
                select(_T_CASE.c.hash)
                .where(_T_CASE.c.suite_id == suite_id)
                .order_by(_T_CASE.c.position)
            )
            stream = {"stream_results": True, "yield_per": BATCH}
            for partition in c.execute(query, execution_options=stream).partitions():
                for (case_hash,) in partition:
                    yield str(case_hash)

    def seal(
        self,
        run: RunRecord,
        *,
        run_name: str,
        suite_hash: str,
        registry: ToolRegistry,
        meta: dict[str, Any],
        config: RunConfig,
    ) -> tuple[SuiteRecord, RunRecord]:
        """Make a staged run a finished run called ``run_name``, in one transaction: its suite
        becomes the snapshot ``suite_hash`` with ``registry`` (when that snapshot is stored
        already, the run's traces move to its cases and the staged suite goes), and the run
        takes its name, ``config`` and status ``finished``."""
        with self._begin() as c:
            staged = c.execute(select(_T_SUITE).where(_T_SUITE.c.id == run.suite_id)).one()
            registry_id = self._suites.save_registry(registry, conn=c)
            existing = c.execute(
                select(_T_SUITE).where(
                    _T_SUITE.c.name == staged.name, _T_SUITE.c.hash == suite_hash
                )
            ).first()
            if existing is not None:
                case_of = (
                    select(_T_CASE.c.id)
                    .where(
                        _T_CASE.c.suite_id == existing.id,
                        _T_CASE.c.case_key == _T_TRACE.c.case_key,
                    )
                    .scalar_subquery()
                )
                c.execute(
                    update(_T_TRACE).where(_T_TRACE.c.run_id == run.id).values(case_id=case_of)
                )
                suite_id = int(existing.id)
            else:
                count = c.execute(
                    select(func.count()).where(_T_CASE.c.suite_id == staged.id)
                ).scalar_one()
                c.execute(
                    update(_T_SUITE)
                    .where(_T_SUITE.c.id == staged.id)
                    .values(hash=suite_hash, registry_id=registry_id, case_count=count, meta=meta)
                )
                suite_id = int(staged.id)
            c.execute(
                update(_T_RUN)
                .where(_T_RUN.c.id == run.id)
                .values(
                    name=run_name,
                    suite_id=suite_id,
                    registry_id=registry_id,
                    model=config.model,
                    provider=config.provider,
                    base_url=config.base_url,
                    harness_mode=config.harness_mode,
                    config=config.model_dump(mode="json"),
                    config_hash=config.identity_hash,
                    suite_hash=suite_hash,
                    registry_hash=registry.hash,
                    status="finished",
                    finished_at=utcnow(),
                )
            )
            if existing is not None:
                self._drop_suite(c, int(staged.id))
            suite = c.execute(select(_T_SUITE).where(_T_SUITE.c.id == suite_id)).one()
            sealed = c.execute(select(_T_RUN).where(_T_RUN.c.id == run.id)).one()
        return suite_record_from_row(suite), run_record_from_row(sealed)

    def drop(self, run: RunRecord) -> None:
        """Remove a staged run, its traces, their anomalies and its staged suite (an abandoned
        import)."""
        with self._begin() as c:
            status = c.execute(select(_T_RUN.c.status).where(_T_RUN.c.id == run.id)).scalar()
            if status != STAGED_RUN_STATUS:
                raise ValueError(f"run {run.name!r} is no staged import")
            c.execute(delete(_T_TRACE).where(_T_TRACE.c.run_id == run.id))
            c.execute(delete(_T_ANOM).where(_T_ANOM.c.run_id == run.id))
            c.execute(delete(_T_RUN).where(_T_RUN.c.id == run.id))
            self._drop_suite(c, run.suite_id)

    @staticmethod
    def _drop_suite(c: Any, suite_id: int) -> None:
        hashed = c.execute(select(_T_SUITE.c.hash).where(_T_SUITE.c.id == suite_id)).scalar()
        if hashed is None or not str(hashed).startswith(STAGED_SUITE_PREFIX):
            return
        c.execute(delete(_T_CASE).where(_T_CASE.c.suite_id == suite_id))
        c.execute(delete(_T_SUITE).where(_T_SUITE.c.id == suite_id))
