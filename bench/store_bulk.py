"""Store benchmark: bulk-insert synthetic traces, stream them back, watch peak memory.

Usage (from the repository root):

    python bench/store_bulk.py                      # 100,000 traces on SQLite and PostgreSQL
    python bench/store_bulk.py --traces 20000 --backends sqlite

For each backend it
1. creates a fresh database (SQLite: a temporary file; PostgreSQL: a temporary database on the
   server, dropped at the end) and migrates it through ``Store.open``;
2. bulk-inserts N synthetic traces with ``store.traces.save_traces`` (2-4 rounds, 1-3 calls per tool
   round, realistic argument/result payloads; call rows included) and reports inserts/s;
3. streams traces back with ``store.traces.iter_traces`` (each row validated into a ``Trace``) in a
   fresh subprocess per size (10,000 and N), so the two peaks are measured separately; it
   reports reads/s and the highest resident set size seen while streaming (``/proc/self/statm``
   sampled every 500 traces; ``resource.getrusage``'s high-water mark is reported too, but it
   also holds import-time peaks that can hide growth).

The memory bar (DESIGN §4, issue 2): peak RSS grows by less than 50 MB between streaming 10,000
and 100,000 traces. The script exits 1 when a backend misses it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from itertools import islice
from typing import Any

from rejudge.store import Store

from rejudge.model import (
    Case,
    Golden,
    GoldenCall,
    Round,
    RunConfig,
    ToolCall,
    ToolRegistry,
    ToolSpec,
    Trace,
    content_hash,
)

PG_ADMIN_DSN = "postgresql://postgres@127.0.0.1:5432/test"
PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/{db}"
CASES = 100
MEMORY_BAR_MB = 50.0
SMALL = 10_000


def peak_rss_mb() -> float:
    # Linux reports ru_maxrss in KiB
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mb() -> float:
    """Resident set size now (Linux /proc; falls back to the peak elsewhere)."""
    try:
        with open("/proc/self/statm") as fh:
            resident_pages = int(fh.read().split()[1])
    except OSError:
        return peak_rss_mb()
    return resident_pages * os.sysconf("SC_PAGE_SIZE") / 2**20


# --------------------------------------------------------------------------- synthetic data


def registry() -> ToolRegistry:
    names = ["get_order", "get_user", "list_products", "cancel_order", "return_items", "transfer"]
    return ToolRegistry(
        domain="bench",
        tools=[
            ToolSpec(
                name=name,
                description=f"{name.replace('_', ' ')} in the retail backend.",
                parameters={
                    "type": "object",
                    "properties": {"order_id": {"type": "string"}, "reason": {"type": "string"}},
                },
            )
            for name in names
        ],
    )


def cases() -> list[Case]:
    return [
        Case(
            id=f"bench-{i:03d}",
            dimension=f"D{i % 4 + 1}",
            category="cancel",
            instruction=f"Please cancel order #W{1000 + i}; the parcel arrived damaged.",
            golden=Golden(
                calls=[
                    GoldenCall(tool="get_order", params={"order_id": f"#W{1000 + i}"}),
                    GoldenCall(
                        tool="cancel_order",
                        params={"order_id": f"#W{1000 + i}", "reason": "damaged"},
                    ),
                ]
            ),
        )
        for i in range(CASES)
    ]


def synthetic_trace(n: int) -> Trace:
    """Trace number n: 2-4 rounds; every round but the last makes 1-3 calls with results."""
    case_id = f"bench-{n % CASES:03d}"
    tools = ["get_order", "get_user", "list_products", "cancel_order", "return_items", "transfer"]
    rounds: list[Round] = []
    round_count = 2 + n % 3
    for r in range(round_count - 1):
        calls = []
        for k in range(1 + (n + r) % 3):
            order = f"#W{1000 + (n + k) % 5000}"
            args = {"order_id": order, "reason": "damaged", "items": [f"item-{k}", f"item-{k + 1}"]}
            calls.append(
                ToolCall(
                    id=f"call_{n}_{r}_{k}",
                    name=tools[(n + r + k) % len(tools)],
                    arguments=args,
                    arguments_raw=json.dumps(args),
                    result={
                        "order_id": order,
                        "status": "pending",
                        "items": [
                            {"id": f"item-{j}", "name": f"Product {j}", "price": 19.99 + j}
                            for j in range(3)
                        ],
                        "address": {"street": "1 Main St", "city": "Springfield", "zip": "12345"},
                    },
                    ok=True,
                )
            )
        rounds.append(
            Round(
                index=r,
                calls=calls,
                text=None if r else "Let me look that up.",
                finish_reason="tool_calls",
            )
        )
    rounds.append(
        Round(
            index=round_count - 1,
            text="I have cancelled the order; the refund reaches you in 5-7 business days.",
            finish_reason="stop",
        )
    )
    return Trace(
        case_id=case_id,
        repetition=n // CASES,
        rounds=rounds,
        final_text=rounds[-1].text,
        usage={"prompt_tokens": 1200 + n % 300, "completion_tokens": 60 + n % 40},
        normalizer_version="1",
        timings={"wall_s": 1.5, "rounds_s": [0.5] * round_count},
    )


# --------------------------------------------------------------------------- phases


def insert(url: str, count: int) -> dict[str, Any]:
    store = Store.open(url)
    try:
        reg = registry()
        suite_cases = cases()
        suite = store.suites.save_suite(
            name="bench",
            domain="bench",
            suite_hash=content_hash([c.hash for c in suite_cases]),
            registry=reg,
            cases=suite_cases,
        )
        run = store.runs.create_run(name="bench-run", suite=suite, config=RunConfig(model="bench"))
        pks = store.suites.get_case_pks(suite.id)

        def items() -> Iterator[tuple[int, int, Trace, str | None, str | None]]:
            for n in range(count):
                trace = synthetic_trace(n)
                yield run.id, pks[trace.case_id], trace, f"bench/{n}.yaml", None

        # the cost of building the traces themselves, to report the store's share separately
        started = time.perf_counter()
        sample = min(count, 5_000)
        for n in range(sample):
            synthetic_trace(n)
        build_s_per_trace = (time.perf_counter() - started) / sample

        started = time.perf_counter()
        cpu_started = time.process_time()
        inserted = store.traces.save_traces(items())
        elapsed = time.perf_counter() - started
        cpu = time.process_time() - cpu_started
        assert inserted == count, (inserted, count)
        assert store.traces.count_traces(run.id) == count
        body_bytes = len(json.dumps(synthetic_trace(1).model_dump(mode="json")))
        store_s = max(elapsed - build_s_per_trace * count, 1e-9)
        return {
            "run_id": run.id,
            "inserted": inserted,
            "insert_s": round(elapsed, 2),
            "inserts_per_s": round(count / elapsed),
            "store_inserts_per_s": round(count / store_s),
            "insert_cpu_s": round(cpu, 2),
            "trace_json_bytes": body_bytes,
        }
    finally:
        store.close()


def stream_child(url: str, run_id: int, count: int) -> dict[str, Any]:
    """Runs in its own process: stream ``count`` traces, report time and peak RSS growth."""
    store = Store.open(url, migrate=False)
    # warm up imports, the pool and pydantic before the baseline
    next(iter(store.traces.iter_traces(run_id, yield_per=10)))
    baseline = current_rss_mb()
    highest = baseline
    started = time.perf_counter()
    cpu_started = time.process_time()
    seen = 0
    calls = 0
    for stored in islice(store.traces.iter_traces(run_id), count):
        seen += 1
        calls += len(stored.trace.calls)
        if seen % 500 == 0:  # sample the resident size as the stream goes
            highest = max(highest, current_rss_mb())
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    highest = max(highest, current_rss_mb())
    store.close()
    assert seen == count, (seen, count)
    return {
        "streamed": seen,
        "calls": calls,
        "stream_s": round(elapsed, 2),
        "reads_per_s": round(seen / elapsed),
        "reads_per_cpu_s": round(seen / max(cpu, 1e-9)),
        "baseline_rss_mb": round(baseline, 1),
        # highest resident size seen while streaming (sampled every 500 traces)
        "peak_rss_mb": round(highest, 1),
        "rss_growth_mb": round(highest - baseline, 1),
        # the kernel's high-water mark for the whole process (includes import-time peaks)
        "maxrss_mb": round(peak_rss_mb(), 1),
    }


def stream(url: str, run_id: int, count: int) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", url, str(run_id), str(count)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_backend(backend: str, count: int) -> dict[str, Any]:
    if backend == "sqlite":
        folder = tempfile.mkdtemp(prefix="rejudge-bench-")
        url = f"sqlite:///{os.path.join(folder, 'bench.db')}"
        cleanup = lambda: __import__("shutil").rmtree(folder, ignore_errors=True)  # noqa: E731
    else:
        import psycopg

        name = f"rejudge_bench_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(PG_ADMIN_DSN, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        url = PG_URL.format(db=name)

        def cleanup() -> None:
            with psycopg.connect(PG_ADMIN_DSN, autocommit=True, connect_timeout=5) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    try:
        result: dict[str, Any] = {
            "backend": backend,
            "traces": count,
            "load_average_1m": round(os.getloadavg()[0], 2),
            "cpus": os.cpu_count(),
        }
        result.update(insert(url, count))
        small = stream(url, result["run_id"], min(SMALL, count))
        large = stream(url, result["run_id"], count)
        result["stream_small"] = small
        result["stream_large"] = large
        result["reads_per_s"] = large["reads_per_s"]
        result["rss_growth_small_to_large_mb"] = round(
            large["peak_rss_mb"] - small["peak_rss_mb"], 1
        )
        result["memory_ok"] = result["rss_growth_small_to_large_mb"] < MEMORY_BAR_MB
        return result
    finally:
        cleanup()


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        url, run_id, count = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        print(json.dumps(stream_child(url, run_id, count)))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=100_000)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--json", action="store_true", help="print one JSON object per backend")
    parser.add_argument("--out", help="also write the JSON results to this file")
    args = parser.parse_args()
    ok = True
    results = []
    for backend in args.backends.split(","):
        result = bench_backend(backend.strip(), args.traces)
        results.append(result)
        if args.out:
            with open(args.out, "w") as fh:
                json.dump(results, fh, indent=1)
        ok = ok and result["memory_ok"]
        if args.json:
            print(json.dumps(result))
            continue
        s, big = result["stream_small"], result["stream_large"]
        print(
            f"{backend:10} {args.traces:,} traces (~{result['trace_json_bytes']:,} B JSON each): "
            f"insert {result['insert_s']} s = {result['inserts_per_s']:,}/s "
            f"(store share {result['store_inserts_per_s']:,}/s); "
            f"stream {big['stream_s']} s = {big['reads_per_s']:,}/s "
            f"({big['reads_per_cpu_s']:,}/s of client CPU); "
            f"peak RSS {s['peak_rss_mb']} MB @ {s['streamed']:,} -> {big['peak_rss_mb']} MB @ "
            f"{big['streamed']:,} (growth {result['rss_growth_small_to_large_mb']} MB, "
            f"bar < {MEMORY_BAR_MB:.0f} MB: {'ok' if result['memory_ok'] else 'MISSED'}); "
            f"insert CPU {result['insert_cpu_s']} s; load average {result['load_average_1m']} "
            f"on {result['cpus']} CPUs",
            flush=True,
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
