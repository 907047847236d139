"""Results a page computes from a whole evaluation (a comparison, a report), kept while the store
is unchanged: in the server's memory and on disk, keyed by the SQLite file's state.

Why: at 100,000 traces the judge's comparison of two 50,000-trace evaluations takes seconds
(it reads every row; bench/README.md, "100k-trace store"), and the pages asked for it again
every 30 s (the reads' TTL) and after every restart of the dashboard. A SQLite store's state is
its file's and its write-ahead log's (modification time, size): any write changes one of them,
so a result computed under one state is valid until the state moves, whatever the TTL. Kept on
disk too, a result outlives the server: the next ``rejudge dashboard`` on the same, unchanged
store opens Compare at once.

The disk copy is a pickle, so it is read only from a folder of the user's own that no one else
can write (``<tmp>/rejudge-dashboard-<uid>``, mode 0700, checked before each use); a file that
does not load is computed again. A result is keyed by the store file, the arguments, the state
and the code (a digest of the ``rejudge`` packages' modules' contents, so an edited checkout
never reads a result its old code computed, and a checkout that only touched them still does).
PostgreSQL has no such state to read: its results are not kept here (the caller's TTL applies).

No Streamlit here: :mod:`rejudge.dashboard.data` keeps the in-memory copy.
"""

from __future__ import annotations

import gc
import hashlib
import os
import pickle
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

__all__ = ["StoreState", "store_state", "kept", "code_version", "collector_paused"]

T = TypeVar("T")
#: files kept on disk at most (the oldest go first)
MAX_FILES = 512
#: a state: the database file's and its log's (mtime in ns, size); the log's None when empty
StoreState = tuple[tuple[int, int], tuple[int, int] | None]


def store_state(file: Path | None) -> StoreState | None:
    """The SQLite file's state (see the module); None for a store without a file or a file that
    cannot be read (then nothing is kept)."""
    if file is None:
        return None
    try:
        main = os.stat(file)
    except OSError:
        return None
    try:
        log = os.stat(f"{file}-wal")
        # an empty log (a connection opened it, nothing written) is no state of its own: a
        # new server creates a new one, and its time must not make every result stale
        log_state = (log.st_mtime_ns, log.st_size) if log.st_size > 0 else None
    except OSError:
        log_state = None
    return (main.st_mtime_ns, main.st_size), log_state


#: the packages whose code computes what is kept
_COMPUTING = (
    "rejudge.dashboard",
    "rejudge.judge",
    "rejudge.model",
    "rejudge.services",
    "rejudge.store",
)


@lru_cache(maxsize=1)
def code_version() -> str:
    """A digest of the computing packages' modules, names and contents (once per process).

    Contents, not modification times: a checkout, rebase or reinstall rewrites files without
    changing them, and every such touch threw every kept result away (a 100k store's first
    opens cost seconds each). 1.4 MB of source, hashed in milliseconds."""
    import importlib

    digest = hashlib.sha256()
    for name in _COMPUTING:
        folder = Path(str(importlib.import_module(name).__file__)).parent
        for path in sorted(folder.rglob("*.py")):
            digest.update(f"{name}/{path.relative_to(folder).as_posix()}\0".encode())
            digest.update(path.read_bytes())
            digest.update(b"\0")
    return digest.hexdigest()


def _folder() -> Path | None:
    """The user's private folder for kept results; None when it is not private (then nothing
    is read from or written to disk)."""
    folder = Path(tempfile.gettempdir()) / f"rejudge-dashboard-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return None
    return folder


def _name(file: Path, what: tuple[object, ...], state: StoreState) -> str:
    key = repr((str(file.resolve()), what, state, code_version()))
    return hashlib.sha256(key.encode()).hexdigest()[:32] + ".pickle"


def _trim(folder: Path) -> None:
    files = sorted(folder.glob("*.pickle"), key=lambda p: p.stat().st_mtime_ns)
    for old in files[:-MAX_FILES]:
        old.unlink(missing_ok=True)


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused for the block: what a kept result is loaded or
    computed into is up to hundreds of thousands of new containers (the review queue of a 100k
    store: 19,000 dicts, 11 MB), and each few hundred of them set off a collection that walks
    every young one, each few thousand one that walks the server's whole heap. At 100k the
    review queue loaded in 0.10-0.76 s of CPU with it running, 0.04 s without (nothing it made
    can be garbage yet), and was computed in about half the CPU without it (bench/README.md,
    page39c). The collector is on again after, as it was before (another thread's block may
    have paused it: then that thread turns it back on)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _load(handle: BinaryIO) -> Any:
    """``pickle.load`` with the collector paused (:func:`collector_paused`)."""
    with collector_paused():
        return pickle.load(handle)


def kept(file: Path, what: tuple[object, ...], state: StoreState, compute: Callable[[], T]) -> T:
    """``compute()``'s result for ``what`` (a label and the arguments) on the store ``file`` in
    ``state``: read from disk when an earlier process kept it, else computed and kept."""
    folder = _folder()
    if folder is None:
        return compute()
    path = folder / _name(file, what, state)
    try:
        with open(path, "rb") as handle:
            return _load(handle)  # type: ignore[no-any-return]
    except FileNotFoundError:
        pass
    except Exception:  # a file cut short or from another version: computed again
        path.unlink(missing_ok=True)
    with collector_paused():  # see there: a whole evaluation's rows become new containers
        value = compute()
    try:
        partial = path.with_suffix(f".{os.getpid()}.part")
        with open(partial, "wb") as handle:
            pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(partial, path)
        _trim(folder)
    except OSError:
        pass  # a full disk keeps nothing; the page still shows the result
    return value
