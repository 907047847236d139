"""Records grouped by a key in bounded memory: what lets a span file of any size be read a
trace at a time although a trace's spans may lie anywhere in it.

:class:`Groups` holds what it is given in memory up to a budget (bytes of the file they were
read from); past it, everything held is written to a scratch SQLite file (stdlib ``sqlite3``,
``marshal``-packed, in a temporary folder removed on close; a process killed before it closes
leaves its folder, which the next spill in that place removes: a live process holds an
exclusive ``flock`` on the folder's ``lock`` file, which the kernel lets go when the process
ends however it ends, so a folder whose lock can be taken is a dead process's. Read back,
the groups come in key order (or, asked, in the order their keys were first added), each with
its records in the order they were added, so a reader gets the same groups whatever the budget:
memory is bounded by the budget plus the largest group, not by the file. A file that fits the
budget never touches the disk.
"""

from __future__ import annotations

import fcntl
import marshal
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, Generic, TypeVar

__all__ = ["Groups", "SPILL_BUDGET"]

#: bytes of the file held in memory before they are spilled (Python objects of parsed JSON take
#: several times their text's size: 8 MiB of spans hold some 40-60 MiB)
SPILL_BUDGET = 8 * 1024 * 1024

T = TypeVar("T")

_PREFIX = "rejudge-spill-"
_LOCK = "lock"
#: a folder with no lock file is left by a version before the lock (named by its pid, or
#: before that by nothing but a random suffix) or is being made this instant: removed once
#: nothing in it changed for this long
_UNLOCKED_STALE_S = 3600.0


def _hold_lock(folder: Path) -> BinaryIO:
    """The open ``lock`` file of ``folder``, exclusively locked until it is closed (or the
    process ends)."""
    # locked under another name, then renamed: a lock file is never seen unlocked (a spill
    # elsewhere would take the folder for a dead process's)
    making = folder / f"{_LOCK}.making"
    handle = making.open("wb")
    fcntl.flock(handle, fcntl.LOCK_EX)
    making.rename(folder / _LOCK)
    return handle


def _is_stale(folder: Path, now: float) -> bool:
    """Whether ``folder`` is a dead process's. Not by its pid: a pid says nothing across PID
    namespaces (containers sharing a temporary folder), where a live process's pid may not
    exist here or be another's; the lock is the kernel's, wherever the process runs."""
    try:
        handle = (folder / _LOCK).open("rb")
    except FileNotFoundError:
        try:
            newest = max([folder.stat().st_mtime, *(p.stat().st_mtime for p in folder.iterdir())])
        except OSError:
            return False
        return now - newest > _UNLOCKED_STALE_S
    except OSError:
        return False
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # held: its process is alive
        return True


def _remove_stale(scratch_dir: str | Path | None) -> None:
    """Remove the scratch folders that processes killed mid-import left (kill -9 runs no
    cleanup): those whose lock no live process holds, and those of older versions (no lock)
    left untouched for an hour. A live import's folder is left alone."""
    where = Path(scratch_dir if scratch_dir is not None else tempfile.gettempdir())
    try:
        names = os.listdir(where)
    except OSError:
        return
    now = time.time()
    for name in names:
        folder = where / name
        if name.startswith(_PREFIX) and folder.is_dir() and _is_stale(folder, now):
            shutil.rmtree(folder, ignore_errors=True)


class Groups(Generic[T]):
    """Records by key, read back key by key (see the module). ``pack`` turns a record into
    plain data ``marshal`` writes (dicts, lists, tuples, strings, numbers), ``unpack`` back."""

    def __init__(
        self,
        pack: Callable[[T], Any],
        unpack: Callable[[Any], T],
        *,
        budget: int = SPILL_BUDGET,
        scratch_dir: str | Path | None = None,
        first_seen: bool = False,
    ) -> None:
        self._pack, self._unpack = pack, unpack
        self._first_seen = first_seen  # groups in the order keys came, not in key order
        self._budget = budget
        self._scratch_dir = scratch_dir
        self._held: dict[str, list[T]] = {}
        self._weights: dict[str, int] = {}
        self._held_bytes = 0
        self._seq = 0
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._db: sqlite3.Connection | None = None
        self._lock: BinaryIO | None = None  # held while the folder is in use
        self.spilled = 0  # how many times memory was written out

    def add(self, key: str, record: T, weight: int) -> None:
        group = self._held.get(key)
        if group is None:
            self._held[key] = group = []
            self._weights[key] = 0
        group.append(record)
        self._weights[key] += weight
        self._held_bytes += weight
        if self._held_bytes > self._budget:
            self._spill()

    def _open(self) -> sqlite3.Connection:
        if self._db is None:
            _remove_stale(self._scratch_dir)
            self._folder = tempfile.TemporaryDirectory(
                prefix=f"{_PREFIX}{os.getpid()}-", dir=self._scratch_dir
            )
            self._lock = _hold_lock(Path(self._folder.name))
            self._db = sqlite3.connect(
                Path(self._folder.name) / "groups.sqlite", isolation_level=None
            )
            self._db.execute("PRAGMA journal_mode=OFF")
            self._db.execute("PRAGMA synchronous=OFF")
            self._db.execute(
                "CREATE TABLE chunk (key TEXT NOT NULL, seq INTEGER NOT NULL, weight INTEGER, "
                "data BLOB NOT NULL)"
            )
        return self._db

    def _spill(self) -> None:
        if not self._held:
            return
        db = self._open()
        rows = []
        for key, records in self._held.items():
            self._seq += 1
            packed = marshal.dumps([self._pack(r) for r in records])
            rows.append((key, self._seq, self._weights[key], packed))
        db.execute("BEGIN")
        db.executemany("INSERT INTO chunk VALUES (?, ?, ?, ?)", rows)
        db.execute("COMMIT")
        self._held.clear()
        self._weights.clear()
        self._held_bytes = 0
        self.spilled += 1

    def __len__(self) -> int:
        """How many keys are held in memory (the spilled ones are not counted)."""
        return len(self._held)

    def groups(self) -> Iterator[tuple[str, list[T], int]]:
        """Every key in order (see the module) with its records (in the order added) and their
        weight."""
        if self._db is None:
            held, weights = self._held, self._weights
            self._held, self._weights, self._held_bytes = {}, {}, 0
            for key in list(held) if self._first_seen else sorted(held):
                yield key, held.pop(key), weights[key]
            return
        self._spill()
        db = self._db
        db.execute("CREATE INDEX chunk_key ON chunk (key, seq)")
        if self._first_seen:
            yield from self._first_seen_groups(db)
            return
        current: str | None = None
        records: list[T] = []
        weight = 0
        for key, chunk_weight, data in db.execute(
            "SELECT key, weight, data FROM chunk ORDER BY key, seq"
        ):
            if key != current:
                if current is not None:
                    yield current, records, weight
                current, records, weight = key, [], 0
            records.extend(self._unpack(item) for item in marshal.loads(data))
            weight += chunk_weight
        if current is not None:
            yield current, records, weight

    def _first_seen_groups(self, db: sqlite3.Connection) -> Iterator[tuple[str, list[T], int]]:
        # a spill writes its keys in the order they came and numbers its chunks on from the
        # last spill's, so a key's first chunk number is where it was first added; the keys are
        # sorted by it in SQLite (on disk past its cache), each group then read by its index
        keys = db.execute("SELECT key, MIN(seq) AS first FROM chunk GROUP BY key ORDER BY first")
        for key, _first in keys:
            records: list[T] = []
            weight = 0
            for chunk_weight, data in db.execute(
                "SELECT weight, data FROM chunk WHERE key = ? ORDER BY seq", (key,)
            ):
                records.extend(self._unpack(item) for item in marshal.loads(data))
                weight += chunk_weight
            yield key, records, weight

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._folder is not None:
            self._folder.cleanup()  # the lock file goes with it, still held until below
            self._folder = None
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def __enter__(self) -> Groups[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
