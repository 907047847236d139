"""``Store``: the entry to persistence. It opens the engine, owns the unit of work
(``atomic()``) and hands out one repository per concept as an attribute: ``store.suites``,
``store.runs``, ``store.traces``, ``store.reviews``, ... (docs/architecture.md has the table).

Reads stream (``yield_per``) and writes go in bulk (one ``insert`` with a list of rows). Writes
that must be idempotent (traces, judgments, rule sets, suite snapshots) use insert-or-ignore on
their unique keys, so two processes writing the same thing never duplicate it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rejudge.store._anomalies import AnomalyRepository
from rejudge.store._baselines import BaselineRepository
from rejudge.store._catalog_reads import CatalogRepository
from rejudge.store._engine import make_engine
from rejudge.store._errors import DatabaseUnavailableError
from rejudge.store._evaluations import EvaluationRepository
from rejudge.store._external import ExternalVerdictRepository
from rejudge.store._judgments import JudgmentRepository
from rejudge.store._migrate import _unavailable as unavailable_error
from rejudge.store._migrate import ensure_schema
from rejudge.store._reviews import ReviewRepository
from rejudge.store._rule_sets import RuleSetRepository
from rejudge.store._runs import RunRepository
from rejudge.store._staging import StagingRepository
from rejudge.store._suites import SuiteRepository
from rejudge.store._traces import TraceRepository
from rejudge.store._unit_of_work import UnitOfWork
from sqlalchemy import Engine
from sqlalchemy.exc import DatabaseError, DBAPIError, InterfaceError, OperationalError

__all__ = ["Store"]


class Store:
    """All persistence. Construct with an engine, or use ``Store.open(url)``."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        # the unit of work the repositories share: one atomic() block spans all of them
        self._uow = UnitOfWork(engine)
        self.suites = SuiteRepository(self._uow)
        self.rule_sets = RuleSetRepository(self._uow)
        self.runs = RunRepository(self._uow)
        self.catalog = CatalogRepository(self._uow)
        self.traces = TraceRepository(self._uow, self.catalog)
        self.evaluations = EvaluationRepository(self._uow)
        self.judgments = JudgmentRepository(self._uow)
        self.reviews = ReviewRepository(self._uow)
        self.baselines = BaselineRepository(self._uow)
        self.external = ExternalVerdictRepository(self._uow)
        self.staging = StagingRepository(self._uow, self.suites)
        self.anomalies = AnomalyRepository(self._uow)

    @classmethod
    def open(cls, url: str, *, migrate: bool = True) -> Store:
        """Open ``url``; a fresh or older database is migrated, a newer one is refused."""
        engine = make_engine(url)
        if migrate:
            ensure_schema(engine)
        else:
            try:
                with engine.connect():
                    pass
            except OperationalError as exc:
                raise unavailable_error(engine, exc) from exc
        return cls(engine)

    @property
    def backend(self) -> str:
        return self.engine.dialect.name

    def close(self) -> None:
        self.engine.dispose()

    def sqlite_file(self) -> Path | None:
        """The SQLite file this store reads (None for another backend or an in-memory one)."""
        url = self.engine.url
        if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
            return None
        return Path(url.database).resolve()

    def unavailable(self, exc: BaseException) -> DatabaseUnavailableError | None:
        """``exc`` as the one-line error a lost or refused database gives, or None when it is
        something else: a reader (the dashboard) that outlives a database restart shows this
        line instead of the driver's traceback."""
        if isinstance(exc, DatabaseUnavailableError):
            return exc
        # OperationalError: refused, dropped, a missing table; a bare DatabaseError is what
        # SQLite says of a file that is no longer a database
        if (
            isinstance(exc, OperationalError | InterfaceError)
            or type(exc) is DatabaseError
            or (isinstance(exc, DBAPIError) and exc.connection_invalidated)
        ):
            return unavailable_error(self.engine, exc)
        return None

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """Run every write and read of the block in one transaction: all of it lands or none.

        An importer that creates a suite, a run, its traces and their external verdicts wraps
        them in this, so a failure half-way (a refused verdict, a lost database) stores
        nothing. Blocks nest (the inner one joins the outer); the transaction is this thread's,
        and every repository's calls inside the block join it.
        """
        with self._uow.atomic():
            yield
