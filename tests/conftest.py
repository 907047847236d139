"""Shared fixtures: one database per test, on SQLite and on PostgreSQL.

``db_url`` is the URL of a fresh, empty (unmigrated) database; ``store`` is a migrated ``Store``
on it. Both are parametrized over the two backends, so a test that takes either runs twice.

PostgreSQL isolation: every test gets its own schema (``rejudge_test_<random>``) in the server's
``test`` database, selected through the URL's ``options=-csearch_path=...``; the schema is
dropped after the test. Random names keep two test runs sharing one server apart. The URL is a
plain string, so CLI tests can pass it to ``--db`` unchanged.

When the server does not answer, the PostgreSQL params skip; under CI (``CI`` set) or with
``REJUDGE_REQUIRE_POSTGRES=1`` they fail instead, because there the server must be up.
"""

from __future__ import annotations

import functools
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from rejudge.store import Store

if TYPE_CHECKING:
    from rejudge.services import DemoResult

PG_HOST = "127.0.0.1"
PG_PORT = 5432
PG_ADMIN_DSN = f"postgresql://postgres@{PG_HOST}:{PG_PORT}/test"
PG_URL_PREFIX = f"postgresql+psycopg://postgres@{PG_HOST}:{PG_PORT}/test"
BACKENDS = (
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres),
)

#: the cassettes the repository ships, and its SmolLM2 runs of a suite whose registry names a
#: world (retail, genome), each with the built-in suite it was recorded against
CASSETTES = Path(__file__).resolve().parents[1] / "cassettes"
SHIPPED_WORLD_RUNS = {
    "smollm2-retail": "retail",
    "smollm2-retail-oracle": "retail",
    "smollm2-retail-required": "retail",
    "smollm2-genome-simple": "genome-simple",
    "smollm2-genome-complex": "genome-complex",
}


@functools.cache
def postgres_problem() -> str | None:
    """None when the server answers, else why not (checked once per session)."""
    try:
        import psycopg

        with psycopg.connect(PG_ADMIN_DSN, connect_timeout=3, autocommit=True) as conn:
            conn.execute("SELECT 1")
    except Exception as exc:  # any failure means: no usable server
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return f"PostgreSQL on {PG_HOST}:{PG_PORT} not answering ({first})"
    return None


def require_postgres() -> None:
    problem = postgres_problem()
    if problem is None:
        return
    if os.environ.get("CI") or os.environ.get("REJUDGE_REQUIRE_POSTGRES") == "1":
        pytest.fail(f"{problem}; CI must start it (see .ci/run)")
    pytest.skip(problem)


def _admin(sql: str) -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN_DSN, connect_timeout=5, autocommit=True) as conn:
        conn.execute(sql)


def drop_schema(schema: str) -> None:
    """Drop a test's schema, waiting out whoever still holds a lock in it.

    A Dask worker may still be inside a cancelled partition's transaction when its test ends
    (a running task cannot be interrupted), and the DROP then deadlocks with it or waits. The
    DROP is retried for a while; the last tries end the holders' sessions first."""
    import time

    import psycopg
    from psycopg import errors

    holders = (
        "SELECT pg_terminate_backend(l.pid) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
        " JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = %s AND l.pid <> pg_backend_pid()"
    )
    for attempt in range(8):
        with psycopg.connect(PG_ADMIN_DSN, connect_timeout=5, autocommit=True) as conn:
            if attempt >= 5:
                conn.execute(holders, (schema,))
            try:
                conn.execute("SET lock_timeout = '5s'")
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
                return
            except (errors.DeadlockDetected, errors.LockNotAvailable):
                if attempt == 7:
                    raise
        time.sleep(1)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """The backend under test: "sqlite" or "postgresql"."""
    if request.param == "postgresql":
        require_postgres()
    return str(request.param)


@pytest.fixture
def db_url(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of a fresh, empty database on ``backend``, removed after the test."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('db') / 'rejudge.db'}"
        return
    schema = f"rejudge_test_{uuid.uuid4().hex[:12]}"
    _admin(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{PG_URL_PREFIX}?options=-csearch_path%3D{schema}"
    finally:
        drop_schema(schema)


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    """A migrated ``Store`` on a fresh database (closed after the test)."""
    opened = Store.open(db_url)
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, DemoResult]:
    """``rejudge demo`` run once with the network blocked, from a working folder of its own (no
    cassettes there: the demo finds the shipped ones): its store's URL and what it returned.
    Session-wide: the demo takes seconds, and the tests only read the store."""
    import socket

    from rejudge.services import run_demo

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("the demo opened a network connection")

    ran_in = tmp_path_factory.mktemp("demo-cwd")
    url = f"sqlite:///{ran_in / 'rejudge.db'}"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(socket.socket, "connect", no_network)
        mp.chdir(ran_in)
        opened = Store.open(url)
        try:
            result = run_demo(opened, Path("cassettes"))
        finally:
            opened.close()
    return url, result


@pytest.fixture(scope="session")
def demo_store(
    demo_run: tuple[str, DemoResult], tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Path]:
    """The demo's store and a *different* folder for the tests to read it from, as a user who
    runs ``cd X; rejudge demo`` and reads it elsewhere."""
    return demo_run[0], tmp_path_factory.mktemp("elsewhere")


@pytest.fixture
def toy_importer(tmp_path: Path) -> Iterator[Path]:
    """A plugin's importer (tests/importer_fakes.py) registered for one test, unregistered after
    it; yields a log it imports."""
    from rejudge.registry import REGISTRY
    from tests.importer_fakes import TOY_IMPORTER, write_toy_log

    REGISTRY.register("importer", TOY_IMPORTER.name, TOY_IMPORTER)
    try:
        yield write_toy_log(tmp_path / "toy.json")
    finally:
        REGISTRY.unregister("importer", TOY_IMPORTER.name)
