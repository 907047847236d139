"""Results kept while a SQLite store is unchanged (dashboard/kept.py): on a real store file, a
second process's read comes from disk, a write to the store computes again, and a folder that
others may write is never read."""

from __future__ import annotations

import os
import sqlite3
import tempfile
from pathlib import Path

import pytest
from rejudge.dashboard.kept import kept, store_state


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    return tmp_path / f"rejudge-dashboard-{os.getuid()}"


def _db(path: Path) -> Path:
    with sqlite3.connect(path) as c:
        c.execute("PRAGMA journal_mode=WAL")
        c.execute("CREATE TABLE t (x INTEGER)")
    return path


def test_a_result_is_read_back_until_the_store_changes(tmp_path: Path, private_tmp: Path) -> None:
    db = _db(tmp_path / "s.db")
    calls: list[int] = []

    def compute() -> dict[str, int]:
        calls.append(1)
        return {"flips": len(calls)}

    state = store_state(db)
    assert state is not None
    assert kept(db, ("compare", 1, 2), state, compute) == {"flips": 1}
    # another process (nothing in memory) on the unchanged store: read from disk
    assert kept(db, ("compare", 1, 2), store_state(db), compute) == {"flips": 1}  # type: ignore[arg-type]
    assert len(calls) == 1
    assert kept(db, ("compare", 1, 3), state, compute) == {"flips": 2}  # other arguments
    # a write moves the state (the log grows), and the result is computed again
    c = sqlite3.connect(db)
    try:
        c.execute("PRAGMA journal_mode=WAL")
        c.execute("INSERT INTO t VALUES (1)")
        c.commit()
        moved = store_state(db)
        assert moved is not None and moved != state
        assert kept(db, ("compare", 1, 2), moved, compute) == {"flips": 3}
    finally:
        c.close()
    assert oct(private_tmp.stat().st_mode & 0o777) == oct(0o700)


def test_a_file_that_does_not_load_is_computed_again(tmp_path: Path, private_tmp: Path) -> None:
    db = _db(tmp_path / "s.db")
    state = store_state(db)
    assert state is not None
    kept(db, ("report", 1), state, lambda: [1, 2, 3])
    [file] = list(private_tmp.glob("*.pickle"))
    file.write_bytes(b"not a pickle")
    assert kept(db, ("report", 1), state, lambda: [4]) == [4]


def test_a_folder_others_can_write_is_not_used(tmp_path: Path, private_tmp: Path) -> None:
    private_tmp.mkdir(mode=0o700)
    private_tmp.chmod(0o777)
    db = _db(tmp_path / "s.db")
    state = store_state(db)
    assert state is not None
    calls: list[int] = []
    for _ in range(2):
        kept(db, ("report", 1), state, lambda: calls.append(1))
    assert len(calls) == 2 and not list(private_tmp.glob("*"))


def test_no_file_no_state(tmp_path: Path) -> None:
    assert store_state(None) is None
    assert store_state(tmp_path / "missing.db") is None
