"""Why a first judging costs more per trace as the store grows: the judgment writes alone.

Usage (from the repository root):

    python bench/judgment_index_growth.py                       # 1,000,000 rows, every variant
    python bench/judgment_index_growth.py --rows 300000 --variants as_stored,no_trace_hash_index

Plain ``sqlite3``, no rejudge code: each variant writes ``--rows`` judgment-shaped rows into a
fresh WAL database (``synchronous=NORMAL``, as the store opens SQLite) in transactions of
``judge_run``'s chunk (2,500 rows), each row one ``judgments`` row (a unique index on a random
64-hex key, an index on a random 64-hex trace hash, as the store's schema has them) and one
``evaluation_judgments`` link (indexed by evaluation and trace id, which grow in order). It
prints the CPU per row (user + system) of every tenth of the rows, so the growth with the
table's size is seen in one run, and the total wall time:

- ``as_stored``: the store's indexes and SQLite's default page cache (2 MB);
- ``no_trace_hash_index``: without the index on the trace hash (the second random-keyed index);
- ``trace_hash_prefix_index``: the trace hash indexed by its first 8 hex digits only (an
  expression index, ``substr``), what migration 0105 puts in place of the full-hash index;
- ``cache_64mb``: the store's indexes with a 64 MB page cache;
- ``autocheckpoint_16k``: the store's indexes, the WAL checkpointed every 16,384 pages, not 1,000.

Why: a random key lands each of a chunk's rows on its own page of the index once the index has
more leaf pages than a chunk has rows, so every commit writes (to the WAL, then again at the
checkpoint) about one page per row per random-keyed index, and the page cache holds less of
the index as it grows.
"""

from __future__ import annotations

import argparse
import hashlib
import sqlite3
import sys
from functools import partial
from pathlib import Path

from _common import PerTenth, in_scratch, tenths_line

CHUNK = 2500
VARIANTS = (
    "as_stored",
    "no_trace_hash_index",
    "trace_hash_prefix_index",
    "cache_64mb",
    "autocheckpoint_16k",
)


def _h(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def run(variant: str, rows: int, path: Path) -> list[float]:
    """CPU µs per row of every tenth of ``rows`` written, then the total wall seconds."""
    c = sqlite3.connect(path, isolation_level=None)
    c.execute("PRAGMA journal_mode=WAL")
    c.execute("PRAGMA synchronous=NORMAL")
    if variant == "cache_64mb":
        c.execute("PRAGMA cache_size=-65536")
    if variant == "autocheckpoint_16k":
        c.execute("PRAGMA wal_autocheckpoint=16384")
    c.execute(
        "CREATE TABLE judgments (id INTEGER PRIMARY KEY, key VARCHAR(80) UNIQUE, "
        "hash VARCHAR(80), trace_hash VARCHAR(80), verdict VARCHAR(20), body_id INTEGER)"
    )
    if variant == "trace_hash_prefix_index":
        # the 8 hex digits after the store's "sha256:" (this script's hashes are bare hex)
        c.execute(
            "CREATE INDEX ix_judgments_trace_hash_prefix ON judgments (substr(trace_hash, 1, 8))"
        )
    elif variant != "no_trace_hash_index":
        c.execute("CREATE INDEX ix_judgments_trace_hash ON judgments (trace_hash)")
    c.execute(
        "CREATE TABLE evaluation_judgments (id INTEGER PRIMARY KEY, evaluation_id INTEGER, "
        "judgment_id INTEGER, trace_id INTEGER, verdict VARCHAR(20), "
        "UNIQUE (evaluation_id, trace_id))"
    )
    c.execute("CREATE INDEX ix_ej_eval_verdict ON evaluation_judgments (evaluation_id, verdict)")
    timer = PerTenth(rows, CHUNK)
    for start in range(0, rows, CHUNK):
        ids = range(start, min(rows, start + CHUNK))
        judgments = [(_h(f"k{i}"), _h(f"h{i}"), _h(f"t{i}"), "PASS", i % 97) for i in ids]
        c.execute("BEGIN")
        c.executemany(
            "INSERT INTO judgments (key, hash, trace_hash, verdict, body_id) VALUES "
            "(?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING",
            judgments,
        )
        c.executemany(
            "INSERT INTO evaluation_judgments (evaluation_id, judgment_id, trace_id, verdict) "
            "VALUES (1, ?, ?, 'PASS') ON CONFLICT (evaluation_id, trace_id) DO NOTHING",
            [(i + 1, i + 1) for i in ids],
        )
        c.execute("COMMIT")
        timer.done(ids.stop)
    c.close()
    return timer.figures


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    args = parser.parse_args()
    variants = [v for v in args.variants.split(",") if v]
    if unknown := set(variants) - set(VARIANTS):
        parser.error(f"unknown variant(s): {', '.join(sorted(unknown))}")
    print(f"CPU µs per row written, by tenth of {args.rows:,} rows; total CPU and wall")
    for variant in variants:
        figures, cpu, wall = in_scratch("rejudge-growth-", partial(run, variant, args.rows))
        print(
            f"{tenths_line(variant, 20, figures, args.rows, cpu)}, wall {wall:6.1f} s", flush=True
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
