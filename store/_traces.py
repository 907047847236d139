"""Traces: a run's normalized traces and their call rows. Bulk writes (insert-or-ignore on
(run, case, repetition), so a resumed or concurrent recorder never duplicates one), re-derived
replacements, and streams that never hold a whole run in memory.

``TraceRepository`` is ``store.traces``; the reads for browsing a run's traces on the dashboard
it inherits from :mod:`rejudge.store._trace_reads`.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator, Sequence
from typing import Any, NamedTuple, TypedDict, Unpack

from rejudge.store._batching import BATCH, chunks
from rejudge.store._nul import unmark_text
from rejudge.store._records import StoredTrace
from rejudge.store._tables import _T_CALL, _T_TRACE, TraceRow, utcnow
from rejudge.store._trace_reads import TraceReads
from sqlalchemy import Text, cast, func, select, update

from rejudge.model import Trace, behaviour_hash, trace_hashes

__all__ = ["StreamedTrace"]


_INSERT_PAGE = 100


def _more_filters(shard: tuple[int, int] | None, id_range: tuple[int, int] | None) -> list[Any]:
    """``iter_trace_rows``' filters besides the run and case: a shard's, a partition's."""
    out: list[Any] = []
    if shard is not None:
        index, count = shard
        out.append(_T_TRACE.c.id % count == index)
    if id_range is not None:
        out.append(_T_TRACE.c.id.between(*id_range))
    return out


class StreamedTrace(NamedTuple):
    """A stored trace as :meth:`TraceRepository.iter_trace_rows` streams it: its row's columns
    and its body as the stored JSON text (None when read ``with_body=False``), decoded by the
    caller only where it needs it (judging decodes a behaviour's representative, once)."""

    id: int
    run_id: int
    case_id: int
    case_key: str
    repetition: int
    hash: str
    behaviour_hash: str | None
    cassette_path: str | None
    cassette_hash: str | None
    body: str | None


class TraceSelection(TypedDict, total=False):
    """Which traces :meth:`TraceRepository.iter_traces` streams and how many a fetch holds, as
    it hands them to :meth:`~TraceRepository.iter_trace_rows` (the defaults are that one's)."""

    case_key: str | None
    yield_per: int
    shard: tuple[int, int] | None


#: a streamed row built from the query's values (its columns in the fields' order): a named
#: tuple made without its __new__'s per-field arguments, as cheap as the tuple itself
_streamed = tuple.__new__


class TraceRepository(TraceReads):
    """``store.traces``: write, replace, count and stream traces."""

    def _trace_row(
        self,
        run_id: int,
        case_pk: int,
        trace: Trace,
        cassette_path: str | None,
        cassette_hash: str | None,
    ) -> dict[str, Any]:
        body = trace.model_dump(mode="json")
        # the same values as ``trace.hash`` and ``behaviour_hash(body)``, from the one dump
        # encoded once
        digest, behaviour = trace_hashes(body)
        return {
            "behaviour_hash": behaviour,
            "run_id": run_id,
            "case_id": case_pk,
            "case_key": trace.case_id,
            "repetition": trace.repetition,
            "status": trace.status,
            "hash": digest,
            "round_count": len(trace.rounds),
            "call_count": sum(len(r.calls) for r in trace.rounds),
            "body": body,
            "cassette_path": cassette_path,
            "cassette_hash": cassette_hash,
            "normalizer_version": trace.normalizer_version,
            "created_at": utcnow(),
        }

    @staticmethod
    def _call_rows(trace_id: int, trace: Trace) -> list[dict[str, Any]]:
        return [
            {
                "trace_id": trace_id,
                "round_index": rnd.index,
                "call_index": position,
                "name": call.name,
                "ok": call.ok,
                "parse_error": call.parse_error is not None,
            }
            for rnd in trace.rounds
            for position, call in enumerate(rnd.calls)
        ]

    def save_trace(
        self,
        run_id: int,
        case_pk: int,
        trace: Trace,
        *,
        cassette_path: str | None = None,
        cassette_hash: str | None = None,
    ) -> bool:
        """Store one trace and its call rows in one transaction.

        Returns False (and writes nothing) when the run already holds this (case, repetition):
        a resumed or concurrent recorder never duplicates a trace.
        """
        return self.save_traces([(run_id, case_pk, trace, cassette_path, cassette_hash)]) == 1

    def save_traces(
        self,
        items: Iterable[tuple[int, int, Trace, str | None, str | None]],
    ) -> int:
        """Bulk-store traces (run id, case row id, trace, cassette path, cassette hash).

        Existing (run, case, repetition) keys are skipped. Returns the number inserted.
        """
        inserted = 0
        batch: list[tuple[int, int, Trace, str | None, str | None]] = []
        for item in items:
            batch.append(item)
            if len(batch) >= BATCH:
                inserted += self._save_trace_batch(batch)
                batch = []
        if batch:
            inserted += self._save_trace_batch(batch)
        return inserted

    def _save_trace_batch(self, batch: list[tuple[int, int, Trace, str | None, str | None]]) -> int:
        rows = [self._trace_row(*item) for item in batch]
        with self._begin() as c:
            stmt = (
                self._insert_ignore(_T_TRACE, ["run_id", "case_key", "repetition"])
                .returning(
                    _T_TRACE.c.id, _T_TRACE.c.case_key, _T_TRACE.c.repetition, _T_TRACE.c.run_id
                )
                # RETURNING sends multi-row VALUES statements; PostgreSQL handles 100-row
                # pages of large JSONB bodies about twice as fast as the default 1000
                .execution_options(insertmanyvalues_page_size=_INSERT_PAGE)
            )
            created = (
                c.execute(stmt, rows).all() if len(rows) > 1 else c.execute(stmt, rows[0]).all()
            )
            if not created:
                return 0
            by_key = {(item[0], item[2].case_id, item[2].repetition): item[2] for item in batch}
            call_rows: list[dict[str, Any]] = []
            for row in created:
                call_rows.extend(
                    self._call_rows(row.id, by_key[(row.run_id, row.case_key, row.repetition)])
                )
            for chunk in chunks(call_rows, 5 * BATCH):
                c.execute(_T_CALL.insert(), list(chunk))
        return len(created)

    def replace_trace(
        self, trace_id: int, trace: Trace, *, cassette_hash: str | None = None
    ) -> None:
        """Overwrite a trace with a re-derived one (``renormalize``); its call rows follow."""
        values: dict[str, Any] = {
            "status": trace.status,
            "hash": trace.hash,
            "behaviour_hash": behaviour_hash(trace.model_dump(mode="json")),
            "round_count": len(trace.rounds),
            "call_count": sum(len(r.calls) for r in trace.rounds),
            "body": trace.model_dump(mode="json"),
            "normalizer_version": trace.normalizer_version,
        }
        if cassette_hash is not None:
            values["cassette_hash"] = cassette_hash
        with self._begin() as c:
            c.execute(update(_T_TRACE).where(_T_TRACE.c.id == trace_id).values(**values))
            c.execute(_T_CALL.delete().where(_T_CALL.c.trace_id == trace_id))
            rows = self._call_rows(trace_id, trace)
            if rows:
                c.execute(_T_CALL.insert(), rows)

    def trace_keys(self, run_id: int) -> set[tuple[str, int]]:
        """(case id, repetition) of every trace the run holds, for resuming."""
        with self._connect() as c:
            rows = c.execute(
                select(_T_TRACE.c.case_key, _T_TRACE.c.repetition).where(
                    _T_TRACE.c.run_id == run_id
                )
            ).all()
        return {(r.case_key, r.repetition) for r in rows}

    def count_traces(self, run_id: int | None = None) -> int:
        query = select(func.count()).select_from(_T_TRACE)
        if run_id is not None:
            query = query.where(_T_TRACE.c.run_id == run_id)
        with self._connect() as c:
            return int(c.execute(query).scalar_one())

    def iter_traces(
        self, run_id: int | None = None, **which: Unpack[TraceSelection]
    ) -> Iterator[StoredTrace]:
        """Stream traces in id order without loading them all (``yield_per``).

        ``shard=(i, n)`` yields only traces whose id % n == i, so n workers split a store.
        """
        for row in self.iter_trace_rows(run_id, **which):
            assert row.body is not None  # read with its body
            yield StoredTrace(
                id=row.id,
                run_id=row.run_id,
                case_pk=row.case_id,
                case_key=row.case_key,
                repetition=row.repetition,
                hash=row.hash,
                trace=Trace.model_validate(json.loads(row.body)),
                cassette_path=row.cassette_path,
                cassette_hash=row.cassette_hash,
            )

    def iter_trace_rows(
        self,
        run_id: int | None = None,
        *,
        case_key: str | None = None,
        yield_per: int = BATCH,
        shard: tuple[int, int] | None = None,
        id_range: tuple[int, int] | None = None,
        with_body: bool = True,
        page_size: int | None = None,
    ) -> Iterator[StreamedTrace]:
        """Like ``iter_traces`` but yields the rows (:class:`StreamedTrace`), each body as the
        stored JSON text, for a caller that decodes it elsewhere or only when needed; with
        ``with_body=False`` no body (None: see :meth:`trace_bodies`).
        ``id_range=(lo, hi)`` keeps the traces with lo <= id <= hi (one partition of a
        distributed judging).

        ``page_size=N`` reads the rows in keyset pages (``id > last ORDER BY id LIMIT N``), each
        page its own short query on its own connection, closed before the page's rows are
        yielded: for a caller that writes while it iterates (a judging commits every chunk).
        One streaming read would hold its snapshot open across those commits, and on SQLite
        no checkpoint could then restart the WAL, which grows with every commit.

        A body PostgreSQL stored marked (it holds a NUL: :mod:`rejudge.store._nul`) is handed
        out as its original's text; any other as it was stored."""
        rows = self._stored_trace_rows(
            run_id,
            case_key=case_key,
            yield_per=yield_per,
            shard=shard,
            id_range=id_range,
            with_body=with_body,
            page_size=page_size,
        )
        if with_body and self.backend == "postgresql":
            return map(_unmarked, rows)
        return rows

    def _stored_trace_rows(
        self,
        run_id: int | None,
        *,
        case_key: str | None,
        yield_per: int,
        shard: tuple[int, int] | None,
        id_range: tuple[int, int] | None,
        with_body: bool,
        page_size: int | None,
    ) -> Iterator[StreamedTrace]:
        """``iter_trace_rows``' rows, bodies as stored."""
        # the fields' order (the rows are made of the values as they come)
        columns: list[Any] = [_T_TRACE.c[name] for name in StreamedTrace._fields[:-1]]
        if with_body:
            # fetched as text and decoded row by row: drivers decode a whole fetch batch of
            # JSON(B) at once, and thousands of live bodies make the garbage collector the
            # bottleneck (psycopg: ~3x slower reads)
            columns.append(cast(_T_TRACE.c.body, Text).label("body"))
        query = select(*columns).order_by(_T_TRACE.c.id)
        unindexed = None
        if run_id is not None:
            if page_size is not None and case_key is None and self.backend == "sqlite":
                # ``run_id + 0``: the same rows, but SQLite walks the table by id instead of
                # picking the (run, case, repetition) index, with which every page read all
                # of the run's entries past the page and sorted them (7.5 -> 1.0 µs a row
                # at 100,000 traces; bench/README.md, "judge40")
                unindexed = query.where(_T_TRACE.c.run_id + 0 == run_id)
            query = query.where(_T_TRACE.c.run_id == run_id)
        if case_key is not None:
            query = query.where(_T_TRACE.c.case_key == case_key)
        for where in _more_filters(shard, id_range):
            query = query.where(where)
            if unindexed is not None:
                unindexed = unindexed.where(where)
        # the values come in the fields' order; without a body, one None completes them
        tail = () if with_body else (None,)
        if page_size is not None:
            if unindexed is not None and run_id is not None:
                bounds = self._run_id_bounds(run_id)
                if bounds is None:
                    return
                yield from self._trace_row_pages(unindexed, page_size, tail, bounds, query)
                return
            yield from self._trace_row_pages(query, page_size, tail)
            return
        with self._connect() as c:
            # the options go on the statement, not the connection: an atomic() block's connection
            # must not stay streaming for the writes after this read
            stream = {"stream_results": True, "yield_per": yield_per}
            result = c.execute(query, execution_options=stream)
            for partition in result.partitions():
                for values in partition:
                    yield _streamed(StreamedTrace, (*values, *tail))

    def _run_id_bounds(self, run_id: int) -> tuple[int, int] | None:
        """The lowest and highest trace id of a run (None: it has no trace)."""
        t = _T_TRACE.c
        with self._connect() as c:
            lo, hi = c.execute(
                select(func.min(t.id), func.max(t.id)).where(t.run_id == run_id)
            ).one()
        return None if lo is None else (lo, hi)

    def _trace_row_pages(
        self,
        query: Any,
        page_size: int,
        tail: tuple[None, ...],
        bounds: tuple[int, int] | None = None,
        after: Any = None,
    ) -> Iterator[StreamedTrace]:
        """The rows of ``query`` (ordered by trace id) page by page; see ``iter_trace_rows``.

        ``bounds``: the run's lowest and highest trace id, for a ``query`` that walks the table
        by id: its pages start at the lowest and stop at the highest instead of walking other
        runs' rows before and after the run's; then ``after`` (the same rows through the run's
        index) reads past the highest, once, what the run gained since (as pages without
        bounds would have)."""
        last: int | None = None
        upto: int | None = None
        if bounds is not None:
            last, upto = bounds[0] - 1, bounds[1]
        while True:
            page_query = query if last is None else query.where(_T_TRACE.c.id > last)
            if upto is not None:
                page_query = page_query.where(_T_TRACE.c.id <= upto)
            with self._connect() as c:
                page = c.execute(page_query.limit(page_size)).all()
            # the connection is back in the pool (its read ended) before any row is yielded
            more = len(page) == page_size
            if more:
                last = page[-1][0]
            elif upto is not None:
                # every row up to the highest id is read: on to the rows past it, if any
                more, last, upto, query = True, upto, None, after
            # each row is let go of as it is handed out, so the page is never held whole
            # beyond its fetch and two pages never at once (the next is fetched after the
            # last row of this one went)
            page.reverse()
            while page:
                values = page.pop()
                row = _streamed(StreamedTrace, (*values, *tail))
                del values
                yield row
            if not more:
                return

    def trace_bodies(self, trace_ids: Sequence[int]) -> dict[int, str]:
        """trace id -> stored body as JSON text, for the ids given (those that exist): what a
        judging reads of the traces it judges, after streaming rows without bodies."""
        out: dict[int, str] = {}
        # PostgreSQL's marked bodies (a NUL: rejudge.store._nul) as their originals' text
        pg = self.backend == "postgresql"
        with self._connect() as c:
            for chunk in chunks(trace_ids):
                query = select(_T_TRACE.c.id, cast(_T_TRACE.c.body, Text)).where(
                    _T_TRACE.c.id.in_(list(chunk))
                )
                for ident, text in c.execute(query):
                    out[ident] = unmark_text(text) if pg else text
        return out

    def stored_cassette_hashes(
        self, run_id: int, case_ids: Collection[str]
    ) -> dict[tuple[str, int], str | None]:
        """(case, repetition) -> cassette hash of the traces ``run_id`` holds for ``case_ids``."""
        query = select(TraceRow.case_key, TraceRow.repetition, TraceRow.cassette_hash).where(
            TraceRow.run_id == run_id, TraceRow.case_key.in_(sorted(case_ids))
        )
        with self._connect() as conn:
            return {(r.case_key, r.repetition): r.cassette_hash for r in conn.execute(query)}


def _unmarked(row: StreamedTrace) -> StreamedTrace:
    """``row`` with a body PostgreSQL stored marked as its original's text (else ``row``)."""
    body = row.body
    original = body if body is None else unmark_text(body)
    return row if original is body else row._replace(body=original)
