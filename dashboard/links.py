"""Links from a row to its evidence: the side-by-side page for a case under two evaluations,
the trace viewer for one trace.

Tables carry a link column (Streamlit opens those in a new tab); under a table of flips a picker
and a page link open the chosen row in this tab. Every link is a relative address with query
parameters, so it can be copied and pasted into an issue.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Any
from urllib.parse import parse_qsl, urlencode

import streamlit as st
from rejudge.dashboard.sidebyside import pair_link

from rejudge.model import Flip

__all__ = [
    "pair_url",
    "trace_url",
    "flip_picker",
    "flips_table",
    "flips_frame",
    "clickable_table",
    "clicked_row",
    "follow_click",
    "ROW_CLICK",
]

_GOTO = "_goto"


def pair_url(a: int, b: int, case: str, repetition: int, repetition_b: int | None = None) -> str:
    """The side-by-side page of ``case`` repetition ``repetition`` under A and B."""
    return "side_by_side?" + urlencode(pair_link(a, b, case, repetition, repetition_b))


def trace_url(run: int, trace: int, evaluation: int | None = None) -> str:
    params = {"run": str(run), "trace": str(trace)}
    if evaluation is not None:
        params["ev"] = str(evaluation)
    return "trace?" + urlencode(params)


def flip_picker(rows: Sequence[Flip], a: int, b: int, *, key: str) -> None:
    """Pick one of ``rows`` and open it side by side (in this tab)."""
    if not rows:
        return
    labels = {
        i: f"{f.case} · r{f.repetition} · {f.from_verdict}→{f.to_verdict}"
        for i, f in enumerate(rows)
    }
    left, right = st.columns([3, 1])
    with left:
        chosen = st.selectbox(
            "Open a flip side by side", list(labels), key=key, format_func=labels.__getitem__
        )
    if chosen is None:
        return
    flip = rows[int(chosen)]
    with right:
        st.page_link(
            "views/side_by_side.py",
            label="Side by side",
            icon=":material/view_column_2:",
            query_params=pair_link(a, b, flip.case, flip.repetition),
        )


_FLIP_FIELDS = tuple(f.name for f in fields(Flip))


def flips_frame(rows: Sequence[Flip]) -> Any:
    """The flips as a DataFrame, a column per field: from a shallow dict per flip, not pandas'
    own reading of dataclasses (``dataclasses.asdict`` deep-copies every taxonomy and cause
    list: 0.04-0.09 s for a page of 1,000 flips on every rerun of Compare and Rule impact,
    0.003-0.011 s so; the same frame)."""
    import pandas as pd

    return pd.DataFrame(
        [{name: getattr(flip, name) for name in _FLIP_FIELDS} for flip in rows],
        columns=list(_FLIP_FIELDS),
    )


def flips_table(frame: Any, rows: Sequence[Flip], a: int, b: int, *, key: str) -> None:
    """A table of flips of A against B (``frame``: their columns as the page shows them, one row
    a flip of ``rows``), each row opening its flip side by side (a last link column, and a click
    on the row), then :func:`flip_picker` under it. ``key`` prefixes the widgets' keys."""
    frame = frame.assign(**{"side by side": [pair_url(a, b, f.case, f.repetition) for f in rows]})
    clickable_table(
        frame,
        list(frame["side by side"]),
        key=f"{key}_flips",
        column_config={"side by side": st.column_config.LinkColumn(display_text="open")},
    )
    flip_picker(rows, a, b, key=f"{key}_open")


def clickable_table(
    frame: Any,
    targets: Sequence[str],
    *,
    key: str,
    column_config: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> None:
    """``frame`` as a table whose rows open ``targets[i]`` (a relative address such as
    ``report?ev=3``) when clicked anywhere, in this tab; its link column, if any, opens them in
    a new one. Call :func:`follow_click` after the page's tables (a click reruns the page)."""

    def clicked() -> None:
        row = clicked_row(st.session_state[key]["selection"])
        if row is not None and 0 <= row < len(targets):
            st.session_state[_GOTO] = targets[row]

    st.dataframe(
        frame,
        key=key,
        on_select=clicked,
        selection_mode=ROW_CLICK,
        hide_index=True,
        width="stretch",
        column_config=dict(column_config or {}),
        **kwargs,
    )


# a click on any cell selects that cell, so a row opens from anywhere on it, not only from the
# 16-pixel checkbox at its left that "single-row" alone offers
ROW_CLICK: list[Any] = ["single-row", "single-cell"]


def clicked_row(selection: Mapping[str, Any]) -> int | None:
    """The row a click on a :data:`ROW_CLICK` table chose: its checkbox or any of its cells."""
    rows = selection.get("rows") or []
    if rows:
        return int(rows[0])
    cells = selection.get("cells") or []
    return int(cells[0][0]) if cells else None


def follow_click() -> None:
    """Go where a clicked row of a :func:`clickable_table` points, if one was clicked."""
    target = st.session_state.pop(_GOTO, None)
    if not target:
        return
    page, _, query = str(target).partition("?")
    st.switch_page(f"views/{_PAGES.get(page, page)}.py", query_params=dict(parse_qsl(query)))


# address -> the page's file in views/ (where the two differ)
_PAGES = {"trace": "trace_viewer", "": "overview"}
