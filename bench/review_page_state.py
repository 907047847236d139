"""The Review page's computing open, in-process, step by step: the queue before labels
(``evaluation_queue``), the page state with its labels and figures (``review_page_state``), and
the kept folder's pickle of that state (written on a computing open, read by a new server).

    python bench/review_page_state.py sqlite:////tmp/big39/synthetic-100000.db [--repeat 5]

CPU seconds per step (the collector paused, as ``dashboard/kept.py`` computes), medians over
``--repeat`` runs, and the pickle's size. Run it with each checkout's interpreter in turn, or
alternated (``--python`` twice: the runs interleave, so both share the machine's load); the
API it calls is the same before and after the queue was typed (issue 40 item 1).
"""

from __future__ import annotations

import argparse
import gc
import json
import pickle
import statistics
import subprocess
import sys
import time


def _measure(url: str, sample: int) -> dict[str, float]:
    from rejudge.store import Store

    from rejudge.services import evaluation_queue, review_page_state

    store = Store.open(url)
    try:
        ev = max(e.id for e in store.catalog.evaluation_summaries())
        gc.disable()
        t0 = time.process_time()
        base = evaluation_queue(store, ev, sample_passes=sample, seed=0)
        t1 = time.process_time()
        state = review_page_state(store, ev, sample_passes=sample, seed=0, base=base)
        t2 = time.process_time()
        kept = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
        t3 = time.process_time()
        back = pickle.loads(kept)
        t4 = time.process_time()
        gc.enable()
        assert len(back.queue) == len(state.queue)
        return {
            "queue_s": t1 - t0,
            "state_s": t2 - t1,
            "pickle_s": t3 - t2,
            "unpickle_s": t4 - t3,
            "total_s": t3 - t0,
            "pickle_mb": len(kept) / 1e6,
            "items": len(state.queue),
        }
    finally:
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sample", type=int, default=10, help="the page's PASS sample")
    parser.add_argument("--python", action="append", help="interpreters to alternate")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(_measure(args.url, args.sample)))
        return
    pythons = args.python or [sys.executable]
    runs: dict[str, list[dict[str, float]]] = {p: [] for p in pythons}
    for _ in range(args.repeat):
        for python in pythons:  # a fresh process per run: nothing cached between them
            out = subprocess.run(
                [python, __file__, args.url, "--sample", str(args.sample), "--one"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            runs[python].append(json.loads(out.splitlines()[-1]))
    keys = ("queue_s", "state_s", "pickle_s", "unpickle_s", "total_s", "pickle_mb", "items")
    print("| interpreter | " + " | ".join(keys) + " |")
    print("|---|" + "---:|" * len(keys))
    for python, rows in runs.items():
        cells = [f"{statistics.median(r[k] for r in rows):.3f}" for k in keys]
        print(f"| {python} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
