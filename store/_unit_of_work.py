"""The unit of work every repository shares, and the base they are written on.

One ``UnitOfWork`` per ``Store``: it holds the engine and, per thread, the connection of an open
``atomic()`` block. Each repository (``store.runs``, ``store.traces``, ...) borrows its
connections from it, so a block that spans several repositories (an importer storing a suite, a
run, its traces and their external verdicts) is still one transaction.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rejudge.store._errors import NotFoundError
from sqlalchemy import ColumnElement, Engine, Table, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

__all__: list[str] = []


class UnitOfWork:
    """The engine and this thread's open transaction, if any."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        # the connection of an open ``atomic()`` block, per thread
        self._held = threading.local()

    @property
    def backend(self) -> str:
        return self.engine.dialect.name

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """Run every write and read of the block in one transaction: all of it lands or none.

        Blocks nest (the inner one joins the outer); the transaction is this thread's.
        """
        held = getattr(self._held, "conn", None)
        if held is not None:
            yield
            return
        with self.engine.begin() as conn:
            self._held.conn = conn
            try:
                yield
            finally:
                self._held.conn = None

    def begin(self) -> Any:
        """A transaction: the ``atomic()`` block's when one is open, else a new one."""
        held = getattr(self._held, "conn", None)
        return _Borrowed(held) if held is not None else self.engine.begin()

    def connect(self) -> Any:
        """A connection for reading: the ``atomic()`` block's (it sees the block's own
        uncommitted writes) when one is open, else a new one."""
        held = getattr(self._held, "conn", None)
        return _Borrowed(held) if held is not None else self.engine.connect()

    def conn(self, conn: Connection | None) -> Any:
        """The caller's connection when it passes one (a write joining the caller's), else
        :meth:`begin`."""
        if conn is not None:
            return _Borrowed(conn)
        return self.begin()

    def insert_ignore(self, table: Table, index_elements: list[str]) -> Any:
        """``INSERT ... ON CONFLICT DO NOTHING`` on ``index_elements``, in this backend's
        dialect: how idempotent writes (traces, judgments, rule sets, suite snapshots) skip
        what another writer stored first."""
        if self.backend == "postgresql":
            return postgresql.insert(table).on_conflict_do_nothing(index_elements=index_elements)
        return sqlite.insert(table).on_conflict_do_nothing(index_elements=index_elements)


class Repository:
    """The base of every repository: its connections come from the shared unit of work."""

    def __init__(self, uow: UnitOfWork) -> None:
        self._uow = uow

    @property
    def engine(self) -> Engine:
        return self._uow.engine

    @property
    def backend(self) -> str:
        return self._uow.backend

    def _begin(self) -> Any:
        return self._uow.begin()

    def _connect(self) -> Any:
        return self._uow.connect()

    def _conn(self, conn: Connection | None) -> Any:
        return self._uow.conn(conn)

    def _insert_ignore(self, table: Table, index_elements: list[str]) -> Any:
        return self._uow.insert_ignore(table, index_elements)

    def _body_where(self, table: Table, where: ColumnElement[bool], missing: str) -> Any:
        """The JSON ``body`` of ``table``'s row ``where`` holds (a key: one row at most);
        :class:`NotFoundError` saying ``missing`` when there is none."""
        with self._connect() as c:
            body = c.execute(select(table.c.body).where(where)).scalar()
        if body is None:
            raise NotFoundError(missing)
        return body


class _Borrowed:
    """Use a caller's connection inside ``with`` without committing or closing it."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def __enter__(self) -> Connection:
        return self.conn

    def __exit__(self, *exc: object) -> None:
        return None
