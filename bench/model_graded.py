"""Re-judging a recorded model-graded evaluation against judging the golden tier, per trace,
side by side in one run (issue 37: within 5x of golden, memory flat in the number of traces).

What it does:

1. a store of N distinct traces (the judge tests' retail registry, three cases, traces that
   differ in their calls and replies), and the judge's exchanges for all of them recorded once
   over real loopback HTTP from a small OpenAI-compatible server (``--judge-record
   new_episodes``, 8 in flight), as one cassette per trace;
2. in fresh stores of the same traces, alternating, ``--rounds`` times: the golden tier's first
   judging (``judge_run``) and the model-graded re-judging from the cassettes with the network
   unused (``judge_run_model_graded``, record mode none: every exchange checked first, then
   read and judged); and the model-graded re-judge of unchanged inputs (a key lookup);
3. CPU seconds per trace (medians), the ratio to golden, and the peak of traced Python memory
   (tracemalloc) of a model-graded replay and of a golden judging at N/5 and at N traces.

Command::

    python bench/model_graded.py --traces 10000 --rounds 3
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rejudge.judge import DEFAULT_RUBRIC, load_rubric, load_rule_set  # noqa: E402
from rejudge.recorder import JudgeEndpoint  # noqa: E402
from rejudge.store import Store  # noqa: E402

from rejudge.model import JudgeModel, Round, ToolCall, Trace  # noqa: E402
from rejudge.services import (  # noqa: E402
    ModelGradedOptions,
    judge_run,
    judge_run_model_graded,
)
from tests.judge.conftest import case, gcall, saved_run  # noqa: E402
from tests.services.judge_server import JudgeServer, serve  # noqa: E402

CASES = [
    case(gcall("get_order", order_id="W441"), id="a", dimension="D1"),
    case(gcall("get_user", user_id="U101"), id="b", dimension="D2"),
    case(gcall("request_cancel", order_id="W442", reason="moved"), id="c", dimension="D4"),
]


def _traces(n: int) -> list[Trace]:
    out = []
    for i in range(n):
        c = CASES[i % 3]
        g = c.golden.calls[0]
        args = dict(g.params)
        if i % 4 == 0:
            args[next(iter(args))] = f"X{i}"  # a wrong value now and then
        call = ToolCall(name=g.tool, arguments=args, arguments_raw="", ok=True, result={"n": i})
        rounds = [Round(index=0, calls=[call]), Round(index=1, text=f"Done: request {i}.")]
        out.append(Trace(case_id=c.id, repetition=i // 3, rounds=rounds, final_text=f"Done {i}."))
    return out


def _store(path: Path, traces: list[Trace]) -> Store:
    st = Store.open(f"sqlite:///{path}")
    saved_run(st, CASES, traces, run="r")
    return st


def _cpu(fn: Callable[..., object], *args: object) -> float:
    start = time.process_time()
    fn(*args)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--traces", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--work",
        type=Path,
        default=None,
        help="keep the stores and judge cassettes here (kept after the run; a rerun with the "
        "same --traces records no exchange again: new_episodes finds them all)",
    )
    parser.add_argument(
        "--memory-only", action="store_true", help="only the peak traced memory, no timing"
    )
    args = parser.parse_args()
    n = args.traces
    work = args.work or Path(tempfile.mkdtemp(prefix="mg-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    for old in work.glob("*.db*"):
        old.unlink()  # fresh stores every run; the cassettes are what is kept
    try:
        traces = _traces(n)
        rubric, judge = load_rubric(DEFAULT_RUBRIC), JudgeModel()
        cassettes = work / "cassettes"
        st = _store(work / "record.db", traces)
        started = time.perf_counter()
        with serve(JudgeServer()) as url:
            options = ModelGradedOptions(
                rubric=rubric,
                judge=judge,
                cassettes=cassettes,
                record="new_episodes",
                endpoint=JudgeEndpoint(base_url=url),
                concurrency=8,
                chunk_size=500,
            )
            judge_run_model_graded(st, "r", options)
        st.close()
        print(f"recorded {n} judge exchanges in {time.perf_counter() - started:.1f}s")
        replay = ModelGradedOptions(rubric=rubric, judge=judge, cassettes=cassettes)
        rules = load_rule_set("standard@2")
        per: dict[str, list[float]] = {"golden": [], "model-graded": [], "unchanged": []}
        for r in range(0 if args.memory_only else args.rounds):
            golden = _store(work / f"g{r}.db", traces)
            per["golden"].append(_cpu(judge_run, golden, "r", "golden", rules) / n)
            golden.close()
            graded = _store(work / f"m{r}.db", traces)
            per["model-graded"].append(_cpu(judge_run_model_graded, graded, "r", replay) / n)
            per["unchanged"].append(_cpu(judge_run_model_graded, graded, "r", replay) / n)
            graded.close()
        if not args.memory_only:
            g, m, u = (statistics.median(per[k]) for k in ("golden", "model-graded", "unchanged"))
            print(
                f"{n} traces, per trace (CPU, median of {args.rounds}): golden {g * 1e6:.0f} us, "
                f"model-graded replay {m * 1e6:.0f} us ({m / g:.2f}x golden), "
                f"model-graded unchanged re-judge {u * 1e6:.0f} us ({u / g:.2f}x golden)"
            )
        # the report's aggregation (pass^k per case over repetitions) is shared with every
        # tier, so the golden tier's peak at the same sizes is printed beside
        peaks: dict[tuple[str, int], int] = {}
        for size in (n // 5, n):
            for kind in ("golden", "model-graded"):
                mem = _store(work / f"mem-{kind}-{size}.db", traces[:size])
                tracemalloc.start()
                if kind == "golden":
                    judge_run(mem, "r", "golden", rules)
                else:
                    judge_run_model_graded(mem, "r", replay)
                peaks[(kind, size)] = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
                mem.close()
        for kind in ("golden", "model-graded"):
            small, large = peaks[(kind, n // 5)], peaks[(kind, n)]
            print(
                f"peak traced memory, {kind}: {n // 5} traces {small / 1e6:.1f} MB, "
                f"{n} traces {large / 1e6:.1f} MB ({large / small:.2f}x for 5x the traces)"
            )
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
