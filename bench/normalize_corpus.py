"""Normalizer speed: the whole test corpus (cassettes/s) and the cost per exchange on the shipped
cassettes, for this checkout and (optionally) another tree of the code, side by side in one run.

Each measurement runs in a fresh child process that imports the given tree's packages (the
editable install's finder is taken out, the tree's folders mapped into ``rejudge``), and the two
trees alternate, so both see the same machine load. Figures are medians over ``--repeat``.

- corpus: every cassette file under ``cassettes/``, ``tests/`` and the shared corpus
  (``--shared``), each read from disk and turned into a trace (``read_cassette`` +
  ``trace_of``); files a tree cannot read are counted as errors, not timed out of the total.
- shipped: the shipped cassettes' exchanges decoded once, then ``trace_of`` alone, timed over
  ``--passes`` passes: CPU microseconds per exchange.

    python bench/normalize_corpus.py [--before /tmp/wire-before] [--repeat 5] [--passes 20]
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path("/work/shared/real-cassettes")
_PACKAGES = {
    "rejudge": "rejudge",
    "rejudge.store": "store",
    "rejudge.recorder": "recorder",
    "rejudge.judge": "judge",
    "rejudge.suites": "suites",
    "rejudge.dashboard": "dashboard",
    "rejudge.migrations": "migrations",
}
_SUFFIXES = (".yaml", ".yml", ".json", ".yaml.gz", ".json.gz", ".yml.gz")


class _TreeFinder(importlib.abc.MetaPathFinder):
    """Finds ``rejudge`` and its mapped subpackages in one tree of the code."""

    def __init__(self, tree: Path) -> None:
        self.tree = tree

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        folder = _PACKAGES.get(name)
        if folder is None:
            return None
        init = self.tree / folder / "__init__.py"
        return importlib.util.spec_from_file_location(
            name, init, submodule_search_locations=[str(self.tree / folder)]
        )


def _use_tree(tree: Path) -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__.lower()]
    sys.meta_path.insert(0, _TreeFinder(tree))


def _corpus_files(shared: Path | None) -> list[Path]:
    roots = [ROOT / "cassettes", ROOT / "tests"] + ([shared] if shared and shared.is_dir() else [])
    out = []
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.name.endswith(_SUFFIXES) and "interactions" in _head(path):
                out.append(path)
    return out


def _head(path: Path) -> str:
    import gzip

    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except OSError:
            return ""
    return data[:200_000].decode("utf-8", errors="replace")


def _child(tree: Path, shared: Path | None, passes: int) -> dict[str, Any]:
    _use_tree(tree)
    import rejudge.recorder as recorder
    from rejudge.recorder import read_cassette, trace_of

    assert Path(recorder.__file__).resolve().is_relative_to(tree.resolve()), recorder.__file__
    files = _corpus_files(shared)
    errors = 0
    started = time.process_time()
    for path in files:
        try:
            trace_of(read_cassette(path), path.stem, 0)
        except Exception:  # a tree that cannot read a file: counted, the run goes on
            errors += 1
    corpus_cpu = time.process_time() - started

    shipped = [read_cassette(p) for p in sorted((ROOT / "cassettes").rglob("*.yaml"))]
    exchanges = sum(len(c.exchanges) for c in shipped)  # decoded once, outside the timing
    started = time.process_time()
    for _ in range(passes):
        for cassette in shipped:
            trace_of(cassette)
    shipped_cpu = time.process_time() - started
    return {
        "files": len(files),
        "errors": errors,
        "corpus_cpu_s": corpus_cpu,
        "exchanges": exchanges,
        "shipped_us_per_exchange": shipped_cpu / (exchanges * passes) * 1e6,
    }


def _measure(tree: Path, shared: Path | None, passes: int) -> dict[str, Any]:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(tree)]
    command += ["--passes", str(passes)] + (["--shared", str(shared)] if shared else [])
    out = subprocess.run(
        command, check=True, capture_output=True, text=True, env=dict(os.environ)
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, help="another tree of the code to compare with")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--passes", type=int, default=20)
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    shared = args.shared if args.shared and args.shared.is_dir() else None
    if args.child is not None:
        print(json.dumps(_child(args.child, shared, args.passes)))
        return
    trees = {"after": ROOT} | ({"before": args.before} if args.before else {})
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    for _ in range(args.repeat):
        for name, tree in trees.items():  # alternate, so both see the same load
            runs[name].append(_measure(tree, shared, args.passes))
    summary = {}
    for name, results in runs.items():
        first = results[0]
        cpu = statistics.median(r["corpus_cpu_s"] for r in results)
        summary[name] = {
            "files": first["files"],
            "errors": first["errors"],
            "corpus_cassettes_per_s": first["files"] / cpu,
            "exchanges": first["exchanges"],
            "shipped_us_per_exchange": statistics.median(
                r["shipped_us_per_exchange"] for r in results
            ),
        }
    if "before" in summary:
        summary["ratio_after_over_before"] = {
            "shipped_cost_per_exchange": summary["after"]["shipped_us_per_exchange"]
            / summary["before"]["shipped_us_per_exchange"],
        }
    if args.json:
        print(json.dumps(summary, indent=2))
        return
    print(f"{'tree':<8}{'files':>7}{'errors':>8}{'corpus cassettes/s':>20}{'µs/exchange':>14}")
    for name in trees:
        s = summary[name]
        print(
            f"{name:<8}{s['files']:>7}{s['errors']:>8}{s['corpus_cassettes_per_s']:>20.1f}"
            f"{s['shipped_us_per_exchange']:>14.1f}"
        )
    if "before" in summary:
        ratio = summary["ratio_after_over_before"]["shipped_cost_per_exchange"]
        print(f"shipped cost per exchange, after / before: {ratio:.2f}x (bar: 1.5x)")


if __name__ == "__main__":
    main()
