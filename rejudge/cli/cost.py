"""``rejudge cost RUN --prices FILE``: what a run cost, from a price table the user keeps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from rejudge.cli._context import AppContext, file_option, json_option, pass_app, table
from rejudge.model import Cost, RunCost, format_amount
from rejudge.services import read_price_table, run_cost

__all__ = ["cost"]


def _render(result: RunCost, per_trace: bool) -> Any:
    def render(c: Any) -> None:
        money = result.currency
        c.print(
            table(
                f"Cost of run {result.run}",
                [
                    "model",
                    "priced as",
                    "traces priced",
                    "unpriced",
                    "tokens in",
                    "tokens out",
                    "cost",
                ],
                [
                    [
                        m.model,
                        m.priced_as or "—",
                        m.priced,
                        m.unpriced,
                        f"{m.input_tokens:,}",
                        f"{m.output_tokens:,}",
                        format_amount(m.amount, money),
                    ]
                    for m in result.models
                ],
            )
        )
        if per_trace:
            c.print(
                table(
                    "Per trace",
                    ["case", "rep", "tokens in", "tokens out", "cost"],
                    [
                        [
                            t.case,
                            t.repetition,
                            "—" if t.input_tokens is None else f"{t.input_tokens:,}",
                            "—" if t.output_tokens is None else f"{t.output_tokens:,}",
                            format_amount(t.cost.amount, money)
                            if isinstance(t.cost, Cost)
                            else t.cost.reason,
                        ]
                        for t in result.traces
                    ],
                )
            )
        why = ", ".join(f"{n} {reason}" for reason, n in result.unpriced_reasons)
        as_of = f"; prices as of {result.as_of}" if result.as_of else ""
        c.print(
            f"Total {format_amount(result.total, money)} over {result.priced} priced trace(s)"
            + (f"; {result.unpriced} unpriced ({why})" if result.unpriced else "")
            + as_of
            + ". Figures come from your price table; check them against the provider's list.",
            markup=False,
        )

    return render


@click.command("cost")
@click.argument("run_ref", metavar="RUN")
@file_option(
    "--prices",
    "prices_file",
    "Price table (JSON, format rejudge-prices@1; see docs/prices/README.md).",
    required=True,
)
@click.option("--per-trace", is_flag=True, help="Also list every trace's usage and cost.")
@json_option
@pass_app
def cost(app: AppContext, run_ref: str, prices_file: Path, per_trace: bool) -> None:
    """What RUN cost: its traces' recorded token usage priced by a table you supply (offline)."""
    prices = read_price_table(prices_file)
    result = run_cost(app.store, run_ref, prices)
    app.emit(result.to_json(per_trace=per_trace), _render(result, per_trace))
