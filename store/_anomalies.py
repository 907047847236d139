"""Imported traces' anomalies: what an importer of conversation files (``otel``, ``langfuse``,
``chat-jsonl``) could not read right in each trace, a row per trace that has any.

A streamed import writes a batch's anomalies in that batch's transaction (a killed import
leaves them with the batch's traces, under the staged run, and resumes them as it resumes the
traces), so no part of the import holds a big file's anomalies whole. Reading them is bounded
too: how many traces have any, and the first few in the file's order. Runs imported before
revision 0104 kept them in their config instead (``extra["anomalies"]``): the service that shows
them (:func:`rejudge.services.run_anomalies`) falls back to it.

``AnomalyRepository`` holds the methods; ``Store`` hands it out as ``store.anomalies``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rejudge.store._batching import chunks
from rejudge.store._tables import _T_ANOM
from rejudge.store._unit_of_work import Repository
from sqlalchemy import func, select

__all__ = ["TraceAnomalies"]


@dataclass(frozen=True)
class TraceAnomalies:
    """A run's anomalies, bounded: ``traces``, how many of its traces have any, and ``first``,
    the anomalies of the first of those (by case id, in the file's order)."""

    traces: int = 0
    first: dict[str, list[str]] = field(default_factory=dict)


class AnomalyRepository(Repository):
    """``store.anomalies``: write a batch's anomalies, read a run's first ones."""

    def add(self, run_id: int, rows: Sequence[tuple[int, str, Sequence[str]]]) -> None:
        """Store (position, case id, anomalies) rows of run ``run_id`` (an empty list of
        anomalies is no row; a case id it holds already is left as it is: a resumed import
        writes a batch again). Joins the caller's transaction (:meth:`Store.atomic`).

        A NUL in an anomaly (an untrusted span name it quotes) is kept: PostgreSQL stores such
        a value marked (:mod:`rejudge.store._nul`). Rows stored from fdd331b until then hold
        the six characters ``\\u0000`` instead, and are read as they are."""
        values = [
            {"run_id": run_id, "case_key": key, "position": position, "anomalies": list(found)}
            for position, key, found in rows
            if found
        ]
        if not values:
            return
        with self._begin() as c:
            for chunk in chunks(values):
                c.execute(self._insert_ignore(_T_ANOM, ["run_id", "case_key"]), list(chunk))

    def first(self, run_id: int, limit: int) -> TraceAnomalies:
        """How many traces of run ``run_id`` have anomalies, and the first ``limit`` of them."""
        with self._connect() as c:
            count = c.execute(select(func.count()).where(_T_ANOM.c.run_id == run_id)).scalar_one()
            rows = c.execute(
                select(_T_ANOM.c.case_key, _T_ANOM.c.anomalies)
                .where(_T_ANOM.c.run_id == run_id)
                .order_by(_T_ANOM.c.position)
                .limit(limit)
            ).all()
        return TraceAnomalies(int(count), {str(k): [str(a) for a in found] for k, found in rows})
