"""Importing OpenTelemetry span files: rejudge against ``json.loads`` over the same bytes, and
peak RSS as the file grows (issue 38: at most 3x json.loads, RSS flat from 10 MB to 1 GB).

The file is the real any-agent traces (tests/data/otel/any-agent, seven frameworks) repeated
with fresh trace and span ids until it reaches each size, written as the collector's file
exporter writes OTLP JSON: one ``{"resourceSpans": ...}`` export per line. By default each line
holds one trace's spans; ``--spread`` splits each trace over two lines eight traces apart (as a
collector flushing batches does), so spans must be grouped across lines. Each size is measured
in a fresh process per measurement (so peak RSS is that size's), alternating: json.loads (every
line parsed, nothing kept), ``spans`` (the same and every span decoded: ids, times, typed
attribute values; nothing grouped), ``read`` (:func:`rejudge.importers.iter_otel`: spans grouped by
trace id in bounded memory, every trace rebuilt, nothing stored) and ``import``
(:func:`rejudge.importers.import_otel` into a new SQLite store: the same, and every trace
stored a batch per transaction in a staged run, sealed at the end), best of ``--rounds``:
wall seconds, and the process's CPU seconds (``time.process_time``, user + system) for the
pass, which a machine shared with other work disturbs far less (the ratios of both are shown).

    python bench/otel_import.py                      # 10 and 100 MB
    python bench/otel_import.py --sizes 10 100 1000 --rounds 1 --spread --json
    python bench/otel_import.py --write FILE --sizes 10   # only write the file (kill -9 test)
    python bench/otel_import.py --sizes 10 100 --document  # one pretty-printed OTLP document
    python bench/otel_import.py --sizes 10 100 --spread --checkout main=/work/main=python

``--checkout LABEL=ROOT=PYTHON`` (repeatable) measures another checkout of rejudge on the same
files beside this one: its own bench/otel_import.py is run as the child, with its interpreter,
alternating with this one's in each round so both see the same load; ``json.loads`` is measured
once (it is the same code everywhere). The rows get a ``checkout`` column.
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


def write_file(path: Path, megabytes: float, *, spread: bool = False) -> int:
    """Write a span file of about ``megabytes`` MB; how many traces it holds."""
    from tests.importers.conftest import ANY_AGENT, otlp_export, spans_of

    traces = [spans_of(p) for p in ANY_AGENT]
    target = int(megabytes * 1024 * 1024)
    written = 0
    n = 0
    later: list[tuple[int, str]] = []  # (write after trace n, line): a trace's second half
    with path.open("w", encoding="utf-8") as fh:
        while written < target:
            for spans in traces:
                n += 1
                fresh = []
                for s in spans:
                    s = json.loads(json.dumps(s))
                    s["context"]["trace_id"] = n
                    s["context"]["span_id"] = (n << 20) + (s["context"]["span_id"] & 0xFFFFF)
                    if s.get("parent") and s["parent"].get("span_id"):
                        s["parent"]["span_id"] = (n << 20) + (s["parent"]["span_id"] & 0xFFFFF)
                    fresh.append(s)
                parts = [fresh]
                if spread and len(fresh) > 1:
                    half = len(fresh) // 2
                    parts = [fresh[:half]]
                    later.append((n + 8, json.dumps(otlp_export(fresh[half:])) + "\n"))
                for part in parts:
                    line = json.dumps(otlp_export(part)) + "\n"
                    fh.write(line)
                    written += len(line.encode("utf-8"))
                while later and later[0][0] <= n:
                    line = later.pop(0)[1]
                    fh.write(line)
                    written += len(line.encode("utf-8"))
        for _n, line in later:
            fh.write(line)
    return n


def as_document(lines: Path, path: Path) -> None:
    """The exports of a JSON Lines span file as one pretty-printed OTLP export (what an SDK's
    or a tool's single-file dump looks like), written an entry at a time."""
    with lines.open("rb") as src, path.open("w", encoding="utf-8") as out:
        out.write('{\n "resourceSpans": [\n')
        for n, line in enumerate(src):
            entries = json.loads(line)["resourceSpans"]
            for m, entry in enumerate(entries):
                out.write(("" if n == 0 and m == 0 else ",\n") + json.dumps(entry, indent=1))
        out.write("\n ]\n}\n")


def measure(path: Path, what: str) -> dict[str, float]:
    """In this process: one pass of ``what`` over the file, its seconds and peak RSS."""
    with tempfile.TemporaryDirectory(prefix="otel-bench-", ignore_cleanup_errors=True) as tmp:
        store = None
        if what != "json":
            # imported before the clock starts: the package's import (pydantic, the recorder's
            # scrubber, the store) is a fixed cost of the process, not of the bytes
            from rejudge.store import Store

            from rejudge.importers import OtelStream, import_otel, iter_otel

            sample = REPO / "tests" / "data" / "otel" / "any-agent" / "AGNO_trace.json"
            list(iter_otel(sample, OtelStream()))
            if what == "import":
                store = Store.open(f"sqlite:///{Path(tmp) / 'bench.sqlite'}")
                import_otel(sample, store)

        def run() -> int:
            if what == "json":
                with path.open("rb") as fh:
                    if path.suffix == ".json":  # one document: parsed whole
                        json.loads(fh.read())
                    else:
                        for line in fh:
                            json.loads(line)
            elif what == "spans":
                problems: list[str] = []
                try:  # the reader's own path: the file read in pieces, each piece's spans decoded
                    from rejudge.importers._json_stream import iter_pieces
                    from rejudge.importers._otel_spans import STREAMED_KEYS, spans_of_pieces
                except ImportError:  # a checkout from before the file was read in pieces
                    from rejudge.importers import iter_sized_documents, spans_of_document

                    with path.open("rb") as fh:
                        for document, _size in iter_sized_documents(fh, problems):
                            for _span in spans_of_document(document, problems):
                                pass
                else:
                    with path.open("rb") as fh:
                        pieces = iter_pieces(fh, problems, stream_keys=STREAMED_KEYS)
                        for _spans, _size in spans_of_pieces(pieces, problems):
                            pass
            elif what == "read":
                found = OtelStream()
                for _item in iter_otel(path, found):
                    pass
                return found.traces
            else:
                return import_otel(path, store).traces
            return 0

        figures = timed_pass(run)
        if store is not None:
            store.close()
    return figures


WHAT = ("json", "spans", "read", "import")


TABLE_HEAD = (
    "checkout  MB      traces  json.loads s  spans s  read s   import s  spans/json  read/json  "
    "import/json  CPU read/json  import/json  RSS MiB json  spans  read  import"
)
TABLE_LINE = (
    "{checkout:<9} {mb:<7} {traces:<7} {json_loads_s:<13} {spans_s:<8} {read_s:<8} "
    "{import_s:<9} {spans_ratio:<11} {read_ratio:<10} {import_ratio:<12} {read_cpu_ratio:<13} "
    "{import_cpu_ratio:<12} {json_rss_mib:<12} {spans_rss_mib:<6} {read_rss_mib:<5} "
    "{import_rss_mib}"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[10, 100], metavar="MB")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--spread", action="store_true", help="a trace over two lines")
    parser.add_argument(
        "--document",
        action="store_true",
        help="the same exports as one pretty-printed OTLP document instead of JSON Lines",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--write", metavar="FILE", help="only write a file of the first size")
    add_checkout_options(parser)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(Path(args.child[1]), args.child[0])))
        return
    if args.write:
        print(write_file(Path(args.write), args.sizes[0], spread=args.spread))
        return
    checkouts: list[Checkout | None] = [None, *(parse_checkout(c, __file__) for c in args.checkout)]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            path = Path(tmp) / f"spans-{size:g}mb.jsonl"
            traces = write_file(path, size, spread=args.spread)
            if args.document:
                lines, path = path, path.with_suffix(".json")
                as_document(lines, path)
                lines.unlink()
            best = best_passes(__file__, path, WHAT, checkouts, args.rounds)
            json_s = best[("json", 0)]["seconds"]
            json_cpu = best[("json", 0)]["cpu"]
            for n, checkout in enumerate(checkouts):
                of = {what: best[(what, 0 if what == "json" else n)] for what in WHAT}
                rows.append(
                    {
                        "checkout": "this" if checkout is None else checkout[0],
                        "mb": round(path.stat().st_size / 1024 / 1024, 1),
                        "traces": traces,
                        "json_loads_s": round(json_s, 3),
                        "spans_s": round(of["spans"]["seconds"], 3),
                        "read_s": round(of["read"]["seconds"], 3),
                        "import_s": round(of["import"]["seconds"], 3),
                        "spans_ratio": round(of["spans"]["seconds"] / json_s, 2),
                        "read_ratio": round(of["read"]["seconds"] / json_s, 2),
                        "import_ratio": round(of["import"]["seconds"] / json_s, 2),
                        "json_loads_cpu_s": round(json_cpu, 3),
                        "read_cpu_s": round(of["read"]["cpu"], 3),
                        "import_cpu_s": round(of["import"]["cpu"], 3),
                        "read_cpu_ratio": round(of["read"]["cpu"] / json_cpu, 2),
                        "import_cpu_ratio": round(of["import"]["cpu"] / json_cpu, 2),
                        "json_rss_mib": round(of["json"]["rss_mib"], 1),
                        "spans_rss_mib": round(of["spans"]["rss_mib"], 1),
                        "read_rss_mib": round(of["read"]["rss_mib"], 1),
                        "import_rss_mib": round(of["import"]["rss_mib"], 1),
                    }
                )
            path.unlink()
    # imported here, not at the top: a copy of this script measuring an older checkout runs
    # its children against that checkout's _common.py, which may not have it
    from _common import print_rows

    print_rows(rows, args.json, TABLE_HEAD, TABLE_LINE)


if __name__ == "__main__":
    main()
