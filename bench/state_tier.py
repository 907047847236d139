"""The state tier's per-trace cost against the golden tier's, on τ-bench's 200 GPT-4o airline
trajectories, and its memory as the number of traces grows.

Both tiers judge the same parsed traces in the same process, interleaved over rounds (median
per trace), so the ratio holds on a noisy machine. Memory: tracemalloc's peak while judging N
traces (the 200 repeated), for N = 200, 2,000 and 10,000; a world is built once per process
(the registry keeps it), so the peak should not grow with N.

Per rule set: ``tau-bench@2`` judges every case (``state_applies: always``); ``standard@2``
judges only cases with something to observe (the 12 read-only tasks' 48 conversations SKIP
after the applicability check, which executes each case's golden calls once and keeps them).

    python bench/state_tier.py [--rounds 5] [--rules tau-bench@2 standard@2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import tracemalloc

from rejudge.judge import judge, load_rule_set
from rejudge.judge.tiers import world_of

from rejudge.importers import SHIPPED_TAU_BENCH, parse_tau_bench


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rules", nargs="+", default=["tau-bench@2", "standard@2"])
    args = parser.parse_args()
    data = json.loads((SHIPPED_TAU_BENCH / "gpt-4o-airline.json").read_text(encoding="utf-8"))
    tools = json.loads((SHIPPED_TAU_BENCH / "tools.json").read_text(encoding="utf-8"))
    t0 = time.perf_counter()
    parsed = parse_tau_bench(data, tools=tools)
    world_of(parsed.registry)  # built once: its load is not a per-trace cost
    print(f"parse + world load: {time.perf_counter() - t0:.2f} s")
    cases = {c.id: c for c in parsed.cases}
    traces = parsed.traces
    for ref in args.rules:
        _compare(ref, traces, cases, parsed.registry, args.rounds)


def _compare(ref: str, traces: list, cases: dict, registry: object, rounds: int) -> None:
    rules = load_rule_set(ref)

    def run(tier: str, items: list) -> float:
        start = time.process_time()
        for t in items:
            judge(t, cases[t.case_id], registry, tier, rules)
        return (time.process_time() - start) / len(items)

    per: dict[str, list[float]] = {"golden": [], "state": []}
    for _ in range(rounds):
        for tier in ("golden", "state"):
            per[tier].append(run(tier, traces))
    golden, state = (statistics.median(per[t]) for t in ("golden", "state"))
    print(
        f"{ref}: per trace (CPU, median of {rounds}): golden {golden * 1e6:.0f} us, "
        f"state {state * 1e6:.0f} us, state/golden {state / golden:.2f}x"
    )
    for n in (200, 2_000, 10_000):
        items = (traces * (n // len(traces) + 1))[:n]
        tracemalloc.start()
        run("state", items)
        _cur, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"{ref}: state tier, {n:>6} traces: tracemalloc peak {peak / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
