"""τ-bench import + judging under every tier, and `rejudge demo` on a fresh store.

Measures, each on a fresh store (SQLite file in a temp folder; PostgreSQL with --backends):

1. ``import_tau_bench`` of the shipped GPT-4o airline file (200 trajectories): seconds and
   traces/s (parse + checks + suite, run, traces and external verdicts written);
2. judging those 200 traces under every applicable tier (standard@2), tier by tier: seconds
   and traces/s each, and in all;
3. the agreement view over those evaluations (``run_agreement``);
4. ``rejudge demo`` as a subprocess (``python -m rejudge --db URL --json demo``) on a fresh
   store, wall time, then again on the same store (everything found already there).

Usage::

    python bench/tau_demo.py                      # SQLite
    python bench/tau_demo.py --backends sqlite postgresql
    python bench/tau_demo.py --json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from rejudge.judge import load_rule_set
from rejudge.judge.tiers import tier_names
from rejudge.store import Store

from rejudge.importers import SHIPPED_TAU_BENCH
from rejudge.services import applicable_tiers, import_tau_bench, judge_run, run_agreement

PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def _url(backend: str, folder: Path) -> tuple[str, Any]:
    if backend == "sqlite":
        return f"sqlite:///{folder / f'bench-{uuid.uuid4().hex[:6]}.db'}", None
    import psycopg

    schema = f"bench_tau_{uuid.uuid4().hex[:10]}"
    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/test", autocommit=True) as c:
        c.execute(f'CREATE SCHEMA "{schema}"')

    def drop() -> None:
        with psycopg.connect("postgresql://postgres@127.0.0.1:5432/test", autocommit=True) as c:
            c.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')

    return f"{PG}?options=-csearch_path%3D{schema}", drop


def bench_backend(backend: str, folder: Path) -> dict[str, Any]:
    out: dict[str, Any] = {"backend": backend}
    url, drop = _url(backend, folder)
    try:
        store = Store.open(url)
        t0 = time.perf_counter()
        result = import_tau_bench(
            SHIPPED_TAU_BENCH / "gpt-4o-airline.json",
            store,
            tools=SHIPPED_TAU_BENCH / "tools.json",
            run_name="tau",
        )
        elapsed = time.perf_counter() - t0
        out["import"] = {
            "traces": result.inserted,
            "s": round(elapsed, 3),
            "per_s": round(result.inserted / elapsed, 1),
        }
        rules = load_rule_set("standard@2")
        tiers = applicable_tiers(store, "tau", tier_names())
        out["tiers"] = {}
        total = 0.0
        for tier in tiers:
            t0 = time.perf_counter()
            judge_run(store, "tau", tier, rules)
            elapsed = time.perf_counter() - t0
            total += elapsed
            out["tiers"][tier] = {"s": round(elapsed, 3), "per_s": round(200 / elapsed, 1)}
        out["judge_all"] = {
            "tiers": len(tiers),
            "judgments": 200 * len(tiers),
            "s": round(total, 3),
            "per_s": round(200 * len(tiers) / total, 1),
        }
        t0 = time.perf_counter()
        agreement = run_agreement(store, "tau")
        out["agreement_s"] = round(time.perf_counter() - t0, 3)
        out["agreement_tiers"] = len(agreement.tiers)
        store.close()
    finally:
        if drop is not None:
            drop()

    url, drop = _url(backend, folder)
    try:
        env = {**os.environ, "REJUDGE_DEBUG": "0"}
        runs = []
        for _ in range(2):
            t0 = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-m", "rejudge", "--db", url, "--json", "demo"],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            )
            wall = time.perf_counter() - t0
            data = json.loads(proc.stdout)
            runs.append(
                {
                    "wall_s": round(wall, 2),
                    "reported_s": data["elapsed_s"],
                    "runs": len(data["runs"]),
                    "evaluations": len(data["evaluations"]),
                    "reused": sum(1 for e in data["evaluations"] if e["reused"]),
                }
            )
        out["demo_fresh"], out["demo_again"] = runs
    finally:
        if drop is not None:
            drop()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--backends", nargs="+", default=["sqlite"], choices=["sqlite", "postgresql"]
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for backend in args.backends:
            results.append(bench_backend(backend, Path(tmp)))
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for r in results:
        print(f"== {r['backend']}")
        i = r["import"]
        print(
            f"import tau-bench: {i['traces']} traces in {i['s']:.2f} s = {i['per_s']:.0f} traces/s"
        )
        for tier, t in r["tiers"].items():
            print(f"  judge {tier:<20} {t['s']:.2f} s = {t['per_s']:.0f} traces/s")
        j = r["judge_all"]
        print(
            f"judge every tier: {j['tiers']} tiers, {j['judgments']} judgments in {j['s']:.2f} s = {j['per_s']:.0f}/s"
        )
        print(f"agreement view ({r['agreement_tiers']} tiers): {r['agreement_s']:.2f} s")
        for label in ("demo_fresh", "demo_again"):
            d = r[label]
            print(
                f"{label}: wall {d['wall_s']:.1f} s (demo's own clock {d['reported_s']:.1f} s), {d['runs']} runs, {d['evaluations']} evaluations, {d['reused']} reused"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
