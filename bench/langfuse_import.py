"""Importing Langfuse exports: peak RSS and time as the file grows (issue 38 item 7: a big export
imports in memory bounded by one trace), against ``json.loads`` over the same bytes.

The file is the real framework traces (tests/data/langfuse/framework-traces, 20 traces of 15
frameworks) as observations, repeated with fresh ids until it reaches each size, the traces'
observations interleaved as an API listing gives them; written as JSON Lines (``--shape jsonl``,
one observation per line, the blob storage export's shape) or as one pretty-printed API page
(``--shape page``, ``{"data": [...], "meta": {...}}``). Each measurement runs in a fresh process
(so its peak RSS is that size's), best of ``--rounds``: ``json`` (the file parsed, line by line
or whole, nothing kept) and ``import`` (:func:`rejudge.importers.import_langfuse` into a new
SQLite store).

    python bench/langfuse_import.py --sizes 10 50 --shape jsonl
    python bench/langfuse_import.py --sizes 10 50 --shape page --checkout before=ROOT=PYTHON

``--checkout LABEL=ROOT=PYTHON`` measures another checkout's import on the same files (this
script copied under its ROOT/bench/ runs there with its interpreter), alternating per round.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from _common import Checkout, add_checkout_options, best_passes, parse_checkout, timed_pass

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def write_file(path: Path, megabytes: float, shape: str) -> int:
    """Write an export of about ``megabytes`` MB; how many traces it holds."""
    sources = sorted((REPO / "tests/data/langfuse/framework-traces").glob("*.trace.json"))
    documents = [json.loads(p.read_text()) for p in sources]
    target = int(megabytes * 1024 * 1024)
    written, copy, traces = 0, 0, 0
    with path.open("w", encoding="utf-8") as fh:
        if shape == "page":
            fh.write('{\n "meta": {"page": 1},\n "data": [\n')
        first = True
        while written < target:
            per_trace = []
            for index, document in enumerate(documents):
                head = document.get("trace", document)
                fresh = []
                for raw in document["observations"]:
                    raw = {"traceId": head["id"], **raw}
                    for key in ("id", "traceId", "parentObservationId"):
                        if raw.get(key):
                            raw[key] = f"{raw[key]}-{copy}.{index}"
                    fresh.append(raw)
                per_trace.append(fresh)
                traces += 1
            for n in range(max(len(t) for t in per_trace)):
                for trace in per_trace:
                    if n < len(trace):
                        if shape == "page":
                            text = ("" if first else ",\n") + json.dumps(trace[n], indent=2)
                        else:
                            text = json.dumps(trace[n]) + "\n"
                        first = False
                        fh.write(text)
                        written += len(text.encode("utf-8"))
            copy += 1
        if shape == "page":
            fh.write("\n ]\n}\n")
    return traces


def measure(path: Path, what: str) -> dict[str, float]:
    """In this process: one pass of ``what`` over the file, its seconds and peak RSS."""
    with tempfile.TemporaryDirectory(prefix="langfuse-bench-", ignore_cleanup_errors=True) as tmp:
        store = None
        if what == "import":
            # imported before the clock starts: a fixed cost of the process, not of the bytes
            from rejudge.store import Store

            from rejudge.importers import import_langfuse

            store = Store.open(f"sqlite:///{Path(tmp) / 'bench.sqlite'}")

        def run() -> int:
            if what == "import":
                return import_langfuse(path, store).traces
            with path.open("rb") as fh:
                head = fh.read(1)
                fh.seek(0)
                if head == b"{" and path.suffix == ".json":
                    json.loads(fh.read())
                else:
                    for line in fh:
                        json.loads(line)
            return 0

        figures = timed_pass(run)
        if store is not None:
            store.close()
    return figures


TABLE_HEAD = (
    "checkout  shape  MB     traces  json s  import s  import/json  CPU ratio  RSS json  import"
)
TABLE_LINE = (
    "{checkout:<9} {shape:<6} {mb:<6} {traces:<7} {json_loads_s:<7} {import_s:<9} "
    "{import_ratio:<12} {import_cpu_ratio:<10} {json_rss_mib:<9} {import_rss_mib}"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[10, 50], metavar="MB")
    parser.add_argument("--shape", choices=("jsonl", "page"), default="jsonl")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    add_checkout_options(parser)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(Path(args.child[1]), args.child[0])))
        return
    checkouts: list[Checkout | None] = [None, *(parse_checkout(c, __file__) for c in args.checkout)]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            suffix = ".json" if args.shape == "page" else ".jsonl"
            path = Path(tmp) / f"langfuse-{size:g}mb{suffix}"
            traces = write_file(path, size, args.shape)
            best = best_passes(__file__, path, ("json", "import"), checkouts, args.rounds)
            js = best[("json", 0)]
            for n, checkout in enumerate(checkouts):
                imp = best[("import", n)]
                rows.append(
                    {
                        "checkout": "this" if checkout is None else checkout[0],
                        "shape": args.shape,
                        "mb": round(path.stat().st_size / 1024 / 1024, 1),
                        "traces": traces,
                        "json_loads_s": round(js["seconds"], 3),
                        "import_s": round(imp["seconds"], 3),
                        "import_ratio": round(imp["seconds"] / js["seconds"], 2),
                        "import_cpu_ratio": round(imp["cpu"] / js["cpu"], 2),
                        "json_rss_mib": round(js["rss_mib"], 1),
                        "import_rss_mib": round(imp["rss_mib"], 1),
                    }
                )
            path.unlink()
    # imported here, not at the top: a copy of this script measuring an older checkout runs
    # its children against that checkout's _common.py, which may not have it
    from _common import print_rows

    print_rows(rows, args.json, TABLE_HEAD, TABLE_LINE)


if __name__ == "__main__":
    main()
