"""Reading OpenTelemetry span files: rejudge's reader against ``json.loads`` over the same bytes,
and the reader's peak RSS as the file grows (issue 38: at most 3x json.loads, RSS flat).

The file is the real any-agent traces (tests/data/otel/any-agent, seven frameworks) repeated
with fresh trace and span ids until it reaches each size, written as the collector's file
exporter writes OTLP JSON: one ``{"resourceSpans": ...}`` export per line, one trace's spans
per line. Each size is measured in a fresh process (so peak RSS is that size's), alternating
json.loads (every line parsed, nothing kept) and :func:`rejudge.importers.read_otel` (spans
read, grouped by trace id, every trace rebuilt), best of ``--rounds``.

    python bench/otel_import.py                      # 10 and 40 MB
    python bench/otel_import.py --sizes 10 100 --rounds 3 --json
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def write_file(path: Path, megabytes: int) -> int:
    from tests.importers.conftest import ANY_AGENT, otlp_export, spans_of

    traces = [spans_of(p) for p in ANY_AGENT]
    target = megabytes * 1024 * 1024
    written = 0
    n = 0
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
                line = json.dumps(otlp_export(fresh)) + "\n"
                fh.write(line)
                written += len(line.encode("utf-8"))
    return n


def measure(path: Path, what: str) -> dict[str, float]:
    """In this process: one pass of ``what`` over the file, its seconds and peak RSS."""
    if what != "json":
        # imported before the clock starts: the package's import (pydantic, the recorder's
        # scrubber) is a fixed cost of the process, not of the bytes
        from rejudge.importers import read_otel

        read_otel(Path(str(REPO / "tests" / "data" / "otel" / "any-agent" / "AGNO_trace.json")))
    start = time.perf_counter()
    if what == "json":
        with path.open("rb") as fh:
            for line in fh:
                json.loads(line)
        traces = 0
    else:
        traces = len(read_otel(path).traces)
    seconds = time.perf_counter() - start
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": seconds, "rss_mib": rss_mib, "traces": traces}


def in_child(path: Path, what: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", what, str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    result: dict[str, float] = json.loads(out)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 40], metavar="MB")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", nargs=2, metavar=("WHAT", "FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(Path(args.child[1]), args.child[0])))
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            path = Path(tmp) / f"spans-{size}mb.jsonl"
            traces = write_file(path, size)
            best: dict[str, dict[str, float]] = {}
            for _ in range(args.rounds):
                for what in ("json", "otel"):
                    got = in_child(path, what)
                    if what not in best or got["seconds"] < best[what]["seconds"]:
                        best[what] = got
            rows.append(
                {
                    "mb": round(path.stat().st_size / 1024 / 1024, 1),
                    "traces": traces,
                    "json_loads_s": round(best["json"]["seconds"], 3),
                    "read_otel_s": round(best["otel"]["seconds"], 3),
                    "ratio": round(best["otel"]["seconds"] / best["json"]["seconds"], 2),
                    "json_rss_mib": round(best["json"]["rss_mib"], 1),
                    "read_otel_rss_mib": round(best["otel"]["rss_mib"], 1),
                }
            )
            path.unlink()
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print("MB      traces  json.loads s  read_otel s  ratio  RSS json MiB  RSS read_otel MiB")
    for r in rows:
        print(
            f"{r['mb']:<7} {r['traces']:<7} {r['json_loads_s']:<13} {r['read_otel_s']:<12} "
            f"{r['ratio']:<6} {r['json_rss_mib']:<13} {r['read_otel_rss_mib']}"
        )


if __name__ == "__main__":
    main()
