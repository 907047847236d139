"""BFCL commands (the lead attaches them):

- ``import_bfcl`` -> ``rejudge suite import-bfcl [--category C ...] [--out DIR]``
- ``bfcl_results`` -> ``rejudge import bfcl-results PATH --model NAME [--name RUN]``
- ``export`` (a group holding ``bfcl``) -> ``rejudge export bfcl EVAL --out DIR``

Each calls one service through the public ``rejudge.services`` facade.
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from rejudge import services
from rejudge.cli._context import AppContext, folder_option, json_option, pass_app, table
from rejudge.importers import CATEGORIES

__all__ = ["import_bfcl", "bfcl_results", "export", "export_bfcl"]


@click.command("import-bfcl")
@click.option(
    "--category",
    "categories",
    multiple=True,
    type=click.Choice(list(CATEGORIES)),
    help="A BFCL category to import (repeatable) [default: all AST categories].",
)
@folder_option(
    "--out",
    "out_dir",
    "Also write each suite as a folder under DIR (for `rejudge record --suite DIR/NAME`).",
)
@json_option
@pass_app
def import_bfcl(app: AppContext, categories: tuple[str, ...], out_dir: Path | None) -> None:
    """Import BFCL v4's AST categories (from the bfcl-eval package) as call-only suites."""
    results = [
        r.as_dict() for r in services.import_bfcl(app.store, list(categories), out_dir=out_dir)
    ]

    def render(c: Console) -> None:
        rows = [
            [r["name"], r["cases"], r["tools"], r["renamed_tools"], r["hash"][:19]] for r in results
        ]
        c.print(table(None, ["suite", "cases", "tools", "renamed", "hash"], rows))
        c.print(f"{len(results)} suite(s) stored; judge them with --tier bfcl-ast")

    app.emit(results, render)


@click.command("bfcl-results")
@click.argument("path", type=click.Path(path_type=Path, exists=True))
@click.option("--model", required=True, help="The model the results belong to.")
@click.option("--name", "run_name", default=None, help="Run name prefix [default: bfcl-MODEL].")
@json_option
@pass_app
def bfcl_results(app: AppContext, path: Path, model: str, run_name: str | None) -> None:
    """Import BFCL result files (a file or a folder of them) as imported runs, one per category."""
    results = [
        r.as_dict()
        for r in services.import_bfcl_results(
            app.store, path, model, run_name=run_name, source_path=services.evidence_path(path)
        )
    ]

    def render(c: Console) -> None:
        rows = [
            [
                r["run"],
                r["category"],
                r["traces"],
                r["inserted"],
                r["undecodable"],
                r["unknown_id_count"],
                r["bad_line_count"],
            ]
            for r in results
        ]
        c.print(
            table(None, ["run", "category", "traces", "new", "undecodable", "unknown", "bad"], rows)
        )
        for r in results:
            for line in r["bad_lines"][:5]:
                c.print(f"  skipped {line}", markup=False)

    app.emit(results, render)


@click.group("export")
def export() -> None:
    """Write evaluations in other tools' formats."""


@export.command("bfcl")
@click.argument("evaluation")
@folder_option(
    "--out",
    "out_dir",
    "Folder for <model>/<non_live|live>/BFCL_v4_<category>_score.json.",
    required=True,
)
@click.option(
    "--model", "model_name", default=None, help="Model name in the files [default: the run's]."
)
@json_option
@pass_app
def export_bfcl(app: AppContext, evaluation: str, out_dir: Path, model_name: str | None) -> None:
    """Write an evaluation as BFCL score files (accuracy line, then one line per failure)."""
    written = services.export_bfcl(app.store, evaluation, out_dir, model_name=model_name)

    def render(c: Console) -> None:
        rows = [
            [w["category"], w["correct_count"], w["total_count"], f"{w['accuracy']:.4f}", w["path"]]
            for w in written
        ]
        c.print(table(None, ["category", "correct", "total", "accuracy", "file"], rows))

    app.emit(written, render)
