"""What each exchange of a cassette is: a model exchange of a wire format, or another kind.

The normalizer turns model exchanges into rounds and leaves every other exchange alone; the trace
viewer shows both, labelled by :func:`classify_exchange`, the one rule both use.

Pure: no store, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from rejudge.recorder._cassettes import Exchange
from rejudge.recorder.wire import WireFormat, find_wire_format, make_probe, non_model_kind

__all__ = ["ExchangeClass", "classify_exchange", "exchange_wire_format"]


@dataclass(frozen=True)
class ExchangeClass:
    """``model`` exchanges carry ``wire_format`` (its registry name) and ``kind == "model"``;
    any other has ``wire_format=None`` and a ``kind``: ``embeddings``, ``moderation``,
    ``rerank``, ``token-count``, ``files``, ``media``, ``fine-tuning``, ``model-listing``,
    ``search``, ``telemetry``, ``get`` (any non-POST request no rule names) or ``other``."""

    model: bool
    kind: str
    wire_format: str | None = None


def exchange_wire_format(ex: Exchange) -> WireFormat | None:
    """The registered wire format a model exchange speaks, or ``None`` for any other exchange
    (not a POST, a known non-model endpoint, or a body no format claims)."""
    if ex.method != "POST":
        return None
    return find_wire_format(
        make_probe(ex.url, ex.request_body, ex.response_headers, ex.response_body)
    )


def classify_exchange(ex: Exchange) -> ExchangeClass:
    """The class of one exchange (see :class:`ExchangeClass`); never raises."""
    probe = make_probe(ex.url)
    kind = non_model_kind(probe.host, probe.path)
    if kind is not None:
        return ExchangeClass(model=False, kind=kind)
    fmt = exchange_wire_format(ex)
    if fmt is not None:
        return ExchangeClass(model=True, kind="model", wire_format=fmt.name)
    return ExchangeClass(model=False, kind="other" if ex.method == "POST" else "get")
