"""What the read-model modules share: the tables, the counting expressions and the filters.

The read models (:mod:`rejudge.store._catalog_reads`, ``_evaluation_reads``, ``_trace_reads``
and ``_run_reads``: the catalog repository and the reads the evaluations, traces and runs
repositories inherit)
answer the dashboard's questions with aggregates computed in the database; these helpers build
the expressions they share (none of them runs a query, so none takes the store).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVarTuple

from rejudge.store._staging import STAGED_RUN_STATUS
from rejudge.store._tables import (
    _T_EVAL,
    _T_RULES,
    _T_RUN,
    _T_SUITE,
    _T_TRACE,
)
from sqlalchemy import Table, case, func, literal, select
from sqlalchemy.sql import ColumnElement, Select

from rejudge.model import VERDICTS
from rejudge.model import accuracy as accuracy  # the one formula (VerdictCounts.accuracy)

# shared by the read-model modules only: nothing here is part of the store's public face
__all__: list[str] = []


#: what a listing of a run's traces shows of each: id, case, repetition, status, rounds, calls
TRACE_LISTING: tuple[Any, ...] = (
    _T_TRACE.c.id,
    _T_TRACE.c.case_key,
    _T_TRACE.c.repetition,
    _T_TRACE.c.status,
    _T_TRACE.c.round_count,
    _T_TRACE.c.call_count,
)

# suite / model / tier / rule set (name@version) -> the values to keep; empty means all
Filters = Mapping[str, Sequence[str]]
FILTER_NAMES: tuple[str, ...] = ("suite", "model", "tier", "rule_set")


def count_if(condition: ColumnElement[bool]) -> Any:
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


def rule_ref() -> Any:
    """``name@version`` of a rule set, as people type it."""
    return _T_RULES.c.name + literal("@") + _T_RULES.c.version


def aware(value: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes; the store writes UTC, so say so."""
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


def listed_runs(*columns: Any) -> Select[Any]:
    """``columns`` of every run with its suite joined, then its trace count (``traces``, None
    when it has none), in id order: what run listings read. An import in progress
    (:mod:`rejudge.store._staging`) is no run yet."""
    counts = (
        select(_T_TRACE.c.run_id, func.count().label("traces"))
        .group_by(_T_TRACE.c.run_id)
        .subquery()
    )
    return (
        select(*columns, counts.c.traces)
        .join(_T_SUITE, _T_SUITE.c.id == _T_RUN.c.suite_id)
        .outerjoin(counts, counts.c.run_id == _T_RUN.c.id)
        .where(_T_RUN.c.status != STAGED_RUN_STATUS)
        .order_by(_T_RUN.c.id)
    )


def verdict_columns(table: Table) -> list[Any]:
    """One count per verdict, the average partial score of scored rows, and the row count."""
    scored = table.c.verdict.in_(["PASS", "FAIL"])
    return [count_if(table.c.verdict == v).label(v) for v in VERDICTS] + [
        # the judge averages partial scores over scored (PASS + FAIL) rows only
        func.avg(case((scored, table.c.partial_score), else_=None)).label("avg_partial"),
        func.count().label("total"),
    ]


# the columns a query selects: narrowing it by filters keeps them
_Columns = TypeVarTuple("_Columns")


def apply_filters(
    query: Select[*_Columns], filters: Filters | None, *, evaluations: bool
) -> Select[*_Columns]:
    """Narrow a query joined to runs and suites (and, with ``evaluations``, to evaluations and
    rule sets) to the chosen suites, models, tiers and rule sets."""
    if not filters:
        return query
    if filters.get("suite"):
        query = query.where(_T_SUITE.c.name.in_(list(filters["suite"])))
    if filters.get("model"):
        query = query.where(_T_RUN.c.model.in_(list(filters["model"])))
    if evaluations and filters.get("tier"):
        query = query.where(_T_EVAL.c.tier.in_(list(filters["tier"])))
    if evaluations and filters.get("rule_set"):
        query = query.where(rule_ref().in_(list(filters["rule_set"])))
    return query
