"""What a lazy face costs: importing it, and its first name looked up, in fresh processes.

    python bench/face_lookup.py [--rounds 30] [--checkout LABEL=PYTHON ...]

Each checkout's interpreter runs the same snippet in a fresh process per round (alternating
checkouts within a round): ``import rejudge`` (and ``rejudge.store``, ``rejudge.model``, no name
used), then the first lookup of a name that imports nothing new (``rejudge.NotFoundError``,
defined in ``rejudge.errors`` which ``import rejudge`` loads), then the first lookup of one name
in each of the nine other faces, its defining module already loaded (so what is timed is the
face, not the module behind it). Figures are the median over the rounds, in milliseconds of
wall time (``time.perf_counter``), and the ratio to the first checkout.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

SNIPPET = r"""
import sys, time
t0 = time.perf_counter()
import rejudge, rejudge.store, rejudge.model
t1 = time.perf_counter()
rejudge.NotFoundError
t2 = time.perf_counter()
import importlib
names = {  # face -> (a name it declares, the module defining it)
    "rejudge.errors": ("TooBig", "rejudge.importers._json_stream"),
    "rejudge.store": ("NotFoundError", "rejudge.store._errors"),
    "rejudge.model": ("content_hash", "rejudge.model._hashing"),
    "rejudge.judge": ("judge", "rejudge.judge._engine"),
    "rejudge.judge.tiers": ("get_tier", "rejudge.judge.tiers._base"),
    "rejudge.recorder": ("Tape", "rejudge.recorder._tape"),
    "rejudge.services": ("judge_run", "rejudge.services._judging"),
    "rejudge.importers": ("import_cassettes", "rejudge.importers._cassettes"),
    "rejudge.suites.generators": ("MAX_CASES", "rejudge.suites.generators._funcbench"),
}
faces = {face: importlib.import_module(face) for face in names}
# the modules behind the names, loaded before the clock starts again
for name, module in names.values():
    importlib.import_module(module)
t3 = time.perf_counter()
for face, (name, module) in names.items():
    assert getattr(faces[face], name) is getattr(sys.modules[module], name)
t4 = time.perf_counter()
print(f"{(t1 - t0) * 1e3:.3f} {(t2 - t1) * 1e3:.3f} {(t4 - t3) * 1e3:.3f}")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--checkout", action="append", default=[], metavar="LABEL=PYTHON")
    args = parser.parse_args()
    checkouts = [c.split("=", 1) for c in args.checkout] or [["this", sys.executable]]
    figures: dict[str, list[list[float]]] = {label: [] for label, _ in checkouts}
    for _ in range(args.rounds):
        for label, python in checkouts:
            out = subprocess.run(
                [python, "-c", SNIPPET], capture_output=True, text=True, check=True, cwd="/"
            ).stdout
            figures[label].append([float(x) for x in out.split()])
    columns = ["import rejudge, .store, .model", "first rejudge.NotFoundError", "9 faces' first"]
    base = {i: statistics.median(r[i] for r in figures[checkouts[0][0]]) for i in range(3)}
    print(f"{'ms (median of ' + str(args.rounds) + ')':<32}" + "".join(f"{c:>34}" for c in columns))
    for label, _ in checkouts:
        cells = []
        for i in range(3):
            value = statistics.median(r[i] for r in figures[label])
            ratio = value / base[i] if base[i] else float("nan")
            cells.append(f"{value:10.3f} ({ratio:5.2f}x)")
        print(f"{label:<32}" + "".join(f"{c:>34}" for c in cells))


if __name__ == "__main__":
    main()
