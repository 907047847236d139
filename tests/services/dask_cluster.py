"""Dask clusters for the service tests: a LocalCluster of separate worker processes, and real
`dask scheduler` / `dask worker` commands (a worker may be given a ``--preload`` from data/ that
makes it the machine a test needs: without rejudge, of another engine, ...)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
DASK = str(Path(sys.executable).with_name("dask"))
#: how long a test waits for nannies to bring back the workers it killed: a restart spawns a
#: fresh interpreter that imports dask and rejudge, seconds on a quiet machine but over a minute
#: on two cores under load (a CI run with load average 10 timed out at 60 s)
RESTART_TIMEOUT = 180


@contextmanager
def local_cluster(n_workers: int = 2) -> Iterator[Any]:
    """``n_workers`` worker processes (processes=True), one thread each.

    Worker processes are spawned, and a spawned child first runs the parent's ``__main__``
    file; other tests (Streamlit's AppTest) leave ``__main__`` pointing at a dashboard script,
    so the cluster lives under a bare ``__main__`` (no file to re-run)."""
    import distributed

    saved = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        with distributed.LocalCluster(
            n_workers=n_workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=":0",
            silence_logs=50,
        ) as running:
            yield running
    finally:
        sys.modules["__main__"] = saved


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [DASK, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )


def start_scheduler(port: int) -> subprocess.Popen[bytes]:
    return _start("scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard")


def start_worker(port: int, *extra: str) -> subprocess.Popen[bytes]:
    return _start(
        "worker", f"tcp://127.0.0.1:{port}", "--nthreads", "1", "--no-dashboard", "--no-nanny",
        *extra,
    )  # fmt: skip


def stop(*procs: subprocess.Popen[bytes]) -> None:
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait(timeout=10)


def wait_no_workers(address: str) -> None:
    """Until the scheduler at ``address`` has seen its last worker go (a stopped worker is
    dropped a moment later)."""
    import distributed

    with distributed.Client(address, set_as_default=False, timeout=10) as c:
        deadline = time.monotonic() + 20
        while c.scheduler_info()["workers"] and time.monotonic() < deadline:
            time.sleep(0.2)


def kill_holders_of_unread_results(client: Any, prefix: str) -> list[int]:
    """SIGKILL every worker holding a finished task of ``prefix`` in memory once at least two
    are held (the one the driver just read may still be there; the other is unread), after the
    driver's client has heard of them, so ``as_completed`` has queued a future whose data then
    dies with its worker. Returns the killed pids."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if len(client.run_on_scheduler(_held_results, prefix=prefix)) >= 2:
            break
        time.sleep(0.05)
    time.sleep(1.0)  # the client hears "key in memory" a moment after the scheduler knows
    held = client.run_on_scheduler(_held_results, prefix=prefix)
    holders = sorted({addr for addrs in held.values() for addr in addrs})
    killed = []
    for pid in client.run(os.getpid, workers=holders).values():
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)
    return killed


def _held_results(dask_scheduler: Any, prefix: str) -> dict[str, list[str]]:
    """On the scheduler: each finished task of ``prefix`` still in a worker's memory, and where."""
    return {
        str(key): [ws.address for ws in ts.who_has]
        for key, ts in dask_scheduler.tasks.items()
        if str(key).startswith(prefix) and ts.state == "memory"
    }
