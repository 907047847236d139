"""`rejudge sweep funcbench --model M --core 5,10,20 [--restate] ...`: FuncBenchGen's grid.

Parses the grid, calls :func:`rejudge.services._sweep.run_sweep` and prints the paper's table
shape (the accounting is documented there)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.console import Console

from rejudge._settings import api_key_from_env
from rejudge.cli._context import AppContext, json_option, pass_app, table
from rejudge.cli._figures import rate as figure_rate
from rejudge.errors import InvalidInputError
from rejudge.services import SweepCell, SweepOptions, run_sweep

__all__ = ["sweep"]


def _cores(value: str) -> tuple[int, ...]:
    try:
        cores = tuple(int(part) for part in value.split(",") if part.strip())
    except ValueError as exc:
        raise click.BadParameter("give core counts as integers, e.g. 5,10,20") from exc
    if not cores or any(c < 1 for c in cores):
        raise click.BadParameter("give core counts as positive integers, e.g. 5,10,20")
    return cores


@click.group()
def sweep() -> None:
    """Record and judge generated grids."""


@sweep.command("funcbench")
@click.option("--model", required=True, help="Model name sent to the provider.")
@click.option("--core", "cores", required=True, help="Core-node counts, e.g. 5,10,20.")
@click.option(
    "--depth", type=click.IntRange(0), default=None, help="Depth [default: min(3, core-1)]."
)
@click.option("--cin", type=click.IntRange(0), default=0, show_default=True)
@click.option("--din", type=click.IntRange(0), default=0, show_default=True)
@click.option("--noise", type=click.IntRange(0), default=0, show_default=True)
@click.option("--subtypes/--no-subtypes", default=False, show_default=True)
@click.option(
    "--cases", type=click.IntRange(1), default=5, show_default=True, help="Cases per cell."
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--restate", is_flag=True, help="Also record every cell with restatement (a separate run)."
)
@click.option("--provider", default="openai", show_default=True)
@click.option("--base-url", default=None, help="Provider base URL (e.g. a local server).")
@click.option("--temperature", type=float, default=0.0, show_default=True)
@click.option(
    "--tool-choice", default="auto", show_default=True, help="auto, required, none or omit."
)
@click.option("--max-tokens", type=click.IntRange(1), default=None)
@click.option(
    "--system-prompt",
    default=None,
    help="A system message sent before the instruction (the local server shows tools only "
    "inside one).",
)
@click.option("--timeout", "timeout_s", type=float, default=60.0, show_default=True)
@click.option("--concurrency", type=click.IntRange(1), default=1, show_default=True)
@click.option("--prefix", default="sweep", show_default=True, help="Run-name prefix.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Also write each generated suite folder under this folder.",
)
@click.option("--api-key-env", default=None, metavar="NAME", help="Read the API key from NAME.")
@json_option
@pass_app
def sweep_funcbench(
    app: AppContext, /, cores: str, api_key_env: str | None, out: Path | None, **kw: Any
) -> None:
    """Generate, record and judge a FuncBenchGen grid; print success by core nodes."""
    from rejudge.recorder.providers import get_provider

    provider = kw["provider"]
    var = get_provider(provider).api_key_env  # None: a server that takes no key
    api_key = api_key_from_env(api_key_env or var)
    if api_key is None and kw["base_url"] is None and var is not None:
        raise InvalidInputError(
            f"no API key: set {var} (or --api-key-env NAME), or point --base-url at a local server"
        )
    choice = kw.pop("tool_choice")
    options = SweepOptions(
        cores=_cores(cores), tool_choice=None if choice == "omit" else choice, **kw
    )

    def progress(cell: SweepCell) -> None:
        if not app.json:
            arm = "restate" if cell.restate else "plain"
            n = cell.summary
            app.console.print(
                f"core {cell.core} ({arm}): success {figure_rate(n.counts.get('PASS', 0), n.scored)} "
                f"{n.counts} run {cell.run}",
                markup=False,
            )

    result = run_sweep(
        app.store,
        app.settings.cassettes_dir,
        options,
        api_key=api_key,
        folder=out,
        on_cell=progress,
    )

    def render(c: Console) -> None:
        core_cols = [str(n) for n in options.cores]
        # each rate with its count (issue 39): success is PASS of PASS + FAIL + timeout, a
        # failure type's share is of the arm's failed cells
        cells = {(cell.restate, str(cell.core)): cell for cell in result.cells}

        def success(restate: bool, core: str) -> str:
            cell = cells.get((restate, core))
            if cell is None:
                return "-"
            return figure_rate(cell.summary.counts.get("PASS", 0), cell.summary.scored)

        rows = [
            [
                "with restatement" if arm.restate else "plain",
                *(success(arm.restate, k) for k in core_cols),
            ]
            for arm in result.table.success
        ]
        c.print(table(f"Success rate by core nodes — {options.model}", ["", *core_cols], rows))
        keys = sorted({k for arm in result.table.failure_types for k in arm.shares})
        timeouts = {
            restate: sum(c.summary.counts["timeout"] for c in result.cells if c.restate == restate)
            for restate in (False, True)
        }

        def share(restate: bool, key: str, failed: int) -> str:
            n = sum(
                cell.summary.first_failure.get(key, 0)
                for cell in result.cells
                if cell.restate == restate
            )
            return figure_rate(n, failed) if failed else "-"

        share_rows: list[list[str | int]] = [
            [
                "with restatement" if arm.restate else "plain",
                arm.failed,
                timeouts[arm.restate],
                *(share(arm.restate, k, arm.failed) for k in keys),
            ]
            for arm in result.table.failure_types
        ]
        c.print(
            table(
                "Failure types (first failing call)",
                ["", "failed", "of which timeouts", *keys],
                share_rows,
            )
        )

    app.emit(result, render)
