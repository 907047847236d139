"""Importing a large folder of cassettes: a local import vs ``--engine dask --workers N``.

Usage (from the repository root, the `dask` extra installed):

    python bench/dask_import.py                       # ~4,000 cassettes, local vs 2 workers
    python bench/dask_import.py --files 2000 --workers 1,2 --repeat 2 --json

What it does:

1. Builds the folder in a temp dir: every shipped cassette under ``cassettes/`` (186 files,
   SmolLM2 recordings of 9 suites) copied ``ceil(files / 186)`` times, each copy renamed
   ``<case>-c<k>`` (so every file is its own case of the ad-hoc suite; the bytes are the
   shipped ones).
2. Per repeat, three runs of the command as a user types it, in a subprocess, each into a
   fresh SQLite store and cassettes folder: ``rejudge --db ... --cassettes ... import
   cassettes DIR --json`` (the default ``--copy``: the scrubbed copies are written too):
   local; ``--engine dask --workers N`` (the command starts a local cluster of N worker
   processes: its start-up is in the figure); ``--engine dask --scheduler ADDR`` on a local
   cluster of N workers already up and warm (what a user of a standing cluster sees).
3. Times the distributed part alone in this process: the plan (``plan_folder``, and
   ``plan_on_cluster`` on a warm cluster) without the store, with the CPU time spent in this
   process and in the workers (``Client.run``).
4. Checks that every mode stored the same run: run name, suite hash, trace hashes.

The load average (1 min) is read before and after each timing: the machine's cores are shared.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rejudge.recorder import cassette_stem, find_cassettes, plan_folder  # noqa: E402

from rejudge.services import DaskEngine  # noqa: E402
from rejudge.services._distributed_import import plan_on_cluster  # noqa: E402

REJUDGE = str(Path(sys.executable).with_name("rejudge"))


def build_folder(dest: Path, n_files: int) -> int:
    shipped = find_cassettes(REPO / "cassettes")
    copies = math.ceil(n_files / len(shipped))
    count = 0
    for k in range(copies):
        for src in shipped:
            stem = cassette_stem(src)
            case, _sep, rep = stem.partition("__r")
            name = f"{case}-c{k}" + (f"__r{rep}" if rep else "") + src.name[len(stem) :]
            target = dest / src.parent.relative_to(REPO / "cassettes") / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, target)
            count += 1
    return count


def _stored(db: Path) -> tuple[Any, ...]:
    with sqlite3.connect(db) as c:
        runs = c.execute("SELECT name FROM runs").fetchall()
        suites = c.execute("SELECT hash FROM suites").fetchall()
        traces = c.execute("SELECT case_key, repetition, hash FROM traces ORDER BY 1, 2").fetchall()
    return tuple(runs), tuple(suites), tuple(traces)


def time_cli(folder: Path, work: Path, mode: str, extra: list[str]) -> dict[str, Any]:
    db = work / "store.db"
    for stale in (db, work / "cas"):
        if stale.is_dir():
            shutil.rmtree(stale)
        elif stale.exists():
            stale.unlink()
    argv = [REJUDGE, "--db", f"sqlite:///{db}", "--cassettes", str(work / "cas")]
    argv += ["import", "cassettes", str(folder), "--json", *extra]
    load_before = os.getloadavg()[0]
    t0 = time.perf_counter()
    done = subprocess.run(
        argv, capture_output=True, text=True, env={**os.environ, "REJUDGE_DB": ""}
    )
    wall = time.perf_counter() - t0
    if done.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stderr[-2000:]}")
    data = json.loads(done.stdout)
    return {
        "mode": mode,
        "wall_s": round(wall, 2),
        "files_per_s": round(data["cassettes"] / wall, 1),
        "inserted": data["inserted"],
        "run": data["run"],
        "load_before": round(load_before, 1),
        "load_after": round(os.getloadavg()[0], 1),
        "stored": _stored(db),
    }


@contextmanager
def running_cluster(folder: Path, n: int) -> Iterator[str]:
    """A local cluster of ``n`` worker processes, its workers warm (rejudge imported): what
    ``--scheduler`` finds on a cluster that is already up."""
    import distributed

    with distributed.LocalCluster(
        n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        plan_on_cluster(DaskEngine(scheduler=cluster.scheduler_address), min(folder.iterdir()))
        yield cluster.scheduler_address


def _cpu_s() -> float:
    return time.process_time()


def time_plans(folder: Path, workers: list[int]) -> list[dict[str, Any]]:
    """The plan alone (reading, scrubbing, normalizing; no store), the cluster started before
    the clock: wall time, and CPU time in this process and in the workers."""
    import distributed

    out = []
    load = os.getloadavg()[0]
    t0, c0 = time.perf_counter(), _cpu_s()
    local = plan_folder(folder)
    wall, cpu = time.perf_counter() - t0, _cpu_s() - c0
    out.append({"mode": "local", "plan_s": round(wall, 2), "driver_cpu_s": round(cpu, 2),
                "worker_cpu_s": 0.0, "load": round(load, 1)})  # fmt: skip
    for n in workers:
        with (
            running_cluster(folder, n) as address,
            distributed.Client(address, set_as_default=False) as client,
        ):
            engine = DaskEngine(scheduler=address)
            load = os.getloadavg()[0]
            before = client.run(_cpu_s)
            t0, c0 = time.perf_counter(), _cpu_s()
            remote = plan_on_cluster(engine, folder)
            wall, cpu = time.perf_counter() - t0, _cpu_s() - c0
            after = client.run(_cpu_s)
        assert remote == local, "the cluster's plan differs from the local one"
        out.append({
            "mode": f"dask x{n}",
            "plan_s": round(wall, 2),
            "driver_cpu_s": round(cpu, 2),
            "worker_cpu_s": round(sum(after[w] - before[w] for w in after), 2),
            "load": round(load, 1),
        })  # fmt: skip
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=4000, help="about this many cassettes")
    parser.add_argument("--workers", default="2", help="comma-separated worker counts")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    workers = [int(w) for w in args.workers.split(",")]
    with tempfile.TemporaryDirectory(prefix="rejudge-bench-import-") as tmp:
        folder = Path(tmp) / "big"
        n = build_folder(folder, args.files)
        rows = []
        for _ in range(args.repeat):
            rows.append(time_cli(folder, Path(tmp), "local", []))
            for w in workers:
                started = ["--engine", "dask", "--workers", str(w)]
                rows.append(time_cli(folder, Path(tmp), f"dask x{w}, cluster started", started))
                with running_cluster(folder, w) as address:
                    running = ["--engine", "dask", "--scheduler", address]
                    rows.append(time_cli(folder, Path(tmp), f"dask x{w}, cluster running", running))
        assert len({r["stored"] for r in rows}) == 1, "the modes stored different runs"
        plans = time_plans(folder, workers)
    for r in rows:
        del r["stored"]
    if args.json:
        print(json.dumps({"files": n, "cli": rows, "plan": plans}, indent=2))
        return 0
    local = min(r["wall_s"] for r in rows if r["mode"] == "local")
    print(
        f"{n} cassettes; every mode stored the same run ({rows[0]['run']}, "
        f"{rows[0]['inserted']} traces)\n"
    )
    print("| mode | import (wall) | files/s | vs local | load before/after |")
    print("|---|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['mode']} | {r['wall_s']:.2f} s | {r['files_per_s']:,.0f} | "
            f"{local / r['wall_s']:.2f}x | {r['load_before']} / {r['load_after']} |"
        )
    print("\n| mode | plan only (wall) | driver CPU | workers' CPU | files / CPU-s | load |")
    print("|---|---:|---:|---:|---:|---:|")
    for p in plans:
        cpu = p["driver_cpu_s"] + p["worker_cpu_s"]
        print(
            f"| {p['mode']} | {p['plan_s']:.2f} s | {p['driver_cpu_s']:.2f} s | "
            f"{p['worker_cpu_s']:.2f} s | {n / cpu:,.0f} | {p['load']} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
