"""``ReportBuilder.rows()``: every row added, in (case, repetition) order, a stable sort of the
order they came in, whether they came in that order (as a store streams them: no sort, no key
kept per row) or not; and the rows kept share one string per case id and verdict (a store
hands out a new string per row; at 1,000,000 rows that was ~110 MB of the report's peak)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from rejudge.judge import ReportBuilder

from rejudge.model import ReportRow

values = st.tuples(
    st.one_of(st.sampled_from(["c1", "c2", "c10", "é"]), st.none(), st.integers(0, 3)),
    st.one_of(st.none(), st.integers(0, 4)),
    st.sampled_from(["PASS", "FAIL", "SKIP", "AGENT_ERROR"]),
    st.one_of(st.none(), st.lists(st.sampled_from(["D1.x", "D2.y"]), max_size=2)),
    st.one_of(st.none(), st.sampled_from([0.0, 0.5, 1.0])),
)


def _rows(added: list[tuple[Any, ...]], *, presorted: bool) -> list[ReportRow]:
    order = sorted(added, key=lambda v: (str(v[0]), int(v[1] or 0))) if presorted else added
    builder = ReportBuilder()
    for case, rep, verdict, codes, score in order:
        builder.add_values(case, rep, verdict, codes, score, "D1", "cat", None, None, None)
    return builder.rows()


def _expected(added: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    # what rows() returned before: the rows sorted (stably) by (str(case), int(repetition))
    ordered = sorted(added, key=lambda v: (str(v[0]), int(v[1] or 0)))
    return [(c, r, v, list(t or ()), s) for c, r, v, t, s in ordered]


def _plain(rows: list[ReportRow]) -> list[tuple[Any, ...]]:
    return [(r.case, r.repetition, r.verdict, r.taxonomy, r.partial_score) for r in rows]


@settings(max_examples=200, deadline=None)
@given(st.lists(values, max_size=40))
def test_rows_are_a_stable_sort_of_what_came_in(added: list[tuple[Any, ...]]) -> None:
    assert _plain(_rows(added, presorted=False)) == _expected(added)
    assert _plain(_rows(added, presorted=True)) == _expected(added)


def test_rows_in_order_come_back_as_they_came_and_a_new_list_each_time() -> None:
    builder = ReportBuilder()
    for rep in range(3):
        builder.add_values("c1", rep, "PASS", None, 1.0, "D1", "cat", None, None, None)
    first = builder.rows()
    first.clear()  # a caller's list: the builder's rows stay
    assert [r.repetition for r in builder.rows()] == [0, 1, 2]


def test_one_string_per_case_id_and_verdict_is_kept() -> None:
    builder = ReportBuilder()
    for rep in range(3):
        # new equal strings per row, as a database driver returns them
        case, verdict = "".join(["case", "-1"]), "".join(["PA", "SS"])
        builder.add_values(case, rep, verdict, None, 1.0, "D1", "cat", None, None, None)
    rows = builder.rows()
    assert rows[0].case is rows[1].case is rows[2].case
    assert rows[0].verdict is rows[1].verdict is rows[2].verdict
    # not across types: 1 and 1.0 are equal keys but print differently
    numbers = ReportBuilder()
    numbers.add_values(1, 0, "PASS", None, None, "D1", "cat", None, None, None)
    numbers.add_values(1.0, 1, "PASS", None, None, "D1", "cat", None, None, None)
    assert [type(r.case) for r in numbers.rows()] == [int, float]
