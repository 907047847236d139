"""`rejudge export EVAL --format jsonl|csv|parquet` and `rejudge export run RUN --format jsonl`.

Rows come from :func:`rejudge.services._export.evaluation_export_rows` / ``run_export_rows``; this module
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

from rejudge import __version__
from rejudge.cli._context import AppContext, file_option, pass_app
from rejudge.errors import InvalidInputError
from rejudge.judge import (
    EVALUATION_EXPORT_COLUMNS,
    RUN_EXPORT_COLUMNS,
    langfuse_score_lines,
    otlp_log_lines,
)
from rejudge.services import evaluation_export_rows, evaluation_verdicts, run_export_rows

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


_FORMAT = click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "csv", "parquet"]),
    default="jsonl",
    show_default=True,
)
_OUT = file_option("--out", "out", "File [default: stdout].")


class _ExportGroup(click.Group):
    """``export EVAL ...`` is ``export eval EVAL ...``; ``export run RUN`` and ``export bfcl
    EVAL`` (BFCL score files, from :mod:`rejudge.cli.bfcl`) are subcommands."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | {"bfcl"})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name == "bfcl" and "bfcl" not in self.commands:
            try:
                from rejudge.cli.bfcl import export_bfcl
            except ImportError:
                return None
            self.add_command(export_bfcl, "bfcl")
        return super().get_command(ctx, cmd_name)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        names = set(self.list_commands(ctx))
        if args and not any(a in names for a in args) and not {"-h", "--help"} & set(args):
            args = ["eval", *args]
        return super().parse_args(ctx, args)


@click.group("export", cls=_ExportGroup)
def export() -> None:
    """Export for analysis tools.

    \b
    rejudge export EVAL --format jsonl|csv|parquet   one row per case and repetition
    rejudge export EVAL --format otel|langfuse-scores  verdicts back to a tracer
    rejudge export run RUN --format jsonl            the run's normalized traces
    rejudge export bfcl EVAL --out DIR               BFCL score files
    """


@export.command("eval")
@click.argument("evaluation", metavar="EVAL")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "csv", "parquet", "otel", "langfuse-scores"]),
    default="jsonl",
    show_default=True,
)
@_OUT
@pass_app
def export_eval(app: AppContext, evaluation: str, fmt: str, out: Path | None) -> None:
    """One row per case and repetition: verdict, taxonomy, partial score, tier, rules, model and
    every input hash (columns: docs/calibration.md). Or the verdicts back out to a tracer:
    otel, each judgment as a gen_ai.evaluation.result event (OTLP JSON logs, a request per
    line) on its trace's span; langfuse-scores, Langfuse score-create batches, a request body
    per line (docs/exports.md)."""
    if fmt in ("otel", "langfuse-scores"):
        verdicts = evaluation_verdicts(app.store, evaluation)
        documents = (
            otlp_log_lines(verdicts, version=__version__)
            if fmt == "otel"
            else langfuse_score_lines(verdicts)
        )
        _emit_text(lambda f: _write_jsonl(documents, f), out)
        return
    columns = [name for name, _, _ in EVALUATION_EXPORT_COLUMNS]
    rows = evaluation_export_rows(app.store, evaluation)
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


@export.command("run")
@click.argument("run", metavar="RUN")
@_FORMAT
@_OUT
@pass_app
def export_run(app: AppContext, run: str, fmt: str, out: Path | None) -> None:
    """The run's normalized traces, one JSON object per trace."""
    if fmt != "jsonl":
        raise click.UsageError("traces are nested: export run supports --format jsonl only")
    rows: Iterator[dict[str, Any]] = run_export_rows(app.store, run)
    _emit_text(lambda f: _write_jsonl(rows, f), out)


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
