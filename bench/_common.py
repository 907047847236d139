"""What the bench scripts that measure other checkouts beside this one share.

``--checkout LABEL=ROOT=PYTHON`` names another checkout of rejudge: the script runs that
checkout's own copy of itself, with that checkout's interpreter, as its child (so each side
measures its own code), and ``run_child`` is how. An older checkout's copy of a script predates
this module, or a script copied into an older checkout finds no ``_common.py`` beside it: so the
child gets this folder on ``PYTHONPATH``. The child's own folder comes first on its ``sys.path``,
so a checkout that has its own ``_common.py`` uses it; this one only fills in where it is missing.

``timed_pass`` is one pass's figures as the import benches report them: wall and CPU seconds
(CPU is disturbed far less by a shared machine) and the process's peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

#: a checkout measured: (label, its root, its interpreter); None stands for the script's own
Checkout = tuple[str, Path, str]

HERE = Path(__file__).resolve().parent


def add_checkout_options(parser: argparse.ArgumentParser, *, child: bool = True) -> None:
    """``--checkout LABEL=ROOT=PYTHON``, repeatable (read each with :func:`parse_checkout`), and
    with ``child`` the hidden ``--child WHAT FILE`` that :func:`pass_in_child` runs a script with
    (it answers with one pass's figures as JSON)."""
    parser.add_argument(
        "--checkout",
        action="append",
        default=[],
        metavar="LABEL=ROOT=PYTHON",
        help="another checkout measured beside this one (its own script and interpreter)",
    )
    if child:
        parser.add_argument("--child", nargs=2, metavar=("WHAT", "FILE"), help=argparse.SUPPRESS)


def parse_checkout(spec: str, script: str) -> Checkout:
    """``LABEL=ROOT=PYTHON`` (ROOT may hold ``=``: the interpreter is after the last one), checked
    to have its own ``bench/<script>`` (the name of the running script's file)."""
    label, sep, rest = spec.partition("=")
    root, sep2, python = rest.rpartition("=")
    if not (sep and sep2 and label and root and python):
        raise SystemExit(f"--checkout {spec!r}: expected LABEL=ROOT=PYTHON")
    name = Path(script).name
    if not (Path(root) / "bench" / name).is_file():
        raise SystemExit(f"--checkout {spec!r}: no bench/{name} under {root} (copy this one there)")
    return label, Path(root), python


def run_child(
    script: str, checkout: Checkout | None, *args: str, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """Run ``script`` (the caller's ``__file__``) with ``args`` in a new process: this one's
    copy with this interpreter, or ``checkout``'s own copy with its interpreter; output captured
    as text."""
    python, path = sys.executable, script
    if checkout is not None:
        python, path = checkout[2], str(checkout[1] / "bench" / Path(script).name)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH"), str(HERE)) if p)
    return subprocess.run(
        [python, path, *args], capture_output=True, text=True, check=check, env=env
    )


def timed_pass(run: Callable[[], int]) -> dict[str, float]:
    """``run`` timed: its wall and CPU seconds, the process's peak RSS after it (MiB) and the
    traces it returns."""
    start, cpu_start = time.perf_counter(), time.process_time()
    traces = run()
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": seconds, "cpu": cpu, "rss_mib": rss_mib, "traces": traces}


def _nan_last(value: float) -> float:
    return float("inf") if value != value else value


def pass_in_child(
    script: str, path: Path, what: str, checkout: Checkout | None
) -> dict[str, float]:
    """One pass of ``what`` over ``path`` in a fresh process (``--child WHAT FILE``), so peak RSS
    is that pass's. A child that fails (a checkout that refuses the file) gives NaN figures, and
    its one-line reason on stderr, not a crash of the whole run."""
    done = run_child(script, checkout, "--child", what, str(path), check=False)
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["failed"])[-1]
        print(f"{what} ({'this' if checkout is None else checkout[0]}): {why}", file=sys.stderr)
        nan = float("nan")
        return {"seconds": nan, "cpu": nan, "rss_mib": nan, "traces": 0}
    result: dict[str, float] = json.loads(done.stdout)
    return result


def best_passes(
    script: str,
    path: Path,
    whats: Sequence[str],
    checkouts: Sequence[Checkout | None],
    rounds: int,
) -> dict[tuple[str, int], dict[str, float]]:
    """The best of ``rounds`` of each pass, keyed (what, index in ``checkouts``), each figure's
    best on its own (NaN last). Each round alternates the checkouts pass by pass, so all see the
    same load; ``json`` (``json.loads``, the same code everywhere) is measured once, as index 0."""
    best: dict[tuple[str, int], dict[str, float]] = {}
    for _ in range(rounds):
        for what in whats:
            for n, checkout in enumerate(checkouts):
                if what == "json" and n:
                    continue
                got = pass_in_child(script, path, what, checkout)
                old = best.get((what, n))
                best[what, n] = (
                    got
                    if old is None
                    else {k: min(v, got[k], key=_nan_last) for k, v in old.items()}
                )
    return best


def print_rows(rows: list[dict[str, Any]], as_json: bool, head: str, line: str) -> None:
    """The rows as JSON, or as a table: ``head``, then ``line`` formatted with each row."""
    print(
        json.dumps(rows, indent=2)
        if as_json
        else "\n".join([head, *(line.format(**r) for r in rows)])
    )


T = TypeVar("T")


def in_scratch(prefix: str, run: Callable[[Path], T]) -> tuple[T, float, float]:
    """``run(database)`` on a new file in a fresh scratch folder, removed after: its value, and
    the CPU and wall seconds it took (the writes benches' one variant)."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        cpu0, wall0 = time.process_time(), time.perf_counter()
        value = run(Path(tmp) / "bench.db")
        return value, time.process_time() - cpu0, time.perf_counter() - wall0


def tenths_line(variant: str, width: int, tenths: Sequence[float], rows: int, cpu: float) -> str:
    """A variant's figures as the writes benches print them: its :class:`PerTenth` figures, then
    its total CPU µs a row (the caller adds what else it measured)."""
    figures = " ".join(f"{t:5.1f}" for t in tenths)
    return f"{variant:<{width}} {figures} | total {1e6 * cpu / rows:5.1f} µs/row"


class PerTenth:
    """CPU µs a row of each tenth of ``rows`` as a writer reports its progress chunk by chunk
    (``done(rows_so_far)``): the growth with the table's size, seen in one run
    (bench/judgment_index_growth.py, bench/judgment_cache_size.py)."""

    def __init__(self, rows: int, chunk: int) -> None:
        self.rows = rows
        self.tenth = max(chunk, rows // 10)
        self.figures: list[float] = []
        self._last, self._last_done = time.process_time(), 0

    def done(self, done: int) -> None:
        if done % self.tenth == 0 or done == self.rows:
            now = time.process_time()
            self.figures.append(1e6 * (now - self._last) / (done - self._last_done))
            self._last, self._last_done = now, done
