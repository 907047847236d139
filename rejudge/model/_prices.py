"""What a run cost, from a price table the user supplies (rejudge never asks a pricing API).

A price table (format ``rejudge-prices@1``) is JSON::

    {"format": "rejudge-prices@1", "currency": "USD", "as_of": "2026-12-03",
     "prices": {"gpt-4o-mini": {"input_per_mtok": "0.15", "output_per_mtok": "0.60"},
                "gpt-4o-*":    {"input_per_mtok": "2.50", "output_per_mtok": "10.00"}}}

Amounts are decimal strings per million tokens and every sum is a :class:`~decimal.Decimal`:
a binary float would round a price, and the sum of a run's traces would then differ from the
cost of its summed tokens. A model is priced by its exact key, else by the longest glob that
matches it (``fnmatch``, case-sensitive; equally long globs in key order), so a table reads the
same wherever it is used. Parsing a given text or mapping is all the I/O here; reading the file
is the caller's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Context, Decimal, InvalidOperation
from fnmatch import fnmatchcase
from typing import Any

from rejudge.errors import InvalidInputError

__all__ = [
    "PRICE_TABLE_FORMAT",
    "NOT_PRICED",
    "NO_USAGE",
    "MODEL_UNKNOWN",
    "PriceTableError",
    "Price",
    "PriceTable",
    "Cost",
    "NoCost",
    "TraceCost",
    "ModelCost",
    "RunCost",
    "format_amount",
]

PRICE_TABLE_FORMAT = "rejudge-prices@1"
#: why a trace has no cost: its model matches no key of the table, it records no token usage,
#: or its run mixes models and the trace does not say which one answered
NOT_PRICED = "model not priced"
NO_USAGE = "usage not recorded"
MODEL_UNKNOWN = "model not recorded per trace"

_FAMILY = PRICE_TABLE_FORMAT.split("@", 1)[0]
_PRICE_KEYS = ("input_per_mtok", "output_per_mtok")
_OPTIONAL = ("as_of", "source")
_GLOB = frozenset("*?[")
_PER = Decimal(1_000_000)
# a price of more digits than any price list uses is a typo; with at most 20 digits a price
# times any token count below 10**20, and the sum of any number of such products, stays exact
# in 60 digits: no rounding anywhere, so a run's cost is the sum of its traces' to the last digit
_MAX_DIGITS = 20
_EXACT = Context(prec=60)
_DOCS = "see docs/prices/README.md"


class PriceTableError(InvalidInputError):
    """A price table that cannot be used: not JSON, another format, or a bad entry."""


def _plain(amount: Decimal) -> str:
    # fixed-point, as people and scripts read amounts (str() would give "1E-7")
    return f"{amount:f}"


@dataclass(frozen=True)
class Price:
    """One entry of a table: its key (a model, or a glob of models) and what a million input
    and output tokens cost."""

    key: str
    input_per_mtok: Decimal
    output_per_mtok: Decimal


@dataclass(frozen=True)
class Cost:
    """A trace's (or a sum's) cost in the table's currency, and the table key that priced it."""

    amount: Decimal
    currency: str
    priced_as: str

    def to_json(self) -> dict[str, Any]:
        return {
            "amount": _plain(self.amount),
            "currency": self.currency,
            "priced_as": self.priced_as,
        }


@dataclass(frozen=True)
class NoCost:
    """No cost could be computed, and why (:data:`NOT_PRICED`, :data:`NO_USAGE` or
    :data:`MODEL_UNKNOWN`)."""

    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"amount": None, "reason": self.reason}


def _fail(message: str, *, file: str | None, field: str | None = None) -> PriceTableError:
    where = f"{file}: " if file else ""
    return PriceTableError(f"{where}{message}", file=file, field=field)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            # json.loads would keep the last silently: a table with a model twice is ambiguous
            raise ValueError(f"the key {key!r} appears twice")
        seen[key] = value
    return seen


def _amount(value: object, *, field: str, file: str | None) -> Decimal:
    if not isinstance(value, str):
        raise _fail(
            f'{field} must be a decimal string such as "2.50" (got {value!r}): a JSON number '
            "is read as a binary float, which rounds prices",
            file=file,
            field=field,
        )
    try:
        amount = Decimal(value.strip())
    except InvalidOperation:
        raise _fail(f"{field} is not a number: {value!r}", file=file, field=field) from None
    if not amount.is_finite():
        raise _fail(f"{field} must be a finite number: {value!r}", file=file, field=field)
    if amount < 0:
        raise _fail(f"{field} cannot be negative: {value!r}", file=file, field=field)
    if len(amount.as_tuple().digits) > _MAX_DIGITS:
        raise _fail(
            f"{field} has more than {_MAX_DIGITS} digits: {value!r}", file=file, field=field
        )
    return amount


def _check_format(value: object, *, file: str | None) -> None:
    if value == PRICE_TABLE_FORMAT:
        return
    family, _, version = str(value).partition("@")
    if value is None:
        message = f'not a price table: it has no "format" (write "{PRICE_TABLE_FORMAT}"; {_DOCS})'
    elif family == _FAMILY and version.isdigit() and int(version) > 1:
        message = (
            f"price table format {value} is newer than this rejudge reads "
            f"({PRICE_TABLE_FORMAT}); upgrade rejudge, or write the table as {PRICE_TABLE_FORMAT}"
        )
    else:
        message = (
            f"unknown price table format {value!r}: this rejudge reads {PRICE_TABLE_FORMAT} "
            f"({_DOCS})"
        )
    raise _fail(message, file=file, field="format")


@dataclass(frozen=True)
class PriceTable:
    """A validated price table: its currency, its entries by key, and when it was written."""

    currency: str
    prices: tuple[Price, ...]
    as_of: str | None = None
    #: where the figures came from (the provider's price list), as the table says
    source: str | None = None

    @classmethod
    def from_json(cls, data: str | Mapping[str, Any], *, file: str | None = None) -> PriceTable:
        """The table in ``data`` (JSON text, or the mapping it parses to), checked strictly;
        ``file`` (where it was read from) prefixes every error's message."""
        if isinstance(data, str):
            try:
                data = json.loads(data, object_pairs_hook=_no_duplicates)
            except ValueError as exc:
                raise _fail(f"not valid JSON: {exc}", file=file) from None
        if not isinstance(data, Mapping):
            raise _fail("a price table is a JSON object", file=file)
        _check_format(data.get("format"), file=file)
        unknown = sorted(set(data) - {"format", "currency", "prices", *_OPTIONAL})
        if unknown:
            raise _fail(f"unknown key(s) {', '.join(unknown)}", file=file, field=unknown[0])
        currency = data.get("currency")
        if not (isinstance(currency, str) and len(currency) == 3 and currency.isupper()):
            raise _fail(
                f'"currency" must be a three-letter code such as "USD" (got {currency!r})',
                file=file,
                field="currency",
            )
        notes = {key: data.get(key) for key in _OPTIONAL}
        for key, value in notes.items():
            if value is not None and not isinstance(value, str):
                raise _fail(f'"{key}" must be a string', file=file, field=key)
        raw = data.get("prices")
        if not isinstance(raw, Mapping) or not raw:
            raise _fail(
                '"prices" must be an object of model (or glob) -> prices, with one entry at least',
                file=file,
                field="prices",
            )
        entries: list[Price] = []
        for key, entry in raw.items():
            field = f"prices.{key}"
            if not isinstance(key, str) or not key.strip():
                raise _fail("a model key cannot be empty", file=file, field="prices")
            if not isinstance(entry, Mapping):
                raise _fail(f"{field} must be an object", file=file, field=field)
            missing = [k for k in _PRICE_KEYS if k not in entry]
            extra = sorted(set(entry) - set(_PRICE_KEYS))
            if missing or extra:
                wrong = [*(f"missing {k}" for k in missing), *(f"unknown {k}" for k in extra)]
                raise _fail(
                    f"{field}: {', '.join(wrong)} (an entry holds exactly "
                    f"{' and '.join(_PRICE_KEYS)})",
                    file=file,
                    field=field,
                )
            amounts = [_amount(entry[k], field=f"{field}.{k}", file=file) for k in _PRICE_KEYS]
            entries.append(Price(key, *amounts))
        return cls(currency=currency, prices=tuple(entries), **notes)

    def price_of(self, model: str) -> Price | None:
        """The entry that prices ``model``: its exact key, else the longest glob matching it
        (equally long ones in key order); None when nothing matches."""
        globs: list[Price] = []
        for price in self.prices:
            if price.key == model:
                return price
            if _GLOB.intersection(price.key) and fnmatchcase(model, price.key):
                globs.append(price)
        if not globs:
            return None
        return min(globs, key=lambda p: (-len(p.key), p.key))

    def cost(
        self, model: str, input_tokens: int | None, output_tokens: int | None
    ) -> Cost | NoCost:
        """What ``input_tokens`` and ``output_tokens`` of ``model`` cost. An unpriced model
        says so first (the table is what the user can mend); then missing usage. Usage is
        recorded when the input tokens are: output tokens missing beside them are none produced
        (the trace viewer shows them as 0)."""
        price = self.price_of(model)
        if price is None:
            return NoCost(NOT_PRICED)
        if input_tokens is None:
            return NoCost(NO_USAGE)
        output_tokens = output_tokens or 0
        if input_tokens < 0 or output_tokens < 0:
            raise InvalidInputError(
                f"token counts cannot be negative (in {input_tokens}, out {output_tokens})"
            )
        total = _EXACT.add(
            _EXACT.multiply(Decimal(input_tokens), price.input_per_mtok),
            _EXACT.multiply(Decimal(output_tokens), price.output_per_mtok),
        )
        return Cost(_EXACT.divide(total, _PER), self.currency, price.key)


@dataclass(frozen=True)
class TraceCost:
    """One trace's usage and cost (or why it has none)."""

    trace_id: int
    case: str
    repetition: int
    model: str
    input_tokens: int | None
    output_tokens: int | None
    cost: Cost | NoCost

    def to_json(self) -> dict[str, Any]:
        return {
            "trace_id": self.trace_id,
            "case": self.case,
            "repetition": self.repetition,
            "model": self.model,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            **self.cost.to_json(),
        }


@dataclass(frozen=True)
class ModelCost:
    """A run's traces of one model: how many were priced, their tokens and what they cost."""

    model: str
    priced_as: str | None
    priced: int
    unpriced: int
    input_tokens: int
    output_tokens: int
    amount: Decimal

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "priced_as": self.priced_as,
            "priced_traces": self.priced,
            "unpriced_traces": self.unpriced,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "amount": _plain(self.amount),
        }


@dataclass(frozen=True)
class RunCost:
    """A run's cost: the total over its priced traces, how many were (not) priced and why, the
    breakdown by model, and every trace's own cost."""

    run: str
    currency: str
    total: Decimal
    priced: int
    unpriced: int
    unpriced_reasons: tuple[tuple[str, int], ...]
    models: tuple[ModelCost, ...]
    traces: tuple[TraceCost, ...]
    as_of: str | None = None

    @classmethod
    def of(cls, run: str, table: PriceTable, traces: Iterable[TraceCost]) -> RunCost:
        listed = tuple(traces)
        reasons: dict[str, int] = {}
        by_model: dict[str, list[TraceCost]] = {}
        for t in listed:
            by_model.setdefault(t.model, []).append(t)
            if isinstance(t.cost, NoCost):
                reasons[t.cost.reason] = reasons.get(t.cost.reason, 0) + 1
        models = tuple(_model_cost(model, rows) for model, rows in sorted(by_model.items()))
        total = _sum(m.amount for m in models)
        priced = sum(m.priced for m in models)
        return cls(
            run=run,
            currency=table.currency,
            total=total,
            priced=priced,
            unpriced=len(listed) - priced,
            unpriced_reasons=tuple(sorted(reasons.items())),
            models=models,
            traces=listed,
            as_of=table.as_of,
        )

    def to_json(self, *, per_trace: bool = False) -> dict[str, Any]:
        body: dict[str, Any] = {
            "run": self.run,
            "currency": self.currency,
            "total": _plain(self.total),
            "priced_traces": self.priced,
            "unpriced_traces": self.unpriced,
            "unpriced_reasons": dict(self.unpriced_reasons),
            "prices_as_of": self.as_of,
            "models": [m.to_json() for m in self.models],
        }
        if per_trace:
            body["traces"] = [t.to_json() for t in self.traces]
        return body


def _sum(amounts: Iterable[Decimal]) -> Decimal:
    # in the exact context: the default one (28 digits) could round a long sum
    total = Decimal(0)
    for amount in amounts:
        total = _EXACT.add(total, amount)
    return total


def _model_cost(model: str, rows: list[TraceCost]) -> ModelCost:
    costs = [t for t in rows if isinstance(t.cost, Cost)]
    return ModelCost(
        model=model,
        priced_as=next((t.cost.priced_as for t in costs if isinstance(t.cost, Cost)), None),
        priced=len(costs),
        unpriced=len(rows) - len(costs),
        input_tokens=sum(t.input_tokens or 0 for t in costs),
        output_tokens=sum(t.output_tokens or 0 for t in costs),
        amount=_sum(t.cost.amount for t in costs if isinstance(t.cost, Cost)),
    )


def format_amount(amount: Decimal, currency: str) -> str:
    """An amount as people read it: at least two decimals, up to six (a trace often costs a
    fraction of a cent), trailing zeros dropped; a non-zero amount below that is ``< 0.000001``."""
    if amount != 0 and abs(amount) < Decimal("0.000001"):
        return f"< 0.000001 {currency}"
    text = f"{amount:.6f}".rstrip("0")
    whole, _, decimals = text.partition(".")
    return f"{whole}.{decimals.ljust(2, '0')} {currency}"
