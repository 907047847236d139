"""τ-bench's airline world: loading it, and re-executing the 200 GPT-4o trajectories on it.

Measures (median of ``--rounds`` rounds; one process, nothing else timed):

1. **load**: ``load_data()`` on the shipped folder (three JSON files, 5 MB, read and parsed,
   then the content hash of the whole data) and the ``AirlineWorld`` built on it; the hash alone
   is shown too;
2. **replay**: every recorded call of every trajectory executed in order, each trajectory on a
   fresh state (arguments parsed beforehand, as a stored trace holds them): mean per trajectory
   and per call, then the same with the final ``state_hash()`` the state tier compares;
3. **ground truth**: each of the 50 tasks' golden actions executed on a fresh state, with its
   ``state_hash()``: mean per task.

Usage::

    python bench/tau_airline_world.py               # 5 rounds
    python bench/tau_airline_world.py --rounds 10
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from rejudge.suites.worlds.tau_airline import AirlineWorld, load_data

from rejudge.importers import SHIPPED_TAU_BENCH
from rejudge.model import content_hash


def calls_of(entry: dict[str, Any]) -> list[tuple[str, Any]]:
    """A trajectory's calls in order, with their arguments parsed."""
    calls = []
    for message in entry["traj"]:
        for call in message.get("tool_calls") or []:
            calls.append((call["function"]["name"], json.loads(call["function"]["arguments"])))
    return calls


def median_seconds(run: Callable[[], Any], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    load = median_seconds(lambda: AirlineWorld(load_data()), args.rounds)
    world = AirlineWorld(load_data())
    hashing = median_seconds(lambda: content_hash(world.data.tables), args.rounds)
    print(
        f"load (read + parse + hash 5 MB): {load * 1000:.0f} ms (of which hash {hashing * 1000:.0f} ms)"
    )

    entries = json.loads((SHIPPED_TAU_BENCH / "gpt-4o-airline.json").read_text(encoding="utf-8"))
    trajectories = [calls_of(entry) for entry in entries]
    n_calls = sum(len(calls) for calls in trajectories)

    def replay(with_hash: bool) -> None:
        for calls in trajectories:
            state = world.new_state()
            for name, arguments in calls:
                world.execute(state, name, arguments)
            if with_hash:
                state.state_hash()

    bare = median_seconds(lambda: replay(False), args.rounds)
    hashed = median_seconds(lambda: replay(True), args.rounds)
    n = len(trajectories)
    print(
        f"replay {n} trajectories, {n_calls} calls: {bare * 1000:.0f} ms; "
        f"{bare / n * 1e6:.0f} us per trajectory, {bare / n_calls * 1e6:.0f} us per call"
    )
    print(f"  with the final state hash: {hashed / n * 1e6:.0f} us per trajectory")

    tasks = {entry["task_id"]: entry["info"]["task"]["actions"] for entry in entries}

    def ground_truths() -> None:
        for actions in tasks.values():
            state = world.new_state()
            for action in actions:
                if action["name"] not in world.terminal_tools:
                    world.execute(state, action["name"], action["kwargs"])
            state.state_hash()

    truth = median_seconds(ground_truths, args.rounds)
    print(
        f"ground truth of {len(tasks)} tasks, with hash: {truth / len(tasks) * 1e6:.0f} us per task"
    )


if __name__ == "__main__":
    main()
