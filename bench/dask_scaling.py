"""Judging on Dask: throughput of 1 vs 2 worker processes, and memory per worker, on PostgreSQL.

Usage (from the repository root; PostgreSQL on 127.0.0.1:5432, the `dask` extra installed):

    python bench/dask_scaling.py                           # 100,000 traces, 1 and 2 workers
    python bench/dask_scaling.py --sizes 100000,1000000 --workers 2
    python bench/dask_scaling.py --sizes 20000 --workers 1,2 --json

What it does, per size:

1. Creates its own database (``rejudge_bench_dask``, dropped and created again) and fills it
   **in bulk**, not through the recorder or ``store.traces.save_traces``: the retail suite's golden
   sequences with realistic faults (the ``bench/judge_rejudge.py`` variants), one pydantic dump
   per (case, fault) template, then per trace only its repetition set, its canonical hash
   computed (the same ``content_hash`` of the same dump ``store.traces.save_traces`` stores; checked on
   a sample) and the row sent by PostgreSQL ``COPY``. Every trace is distinct (its repetition
   differs), so every judgment is new. The ``trace_calls`` rows (dashboard aggregates only) are
   not written: judging never reads them.
2. Per worker count, with the store's judgments, links and evaluations emptied first (a first
   judging every time): opens a ``LocalCluster`` of N separate worker processes (one thread
   each), then times ``judge_run`` on it (golden tier, standard@2; partitions of 2,000 traces):
   wall clock, traces/s, and each worker's peak RSS (``ru_maxrss``, read on the worker by
   ``Client.run`` after the judging). The cluster's start-up is timed apart.
3. Prints one table (``--json``: the raw figures). The ratio is 2-worker over 1-worker
   throughput of the same size in the same run.

The driver, the workers and PostgreSQL share this machine's CPUs; on a 2-core machine the
PostgreSQL server's own work (receiving the bulk writes) competes with the two workers.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import resource
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from judge_rejudge import _KINDS, _variant  # noqa: E402
from rejudge.judge import load_rule_set  # noqa: E402
from rejudge.store import Store  # noqa: E402
from rejudge.suites import load_suite  # noqa: E402

from rejudge.model import RunConfig, Trace, behaviour_hash, canonical_json, content_hash  # noqa: E402
from rejudge.services import DaskEngine, open_cluster, snapshot_suite  # noqa: E402

ADMIN = "postgresql://postgres@127.0.0.1:5432/test"
DB = "rejudge_bench_dask"
URL = f"postgresql+psycopg://postgres@127.0.0.1:5432/{DB}"
RULES = "standard@2"


def _admin(sql: str) -> None:
    import psycopg

    with psycopg.connect(ADMIN, autocommit=True) as conn:
        conn.execute(sql)


def build(n: int) -> float:
    """A fresh database holding one run of ``n`` distinct traces; returns seconds taken."""
    t0 = time.perf_counter()
    _admin(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')
    _admin(f'CREATE DATABASE "{DB}"')
    store = Store.open(URL)
    source = load_suite("retail")
    read_only = sorted(t.name for t in source.registry.tools if t.read_only)
    suite = snapshot_suite(store, source)
    run = store.runs.create_run(name="bench", suite=suite, config=RunConfig(model="bench"))
    pks = store.suites.get_case_pks(suite.id)
    cases = list(source.cases)
    rng = random.Random(7)
    templates: dict[tuple[str, int], tuple[dict[str, Any], Trace, str]] = {}
    now = time.strftime("%Y-%m-%d %H:%M:%S+00")
    raw = store.engine.raw_connection()
    try:
        cur = raw.cursor()
        cols = (
            "run_id, case_id, case_key, repetition, status, hash, behaviour_hash, "
            "round_count, call_count, body, normalizer_version, created_at"
        )
        with cur.copy(f"COPY traces ({cols}) FROM STDIN") as copy:
            for i in range(n):
                case = cases[i % len(cases)]
                kind = rng.choice(_KINDS)
                rep = i // len(cases)
                if (case.id, kind) not in templates:
                    trace = _variant(case, read_only, kind, 0, "done")
                    dump = trace.model_dump(mode="json")
                    templates[case.id, kind] = (dump, trace, behaviour_hash(dump))
                body, trace, behaviour = templates[case.id, kind]
                body = {**body, "repetition": rep}
                digest = content_hash({k: v for k, v in body.items() if k != "timings"})
                if i % 9973 == 0:  # the bulk row is the row save_traces would store
                    assert Trace.model_validate(body).hash == digest
                copy.write_row(
                    (
                        run.id,
                        pks[case.id],
                        case.id,
                        rep,
                        trace.status,
                        digest,
                        behaviour,
                        len(trace.rounds),
                        sum(len(r.calls) for r in trace.rounds),
                        canonical_json(body),
                        trace.normalizer_version,
                        now,
                    )
                )
        raw.commit()
    finally:
        raw.close()
    store.runs.finish_run(run.id)
    with store.engine.begin() as c:
        c.exec_driver_sql("ANALYZE traces")
    store.close()
    return time.perf_counter() - t0


def _worker_peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _worker_cpu_s() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def _postgres_cpu_s() -> dict[int, float]:
    """CPU seconds of every PostgreSQL server process alive now (pid -> utime + stime), read
    from /proc: what the database spends receiving the writes, on the same cores."""
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        if name.startswith("postgres"):
            fields = stat[stat.rindex(")") + 2 :].split()
            out[int(entry)] = (int(fields[11]) + int(fields[12])) / tick
    return out


def _own_cpu_s() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def measure(n: int, workers: int) -> dict[str, Any]:
    store = Store.open(URL, migrate=False)
    with store.engine.begin() as c:
        c.exec_driver_sql(
            "TRUNCATE evaluation_judgments, judgments, judgment_bodies, evaluations CASCADE"
        )
    rules = load_rule_set(RULES)
    t0 = time.perf_counter()
    with open_cluster(DaskEngine(workers=workers), store) as cluster:
        startup = time.perf_counter() - t0
        cpu0 = cluster.client.run(_worker_cpu_s)
        pg0, driver0 = _postgres_cpu_s(), _own_cpu_s()
        t0 = time.perf_counter()
        result = cluster.judge_run("bench", "golden", rules)
        elapsed = time.perf_counter() - t0
        pg1, driver1 = _postgres_cpu_s(), _own_cpu_s()
        cpu1 = cluster.client.run(_worker_cpu_s)
        rss = cluster.client.run(_worker_peak_rss_mb)
    worker_cpu = sum(cpu1[w] - cpu0[w] for w in cpu1)
    # a server process that ended during the run is not counted: a floor, not a total
    pg_cpu = sum(v - pg0.get(pid, 0.0) for pid, v in pg1.items())
    assert (result.judged, result.written) == (n, n), (result.judged, result.written)
    store.close()
    return {
        "traces": n,
        "workers": workers,
        "startup_s": round(startup, 2),
        "judge_s": round(elapsed, 2),
        "per_s": round(n / elapsed),
        "worker_cpu_s": round(worker_cpu, 2),
        "per_worker_cpu_s": round(n / worker_cpu),
        "postgres_cpu_s": round(pg_cpu, 2),
        "driver_cpu_s": round(driver1 - driver0, 2),
        "worker_peak_rss_mb": sorted(rss.values()),
        "driver_peak_rss_mb": _worker_peak_rss_mb(),
        "accuracy": result.summary.accuracy,
        "load_1m": round(os.getloadavg()[0], 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000")
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    for size in [int(s) for s in args.sizes.split(",")]:
        built = build(size)
        print(f"built {size:,} traces in bulk in {built:.1f}s", file=sys.stderr)
        for workers in [int(w) for w in args.workers.split(",")]:
            r = measure(size, workers)
            r["build_s"] = round(built, 1)
            results.append(r)
            print(json.dumps(r), file=sys.stderr)
    _admin(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    out = io.StringIO()
    out.write(
        "| traces | workers | judge (wall) | traces/s | ratio vs 1 | traces / worker CPU-s "
        "| worker CPU | PostgreSQL CPU | driver CPU | worker peak RSS | startup | load |\n"
    )
    out.write("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    for r in results:
        base = next((b for b in results if b["traces"] == r["traces"] and b["workers"] == 1), None)
        ratio = f"{r['per_s'] / base['per_s']:.2f}x" if base else "-"
        rss = ", ".join(f"{m:.0f}" for m in r["worker_peak_rss_mb"])
        out.write(
            f"| {r['traces']:,} | {r['workers']} | {r['judge_s']} s | {r['per_s']:,} | {ratio} "
            f"| {r['per_worker_cpu_s']:,} | {r['worker_cpu_s']} s | {r['postgres_cpu_s']} s "
            f"| {r['driver_cpu_s']} s | {rss} MB | {r['startup_s']} s | {r['load_1m']} |\n"
        )
    print(out.getvalue(), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
