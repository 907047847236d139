"""Bad database URLs and unusable databases give one clear line (a StoreError), never a traceback.

About unwritable SQLite paths: tests may run as root, and root writes through ``chmod`` bits, so a
read-only folder does not stop it. The tests below use paths that no user can create a file in:
a folder that does not exist, a "folder" that is a regular file, a folder given as the database,
and ``/proc`` (a kernel filesystem that refuses new files even to root). The ``chmod`` case runs
only when the tests do not run as root.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from rejudge.store import (
    DatabaseUnavailableError,
    DatabaseURLError,
    SchemaVersionError,
    Store,
    StoreError,
    make_engine,
    redact_url,
)


def one_line(exc: BaseException) -> str:
    message = str(exc)
    assert message and "\n" not in message and "Traceback" not in message
    return message


@pytest.mark.parametrize(
    "url",
    ["not a url", "", "rejudge.db", "postgresql+psycopg://u:pw@127.0.0.1:notaport/db"],
    ids=["words", "empty", "bare-path", "bad-port"],
)
def test_malformed_url(url: str) -> None:
    with pytest.raises(DatabaseURLError) as caught:
        Store.open(url)
    message = one_line(caught.value)
    assert "malformed database URL" in message
    assert "sqlite:///" in message  # says what a good one looks like
    assert "pw@" not in message  # a password never reaches a message


@pytest.mark.parametrize(
    "url,named",
    [
        ("mysql://user@localhost/db", "mysql"),
        ("http://example.com/db", "http"),
        ("oracle+cx_oracle://u@h/db", "oracle"),
    ],
)
def test_unsupported_scheme(url: str, named: str) -> None:
    with pytest.raises(DatabaseURLError) as caught:
        make_engine(url)
    message = one_line(caught.value)
    assert f"unsupported database {named!r}" in message
    assert "postgresql+psycopg://" in message


@pytest.mark.parametrize("driver", ["psycopg2", "asyncpg"])
def test_postgres_driver_that_is_not_installed(driver: str) -> None:
    try:
        __import__(driver)
    except ImportError:
        pass
    else:
        pytest.skip(f"{driver} is installed here")
    with pytest.raises(DatabaseURLError) as caught:
        Store.open(f"postgresql+{driver}://u@127.0.0.1:5432/db")
    assert "driver is not installed" in one_line(caught.value)


def test_unreachable_postgres_fails_fast_with_one_line() -> None:
    started = time.monotonic()
    with pytest.raises(DatabaseUnavailableError) as caught:
        Store.open("postgresql+psycopg://rejudge:s3cret@127.0.0.1:1/rejudge")
    elapsed = time.monotonic() - started
    message = one_line(caught.value)
    assert message.startswith("cannot connect to postgresql+psycopg://rejudge:***@127.0.0.1:1/")
    assert "s3cret" not in message
    assert "(check the database URL and that the server is running)" in message
    assert caught.value.field == "db"
    assert elapsed < 10  # connect_timeout keeps it short (a refusal is immediate)
    # the same without migrating
    with pytest.raises(DatabaseUnavailableError):
        Store.open("postgresql+psycopg://rejudge@127.0.0.1:1/rejudge", migrate=False)


@pytest.mark.postgres
def test_missing_postgres_database_is_unavailable() -> None:
    from tests.conftest import PG_URL_PREFIX, require_postgres

    require_postgres()
    url = PG_URL_PREFIX.rsplit("/", 1)[0] + "/rejudge_no_such_database"
    with pytest.raises(DatabaseUnavailableError) as caught:
        Store.open(url)
    assert "rejudge_no_such_database" in one_line(caught.value)


def test_sqlite_under_a_missing_folder(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "deeper" / "rejudge.db"
    with pytest.raises(DatabaseURLError) as caught:
        Store.open(f"sqlite:///{target}")
    assert "does not exist" in one_line(caught.value)
    assert not target.parent.exists()  # nothing was created on the way


def test_sqlite_under_a_file(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(DatabaseURLError) as caught:
        Store.open(f"sqlite:///{blocker / 'rejudge.db'}")
    assert "is a file, not a folder" in one_line(caught.value)


def test_sqlite_path_that_is_a_folder(tmp_path: Path) -> None:
    with pytest.raises(DatabaseURLError) as caught:
        Store.open(f"sqlite:///{tmp_path}")
    assert "is a folder" in one_line(caught.value)


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc")
@pytest.mark.parametrize("path", ["/proc/rejudge-test.db", "/proc/self/rejudge-test.db"])
def test_sqlite_in_a_filesystem_that_refuses_files(path: str) -> None:
    # /proc refuses new files even to root; depending on the folder the refusal is seen before
    # connecting (permission check) or when SQLite opens the file
    with pytest.raises((DatabaseURLError, DatabaseUnavailableError)) as caught:
        Store.open(f"sqlite:///{path}")
    message = one_line(caught.value)
    assert path in message
    assert "(choose a writable" in message and caught.value.field == "db"
    assert "server" not in message  # SQLite has no server to blame


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root ignores chmod")
def test_sqlite_in_a_read_only_folder(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(DatabaseURLError) as caught:
            Store.open(f"sqlite:///{folder / 'rejudge.db'}")
        assert "permission denied" in one_line(caught.value)
    finally:
        folder.chmod(0o700)


def test_every_failure_is_a_store_error() -> None:
    for error in (DatabaseURLError, DatabaseUnavailableError, SchemaVersionError):
        assert issubclass(error, StoreError)


def test_redact_url_hides_passwords_even_when_unparseable() -> None:
    assert (
        redact_url("postgresql+psycopg://me:pw@db:5432/x")
        == "postgresql+psycopg://me:***@db:5432/x"
    )
    assert "pw" not in redact_url("postgresql://me:pw@db:bad/x")
    assert redact_url("sqlite:///rejudge.db") == "sqlite:///rejudge.db"
