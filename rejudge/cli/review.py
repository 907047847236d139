"""`rejudge review export | import | summary | resolve`: offline review in a spreadsheet.

Thin over :mod:`rejudge.services._reviews` (the CSV format is :mod:`rejudge.judge._calibration`'s);
the CSV columns are documented in docs/calibration.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.text import Text

from rejudge.cli._context import AppContext, file_option, json_option, pass_app, table
from rejudge.cli._figures import rate
from rejudge.errors import InvalidInputError
from rejudge.judge import ReviewImportError
from rejudge.services import (
    calibration_summary,
    import_review_csv,
    resolve_review,
    review_queue_file,
)

__all__ = ["review", "render_calibration"]


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def render_calibration(c: Console, cal: dict[str, Any]) -> None:
    """The calibration block as `rejudge report` and `review summary` print it."""
    fails, passes = cal["fails"], cal["passes"]
    c.print(
        f"[bold]review[/bold]: {cal['reviewed']} of {cal['judgments']} judgment(s) reviewed; "
        f"FAILs {rate(fails['reviewed'], fails['total'])}, "
        f"PASSes {rate(passes['reviewed'], passes['total'])}"
    )
    kappa = cal["agreement"]["kappa"]
    c.print(
        f"judge misjudgment rate {rate(cal['misjudged'], cal['reviewed'])} judge wrong, "
        f"golden errors {cal['golden_errors']}, unclear {cal['unclear']}, "
        f"disputed {cal['disputed']}, "
        f"kappa {'n/a' if kappa is None else f'{kappa:.3f}'}"
        f" over {cal['agreement']['double_reviewed']} double-reviewed item(s)",
        markup=False,
    )
    if cal.get("flagged"):
        rows = [
            [
                f["case"],
                f["repetition"],
                f["label"],
                f["reviewer"],
                f"{f['suite']}" if f.get("suite") else "",
                f["resolution"] if f["resolved"] else Text("open", style="yellow"),
            ]
            for f in cal["flagged"]
        ]
        c.print(
            table(
                "Flagged by reviewers",
                ["case", "rep", "label", "reviewer", "suite", "status"],
                rows,
            )
        )
    if cal.get("ready_to_lock"):
        c.print("[green]fully reviewed[/green]: lockable with --require-review")
    else:
        c.print(
            f"{cal.get('gaps', 0)} review gap(s) before `baseline lock --require-review`",
            markup=False,
        )


@click.group("review")
def review() -> None:
    """Human review of verdicts: export a queue to CSV, import the labels, see the figures."""


@review.command("export")
@click.argument("evaluation", metavar="EVAL")
@click.option("--format", "fmt", type=click.Choice(["csv"]), default="csv", show_default=True)
@file_option("--out", "out", "File [default: stdout].")
@click.option(
    "--sample-passes",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Add a random sample of N PASSes (to catch false passes).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the PASS sample.")
@click.option("--unreviewed", is_flag=True, help="Only items nobody has labeled yet.")
@json_option
@pass_app
def review_export(
    app: AppContext,
    evaluation: str,
    fmt: str,
    out: Path | None,
    sample_passes: int,
    seed: int,
    unreviewed: bool,
) -> None:
    """Write EVAL's review queue as CSV: every FAIL, anomaly-flagged judgments, sampled PASSes."""
    queue = review_queue_file(
        app.store, evaluation, sample_passes=sample_passes, seed=seed, unreviewed=unreviewed
    )
    text, rows = queue.text, queue.rows
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InvalidInputError(f"cannot write {out}: {exc.strerror or exc}") from None
    data = {"evaluation": queue.evaluation, "out": str(out), "rows": rows}
    app.emit(
        data,
        lambda c: c.print(
            f"wrote {rows} row(s) to {out}; fill label, reviewer, note", markup=False
        ),
    )


@review.command("import")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--reviewer", default=None, help="Reviewer for rows whose reviewer cell is empty.")
@json_option
@pass_app
def review_import(app: AppContext, file: Path, reviewer: str | None) -> None:
    """Import the labels of a filled-in review CSV; every row is checked, a bad row imports
    nothing (each problem is listed with its row number)."""
    try:
        raw = file.read_bytes()
    except OSError as exc:
        raise InvalidInputError(f"cannot read {file}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidInputError(f"{file} is not UTF-8 text (save the sheet as CSV UTF-8)") from None
    try:
        data = import_review_csv(app.store, text, default_reviewer=reviewer, source=str(file))
    except ReviewImportError as exc:
        if not app.json:
            for line in exc.errors:
                click.echo(f"{file}: {line}", err=True)
        raise
    app.emit(
        data,
        lambda c: c.print(
            f"{data.imported} label(s) imported from {file} "
            f"({data.unchanged} unchanged, {data.rows} labeled row(s))",
            markup=False,  # the file's name is the user's text
        ),
    )


@review.command("summary")
@click.argument("evaluation", metavar="EVAL")
@json_option
@pass_app
def review_summary(app: AppContext, evaluation: str) -> None:
    """Review figures of EVAL: coverage, misjudgment rate, golden errors, kappa, open labels."""
    data = calibration_summary(app.store, evaluation).to_json()
    app.emit(data, lambda c: render_calibration(c, data))


@review.command("resolve")
@click.argument("review_id", type=int, metavar="REVIEW")
@click.option("--resolution", required=True, help="What fixed the problem the label reported.")
@json_option
@pass_app
def review_resolve(app: AppContext, review_id: int, resolution: str) -> None:
    """Record that the problem a review reported is fixed (once; never overwritten)."""
    record = resolve_review(app.store, review_id, resolution)
    data = record.as_dict()
    app.emit(
        data,
        lambda c: c.print(f"review {record.id} resolved: {record.resolution}", markup=False),
    )
