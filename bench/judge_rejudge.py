"""Judging speed on two workloads side by side: every behaviour distinct, and repeated trials.

Usage (from the repository root):

    python bench/judge_rejudge.py                          # 10,000 and 100,000 traces, golden
    python bench/judge_rejudge.py --sizes 10000 --tiers golden,contract --workers 1,2
    python bench/judge_rejudge.py --sizes 10000 --memory   # tracemalloc at the judging's peak

Why two workloads: the judging service judges the traces that share a ``behaviour_hash``
(``traces.behaviour_hash``: the body without repetition and timings) once per batch and copies
the judgment to the others. A workload whose traces repeat behaviours measures that reuse, not
judging. So, per size, two stores are built and measured one after the other in the same run:

- ``distinct``: every trace's behaviour is its own (the answer text differs per trace, as a
  model's free text does; faults as below with per-trace values). The script counts the
  distinct ``behaviour_hash`` values in the store after ingest and stops unless the count
  equals the number of traces.
- ``trials``: ``--reps`` repetitions (default 10) of ``ceil(N / reps)`` cases (the retail
  suite's 72 cases copied under new ids as needed), each case with a usual behaviour that most
  repetitions repeat exactly; some repetitions deviate (one of two faults fixed per case) or
  answer in other words (a text of their own). The share of distinct behaviours is counted in
  the store, not assumed.

Traces come from the retail suite's golden sequences with realistic faults (exact; a wrong
value; a missing call; an extra read-only call; an unknown tool; no call at all; an agent
error), 1-4 calls each, every trace with timings of its own (not behaviour).

In a fresh subprocess per (size, workload, workers), on a fresh copy of that store, in one
process and in this order, each phase timed (wall, CPU of this process and reaped workers) and
its own peak resident set size taken (``VmHWM`` after resetting it through
``/proc/self/clear_refs``):

- ``floor``: what the judging service reads of every trace it judges, without judging it:
  ``store.traces.iter_trace_rows(with_body=False)`` in ``judge_run``'s chunks,
  ``store.traces.trace_bodies`` of the chunk, each body decoded into a ``Trace``
  (``rejudge.judge.decode_trace``), with the
  long-lived objects frozen as ``judge_run`` does. Measured twice (first and last phase of the
  process); the lower of the two CPU times is the floor the ratios ("x floor CPU") divide by.
  ``stream`` is the plain ``iter_trace_rows`` with bodies decoded by ``json.loads``, for
  reference.
- ``first judging``: ``rejudge.services.judge_run`` on a store holding no judgment for these
  inputs (asserted: every trace's judgment written).
- ``re-judge, unchanged``: the same ``judge_run`` again: a lookup (asserted: nothing written,
  the same accuracy).
- ``report``: ``rejudge.services.evaluation_report`` of that evaluation (every trace's row).

Figures are ratios measured side by side: on a shared machine the absolute rates move with
the load, the two workloads and the floor in one run see the same load.

``--memory`` runs the first judging of each store under ``tracemalloc`` instead (slow, not
timed) and prints the traced peak and the allocation sites alive at the chunk boundary where
the traced memory was highest.

``--checkout LABEL=ROOT=PYTHON`` (repeatable) measures other checkouts of rejudge beside this
one in the same run, each by its own ``bench/judge_rejudge.py`` and interpreter (e.g. a
worktree of an older commit with its own venv): each builds its own stores (an older rejudge
refuses a database a newer one migrated; the traces are the same, drawn from the same seeds,
and their counts are checked equal), and per (size, workload) the checkouts are measured one
after the other, so they see the same load. The table gets a ``checkout`` column.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import json
import math
import random
import re
import resource
import shutil
import sqlite3
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from _common import Checkout, add_checkout_options, parse_checkout, run_child

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rejudge.judge import decode_trace, load_rule_set, long_lived_frozen  # noqa: E402
from rejudge.store import Store  # noqa: E402
from rejudge.suites import load_suite  # noqa: E402

from rejudge.model import Case, Round, RunConfig, ToolCall, Trace, TraceError  # noqa: E402
from rejudge.services import evaluation_report, judge_run, snapshot_suite  # noqa: E402

WORKLOADS = ("distinct", "trials")
RULES = "standard@2"
CHUNK = inspect.signature(judge_run).parameters["chunk_size"].default  # judge_run's chunk size


# --------------------------------------------------------------------------- building the stores


def _calls(case: Case) -> list[ToolCall]:
    out = []
    for g in case.golden.calls:
        for _ in range(g.count):
            out.append(
                ToolCall(
                    name=g.tool,
                    arguments=dict(g.params),
                    arguments_raw=json.dumps(g.params),
                    ok=True,
                    result={"status": "ok"},
                )
            )
    return out


def _variant(case: Case, read_only: list[str], kind: int, value: int, text: str) -> Trace:
    """A trace of ``case`` with fault ``kind``; ``value`` picks the wrong value / extra tool."""
    calls = _calls(case)
    status = "completed"
    error = None
    if kind == 1 and calls and calls[0].arguments:  # a wrong value
        args = dict(calls[0].arguments or {})
        key = sorted(args)[0]
        args[key] = f"wrong-{value}"
        calls[0] = calls[0].model_copy(update={"arguments": args})
    elif kind == 2 and calls:  # a missing call
        calls = calls[:-1]
    elif kind == 3:  # an extra read-only call
        calls.append(
            ToolCall(
                name=read_only[value % len(read_only)], arguments={}, arguments_raw="{}", ok=True
            )
        )
    elif kind == 4:  # an unknown tool
        calls.append(ToolCall(name="teleport", arguments={"to": "moon"}, arguments_raw="{}"))
    elif kind == 5:  # answered without a call
        calls = []
    elif kind == 6:
        status = "agent_error"
        error = TraceError(kind="http_error", message="500 from the server")
    rounds = [Round(index=i, calls=[c]) for i, c in enumerate(calls)]
    rounds.append(Round(index=len(rounds), text=text))
    return Trace(
        case_id=case.id, repetition=0, status=status, rounds=rounds, final_text=text, error=error
    )


# kinds 0..6 with weights: mostly right or nearly right, as real runs are
_KINDS = [0] * 5 + [1] * 2 + [2, 3, 4, 5, 6]
# trials: what a repetition does (the rest repeat the case's usual behaviour exactly)
P_DEVIATE = 0.15  # one of the case's two faults, fixed per case (so deviations repeat too)
P_OWN_TEXT = 0.05  # the usual calls, answered in words of its own


def _traces(
    workload: str, n: int, cases: list[Case], read_only: list[str], reps: int
) -> Iterator[tuple[Case, Trace]]:
    rng = random.Random(7)
    if workload == "distinct":
        for i in range(n):
            case = cases[i % len(cases)]
            trace = _variant(case, read_only, rng.choice(_KINDS), i, f"done (answer {i})")
            yield case, trace.model_copy(update={"repetition": i // len(cases)})
        return
    for c, case in enumerate(cases):
        usual = rng.choice(_KINDS)
        faults = [k for k in (1, 2, 3, 4, 5, 6) if k != usual]
        deviations = rng.sample(faults, 2)
        for rep in range(reps):
            if c * reps + rep >= n:
                return
            draw = rng.random()
            if draw < P_DEVIATE:
                trace = _variant(case, read_only, rng.choice(deviations), c, "done")
            elif draw < P_DEVIATE + P_OWN_TEXT:
                trace = _variant(case, read_only, usual, c, f"done, as asked ({rep})")
            else:
                trace = _variant(case, read_only, usual, c, "done")
            yield case, trace.model_copy(update={"repetition": rep})


def build(path: Path, n: int, workload: str, reps: int) -> None:
    source = load_suite("retail")
    read_only = sorted(t.name for t in source.registry.tools if t.read_only)
    if workload == "trials":  # ceil(n / reps) cases: the suite's cases copied under new ids
        wanted = math.ceil(n / reps)
        base = list(source.cases)
        copies = [
            case if j == 0 else case.model_copy(update={"id": f"{case.id}-t{j}"})
            for j in range(math.ceil(wanted / len(base)))
            for case in base
        ][:wanted]
        source = dataclasses.replace(source, cases=copies)
    store = Store.open(f"sqlite:///{path}")
    suite = snapshot_suite(store, source)
    run = store.runs.create_run(name="bench", suite=suite, config=RunConfig(model="bench"))
    pks = store.suites.get_case_pks(suite.id)
    rng = random.Random(11)
    batch: list[Any] = []
    for case, trace in _traces(workload, n, list(source.cases), read_only, reps):
        timings = {"total_ms": round(rng.uniform(300, 9000), 1)}  # not behaviour
        trace = trace.model_copy(update={"timings": timings})
        batch.append((run.id, pks[case.id], trace, None, None))
        if len(batch) >= 5000:
            store.traces.save_traces(batch)
            batch = []
    if batch:
        store.traces.save_traces(batch)
    store.runs.finish_run(run.id)
    store.close()


def store_counts(path: Path) -> dict[str, int]:
    """Traces, distinct behaviours and cases of the bench run, counted in the SQLite file."""
    with sqlite3.connect(path) as db:
        traces, behaviours, cases = db.execute(
            "SELECT count(*), count(DISTINCT t.behaviour_hash), count(DISTINCT t.case_key) "
            "FROM traces t JOIN runs r ON r.id = t.run_id WHERE r.name = 'bench'"
        ).fetchone()
    return {"traces": traces, "behaviours": behaviours, "cases": cases}


# --------------------------------------------------------------------------- measuring


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as fh:
        match = re.search(rf"^{field}:\s+(\d+) kB", fh.read(), re.M)
    return int(match.group(1)) if match else 0


def _reset_peak() -> bool:
    """Reset this process's peak RSS (VmHWM) to its current RSS (Linux >= 4.0)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _cpu() -> float:
    """CPU seconds of this process and its reaped children (the worker pool's, after it ends)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _timed(n: int, fn: Callable[..., Any], *args: Any, **kw: Any) -> tuple[dict[str, Any], Any]:
    reset = _reset_peak()
    kids_before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0, c0 = time.perf_counter(), _cpu()
    value = fn(*args, **kw)
    wall, cpu = time.perf_counter() - t0, _cpu() - c0
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    out = {
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu, 3),
        "wall_us": round(wall / n * 1e6, 1),
        "cpu_us": round(cpu / n * 1e6, 1),
        # this process's peak during the phase (since process start if the reset failed)
        "peak_rss_mb": round(_status_kb("VmHWM") / 1024, 1),
        "peak_reset": reset,
        "rss_after_mb": round(_status_kb("VmRSS") / 1024, 1),
    }
    if kids > kids_before:  # a worker process ended during the phase with a new high
        out["workers_peak_rss_mb"] = round(kids / 1024, 1)
    return out, value


def _floor(store: Store, run_id: int) -> int:
    """Read and decode every trace as the judging service does, judging nothing."""
    count = 0
    with long_lived_frozen():
        rows = store.traces.iter_trace_rows(run_id, with_body=False)
        while True:
            chunk = [row for _, row in zip(range(CHUNK), rows, strict=False)]
            if not chunk:
                return count
            bodies = store.traces.trace_bodies([row.id for row in chunk])
            for row in chunk:
                decode_trace(bodies[row.id])
                count += 1


def _stream(store: Store, run_id: int) -> int:
    count = 0
    for row in store.traces.iter_trace_rows(run_id):
        json.loads(row.body)
        count += 1
    return count


def measure(path: Path, workers: int, tiers: list[str]) -> dict[str, Any]:
    counts = store_counts(path)
    store = Store.open(f"sqlite:///{path}")
    rules = load_rule_set(RULES)
    run = store.runs.get_run("bench")
    n = store.traces.count_traces(run.id)
    assert n == counts["traces"]
    out: dict[str, Any] = {**counts, "workers": workers, "rss_start_mb": 0.0, "tiers": {}}
    out["rss_start_mb"] = round(_status_kb("VmRSS") / 1024, 1)
    floors = []
    phase, count = _timed(n, _floor, store, run.id)
    assert count == n
    floors.append(phase)
    out["stream"], _ = _timed(n, _stream, store, run.id)
    for tier in tiers:
        entry: dict[str, Any] = {}
        results = []
        for name, expect_written in (("first", n), ("lookup", 0)):
            entry[name], result = _timed(n, judge_run, store, run.id, tier, rules, workers=workers)
            assert (result.judged, result.written) == (n, expect_written), (
                name,
                result.judged,
                result.written,
            )
            results.append(result)
        assert results[0].summary.accuracy == results[1].summary.accuracy
        entry["accuracy"] = results[0].summary.accuracy
        entry["report"], report = _timed(n, evaluation_report, store, results[1].evaluation_id)
        assert len(report.cases) == n
        del report
        out["tiers"][tier] = entry
    phase, _ = _timed(n, _floor, store, run.id)
    floors.append(phase)
    out["floor_start"], out["floor_end"] = floors
    out["floor_cpu_s"] = min(f["cpu_s"] for f in floors)  # what the ratios divide by
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    store.close()
    return out


def memory_profile(path: Path, tier: str, top: int = 12) -> dict[str, Any]:
    """The first judging under tracemalloc: its traced peak, and the allocation sites alive at
    the chunk boundary (``judge_run``'s progress callback) where traced memory was highest."""
    store = Store.open(f"sqlite:///{path}")
    rules = load_rule_set(RULES)
    run = store.runs.get_run("bench")
    tracemalloc.start(1)
    base = tracemalloc.get_traced_memory()[0]
    best: dict[str, Any] = {"current": 0, "snapshot": None, "at": 0}
    done = 0

    def progress(k: int) -> None:
        nonlocal done
        done += k
        current = tracemalloc.get_traced_memory()[0]
        if current > best["current"]:
            best.update(current=current, snapshot=tracemalloc.take_snapshot(), at=done)

    result = judge_run(store, run.id, tier, rules, progress=progress)
    _cur, peak = tracemalloc.get_traced_memory()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    store.close()
    assert result.written == result.judged
    exclude = [tracemalloc.Filter(False, tracemalloc.__file__)]
    top_at_peak = best["snapshot"].filter_traces(exclude).statistics("lineno")[:top]
    held_after = after.filter_traces(exclude).statistics("lineno")[:top]

    def rows(stats: list[tracemalloc.Statistic]) -> list[list[Any]]:
        return [[str(s.traceback[0]), round(s.size / 2**20, 2), s.count] for s in stats]

    return {
        "traces": result.judged,
        "traced_before_mb": round(base / 2**20, 2),
        "traced_peak_mb": round(peak / 2**20, 2),
        "traced_at_worst_chunk_mb": round(best["current"] / 2**20, 2),
        "worst_chunk_after_traces": best["at"],
        "top_at_worst_chunk": rows(top_at_peak),
        "top_after": rows(held_after),
    }


# --------------------------------------------------------------------------- driver


def _table(results: list[dict[str, Any]], tiers: list[str]) -> str:
    lines = [
        "| checkout | traces | workload | distinct behaviours | workers | tier | phase | wall s "
        "| CPU s | CPU µs/trace | x floor CPU | phase peak RSS MB |",
        "|---|---:|---|---:|---:|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        share = f"{r['behaviours']:,} ({r['behaviours'] / r['traces']:.0%})"
        head = f"| {r['checkout']} | {r['traces']:,} | {r['workload']} | {share} | {r['workers']} "
        floor_cpu = r["floor_cpu_s"]
        phases = [
            ("-", "floor (first phase)", r["floor_start"]),
            ("-", "stream + json.loads", r["stream"]),
        ]
        if r["floor_end"] is None:  # a checkout whose script reported the lower floor only
            phases[0] = ("-", "floor (min of 2)", r["floor_start"])
        for tier in tiers:
            t = r["tiers"][tier]
            phases += [
                (tier, "first judging", t["first"]),
                (tier, "re-judge, unchanged", t["lookup"]),
                (tier, "report", t["report"]),
            ]
        if r["floor_end"] is not None:
            phases.append(("-", "floor (last phase)", r["floor_end"]))
        for tier, name, p in phases:
            lines.append(
                f"{head}| {tier} | {name} | {p['wall_s']} | {p['cpu_s']} | {p['cpu_us']} "
                f"| {p['cpu_s'] / floor_cpu:.2f} | {p['peak_rss_mb']} |"
            )
    return "\n".join(lines)


def _run_self(*args: str, checkout: Checkout | None = None) -> str:
    return run_child(__file__, checkout, *args).stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--reps", type=int, default=10, help="repetitions per case (trials)")
    parser.add_argument("--workers", default="1")
    parser.add_argument("--tiers", default="golden")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--memory", action="store_true", help="tracemalloc the first judging")
    add_checkout_options(parser, child=False)
    parser.add_argument("--build", metavar="PATH", help=argparse.SUPPRESS)
    parser.add_argument("--workload", default="trials", help=argparse.SUPPRESS)
    parser.add_argument("--measure", metavar="PATH", help=argparse.SUPPRESS)
    parser.add_argument("--profile", metavar="PATH", help=argparse.SUPPRESS)
    parser.add_argument("-n", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    tiers = [t for t in args.tiers.split(",") if t]
    workloads = [w for w in args.workloads.split(",") if w]
    if unknown := set(workloads) - set(WORKLOADS):
        parser.error(f"unknown workload(s): {', '.join(sorted(unknown))}")

    if args.build:  # also what bench/rejudge_ab.py builds its store with
        build(Path(args.build), args.n, args.workload, args.reps)
        return 0
    if args.measure:
        print(json.dumps(measure(Path(args.measure), int(args.workers), tiers)))
        return 0
    if args.profile:
        print(json.dumps(memory_profile(Path(args.profile), tiers[0])))
        return 0

    checkouts: list[Checkout | None] = [None, *(parse_checkout(c, __file__) for c in args.checkout)]

    def label(checkout: Checkout | None) -> str:
        return "this" if checkout is None else checkout[0]

    results = []
    with tempfile.TemporaryDirectory(prefix="rejudge-bench-") as tmp:
        for size in [int(s) for s in args.sizes.split(",")]:
            bases: dict[tuple[str, str], Path] = {}
            for workload in workloads:
                seen: dict[str, int] | None = None
                for checkout in checkouts:
                    name = label(checkout)
                    base = Path(tmp) / f"base-{size}-{workload}-{name}.db"
                    bases[name, workload] = base
                    t0 = time.perf_counter()
                    _run_self(
                        "--build", str(base), "-n", str(size), "--workload", workload,
                        checkout=checkout,
                    )  # fmt: skip
                    counts = store_counts(base)
                    print(
                        f"built {size:,} traces ({workload}, {name}) in "
                        f"{time.perf_counter() - t0:.1f}s: {counts['behaviours']:,} distinct "
                        f"behaviours ({counts['behaviours'] / counts['traces']:.1%}) over "
                        f"{counts['cases']:,} cases",
                        file=sys.stderr,
                    )
                    if counts["traces"] != size:
                        raise SystemExit(f"{workload}: {counts['traces']} traces, not {size}")
                    if workload == "distinct" and counts["behaviours"] != size:
                        raise SystemExit(
                            f"distinct: {counts['behaviours']:,} distinct behaviours in "
                            f"{size:,} traces"
                        )
                    if seen is not None and counts != seen:
                        raise SystemExit(f"{name} built other traces: {counts} against {seen}")
                    seen = counts
            # the workloads and checkouts one after the other, so they see the same load
            for workers in [1] if args.memory else [int(w) for w in args.workers.split(",")]:
                for workload in workloads:
                    for checkout in checkouts:
                        name = label(checkout)
                        work = Path(tmp) / f"work-{size}-{workload}-{workers}-{name}.db"
                        shutil.copyfile(bases[name, workload], work)
                        if args.memory:
                            out = _run_self(
                                "--profile", str(work), "--tiers", ",".join(tiers),
                                checkout=checkout,
                            )  # fmt: skip
                        else:
                            out = _run_self(
                                "--measure", str(work), "--workers", str(workers),
                                "--tiers", ",".join(tiers), checkout=checkout,
                            )  # fmt: skip
                        result = json.loads(out)
                        if "floor_cpu_s" not in result and "floor" in result:
                            # ec3b801's script: the lower of its two floor passes only
                            result["floor_start"], result["floor_end"] = result["floor"], None
                            result["floor_cpu_s"] = result["floor"]["cpu_s"]
                        result["workload"] = workload
                        result["size"] = size
                        result["checkout"] = name
                        results.append(result)
                        print(
                            f"measured {size:,} traces ({workload}, {name}) x {workers} worker(s)",
                            file=sys.stderr,
                        )
                        for suffix in ("", "-wal", "-shm"):
                            Path(f"{work}{suffix}").unlink(missing_ok=True)
            for base in bases.values():
                base.unlink(missing_ok=True)
    if args.json or args.memory:
        print(json.dumps(results, indent=2))
    else:
        print(_table(results, tiers))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
