"""Where a first judging (and an unchanged re-judge) of the ``distinct`` workload spends its CPU,
by stage: in-process CPU timers (``time.process_time``: user + system of this process) around
the functions of ``judge_run``'s path, each stage's time *exclusive* of the stages timed inside
it, plus the cyclic collector's time (``gc.callbacks``).

Usage (from the repository root):

    python bench/judge_stages.py --traces 100000            # builds the store, then times
    python bench/judge_stages.py --store /tmp/s.db          # built there once, reused after

The store is bench/judge_rejudge.py's ``distinct`` workload (same seeds); each measurement runs
on a fresh copy of it. Timers cost a little per call (two ``process_time`` calls and a stack
push), so the stages add up to a bit more than an untimed run: shares, not absolute figures,
are what this script is for. cProfile's per-call overhead distorts the shares of the small
functions called per trace; this does much less so.
"""

from __future__ import annotations

import argparse
import functools
import gc
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import judge_rejudge  # noqa: E402
from rejudge.judge import load_rule_set  # noqa: E402
from rejudge.store import Store  # noqa: E402

_totals: dict[str, float] = {}
_INSERT_LABELS = {
    "evaluation_judgments": "link inserts",
    "judgments": "judgment inserts",
    "judgment_bodies": "body inserts",
}
_stack: list[list[float]] = []  # per open stage: [time spent in stages inside it]


def _enter() -> float:
    _stack.append([0.0])
    return time.process_time()


def _leave(label: str, start: float) -> None:
    spent = time.process_time() - start
    inner = _stack.pop()[0]
    _totals[label] = _totals.get(label, 0.0) + spent - inner
    if _stack:
        _stack[-1][0] += spent


def _timed(label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = _enter()
        try:
            return fn(*args, **kwargs)
        finally:
            _leave(label, start)

    return wrapper


def _timed_iter(label: str, fn: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
    """A generator function whose every ``next`` is timed (not the consumer's work between)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Iterator[Any]:
        it = fn(*args, **kwargs)
        while True:
            start = _enter()
            try:
                item = next(it)
            except StopIteration:
                return
            finally:
                _leave(label, start)
            yield item

    return wrapper


def _patch(obj: Any, name: str, label: str, *, generator: bool = False) -> None:
    raw = obj.__dict__[name]
    if isinstance(raw, classmethod):
        setattr(obj, name, classmethod(_timed(label, raw.__func__)))
        return
    wrap = _timed_iter if generator else _timed
    setattr(obj, name, wrap(label, raw))


def install() -> None:
    """Wrap the stages of ``judge_run``'s path (by module attribute, as the code calls them)."""
    import rejudge.judge._batch as batch
    import rejudge.judge._report as report
    import rejudge.store._judgments as judgments
    import rejudge.store._traces as traces
    from rejudge.judge._call_memo import CallMemo

    import rejudge.services._judge_steps as steps
    import rejudge.services._judging as judging
    from rejudge.model import PreparedJudgment

    _patch(traces.TraceRepository, "iter_trace_rows", "read rows", generator=True)
    _patch(traces.TraceRepository, "trace_bodies", "read bodies")
    batch.decode_trace = _timed("decode", batch.decode_trace)
    _patch(batch.KeyMaker, "__call__", "keys")
    _patch(judgments.JudgmentRepository, "lookup_judgments", "key lookup")
    _patch(batch.BatchJudge, "plan", "chunk plan")
    _patch(CallMemo, "key", "judge: call memo key")
    batch.judge_body = _timed("judge: judge_body", batch.judge_body)
    _patch(PreparedJudgment, "from_body", "canonical JSON + hashes")
    _patch(PreparedJudgment, "for_trace", "copies (memo hits)")
    _patch(batch, "_judge_rows", "judge: the rest")
    _patch(batch.BatchJudge, "complete", "plan complete")
    _patch(report.ReportBuilder, "add_values", "summary")
    judging.settle_chunk = _timed("link rows", steps.settle_chunk)
    _patch(judgments.JudgmentRepository, "_insert_judgment_rows", "body ids + judgment params")
    raw_insert = judgments.insert_ignore_rows

    def insert_ignore(backend: str, c: Any, table: Any, *args: Any, **kwargs: Any) -> Any:
        label = _INSERT_LABELS[table.name]
        start = _enter()
        try:
            return raw_insert(backend, c, table, *args, **kwargs)
        finally:
            _leave(label, start)

    judgments.insert_ignore_rows = insert_ignore
    _patch(judgments.JudgmentRepository, "save_and_link_rows", "commit + id lookups")
    judging.judge_run = _timed("the rest (loop, stream, gc freeze)", judging.judge_run)


def _gc_timer() -> Callable[[str, dict[str, Any]], None]:
    state: dict[str, float] = {}

    def callback(phase: str, _info: dict[str, Any]) -> None:
        if phase == "start":
            state["t"] = time.process_time()
        else:
            _totals["cyclic gc (inside the others)"] = _totals.get(
                "cyclic gc (inside the others)", 0.0
            ) + (time.process_time() - state["t"])

    return callback


def measure(path: Path, n: int) -> dict[str, dict[str, float]]:
    import rejudge.services._judging as judging

    out: dict[str, dict[str, float]] = {}
    store = Store.open(f"sqlite:///{path}")
    rules = load_rule_set(judge_rejudge.RULES)
    gc.callbacks.append(_gc_timer())
    for phase in ("first judging", "re-judge, unchanged"):
        _totals.clear()
        start = time.process_time()
        result = judging.judge_run(store, "bench", "golden", rules)
        total = time.process_time() - start
        expect = n if phase == "first judging" else 0
        assert result.judged == n and result.written == expect, (result.judged, result.written)
        out[phase] = {"total": total, **_totals}
    store.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=100000)
    parser.add_argument("--store", help="a store bench/judge_rejudge.py --build made (distinct)")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="judge-stages-"))
    try:
        built = Path(args.store) if args.store else tmp / "built.db"
        if not built.exists():
            t0 = time.time()
            judge_rejudge.build(built, args.traces, "distinct", 10)
            print(f"built {args.traces:,} distinct traces in {time.time() - t0:.1f} s")
        n = judge_rejudge.store_counts(built)["traces"]
        work = tmp / "work.db"
        shutil.copy(built, work)
        install()
        figures = measure(work, n)
        for phase, stages in figures.items():
            total = stages.pop("total")
            print(f"\n{phase}, {n:,} traces: {total / n * 1e6:.1f} µs a trace (CPU, timed)")
            for label, seconds in sorted(stages.items(), key=lambda kv: -kv[1]):
                print(f"  {label:38} {seconds / n * 1e6:7.1f} µs  {seconds / total:6.1%}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
