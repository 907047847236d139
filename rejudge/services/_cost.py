"""What a stored run cost under a price table the user supplies (``rejudge cost``, the
dashboard's ``--prices``).

The table is a file the user keeps (format ``rejudge-prices@1``, :mod:`rejudge.model._prices`);
rejudge never asks a pricing API. A trace's model is its run's, its usage what the recorder
stored in its body (``input_tokens``, ``output_tokens``). A run imported from cassettes of
several models is named ``mixed:<models>`` and its traces do not say which model answered:
those are left unpriced, with that reason, rather than priced under a guess.
"""

from __future__ import annotations

from pathlib import Path

from rejudge.model import (
    MODEL_UNKNOWN,
    Cost,
    NoCost,
    PriceTable,
    PriceTableError,
    RunCost,
    TraceCost,
)
from rejudge.store import Store

__all__ = ["read_price_table", "run_cost", "trace_cost"]

# the run models the cassette importer writes when the cassettes do not show a single model
# (rejudge.recorder's import_run_config)
_MIXED_PREFIX = "mixed:"
_UNKNOWN_MODEL = "unknown"


def read_price_table(path: Path | str) -> PriceTable:
    """The price table in the file at ``path``; a file that cannot be read or holds no valid
    table is one :class:`PriceTableError` naming it."""
    target = Path(path)
    try:
        text = target.read_text(encoding="utf-8")
    except OSError as exc:
        raise PriceTableError(
            f"cannot read the price table {target}: {exc.strerror or exc}", file=str(target)
        ) from None
    except UnicodeDecodeError:
        raise PriceTableError(
            f"{target}: a price table is UTF-8 JSON text", file=str(target)
        ) from None
    return PriceTable.from_json(text, file=str(target))


def trace_cost(
    prices: PriceTable, run_model: str, input_tokens: int | None, output_tokens: int | None
) -> Cost | NoCost:
    """What one trace of a run of ``run_model`` cost (the trace viewer's figure too)."""
    if run_model.startswith(_MIXED_PREFIX) or run_model == _UNKNOWN_MODEL:
        return NoCost(MODEL_UNKNOWN)
    return prices.cost(run_model, input_tokens, output_tokens)


def run_cost(store: Store, run_ref: str | int, prices: PriceTable) -> RunCost:
    """The cost of every trace of the run ``run_ref`` (a name or an id), and their total."""
    run = store.runs.get_run(run_ref)
    traces = (
        TraceCost(
            trace_id=u.id,
            case=u.case_key,
            repetition=u.repetition,
            model=run.model,
            input_tokens=u.input_tokens,
            output_tokens=u.output_tokens,
            cost=trace_cost(prices, run.model, u.input_tokens, u.output_tokens),
        )
        for u in store.runs.trace_usages(run.id)
    )
    return RunCost.of(run.name, prices, traces)
