"""Re-judging speed: stored traces re-scored per tier, against the floor of merely decoding them.

Usage (from the repository root):

    python bench/judge_rejudge.py                         # 10,000 and 100,000 traces, 1 and 2 workers
    python bench/judge_rejudge.py --sizes 10000 --workers 1 --tiers golden

What it does:

1. Builds a SQLite store per size (a temporary folder) holding the retail suite and N traces made
   from the suite's golden sequences with realistic faults (exact; a wrong value; a missing call;
   an extra read-only call; an unknown tool; no call at all; an agent error), every trace
   distinct (its repetition differs), 1-4 calls each.
2. In a fresh subprocess per (size, workers), on a fresh copy of that store (so every tier writes
   its judgments for real), it measures, in one run:
   - ``floor``: streaming the traces and decoding their JSON (``Store.iter_trace_rows``);
   - ``judge only`` (workers = 1): floor + ``Trace`` validation + ``judge()``, nothing written;
   - ``first judging`` (``rejudge`` in ``--json``): ``judge.batch.judge_run`` per tier with the
     given worker count, on a store that holds no judgment for these inputs: stream, look the
     keys up, judge every trace, serialize, bulk insert-or-ignore the judgments, link them to a
     new evaluation, the summary;
   - ``re-judge, unchanged`` (``lookup`` in ``--json``): the same ``judge_run`` again on the
     same inputs: every judgment key is found, so nothing is judged or written except the new
     evaluation's links and summary (the product's promise: re-judging is a lookup);
   - ``store side`` (workers = 1, the first tier): for bodies judged beforehand under another
     rule set (so every key is new), the CPU per trace of the canonical body and its hashes,
     then of the writes (judgments and links): what a first judging costs even if judging
     itself were free;
   and the process's peak RSS (children included for workers > 1).
3. Prints one table and, with ``--json``, the raw figures. Ratios are CPU time / floor CPU
   time (process + reaped worker processes).

The judge is pure and nothing is cached across distinct inputs: in a first judging every trace
is judged (the script asserts that every judgment was written, then that none was).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rejudge.judge import (  # noqa: E402
    ENGINE_VERSION,
    judge,
    judge_body,
    load_rule_set,  # noqa: E402
    long_lived_frozen,  # noqa: E402
)
from rejudge.store import Store  # noqa: E402
from rejudge.suites import load_suite  # noqa: E402

from rejudge.model import Case, PreparedJudgment, Round, RunConfig, ToolCall, Trace, TraceError  # noqa: E402
from rejudge.services import (  # noqa: E402
    judge_run,
    snapshot_suite,
)

CALL_TIERS = ("contract", "execution", "completion", "completion-contract", "golden")
RULES = "standard@2"
STORE_SIDE_RULES = "standard@1"


# --------------------------------------------------------------------------- building the store


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


def _variant(case: Case, read_only: list[str], kind: int, rep: int) -> Trace:
    calls = _calls(case)
    status = "completed"
    error = None
    if kind == 1 and calls and calls[0].arguments:  # a wrong value
        args = dict(calls[0].arguments or {})
        key = sorted(args)[0]
        args[key] = f"wrong-{rep}"
        calls[0] = calls[0].model_copy(update={"arguments": args})
    elif kind == 2 and calls:  # a missing call
        calls = calls[:-1]
    elif kind == 3:  # an extra read-only call
        calls.append(
            ToolCall(
                name=read_only[rep % len(read_only)], arguments={}, arguments_raw="{}", ok=True
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
    rounds.append(Round(index=len(rounds), text="done"))
    return Trace(
        case_id=case.id,
        repetition=rep,
        status=status,
        rounds=rounds,
        final_text="done",
        error=error,
    )


# kinds 0..6 with weights: mostly right or nearly right, as real runs are
_KINDS = [0] * 5 + [1] * 2 + [2, 3, 4, 5, 6]


def build(path: Path, n: int) -> None:
    source = load_suite("retail")
    read_only = sorted(t.name for t in source.registry.tools if t.read_only)
    store = Store.open(f"sqlite:///{path}")
    suite = snapshot_suite(store, source)
    run = store.create_run(name="bench", suite=suite, config=RunConfig(model="bench"))
    pks = store.get_case_pks(suite.id)
    cases = list(source.cases)
    rng = random.Random(7)
    batch: list[Any] = []
    for i in range(n):
        case = cases[i % len(cases)]
        rep = i // len(cases)
        trace = _variant(case, read_only, rng.choice(_KINDS), rep)
        batch.append((run.id, pks[case.id], trace, None, None))
        if len(batch) >= 5000:
            store.save_traces(batch)
            batch = []
    if batch:
        store.save_traces(batch)
    store.finish_run(run.id)
    store.close()


# --------------------------------------------------------------------------- measuring


def _peak_rss_mb(children: bool) -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if children else 0
    return round(max(own, kids) / 1024, 1)


def _current_rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)


def _cpu() -> float:
    """CPU seconds of this process and its reaped children (the worker pool's, after it ends)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def measure(path: Path, workers: int, tiers: list[str]) -> dict[str, Any]:
    store = Store.open(f"sqlite:///{path}")
    rules = load_rule_set(RULES)
    run = store.get_run("bench")
    n = store.count_traces(run.id)
    out: dict[str, Any] = {"traces": n, "workers": workers, "tiers": {}}
    rss_start = _current_rss_mb()

    t0, c0 = time.perf_counter(), _cpu()
    count = 0
    for _row in store.iter_trace_rows(run.id):
        count += 1
    floor, floor_cpu = time.perf_counter() - t0, _cpu() - c0
    out["floor_s"] = round(floor, 3)
    out["floor_per_s"] = round(count / floor)
    out["floor_per_cpu_s"] = round(count / floor_cpu)

    if workers == 1:
        registry = store.get_registry(run.registry_id)
        cases = {k: c for k, (_pk, c) in store.get_cases(run.suite_id).items()}
        case_hashes = {k: c.hash for k, c in cases.items()}
        reg_hash, rs_hash = registry.hash, rules.hash
        for tier in tiers:
            t0, c0 = time.perf_counter(), _cpu()
            with long_lived_frozen():  # as judge_run does
                for row in store.iter_trace_rows(run.id):
                    judge(
                        Trace.model_validate(row["body"]),
                        cases[row["case_key"]],
                        registry,
                        tier,
                        rules,
                        trace_hash=row["hash"],
                        case_hash=case_hashes[row["case_key"]],
                        registry_hash=reg_hash,
                        rule_set_hash=rs_hash,
                    )
            elapsed, cpu = time.perf_counter() - t0, _cpu() - c0
            entry = out["tiers"].setdefault(tier, {})
            entry["judge_only_s"] = round(elapsed, 3)
            entry["judge_only_per_s"] = round(n / elapsed)
            entry["judge_only_per_cpu_s"] = round(n / cpu)
            entry["judge_only_ratio"] = round(elapsed / floor, 2)
            entry["judge_only_cpu_ratio"] = round(cpu / floor_cpu, 2)

    for tier in tiers:
        entry = out["tiers"].setdefault(tier, {})
        # first judging: every judgment is new and written; then the same inputs again: every
        # judgment is a lookup (a new evaluation linking the stored judgments)
        for phase, expect_written in (("rejudge", n), ("lookup", 0)):
            t0, c0 = time.perf_counter(), _cpu()
            result = judge_run(store, run.id, tier, rules, workers=workers)
            elapsed, cpu = time.perf_counter() - t0, _cpu() - c0
            assert (result.judged, result.written) == (n, expect_written), (
                phase,
                result.judged,
                result.written,
            )
            entry[f"{phase}_s"] = round(elapsed, 3)
            entry[f"{phase}_per_s"] = round(n / elapsed)
            entry[f"{phase}_per_cpu_s"] = round(n / cpu)
            entry[f"{phase}_ratio"] = round(elapsed / floor, 2)
            entry[f"{phase}_cpu_ratio"] = round(cpu / floor_cpu, 2)
            entry[f"{phase}_accuracy"] = result.summary["accuracy"]
        assert entry["rejudge_accuracy"] == entry["lookup_accuracy"]
    out["rss_start_mb"] = rss_start
    out["peak_rss_mb"] = _peak_rss_mb(children=workers > 1)
    if workers == 1 and tiers:  # after the peak RSS reading: it is not a product path
        out["store_side"] = _store_side(store, run, tiers[0])
    store.close()
    return out


def _store_side(store: Store, run: Any, tier: str) -> dict[str, Any]:
    """CPU per trace of a first judging's store side alone: the canonical body and its hashes
    (``PreparedJudgment.from_body``), then the writes (judgments and links, 500 per transaction,
    as ``judge_run`` does), for bodies judged beforehand (not timed). Under ``STORE_SIDE_RULES``,
    so every key is new (the measured tiers' judgments under ``RULES`` are already stored)."""
    rules = load_rule_set(STORE_SIDE_RULES)
    rule_set_id = store.save_rule_set(rules, builtin=True)
    registry = store.get_registry(run.registry_id)
    cases = {k: c for k, (_pk, c) in store.get_cases(run.suite_id).items()}
    case_hashes = {k: c.hash for k, c in cases.items()}
    evaluation_id = store.create_evaluation(
        run_id=run.id, tier=tier, rule_set_id=rule_set_id, engine_version=ENGINE_VERSION
    )
    rows = list(store.iter_trace_rows(run.id, decode=False))
    body_cpu = write_cpu = 0.0
    for start in range(0, len(rows), 500):  # as judge_run: 500 per transaction
        chunk = rows[start : start + 500]
        bodies = [  # judged beforehand, not timed
            judge_body(
                Trace.model_validate_json(row["body"]),
                cases[row["case_key"]],
                registry,
                tier,
                rules,
                trace_hash=row["hash"],
                case_hash=case_hashes[row["case_key"]],
                registry_hash=registry.hash,
                rule_set_hash=rules.hash,
            )
            for row in chunk
        ]
        c0 = _cpu()
        prepared = [PreparedJudgment.from_body(body) for body in bodies]
        c1 = _cpu()
        links = [
            {
                "trace_id": row["id"],
                "case_key": row["case_key"],
                "repetition": row["repetition"],
                "dimension": cases[row["case_key"]].dimension,
                "category": cases[row["case_key"]].category,
                "verdict": p.verdict,
                "partial_score": p.partial_score,
                "judgment_key": p.key,
            }
            for row, p in zip(chunk, prepared, strict=True)
        ]
        store.save_and_link_judgments(evaluation_id, prepared, links)
        c2 = _cpu()
        body_cpu += c1 - c0
        write_cpu += c2 - c1
    n = len(rows)
    return {
        "tier": tier,
        "body_us": round(body_cpu / n * 1e6, 1),
        "writes_us": round(write_cpu / n * 1e6, 1),
        "cap_per_cpu_s": round(n / (body_cpu + write_cpu)),
    }


# --------------------------------------------------------------------------- driver


def _table(results: list[dict[str, Any]], tiers: list[str]) -> str:
    lines = [
        "| traces | workers | tier | floor: decode /s (per CPU-s) "
        "| judge only: /s, per CPU-s (x floor CPU) | first judging: /s, per CPU-s (x floor CPU) "
        "| re-judge, unchanged: /s, per CPU-s (x floor CPU) | peak RSS MB |",
        "|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        for tier in tiers:
            t = r["tiers"][tier]
            only = (
                f"{t['judge_only_per_s']:,}, {t['judge_only_per_cpu_s']:,} "
                f"({t['judge_only_cpu_ratio']}x)"
                if "judge_only_per_s" in t
                else "-"
            )
            lines.append(
                f"| {r['traces']:,} | {r['workers']} | {tier} "
                f"| {r['floor_per_s']:,} ({r['floor_per_cpu_s']:,}) | {only} "
                f"| {t['rejudge_per_s']:,}, {t['rejudge_per_cpu_s']:,} ({t['rejudge_cpu_ratio']}x) "
                f"| {t['lookup_per_s']:,}, {t['lookup_per_cpu_s']:,} ({t['lookup_cpu_ratio']}x) "
                f"| {r['peak_rss_mb']} |"
            )
    for r in results:
        side = r.get("store_side")
        if side:
            lines.append(
                f"\nstore side alone ({r['traces']:,} traces, {side['tier']}, CPU per trace): "
                f"canonical body + hashes {side['body_us']} µs, writes (judgments + links) "
                f"{side['writes_us']} µs: at most {side['cap_per_cpu_s']:,} first judgings per "
                "CPU-second with judging itself free"
            )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--tiers", default=",".join(CALL_TIERS))
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--build", metavar="PATH", help=argparse.SUPPRESS)
    parser.add_argument("--measure", metavar="PATH", help=argparse.SUPPRESS)
    parser.add_argument("-n", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    tiers = [t for t in args.tiers.split(",") if t]

    if args.build:
        build(Path(args.build), args.n)
        return 0
    if args.measure:
        print(json.dumps(measure(Path(args.measure), int(args.workers), tiers)))
        return 0

    results = []
    with tempfile.TemporaryDirectory(prefix="rejudge-bench-") as tmp:
        for size in [int(s) for s in args.sizes.split(",")]:
            base = Path(tmp) / f"base-{size}.db"
            t0 = time.perf_counter()
            subprocess.run(
                [sys.executable, __file__, "--build", str(base), "-n", str(size)], check=True
            )
            print(f"built {size:,} traces in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
            for workers in [int(w) for w in args.workers.split(",")]:
                work = Path(tmp) / f"work-{size}-{workers}.db"
                shutil.copyfile(base, work)
                proc = subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        "--measure",
                        str(work),
                        "--workers",
                        str(workers),
                        "--tiers",
                        ",".join(tiers),
                    ],
                    check=True,
                    capture_output=True,
                    text=True,
                )
                result = json.loads(proc.stdout)
                results.append(result)
                print(
                    f"measured {size:,} traces x {workers} worker(s): peak RSS "
                    f"{result['peak_rss_mb']} MB",
                    file=sys.stderr,
                )
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{work}{suffix}").unlink(missing_ok=True)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(_table(results, tiers))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
