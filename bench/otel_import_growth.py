"""What grows with the file in a streamed span-file import: tracemalloc snapshots during the
store pass, compared (issue 38 item 3: memory flat from 10 MB to 1 GB).

``progress`` counts the file's bytes twice (read, then stored), so snapshots are taken at 25%,
50% and 97% of the store pass; printed: the traced memory at each (current, peak), and the
tracebacks that grew most between the first snapshot and the end of the import.

    python bench/otel_import.py --write /tmp/spans.jsonl --sizes 100 --spread
    nice python bench/otel_import_growth.py /tmp/spans.jsonl
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file", type=Path, help="a span file (bench/otel_import.py --write)")
    parser.add_argument("--top", type=int, default=8)
    args = parser.parse_args()
    from rejudge.store import Store

    from rejudge.importers import import_otel

    size = args.file.stat().st_size
    marks = [size * 1.25, size * 1.5, size * 1.97]
    counted = [0]
    snapshots: list[tracemalloc.Snapshot] = []

    def tick(read: int) -> None:
        counted[0] += read
        if marks and counted[0] >= marks[0]:
            marks.pop(0)
            gc.collect()
            snapshots.append(tracemalloc.take_snapshot())
            current, peak = tracemalloc.get_traced_memory()
            print(f"store pass {counted[0] / size - 1:.0%}: traced {current:,} B (peak {peak:,})")

    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(f"sqlite:///{tmp}/store.db")
        tracemalloc.start(8)
        result = import_otel(args.file, store, progress=tick)
        gc.collect()
        end = tracemalloc.take_snapshot()
        current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        store.close()
    print(f"sealed ({result.traces:,} traces): traced {current:,} B (peak {peak:,})")
    for stat in end.compare_to(snapshots[0], "traceback")[: args.top]:
        print(stat)
        for line in stat.traceback.format()[-6:]:
            print("   ", line)


if __name__ == "__main__":
    main()
