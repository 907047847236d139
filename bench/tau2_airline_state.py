"""The state tier's per-trace cost against the golden tier's on τ²'s 244 airline simulations
(the five shipped runs, the ``tau2-airline`` world), and how often the world is loaded.

Each file is parsed as its import parses it, with the world the import attaches; both tiers
judge the same parsed traces in one process, interleaved over rounds (CPU time, median per
trace), so the ratio holds on a noisy machine. The world (τ²'s 7 MB airline database) is read
and hashed on its first lookup and kept by the registry: the count of loads after judging every
trace under both tiers and every rule set, every round, says so.

    python bench/tau2_airline_state.py [--rounds 5] [--rules tau-bench@2 standard@2]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

from rejudge.judge import judge, load_rule_set
from rejudge.judge.tiers import world_of
from rejudge.suites.worlds import tau2_airline

from rejudge.importers import SHIPPED_TAU2_BENCH
from rejudge.importers._tau2_suite import tau2_registry
from rejudge.importers._tau_bench import read_tau_file
from rejudge.registry import REGISTRY

FILES = (
    "claude-sonnet-4-5_airline",
    "button_airline_claude-opus-4-6",
    "ironshell_airline_claude-opus-4-6",
    "ironshell_airline_gpt-5.4",
    "toolorchestra_airline",
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rules", nargs="+", default=["tau-bench@2", "standard@2"])
    args = parser.parse_args()
    loads = 0
    real_load = tau2_airline.load_data

    def counted(path: Path = tau2_airline.DATA_FILE) -> Any:
        nonlocal loads
        loads += 1
        return real_load(path)

    tau2_airline.load_data = counted  # type: ignore[assignment]
    t1 = time.perf_counter()
    REGISTRY.get("world", tau2_airline.NAME)  # the first lookup loads the world
    load_s = time.perf_counter() - t1
    t0 = time.perf_counter()
    items: list[tuple[Any, Any, Any]] = []
    registry = None
    for name in FILES:
        plan, parsed = read_tau_file(SHIPPED_TAU2_BENCH / f"{name}.json", None)
        assert plan is not None
        registry = tau2_registry(parsed.registry, plan.domain)
        cases = {c.id: c for c in parsed.cases}
        items += [(t, cases[t.case_id], registry) for t in parsed.traces]
    parse_s = time.perf_counter() - t0
    assert registry is not None
    world_of(registry)  # what the tier looks up: the same world, not loaded again
    print(f"{len(items)} traces; world load (first lookup) {load_s:.2f} s; parse {parse_s:.2f} s")
    for ref in args.rules:
        _compare(ref, items, args.rounds)
    print(f"world loads while judging all of it: {loads}")


def _compare(ref: str, items: list[tuple[Any, Any, Any]], rounds: int) -> None:
    rules = load_rule_set(ref)

    def run(tier: str) -> float:
        start = time.process_time()
        for trace, case, registry in items:
            judge(trace, case, registry, tier, rules)
        return (time.process_time() - start) / len(items)

    per: dict[str, list[float]] = {"golden": [], "state": []}
    for _ in range(rounds):
        for tier in ("golden", "state"):
            per[tier].append(run(tier))
    golden, state = (statistics.median(per[t]) for t in ("golden", "state"))
    print(
        f"{ref}: per trace (CPU, median of {rounds}): golden {golden * 1e6:.0f} us, "
        f"state {state * 1e6:.0f} us, state/golden {state / golden:.2f}x"
    )


if __name__ == "__main__":
    main()
