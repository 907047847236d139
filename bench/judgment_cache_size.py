"""The judgment writes of a first judging against SQLite's page cache size, as the store does
them today: per chunk of 2,500 rows, the keys looked up, then the rows inserted (insert-or-
ignore on the judgment key) with their links, one transaction.

Usage (from the repository root):

    python bench/judgment_cache_size.py 1000000 c0 c32 c128 m512 c32+sort c32+stage c32+stage1

Plain ``sqlite3``, no rejudge code: the ``judgments`` columns (a unique 71-character key, the
trace hash indexed by ``substr(trace_hash, 8, 8)`` as migration 0105 has it) and the
``evaluation_judgments`` links, in a fresh WAL file (``synchronous=NORMAL``). Each variant
prints the CPU per row (user + system) of every tenth of the rows, the total, the wall time,
the process's peak RSS so far and the size of each table and index (MB, ``dbstat``).
A variant is ``+``-joined parts: ``cN`` a page cache of N MB (``c0``: SQLite's default,
2,000 KiB), ``mN`` ``mmap_size`` N MB, ``sort`` each chunk's rows sorted by key before the
insert (which would give the judgments other ids than the store gives them), ``stage`` each
chunk's rows appended to an unindexed staging table instead, merged into ``judgments`` in key
order (and linked) once a tenth, as if each tenth were one judging that merges at its end (ids
in key order within a judging; a design sketch for issue 40 item 7, not the store's way);
``stage1`` the same with one merge after the last row, as one judging of all the rows.
"""

from __future__ import annotations

import hashlib
import resource
import sqlite3
import sys
from functools import partial
from pathlib import Path

from _common import PerTenth, in_scratch, tenths_line

CHUNK = 2500
_COLUMNS = (
    "key, hash, trace_hash, case_hash, registry_hash, tier, rule_set_hash, engine_version, "
    "verdict, partial_score, taxonomy, anomalies, implicated_tools, body_id, created_at"
)


def _h(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def _open(path: Path, cache_mb: int, mmap_mb: int) -> sqlite3.Connection:
    c = sqlite3.connect(path, isolation_level=None)
    c.execute("PRAGMA journal_mode=WAL")
    c.execute("PRAGMA synchronous=NORMAL")
    if cache_mb:
        c.execute(f"PRAGMA cache_size=-{cache_mb * 1024}")
    if mmap_mb:
        c.execute(f"PRAGMA mmap_size={mmap_mb << 20}")
    c.execute(
        "CREATE TABLE judgments (id INTEGER PRIMARY KEY, key VARCHAR(80) UNIQUE, "
        "hash VARCHAR(80), trace_hash VARCHAR(80), case_hash VARCHAR(80), "
        "registry_hash VARCHAR(80), tier VARCHAR(50), rule_set_hash VARCHAR(80), "
        "engine_version VARCHAR(50), verdict VARCHAR(20), partial_score FLOAT, taxonomy JSON, "
        "anomalies JSON, implicated_tools JSON, body_id INTEGER, created_at DATETIME)"
    )
    c.execute("CREATE INDEX ix_judgments_trace_hash_prefix ON judgments (substr(trace_hash, 8, 8))")
    c.execute(
        "CREATE TABLE evaluation_judgments (id INTEGER PRIMARY KEY, evaluation_id INTEGER, "
        "judgment_id INTEGER, trace_id INTEGER, case_key VARCHAR(200), repetition INTEGER, "
        "dimension VARCHAR(50), category VARCHAR(200), verdict VARCHAR(20), "
        "partial_score FLOAT, UNIQUE (evaluation_id, trace_id))"
    )
    c.execute("CREATE INDEX ix_ej_eval_verdict ON evaluation_judgments (evaluation_id, verdict)")
    return c


def _merge_staged(c: sqlite3.Connection) -> None:
    """One judging's staged rows into ``judgments`` in key order, then their links, in one
    transaction: a sorted insert touches each leaf of the key index about once."""
    c.execute("BEGIN")
    c.execute(
        f"INSERT INTO judgments ({_COLUMNS}) SELECT {_COLUMNS} FROM judgments_staged "
        "WHERE true ORDER BY key ON CONFLICT (key) DO NOTHING"
    )
    c.execute(
        "INSERT INTO evaluation_judgments (evaluation_id, judgment_id, trace_id, case_key, "
        "repetition, dimension, category, verdict, partial_score) "
        "SELECT 1, j.id, s.trace_id, 'case', 0, 'D1', 'cat', 'PASS', 1.0 "
        "FROM judgments_staged AS s JOIN judgments AS j ON j.key = s.key ORDER BY s.trace_id "
        "ON CONFLICT (evaluation_id, trace_id) DO NOTHING"
    )
    c.execute("DELETE FROM judgments_staged")
    c.execute("COMMIT")


def run(
    rows: int, cache_mb: int, mmap_mb: int, sort: bool, path: Path, merges: int = 0
) -> tuple[list[float], dict[str, int]]:
    """CPU µs a row of every tenth of ``rows``, and each table's and index's MB at the end.
    ``merges``: 0, the rows inserted as the store does; else staged and merged that many times
    (1: after the last row; 10: after each tenth)."""
    c = _open(path, cache_mb, mmap_mb)
    if merges:
        c.execute(
            "CREATE TABLE judgments_staged AS SELECT *, 0 AS trace_id FROM judgments WHERE false"
        )
    timer = PerTenth(rows, CHUNK)
    case, registry, rules = _h("case"), _h("registry"), _h("rules")
    insert = (
        f"INSERT INTO judgments ({_COLUMNS}) VALUES ({', '.join('?' * 15)}) "
        "ON CONFLICT (key) DO NOTHING"
    )
    for start in range(0, rows, CHUNK):
        ids = range(start, min(rows, start + CHUNK))
        keys = [_h(f"k{i}") for i in ids]
        marks = ", ".join("?" * len(keys))
        c.execute(f"SELECT key, id FROM judgments WHERE key IN ({marks})", keys).fetchall()
        judgments = [
            (key, _h(f"h{i}"), _h(f"t{i}"), case, registry, "golden", rules, "1", "PASS", 1.0,
             "[]", "[]", "[]", i % 97, "2026-12-07 12:00:00.000000")
            for key, i in zip(keys, ids, strict=True)
        ]  # fmt: skip
        if sort:
            judgments.sort()
        if merges:
            c.execute("BEGIN")
            c.executemany(
                f"INSERT INTO judgments_staged ({_COLUMNS}, trace_id) "
                f"VALUES ({', '.join('?' * 16)})",
                [(*row, i + 1) for row, i in zip(judgments, ids, strict=True)],
            )
            c.execute("COMMIT")
            if ids.stop == rows or (merges == 10 and ids.stop % timer.tenth == 0):
                _merge_staged(c)
            timer.done(ids.stop)
            continue
        c.execute("BEGIN")
        c.executemany(insert, judgments)
        c.executemany(
            "INSERT INTO evaluation_judgments (evaluation_id, judgment_id, trace_id, case_key, "
            "repetition, dimension, category, verdict, partial_score) "
            "VALUES (1, ?, ?, 'case', 0, 'D1', 'cat', 'PASS', 1.0) "
            "ON CONFLICT (evaluation_id, trace_id) DO NOTHING",
            [(i + 1, i + 1) for i in ids],
        )
        c.execute("COMMIT")
        timer.done(ids.stop)
    sizes = {
        name: int(size) >> 20
        for name, size in c.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name")
    }
    c.close()
    return timer.figures, sizes


def main() -> int:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    variants = sys.argv[2:] or ["c0", "c32", "c128"]
    print(f"CPU µs a row written, by tenth of {rows:,} rows; total CPU, wall, peak RSS, MB")
    for variant in variants:
        cache = mmap = 0
        sort, merges = False, 0
        for part in variant.split("+"):
            if part == "sort":
                sort = True
            elif part in ("stage", "stage1"):
                merges = 10 if part == "stage" else 1
            elif part[:1] == "c":
                cache = int(part[1:])
            elif part[:1] == "m":
                mmap = int(part[1:])
            else:
                raise SystemExit(f"unknown variant part {part!r} (cN, mN, sort, stage, stage1)")
        (tenths, sizes), cpu, wall = in_scratch(
            "rejudge-cache-", partial(run, rows, cache, mmap, sort, merges=merges)
        )
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        print(
            f"{tenths_line(variant, 10, tenths, rows, cpu)}, wall {wall:5.0f} s, "
            f"peak RSS {rss} MB, {sizes}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
