"""`rejudge export EVAL --format jsonl|csv|parquet` and `rejudge export run RUN --format jsonl`.

Rows come from :func:`judge.calibration.evaluation_export_rows` / ``run_export_rows``; this module
only encodes them. Columns and types: docs/calibration.md ("Exports").
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import click

from judge.calibration import (
    EVALUATION_EXPORT_COLUMNS,
    RUN_EXPORT_COLUMNS,
    evaluation_export_rows,
    run_export_rows,
)
from rejudge.cli._context import AppContext, pass_app
from store.errors import InvalidInputError

__all__ = ["export", "csv_cell", "parquet_table"]


def csv_cell(value: Any) -> str:
    """Lists are space-separated, None is empty, floats keep full precision."""
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return " ".join(str(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def _write_jsonl(rows: Iterable[dict[str, Any]], out: IO[str]) -> int:
    n = 0
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False, sort_keys=False) + "\n")
        n += 1
    return n


def _write_csv(rows: Iterable[dict[str, Any]], columns: list[str], out: IO[str]) -> int:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    n = 0
    for row in rows:
        writer.writerow([csv_cell(row.get(c)) for c in columns])
        n += 1
    return n


def parquet_table(rows: list[dict[str, Any]], spec: tuple[tuple[str, str, str], ...]) -> Any:
    """A pyarrow table with the documented column types (raises when pyarrow is missing)."""
    try:
        import pyarrow as pa
    except ImportError:
        raise InvalidInputError(
            "parquet export needs pyarrow, which is not installed: `pip install pyarrow`, "
            "or use --format jsonl|csv"
        ) from None
    types = {
        "int": pa.int64(),
        "string": pa.string(),
        "string?": pa.string(),
        "float?": pa.float64(),
        "list<string>": pa.list_(pa.string()),
    }
    schema = pa.schema([(name, types[kind]) for name, kind, _ in spec])
    return pa.Table.from_pylist(rows, schema=schema)


@click.command("export")
@click.argument("target", nargs=-1, required=True, metavar="EVAL | run RUN")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "csv", "parquet"]),
    default="jsonl",
    show_default=True,
)
@click.option(
    "--out", "out", type=click.Path(path_type=Path, dir_okay=False), help="File [default: stdout]."
)
@pass_app
def export(app: AppContext, target: tuple[str, ...], fmt: str, out: Path | None) -> None:
    """Export for analysis tools.

    \b
    rejudge export EVAL --format jsonl|csv|parquet   one row per case and repetition
    rejudge export run RUN --format jsonl            the run's normalized traces
    """
    if target[0] == "run":
        if len(target) != 2:
            raise click.UsageError("export run takes one RUN (a name or id)")
        if fmt != "jsonl":
            raise click.UsageError("traces are nested: export run supports --format jsonl only")
        rows: Iterator[dict[str, Any]] = run_export_rows(app.store, target[1])
        _emit_text(lambda f: _write_jsonl(rows, f), out)
        return
    if len(target) != 1:
        raise click.UsageError("give one EVAL id, or `run RUN`")
    ev = app.store.get_evaluation(target[0])
    columns = [name for name, _, _ in EVALUATION_EXPORT_COLUMNS]
    rows = evaluation_export_rows(app.store, ev.id)
    if fmt == "jsonl":
        _emit_text(lambda f: _write_jsonl(rows, f), out)
    elif fmt == "csv":
        _emit_text(lambda f: _write_csv(rows, columns, f), out)
    else:
        table = parquet_table(list(rows), EVALUATION_EXPORT_COLUMNS)
        if out is None:
            raise click.UsageError("parquet is binary: pass --out FILE")
        import pyarrow.parquet as pq

        try:
            pq.write_table(table, str(out))
        except OSError as exc:
            raise InvalidInputError(f"cannot write {out}: {exc}") from None


def _emit_text(write: Any, out: Path | None) -> None:
    if out is None:
        write(sys.stdout)  # streamed row by row
        sys.stdout.flush()
        return
    try:
        with out.open("w", encoding="utf-8", newline="") as handle:
            write(handle)
    except OSError as exc:
        raise InvalidInputError(f"cannot write {out}: {exc.strerror or exc}") from None


# the column specs, for `rejudge export --help` readers and the docs test
COLUMNS = {"evaluation": EVALUATION_EXPORT_COLUMNS, "run": RUN_EXPORT_COLUMNS}
