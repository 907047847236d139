"""Costs on the pages, when ``rejudge dashboard --prices FILE`` gave a price table: the Report
page's run total and the trace viewer's per-trace figure. Without a table every helper gives
what the pages showed before (no cost).

Model names come from the evidence and keys from the user's file: both reach Streamlit's
Markdown through :func:`md_escape` only, never as markup or a link.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.common import AppContext, md_escape

from rejudge.errors import RejudgeError
from rejudge.model import Cost, NoCost, PriceTable, RunCost, format_amount

__all__ = [
    "NO_PRICES_NOTE",
    "no_prices_note",
    "prices",
    "run_cost_caption",
    "trace_cost_shown",
    "tokens_metric",
]

TOKENS_HELP = "as the provider reported it; no price is recorded, so no cost"
#: shown, not hovered, on every page that would show a cost when the dashboard has no table
NO_PRICES_NOTE = (
    "Cost: none shown, as no price table was given (a run records tokens, not prices). "
    "`rejudge dashboard --prices FILE` shows what each trace and run cost "
    "(the file's format: docs/prices/README.md)."
)


def no_prices_note(where: Any = st) -> None:
    """The visible note that no cost is shown and how to have one (``where``: a column)."""
    where.caption(NO_PRICES_NOTE)


def prices(ctx: AppContext) -> PriceTable | None:
    """The app's price table, or None without one; a table that stopped reading (edited since
    the dashboard started) is a warning, and the page goes on without costs."""
    if ctx.prices_file is None:
        return None
    try:
        return data.price_table(str(ctx.prices_file))
    except RejudgeError as exc:
        st.warning(f"No costs shown: {md_escape(str(exc))}")
        return None


def run_cost_caption(cost: RunCost) -> str:
    """The run's cost in one Markdown line: the total, priced and unpriced traces and why,
    which key priced each model, and when the table's figures date from."""
    line = (
        f"Cost over the run: {format_amount(cost.total, cost.currency)} over {cost.priced} "
        f"priced trace(s) · {cost.unpriced} unpriced"
    )
    if cost.unpriced_reasons:
        line += " (" + ", ".join(f"{n} {why}" for why, n in cost.unpriced_reasons) + ")"
    priced_as = [f"{m.model} as {m.priced_as}" for m in cost.models if m.priced_as]
    if priced_as:
        line += " · priced " + "; ".join(priced_as)
    if cost.as_of:
        line += f" · prices as of {cost.as_of}"
    return md_escape(line + ", from your price table: check it against the provider's list.")


def trace_cost_shown(cost: Cost | NoCost) -> str:
    """A trace's cost as a table cell (plain text): the amount, or why there is none."""
    if isinstance(cost, Cost):
        return format_amount(cost.amount, cost.currency)
    return f"— ({cost.reason})"


def tokens_metric(usage: Mapping[str, Any], cost: Cost | NoCost | None) -> tuple[str, str]:
    """The trace viewer's token figure (value, its note as plain text): ``in / out``, and the trace's
    cost after them when the table priced it; the help says why there is no cost otherwise."""
    tokens_in = usage.get("input_tokens")
    if not isinstance(tokens_in, int):
        value = "—"
    else:
        value = f"{tokens_in:,} / {usage.get('output_tokens', 0):,}"
    if cost is None:
        return value, TOKENS_HELP
    if isinstance(cost, NoCost):
        return value, f"as the provider reported it; no cost: {cost.reason}"
    return (
        f"{value} · {format_amount(cost.amount, cost.currency)}",
        f"as the provider reported it; cost priced as {cost.priced_as} by your table",
    )
