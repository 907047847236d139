"""Evaluations: one judging of a run under a tier, a rule set and an engine version. Found or
created atomically across processes (shards of one re-judge converge on one), claimed by one
driver at a time, finished with its summary.

``EvaluationRepository`` is ``store.evaluations``; the aggregates the dashboard shows of one
evaluation it inherits from :mod:`rejudge.store._evaluation_reads`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rejudge.store._errors import InvalidInputError, NotFoundError
from rejudge.store._evaluation_reads import EvaluationReads
from rejudge.store._records import EvaluationRecord, evaluation_record_from_row
from rejudge.store._tables import _T_EVAL, _T_TRACE, utcnow
from sqlalchemy import func, select, update

from rejudge.model import ReportSummary, canonical_json

__all__: list[str] = []


def _new_evaluation_row(
    run_id: int, tier: str, rule_set_id: int, engine_version: str
) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "tier": tier,
        "rule_set_id": rule_set_id,
        "engine_version": engine_version,
        "status": "running",
        "summary": {},
        "created_at": utcnow(),
    }


class EvaluationRepository(EvaluationReads):
    """``store.evaluations``: create, find, claim, finish, read and list evaluations."""

    def create_evaluation(
        self, *, run_id: int, tier: str, rule_set_id: int, engine_version: str
    ) -> int:
        with self._begin() as c:
            return int(
                c.execute(
                    _T_EVAL.insert().returning(_T_EVAL.c.id),
                    [_new_evaluation_row(run_id, tier, rule_set_id, engine_version)],
                ).scalar_one()
            )

    def find_or_create_evaluation(
        self, *, run_id: int, tier: str, rule_set_id: int, engine_version: str
    ) -> tuple[int, bool]:
        """The oldest evaluation of (run, tier, rule set, engine version), created if there is
        none: ``(id, created)``. Atomic across processes and machines sharing the database, so
        shards of one re-judge started at the same instant converge on one evaluation: the
        look-up and the insert run in one transaction holding a lock on that tuple (PostgreSQL:
        a transaction-scoped advisory lock on a 64-bit digest of it; SQLite: ``BEGIN
        IMMEDIATE``, the database's single write lock, taken before the look-up)."""
        t = _T_EVAL.c
        query = (
            select(t.id)
            .where(
                t.run_id == run_id,
                t.tier == tier,
                t.rule_set_id == rule_set_id,
                t.engine_version == engine_version,
            )
            .order_by(t.id)
            .limit(1)
        )
        with self._begin() as c:
            if self.backend == "postgresql":
                digest = hashlib.sha256(
                    canonical_json(
                        ["evaluation", run_id, tier, rule_set_id, engine_version]
                    ).encode()
                ).digest()
                c.execute(
                    select(
                        func.pg_advisory_xact_lock(int.from_bytes(digest[:8], "big", signed=True))
                    )
                )
            else:
                # the driver would begin lazily at the insert, after the look-up: begin here,
                # as a writer, so a second caller waits (busy timeout) and then sees the row
                c.exec_driver_sql("BEGIN IMMEDIATE")
            found = c.execute(query).scalar()
            if found is not None:
                return int(found), False
            created = c.execute(
                _T_EVAL.insert().returning(t.id),
                [_new_evaluation_row(run_id, tier, rule_set_id, engine_version)],
            ).scalar_one()
            return int(created), True

    def previous_evaluation(self, evaluation_id: int) -> int | None:
        """The newest evaluation older than ``evaluation_id`` of its run, tier, rule set and
        engine version (what a re-judge of unchanged inputs links again), or None."""
        t = _T_EVAL.c
        this = _T_EVAL.alias("this")
        query = (
            select(func.max(t.id))
            .select_from(_T_EVAL.join(this, this.c.id == evaluation_id))
            .where(
                t.id < evaluation_id,
                t.run_id == this.c.run_id,
                t.tier == this.c.tier,
                t.rule_set_id == this.c.rule_set_id,
                t.engine_version == this.c.engine_version,
            )
        )
        with self._connect() as c:
            found = c.execute(query).scalar()
        return None if found is None else int(found)

    @contextmanager
    def claim_evaluation(self, evaluation_id: int) -> Iterator[bool]:
        """Hold the right to drive ``evaluation_id`` for the duration: yields False when another
        process holds it now. PostgreSQL: a session-level advisory lock on a connection kept
        open for the duration, so a driver that dies releases it with its connection (a rerun
        can resume at once); SQLite, one machine's file, always yields True."""
        if self.backend != "postgresql":
            yield True
            return
        digest = hashlib.sha256(canonical_json(["claim", evaluation_id]).encode()).digest()
        key = int.from_bytes(digest[:8], "big", signed=True)
        # its own connection, never an open atomic() block's: the lock lives as long as this
        # connection (a session lock), and its commits must not commit the block
        with self.engine.connect() as c:
            won = bool(c.execute(select(func.pg_try_advisory_lock(key))).scalar())
            c.commit()
            try:
                yield won
            finally:
                if won:
                    c.execute(select(func.pg_advisory_unlock(key)))
                    c.commit()

    def trace_id_ranges(
        self, run_id: int, size: int, *, shard: tuple[int, int] | None = None
    ) -> list[tuple[int, int, int]]:
        """A run's traces cut into consecutive id ranges of ``size`` traces (the last may be
        shorter): ``[(first id, last id, count), ...]`` in id order, computed by the database
        (one window query, no id list shipped). ``shard=(i, n)`` counts only ids % n == i."""
        if size < 1:
            raise InvalidInputError("a partition holds at least one trace", field="partition")
        t = _T_TRACE.c
        part = ((func.row_number().over(order_by=t.id) - 1) // size).label("part")
        inner = select(t.id, part).where(t.run_id == run_id)
        if shard is not None:
            index, count = shard
            inner = inner.where(t.id % count == index)
        sub = inner.subquery()
        query = (
            select(func.min(sub.c.id), func.max(sub.c.id), func.count())
            .group_by(sub.c.part)
            .order_by(sub.c.part)
        )
        with self._connect() as c:
            return [(int(lo), int(hi), int(n)) for lo, hi, n in c.execute(query)]

    def finish_evaluation(
        self,
        evaluation_id: int,
        *,
        summary: ReportSummary,
        inputs_hash: str,
        status: str = "finished",
    ) -> None:
        with self._begin() as c:
            c.execute(
                update(_T_EVAL)
                .where(_T_EVAL.c.id == evaluation_id)
                .values(
                    summary=summary.to_json(),
                    inputs_hash=inputs_hash,
                    status=status,
                    finished_at=utcnow(),
                )
            )

    def get_evaluation(self, evaluation_id: int | str) -> EvaluationRecord:
        try:
            ident = int(evaluation_id)
        except (TypeError, ValueError):
            raise NotFoundError(
                f"evaluation ids are numbers, got {evaluation_id!r}", field="evaluation"
            ) from None
        with self._connect() as c:
            row = c.execute(select(_T_EVAL).where(_T_EVAL.c.id == ident)).first()
        if row is None:
            raise NotFoundError(f"no evaluation {evaluation_id} in the store", field="evaluation")
        return evaluation_record_from_row(row)

    def list_evaluations(self, run_id: int | None = None) -> list[EvaluationRecord]:
        query = select(_T_EVAL).order_by(_T_EVAL.c.id)
        if run_id is not None:
            query = query.where(_T_EVAL.c.run_id == run_id)
        with self._connect() as c:
            return [evaluation_record_from_row(r) for r in c.execute(query).all()]
