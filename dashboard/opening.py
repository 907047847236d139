"""How a page over evaluations opens: the store's evaluations (or a hint and a stop when there
are none), then one evaluation or a pair picked from them.

Seven pages opened with the same lines; a page that has nothing to show stops here, so what
follows a call can rely on its result.
"""

from __future__ import annotations

from typing import Any

import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.common import pick_evaluation, query_int
from rejudge.store import EvaluationSummary

__all__ = ["NO_EVALUATIONS", "evaluations_or_stop", "pick_newest", "pick_pair", "pick_two"]

NO_EVALUATIONS = "No evaluations yet. Judge a run with `rejudge judge RUN --tier T`."


def evaluations_or_stop(url: str, hint: str = NO_EVALUATIONS) -> list[EvaluationSummary]:
    """The store's evaluations; with none, the page says ``hint`` and stops."""
    rows = data.evaluations(url)
    if not rows:
        st.info(hint)
        st.stop()
    return rows


def pick_newest(rows: list[EvaluationSummary], label: str = "Evaluation") -> EvaluationSummary:
    """One evaluation (``?ev=``), the newest unless the address names another; stops on none."""
    ev = pick_evaluation(label, rows, key="ev", default_index=len(rows) - 1)
    if ev is None:
        st.stop()
    return ev


def pick_two(
    rows: list[EvaluationSummary],
    labels: tuple[str, str],
    keys: tuple[str, str],
    defaults: tuple[int, int],
    columns: tuple[Any, Any] | None = None,
) -> tuple[EvaluationSummary, EvaluationSummary]:
    """Two evaluations picked side by side (in ``columns``, else a new row of two); stops
    unless both are."""
    left, right = columns if columns is not None else st.columns(2)
    with left:
        ev_a = pick_evaluation(labels[0], rows, key=keys[0], default_index=defaults[0])
    with right:
        ev_b = pick_evaluation(labels[1], rows, key=keys[1], default_index=defaults[1])
    if ev_a is None or ev_b is None:
        st.stop()
    return ev_a, ev_b


def pick_pair(
    url: str, rows: list[EvaluationSummary]
) -> tuple[EvaluationSummary, EvaluationSummary]:
    """Evaluations A and B (``?a=&b=``). Without them in the address: the newest pair that can
    be compared, not merely the two newest, so the page opens on a pair with flips to show."""
    ids = [r.id for r in rows]
    default_a, default_b = len(rows) - 2, len(rows) - 1
    if query_int("a") is None and query_int("b") is None and len(rows) > 1:
        pair = data.cached_default_pair(url, len(rows), ids[-1])
        if pair is not None:
            default_a, default_b = ids.index(pair[0]), ids.index(pair[1])
    return pick_two(rows, ("Evaluation A", "Evaluation B"), ("a", "b"), (default_a, default_b))
