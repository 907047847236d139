"""Engine factory: SQLite (WAL, foreign keys, busy timeout) or PostgreSQL (psycopg 3)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from rejudge.store import _nul
from rejudge.store._errors import DatabaseURLError
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

__all__ = ["DEFAULT_DB_URL", "make_engine", "redact_url", "backend_name"]

DEFAULT_DB_URL = "sqlite:///rejudge.db"
_SQLITE_BUSY_TIMEOUT_MS = 30_000
#: the most a connection's page cache may hold, KiB (SQLite's default is 2,000 KiB). Judging
#: writes every judgment into two random-keyed indexes (the judgment key, the trace hash's
#: prefix); a chunk of 2,500 first looks its keys up, then inserts them, touching some 4,000
#: pages of those indexes at 1M judgments: in 2 MB the lookup's pages were gone before the
#: insert came back to them, and the chunk's dirty pages spilled to the WAL before its commit.
#: 32 MB holds a chunk's pages; 128 MB (the whole 1M indexes) saved little more (the writes
#: of the commit are what still grows: bench/README.md, "cache40"). A cap, not a reservation:
#: SQLite takes pages as it reads them, so a connection that reads little stays small
_SQLITE_CACHE_KIB = 32 * 1024


def redact_url(url: str) -> str:
    """The URL with any password hidden, safe for messages and logs."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        # unparseable: still hide whatever sits between "user:" and "@"
        return re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", url)


def backend_name(engine: Engine) -> str:
    return engine.dialect.name


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={_SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute(f"PRAGMA cache_size=-{_SQLITE_CACHE_KIB}")
    cursor.close()


def _check_sqlite_path(database: str | None) -> None:
    if not database or database == ":memory:" or database.startswith("file:"):
        return
    path = Path(database)
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise DatabaseURLError(
            f"cannot use SQLite database {database}: it is a folder, not a file "
            "(name a file, e.g. sqlite:///rejudge.db)",
            field="db",
        )
    if parent.exists() and not parent.is_dir():
        raise DatabaseURLError(
            f"cannot create SQLite database {database}: {parent} is a file, not a folder",
            field="db",
        )
    if not parent.exists():
        raise DatabaseURLError(
            f"cannot create SQLite database {database}: folder {parent} does not exist",
            field="db",
        )
    target = path if path.exists() else parent
    if not os.access(target, os.W_OK):
        raise DatabaseURLError(
            f"cannot write SQLite database {database}: permission denied (choose a writable path)",
            field="db",
        )


def make_engine(url: str, *, echo: bool = False) -> Engine:
    """Create an engine for ``url``; a malformed or unsupported URL raises ``DatabaseURLError``."""
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError) as exc:  # ValueError: e.g. a port that is not a number
        raise DatabaseURLError(
            f"malformed database URL {redact_url(url)!r}: expected e.g. sqlite:///rejudge.db or "
            "postgresql+psycopg://user@host:5432/db",
            field="db",
        ) from exc
    backend = parsed.get_backend_name()
    if backend == "postgresql" and parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    elif backend not in ("sqlite", "postgresql"):
        raise DatabaseURLError(
            f"unsupported database {backend!r} in {redact_url(url)}: use sqlite:/// or postgresql+psycopg://",
            field="db",
        )
    try:
        if backend == "sqlite":
            _check_sqlite_path(parsed.database)
            engine = create_engine(parsed, echo=echo, connect_args={"timeout": 30})
            event.listen(engine, "connect", _sqlite_pragmas)
            if parsed.database and parsed.database != ":memory:":
                # WAL is persistent in the file; set it once per engine, not per connection
                @event.listens_for(engine, "first_connect")
                def _wal(dbapi_connection: Any, _record: Any) -> None:
                    cursor = dbapi_connection.cursor()
                    cursor.execute("PRAGMA journal_mode=WAL")
                    cursor.close()
        else:
            engine = create_engine(
                parsed,
                echo=echo,
                pool_pre_ping=True,
                connect_args={"connect_timeout": 5},
                # every JSON(B) value bound or read through SQLAlchemy or the driver: a value
                # holding a NUL is stored marked (JSONB holds no NUL) and read back as it was
                json_serializer=_nul.dumps,
                json_deserializer=_nul.loads,
            )
    except (ArgumentError, NoSuchModuleError) as exc:
        raise DatabaseURLError(
            f"cannot use database URL {redact_url(url)}: {exc}", field="db"
        ) from exc
    except ImportError as exc:  # a driver named in the URL that is not installed (psycopg2, ...)
        raise DatabaseURLError(
            f"cannot use database URL {redact_url(url)}: its driver is not installed ({exc}); "
            "use sqlite:/// or postgresql+psycopg://",
            field="db",
        ) from exc
    return engine
