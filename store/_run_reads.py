"""Read model of one run's traces for browsing them: a filtered listing with each trace's verdict,
causes, tools and token usage under one evaluation, the run's usage totals and each trace's
usage (what a run's cost is computed from), which runs carry an
external verdict. ``RunReads``, which ``store.runs``
(:class:`rejudge.store._runs.RunRepository`) inherits.

Usage and timings are read out of the stored body with the JSON path operators both backends
have (SQLite ``json_extract``, PostgreSQL ``#>``), summed in the database.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from rejudge.store._nul import MARK
from rejudge.store._read_common import TRACE_LISTING
from rejudge.store._tables import _T_CALL, _T_EJ, _T_EXT, _T_JUDG, _T_TRACE
from rejudge.store._unit_of_work import Repository
from sqlalchemy import Text, and_, cast, exists, func, select
from sqlalchemy.sql import ColumnElement

if TYPE_CHECKING:
    pass

__all__ = ["TraceRowSummary", "RunUsage", "TraceUsage"]


class TraceRowSummary(NamedTuple):
    """One trace as a browsing list shows it; verdict and taxonomy under the evaluation asked
    for (None when it has not judged the trace)."""

    id: int
    case_key: str
    repetition: int
    status: str
    round_count: int
    call_count: int
    verdict: str | None
    taxonomy: list[str]
    tools: list[str]
    input_tokens: int | None
    output_tokens: int | None
    elapsed_s: float | None


class RunUsage(NamedTuple):
    """A run's token usage and wall time summed over its traces (those that record them)."""

    traces: int
    with_usage: int
    input_tokens: int
    output_tokens: int
    elapsed_s: float | None


class TraceUsage(NamedTuple):
    """One trace's token usage as the recorder stored it (None: the trace records none)."""

    id: int
    case_key: str
    repetition: int
    input_tokens: int | None
    output_tokens: int | None


# the JSON column's path item is untyped (Any) in SQLAlchemy's stubs; as_integer/as_float say what.
# On PostgreSQL a body stored marked (it holds a NUL: rejudge.store._nul) has its numbers, which
# the marking leaves as they are, under its one key: read there where the path is missing
def _usage(backend: str, key: str) -> ColumnElement[int]:
    usage: ColumnElement[int] = _T_TRACE.c.body[("usage", key)].as_integer()
    if backend == "postgresql":
        usage = func.coalesce(usage, _T_TRACE.c.body[(MARK, "usage", key)].as_integer())
    return usage


def _elapsed(backend: str) -> ColumnElement[float]:
    elapsed: ColumnElement[float] = _T_TRACE.c.body[("timings", "elapsed_s")].as_float()
    if backend == "postgresql":
        marked = _T_TRACE.c.body[(MARK, "timings", "elapsed_s")].as_float()
        elapsed = func.coalesce(elapsed, marked)
    return elapsed


class RunReads(Repository):
    """The reads for browsing a run's traces."""

    def runs_with_external_verdicts(self) -> set[int]:
        """Ids of the runs one of whose traces carries an external verdict."""
        query = (
            select(_T_TRACE.c.run_id).join(_T_EXT, _T_EXT.c.trace_id == _T_TRACE.c.id).distinct()
        )
        with self._connect() as c:
            return {int(r) for r in c.execute(query).scalars()}

    def run_usage(self, run_id: int) -> RunUsage:
        query = select(
            func.count(),
            func.count(_usage(self.backend, "input_tokens")),
            func.coalesce(func.sum(_usage(self.backend, "input_tokens")), 0),
            func.coalesce(func.sum(_usage(self.backend, "output_tokens")), 0),
            func.sum(_elapsed(self.backend)),
        ).where(_T_TRACE.c.run_id == run_id)
        with self._connect() as c:
            traces, with_usage, tokens_in, tokens_out, elapsed = c.execute(query).one()
        return RunUsage(
            traces=int(traces),
            with_usage=int(with_usage),
            input_tokens=int(tokens_in),
            output_tokens=int(tokens_out),
            elapsed_s=None if elapsed is None else float(elapsed),
        )

    def trace_usages(self, run_id: int) -> list[TraceUsage]:
        """Every trace of the run with its token usage, by case and repetition."""
        query = (
            select(
                _T_TRACE.c.id,
                _T_TRACE.c.case_key,
                _T_TRACE.c.repetition,
                _usage(self.backend, "input_tokens"),
                _usage(self.backend, "output_tokens"),
            )
            .where(_T_TRACE.c.run_id == run_id)
            .order_by(_T_TRACE.c.case_key, _T_TRACE.c.repetition)
        )
        with self._connect() as c:
            return [
                TraceUsage(
                    int(r[0]),
                    str(r[1]),
                    int(r[2]),
                    None if r[3] is None else int(r[3]),
                    None if r[4] is None else int(r[4]),
                )
                for r in c.execute(query)
            ]

    def trace_rows(
        self,
        run_id: int,
        evaluation_id: int | None = None,
        *,
        verdicts: Sequence[str] | None = None,
        causes: Sequence[str] | None = None,
        tool: str | None = None,
        text: str | None = None,
        limit: int = 2000,
    ) -> list[TraceRowSummary]:
        """The run's traces by case and repetition, filtered: ``verdicts`` and ``causes``
        (any of the taxonomy codes) under ``evaluation_id``, a ``tool`` the trace called, and a
        ``text`` found in the case id or anywhere in the trace's body (case-insensitive)."""
        ej = _T_EJ.alias("ej")
        query = (
            select(
                *TRACE_LISTING,
                ej.c.verdict,
                _T_JUDG.c.taxonomy,
                _usage(self.backend, "input_tokens").label("input_tokens"),
                _usage(self.backend, "output_tokens").label("output_tokens"),
                _elapsed(self.backend).label("elapsed_s"),
            )
            .select_from(
                _T_TRACE.outerjoin(
                    ej,
                    and_(ej.c.trace_id == _T_TRACE.c.id, ej.c.evaluation_id == evaluation_id),
                ).outerjoin(_T_JUDG, _T_JUDG.c.id == ej.c.judgment_id)
            )
            .where(_T_TRACE.c.run_id == run_id)
            .order_by(_T_TRACE.c.case_key, _T_TRACE.c.repetition)
        )
        if verdicts:
            query = query.where(ej.c.verdict.in_(list(verdicts)))
        if tool:
            query = query.where(
                exists().where(and_(_T_CALL.c.trace_id == _T_TRACE.c.id, _T_CALL.c.name == tool))
            )
        if text:
            # over the body's stored text: a body PostgreSQL stored marked (a NUL in it:
            # rejudge.store._nul) is still found by text without a NUL or \x01, not by text
            # across its escaped NUL, and "nul" (its marker) finds every marked body
            needle = f"%{text.lower()}%"
            query = query.where(
                func.lower(_T_TRACE.c.case_key).like(needle)
                | func.lower(cast(_T_TRACE.c.body, Text)).like(needle)
            )
        wanted = set(causes or ())
        rows = []
        with self._connect() as c:
            for r in c.execute(query):
                taxonomy = [str(code) for code in (r.taxonomy or [])]
                if wanted and not wanted.intersection(taxonomy):
                    continue
                rows.append((r, taxonomy))
                if len(rows) >= limit:
                    break
            tools: dict[int, list[str]] = {}
            ids = [r.id for r, _ in rows]
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                calls = (
                    select(_T_CALL.c.trace_id, _T_CALL.c.name)
                    .where(_T_CALL.c.trace_id.in_(chunk))
                    .order_by(_T_CALL.c.trace_id, _T_CALL.c.round_index, _T_CALL.c.call_index)
                )
                for trace_id, name in c.execute(calls):
                    names = tools.setdefault(int(trace_id), [])
                    if name not in names:
                        names.append(str(name))
        return [
            TraceRowSummary(
                id=r.id,
                case_key=r.case_key,
                repetition=r.repetition,
                status=r.status,
                round_count=r.round_count,
                call_count=r.call_count,
                verdict=r.verdict,
                taxonomy=taxonomy,
                tools=tools.get(r.id, []),
                input_tokens=r.input_tokens,
                output_tokens=r.output_tokens,
                elapsed_s=r.elapsed_s,
            )
            for r, taxonomy in rows
        ]

    def run_tools(self, run_id: int) -> list[str]:
        """The tool names the run's traces called, sorted (what a tool filter offers)."""
        query = (
            select(_T_CALL.c.name)
            .join(_T_TRACE, _T_TRACE.c.id == _T_CALL.c.trace_id)
            .where(_T_TRACE.c.run_id == run_id)
            .distinct()
            .order_by(_T_CALL.c.name)
        )
        with self._connect() as c:
            return [str(n) for n in c.execute(query).scalars()]
