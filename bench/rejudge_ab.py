"""A/B: the same re-judge measured on two (or more) checkouts, alternating, on one machine.

Usage (from the repository root; OLD and NEW are checkouts of the commits to compare, e.g.
``git worktree add /tmp/old <commit>``, each measured by its own interpreter: ``ROOT=PYTHON``, or
the checkout's ``.venv/bin/python`` — an editable install maps the checkout's folders into the
``rejudge`` namespace, so the code under test is the checkout's own):

    python bench/rejudge_ab.py /tmp/old /tmp/new                    # 10,000 traces, golden
    python bench/rejudge_ab.py /tmp/old /tmp/new --traces 100000 --rounds 3 --reps 10

Why: on a shared VM two benchmark runs minutes apart (or at the same time) differ by more than
most changes do. Here every round runs each checkout once, in turn, in a fresh process on a fresh
copy of one store, and each process repeats the measurement ``--reps`` times; the minimum and the
median CPU time per trace are reported per checkout. The minimum of many repeats is the least
noisy estimate of CPU-bound work.

Per process: one first judging of every trace under ``--tier`` / ``standard@2`` (all written),
then ``--reps`` re-judgings of the unchanged inputs (each a lookup: nothing judged or written),
then the full report of the last evaluation (``judge.batch.evaluation_report``).

The store is built by the first checkout's own ``bench/judge_rejudge.py --build`` (an older
rejudge refuses a database a newer one has migrated), and every process works on its own copy.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _api() -> tuple[Any, Any, Any, Any]:
    """judge_run, evaluation_report, load_rule_set and Store wherever this checkout keeps them:
    the services layer, the judge package under the rejudge namespace, or the bare top-level
    packages of the layout before the namespace move."""
    import importlib

    for judging, rulesets, store in (
        ("rejudge.services", "rejudge.judge", "rejudge.store"),
        # the namespaced layout before modules became private (27da142..68a6b1b)
        ("rejudge.judge.batch", "rejudge.judge.rulesets", "rejudge.store.repository"),
        ("judge.batch", "judge.rulesets", "store.repository"),
    ):
        try:
            service = importlib.import_module(judging)
        except ImportError:
            continue
        if not hasattr(service, "judge_run"):  # e.g. an empty services package
            continue
        return (
            service.judge_run,
            service.evaluation_report,
            importlib.import_module(rulesets).load_rule_set,
            importlib.import_module(store).Store,
        )
    raise SystemExit("this checkout has no judge_run this bench knows")


def _measure(root: str, db: str, tier: str, reps: int) -> dict[str, Any]:
    # run by the checkout's own interpreter (its venv maps the checkout's folders, see main)
    judge_run, evaluation_report, load_rule_set, Store = _api()
    store = Store.open(f"sqlite:///{db}")
    run = store.runs.get_run("bench")
    rules = load_rule_set("standard@2")
    c0 = time.process_time()
    first = judge_run(store, run.id, tier, rules)
    first_us = (time.process_time() - c0) / first.judged * 1e6
    assert first.written == first.judged, "the store already held judgments for these inputs"
    lookups = []
    for _ in range(reps):
        c0 = time.process_time()
        again = judge_run(store, run.id, tier, rules)
        lookups.append((time.process_time() - c0) / again.judged * 1e6)
        assert again.written == 0
    c0 = time.process_time()
    report = evaluation_report(store, again.evaluation_id)
    report_us = (time.process_time() - c0) / again.judged * 1e6
    cases = report["cases"] if isinstance(report, dict) else report.cases
    assert len(cases) == again.judged
    store.close()
    return {"first_us": first_us, "lookup_us": lookups, "report_us": report_us}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "roots",
        nargs="*",
        help="checkouts to compare, oldest first, each ROOT or ROOT=PYTHON (default: the "
        "checkout's .venv/bin/python, else this interpreter)",
    )
    parser.add_argument("--traces", type=int, default=10_000)
    parser.add_argument("--tier", default="golden")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--measure", nargs=2, metavar=("ROOT", "DB"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        if args.reps < 1:
            parser.error("--reps must be at least 1")
        print(json.dumps(_measure(args.measure[0], args.measure[1], args.tier, args.reps)))
        return 0
    if len(args.roots) < 2:
        parser.error("name at least two checkouts")
    if args.rounds < 1 or args.reps < 1:
        parser.error("--rounds and --reps must be at least 1")
    pythons = {}
    for spec in args.roots:
        root, _, python = spec.partition("=")
        root = str(Path(root).resolve())
        venv = Path(root) / ".venv" / "bin" / "python"
        pythons[root] = python or (str(venv) if venv.exists() else sys.executable)
    roots = list(pythons)
    results: dict[str, list[dict[str, Any]]] = {root: [] for root in roots}
    with tempfile.TemporaryDirectory(prefix="rejudge-ab-") as tmp:
        base = Path(tmp) / "base.db"
        builder = Path(roots[0]) / "bench" / "judge_rejudge.py"
        subprocess.run(
            [pythons[roots[0]], str(builder), "--build", str(base), "-n", str(args.traces)],
            check=True,
        )
        for round_no in range(args.rounds):
            for root in roots:
                work = Path(tmp) / "work.db"
                shutil.copyfile(base, work)
                out = subprocess.run(
                    [pythons[root], __file__, "--measure", root, str(work)]
                    + ["--tier", args.tier, "--reps", str(args.reps)],
                    check=True,
                    capture_output=True,
                    text=True,
                )
                results[root].append(json.loads(out.stdout))
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{work}{suffix}").unlink(missing_ok=True)
                print(f"round {round_no + 1}: {root} done", file=sys.stderr)
    print(f"{args.traces:,} traces, tier {args.tier}, {args.rounds} rounds x {args.reps} reps")
    print(
        "| checkout | first judging µs/trace (min of rounds) | re-judge, unchanged µs/trace: "
        "min, median (per CPU-s at the min) | report µs/row (min) |"
    )
    print("|---|---:|---:|---:|")
    for root, runs in results.items():
        lookups = [x for r in runs for x in r["lookup_us"]]
        best = min(lookups)
        print(
            f"| {root} | {min(r['first_us'] for r in runs):.1f} | {best:.1f}, "
            f"{statistics.median(lookups):.1f} ({1e6 / best:,.0f}) | "
            f"{min(r['report_us'] for r in runs):.1f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
