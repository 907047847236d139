"""Charts: line charts as Vega-Lite specs written out, drawn with ``st.vega_lite_chart``;
bar charts as static HTML (:mod:`rejudge.dashboard.bars`, see why there), drawn with ``st.html``.

Altair builds the same spec, but validates every channel against the Vega-Lite JSON schema each
time a chart is built and again when Streamlit serializes it: 0.1-0.3 s of CPU per chart on
every rerun (Compare draws three), and ~1 s to import it. The specs here are what Altair wrote
for these charts (its ``to_dict()``), field types stated instead of inferred; the frontend draws
them the same way, with Streamlit's theme.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st
from rejudge.dashboard.bars import Bar, bars_html

__all__ = ["SCHEMA", "Bar", "bars", "field", "spec", "chart"]

# what Altair 6 puts in ``$schema`` (the frontend reads the spec as Vega-Lite either way)
SCHEMA = "https://vega.github.io/schema/vega-lite/v6.4.1.json"

TYPES = {"N": "nominal", "Q": "quantitative", "O": "ordinal", "T": "temporal"}


def field(shorthand: str, **props: Any) -> dict[str, Any]:
    """One channel: ``"name:N"`` (Altair's shorthand, the type always given) and its
    properties (``title``, ``axis``, ``scale``, ``sort``, ``legend``)."""
    name, _, kind = shorthand.rpartition(":")
    return {"field": name, "type": TYPES[kind], **props}


def spec(mark: str, *, point: bool = False, **encoding: Any) -> dict[str, Any]:
    """The Vega-Lite spec of a ``mark`` chart; each encoding is a :func:`field`, a shorthand
    string, or (``tooltip``) a list of them."""
    spec_mark: dict[str, Any] = {"type": mark}
    if point:
        spec_mark["point"] = True
    channels = {
        name: (
            [field(v) if isinstance(v, str) else v for v in value]
            if isinstance(value, list)
            else field(value)
            if isinstance(value, str)
            else value
        )
        for name, value in encoding.items()
    }
    return {"$schema": SCHEMA, "mark": spec_mark, "encoding": channels}


def chart(data: Any, mark: str, *, point: bool = False, **encoding: Any) -> None:
    """Draw ``data`` (a DataFrame) as :func:`spec` says, at the container's width."""
    st.vega_lite_chart(data, spec(mark, point=point, **encoding), width="stretch")


def bars(rows: Sequence[Bar], *, scale_max: float | None = None) -> None:
    """Draw ``rows`` as a bar chart of labelled groups (:func:`bars_html`)."""
    st.html(bars_html(rows, scale_max=scale_max))
