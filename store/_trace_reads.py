"""Read model of one run's traces: the trace list and one trace's detail (for the trace viewer),
and a run's progress while it is being recorded (for the live monitor): ``TraceReads``,
which ``store.traces`` (:class:`rejudge.store._traces.TraceRepository`) inherits.

Row lists that grow with the run take a ``limit``; a trace's tool-call badges come from the call
rows in one query for all listed traces.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from rejudge.store._catalog_reads import CatalogRepository, RunSummary
from rejudge.store._judgments import body_path_columns
from rejudge.store._read_common import TRACE_LISTING, aware, count_if
from rejudge.store._tables import _T_CALL, _T_CASE, _T_EJ, _T_RUN, _T_TRACE
from rejudge.store._unit_of_work import Repository, UnitOfWork
from sqlalchemy import func, select

if TYPE_CHECKING:
    pass

__all__ = ["TraceListing", "TraceDetail", "RunProgress", "PendingCase", "RecentTrace"]

# (tool name, ok): ok is None when the call was never executed (e.g. an imported trace)
Badge = tuple[str, bool | None]


class TraceListing(NamedTuple):
    id: int
    case_key: str
    repetition: int
    status: str
    round_count: int
    call_count: int


class TraceDetail(NamedTuple):
    """A trace's stored body, the case it ran, and where its cassette is."""

    id: int
    run_id: int
    case_key: str
    repetition: int
    status: str
    hash: str
    body: dict[str, Any] | None
    cassette_path: str | None
    cassette_hash: str | None
    case_body: dict[str, Any] | None


class RunProgress(NamedTuple):
    """A run being recorded: its summary, trace statuses so far, calls by outcome, last write."""

    run: RunSummary
    statuses: dict[str, int]
    calls_ok: int
    calls_failed: int
    calls_unexecuted: int
    last_trace_at: datetime | None
    # the traces of the cases a recording of a subset plans (None: the whole suite is planned,
    # and the run's trace count is the progress)
    planned_done: int | None = None


class PendingCase(NamedTuple):
    case: str
    done: int
    repetitions: int


class RecentTrace(NamedTuple):
    id: int
    case_key: str
    repetition: int
    status: str
    round_count: int
    created_at: datetime | None
    # per round, the calls it made as badges (an empty list: the round made no call)
    rounds: list[list[Badge]]
    # the rounds a user message follows (a conversation's): a round there without a call is
    # the model replying to the user, not a call missing
    answered: frozenset[int] = frozenset()


class TraceReads(Repository):
    """The reads of one run's traces and of its progress while it is recorded."""

    def __init__(self, uow: UnitOfWork, catalog: CatalogRepository) -> None:
        super().__init__(uow)
        # a run's progress starts from its catalog summary
        self._catalog = catalog

    def run_traces(
        self, run_id: int, *, case_contains: str | None = None, limit: int = 2000
    ) -> list[TraceListing]:
        query = (
            select(*TRACE_LISTING)
            .where(_T_TRACE.c.run_id == run_id)
            .order_by(_T_TRACE.c.case_key, _T_TRACE.c.repetition)
            .limit(limit)
        )
        if case_contains:
            query = query.where(_T_TRACE.c.case_key.contains(case_contains, autoescape=True))
        with self._connect() as c:
            return [TraceListing(**r) for r in c.execute(query).mappings().all()]

    def run_trace_count(self, run_id: int, *, case_contains: str | None = None) -> int:
        """How many traces :meth:`run_traces` would list without its limit (so a page can say
        how many it does not show)."""
        query = select(func.count()).select_from(_T_TRACE).where(_T_TRACE.c.run_id == run_id)
        if case_contains:
            query = query.where(_T_TRACE.c.case_key.contains(case_contains, autoescape=True))
        with self._connect() as c:
            return int(c.execute(query).scalar_one())

    def trace_detail(self, trace_id: int) -> TraceDetail | None:
        query = (
            select(
                _T_TRACE.c.id,
                _T_TRACE.c.run_id,
                _T_TRACE.c.case_key,
                _T_TRACE.c.repetition,
                _T_TRACE.c.status,
                _T_TRACE.c.hash,
                _T_TRACE.c.body,
                _T_TRACE.c.cassette_path,
                _T_TRACE.c.cassette_hash,
                _T_CASE.c.body.label("case_body"),
            )
            .join(_T_CASE, _T_CASE.c.id == _T_TRACE.c.case_id)
            .where(_T_TRACE.c.id == trace_id)
        )
        with self._connect() as c:
            row = c.execute(query).mappings().first()
        return TraceDetail(**row) if row is not None else None

    def evaluation_trace(self, evaluation_id: int, case_key: str, repetition: int) -> int | None:
        """The trace ``evaluation_id`` judged for ``case_key`` repetition ``repetition`` (None
        when it judged none): how a link naming a case opens its evidence."""
        query = select(_T_EJ.c.trace_id).where(
            _T_EJ.c.evaluation_id == evaluation_id,
            _T_EJ.c.case_key == case_key,
            _T_EJ.c.repetition == repetition,
        )
        with self._connect() as c:
            found = c.execute(query).scalar()
        return int(found) if found is not None else None

    def run_progress(self, run_id: int) -> RunProgress | None:
        """Counts for a run being recorded: traces so far, statuses, calls ok/failed, times."""
        runs = [r for r in self._catalog.run_summaries() if r.id == run_id]
        if not runs:
            return None
        with self._connect() as c:
            statuses = {
                str(s): int(n)
                for s, n in c.execute(
                    select(_T_TRACE.c.status, func.count())
                    .where(_T_TRACE.c.run_id == run_id)
                    .group_by(_T_TRACE.c.status)
                )
            }
            calls = c.execute(
                select(
                    count_if(_T_CALL.c.ok.is_(True)).label("ok"),
                    count_if(_T_CALL.c.ok.is_(False)).label("failed"),
                    count_if(_T_CALL.c.ok.is_(None)).label("unexecuted"),
                )
                .select_from(_T_CALL.join(_T_TRACE, _T_TRACE.c.id == _T_CALL.c.trace_id))
                .where(_T_TRACE.c.run_id == run_id)
            ).one()
            last = c.execute(
                select(func.max(_T_TRACE.c.created_at)).where(_T_TRACE.c.run_id == run_id)
            ).scalar()
            planned = c.execute(
                select(_T_RUN.c.planned_cases).where(_T_RUN.c.id == run_id)
            ).scalar()
            planned_done = None
            if planned is not None:
                planned_done = int(
                    c.execute(
                        select(func.count())
                        .select_from(_T_TRACE)
                        .where(_T_TRACE.c.run_id == run_id)
                        .where(_T_TRACE.c.case_key.in_([str(k) for k in planned]))
                    ).scalar_one()
                )
        return RunProgress(
            run=runs[0],
            statuses=statuses,
            calls_ok=int(calls.ok),
            calls_failed=int(calls.failed),
            calls_unexecuted=int(calls.unexecuted),
            last_trace_at=aware(last),
            planned_done=planned_done,
        )

    def pending_cases(self, run_id: int, *, limit: int = 5) -> list[PendingCase]:
        """The next (case, repetition) pairs in suite order that the run has no trace for yet."""
        with self._connect() as c:
            run = c.execute(
                select(_T_RUN.c.suite_id, _T_RUN.c.config, _T_RUN.c.planned_cases).where(
                    _T_RUN.c.id == run_id
                )
            ).first()
            if run is None:
                return []
            repeat = int((run.config or {}).get("repeat", 1) or 1)
            done = (
                select(_T_TRACE.c.case_key, func.count().label("done"))
                .where(_T_TRACE.c.run_id == run_id)
                .group_by(_T_TRACE.c.case_key)
                .subquery()
            )
            query = (
                select(
                    _T_CASE.c.case_key,
                    _T_CASE.c.position,
                    func.coalesce(done.c.done, 0).label("done"),
                )
                .outerjoin(done, done.c.case_key == _T_CASE.c.case_key)
                .where(_T_CASE.c.suite_id == run.suite_id)
                .where(func.coalesce(done.c.done, 0) < repeat)
                .order_by(_T_CASE.c.position)
                .limit(limit)
            )
            if run.planned_cases is not None:  # a recording of a subset: only its cases
                query = query.where(_T_CASE.c.case_key.in_([str(k) for k in run.planned_cases]))
            return [
                PendingCase(case=r.case_key, done=int(r.done), repetitions=repeat)
                for r in c.execute(query)
            ]

    def recent_traces(self, run_id: int, *, limit: int = 20) -> list[RecentTrace]:
        """The run's newest traces with each round's calls as (name, ok) badges."""
        # the newest ids first, then those rows' columns: with the columns in the ordered
        # statement, SQLite extracted every trace's turns from its body before sorting (at a
        # 50,000-trace run 0.18 s of the Live page's first open for 20 rows; 0.014 s so)
        newest = (
            select(_T_TRACE.c.id)
            .where(_T_TRACE.c.run_id == run_id)
            .order_by(_T_TRACE.c.id.desc())
            .limit(limit)
        )
        query = (
            select(
                _T_TRACE.c.id,
                _T_TRACE.c.case_key,
                _T_TRACE.c.repetition,
                _T_TRACE.c.status,
                _T_TRACE.c.round_count,
                _T_TRACE.c.created_at,
            )
            .where(_T_TRACE.c.id.in_(newest.scalar_subquery()))
            .order_by(_T_TRACE.c.id.desc())
        )
        turns_cols, decode = body_path_columns(
            self.backend, _T_TRACE.c.body, {"turns": ["user_turns"]}
        )
        query = query.add_columns(*turns_cols)
        with self._connect() as c:
            rows = c.execute(query).all()
        badges = self.round_badges([r.id for r in rows])
        cache: dict[str, list[Any]] = {}
        out = []
        for r in rows:
            turns = decode(r[6:], cache).get("turns") or []
            before = {
                int(t["before_round"])
                for t in turns
                if isinstance(t, dict) and isinstance(t.get("before_round"), int)
            }
            out.append(
                RecentTrace(
                    id=r.id,
                    case_key=r.case_key,
                    repetition=r.repetition,
                    status=r.status,
                    round_count=r.round_count,
                    created_at=aware(r.created_at),
                    rounds=[badges.get((r.id, i), []) for i in range(int(r.round_count))],
                    answered=frozenset(i - 1 for i in before if i > 0),
                )
            )
        return out

    def round_badges(self, trace_ids: Sequence[int]) -> dict[tuple[int, int], list[Badge]]:
        """(trace id, round index) -> [(tool name, ok)] from the call rows (one query)."""
        if not trace_ids:
            return {}
        query = (
            select(_T_CALL.c.trace_id, _T_CALL.c.round_index, _T_CALL.c.name, _T_CALL.c.ok)
            .where(_T_CALL.c.trace_id.in_(list(trace_ids)))
            .order_by(_T_CALL.c.trace_id, _T_CALL.c.round_index, _T_CALL.c.call_index)
        )
        out: dict[tuple[int, int], list[Badge]] = {}
        with self._connect() as c:
            for r in c.execute(query):
                out.setdefault((r.trace_id, r.round_index), []).append((r.name, r.ok))
        return out
