"""What every SQLite connection of a store is opened with, read back from the connection itself:
WAL, ``synchronous=NORMAL`` and foreign keys (durability and integrity, unchanged), and the
page cache capped at ``_SQLITE_CACHE_KIB`` instead of SQLite's default 2,000 KiB (judging's
random-keyed index writes, bench/README.md "cache40")."""

from __future__ import annotations

from pathlib import Path

from rejudge.store import Store
from rejudge.store._engine import _SQLITE_CACHE_KIB, make_engine
from sqlalchemy import Connection

# SQLite's own default (SQLITE_DEFAULT_CACHE_SIZE): what a connection without the PRAGMA reads
_SQLITE_DEFAULT_CACHE_SIZE = -2000


def _pragmas(conn: Connection) -> dict[str, object]:
    names = ("cache_size", "journal_mode", "synchronous", "foreign_keys", "busy_timeout")
    return {name: conn.exec_driver_sql(f"PRAGMA {name}").scalar() for name in names}


def test_every_connection_of_a_file_store_has_the_cache_cap(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'p.db'}")
    try:
        # two connections open at once: the pool's second one is set up like the first
        with store.engine.connect() as first, store.engine.connect() as second:
            for conn in (first, second):
                assert _pragmas(conn) == {
                    "cache_size": -_SQLITE_CACHE_KIB,  # negative: KiB, not pages
                    "journal_mode": "wal",
                    "synchronous": 1,  # NORMAL
                    "foreign_keys": 1,
                    "busy_timeout": 30_000,
                }
    finally:
        store.close()


def test_an_in_memory_engine_has_the_cache_cap_too() -> None:
    engine = make_engine("sqlite://")
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA cache_size").scalar() == -_SQLITE_CACHE_KIB
    finally:
        engine.dispose()


def test_a_plain_sqlite_connection_has_the_default(tmp_path: Path) -> None:
    # what the PRAGMA changes: without it SQLite reads back its default, so the test above
    # fails if the engine stops setting it
    import sqlite3

    raw = sqlite3.connect(tmp_path / "plain.db")
    try:
        assert raw.execute("PRAGMA cache_size").fetchone()[0] == _SQLITE_DEFAULT_CACHE_SIZE
    finally:
        raw.close()
