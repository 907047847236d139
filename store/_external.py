"""External verdicts: another harness's score of a stored trace (τ-bench's reward, an Inspect AI
scorer's value), kept next to the trace so rejudge's own verdicts can be compared with it.

One row per (trace, source). Writing the same verdict again is a lookup; writing a different
value for a (trace, source) that has one is refused unless the caller asks to replace it, so an
import run twice never silently changes the evidence it is compared with. Every write is one
transaction: a batch naming a trace the run does not hold writes nothing. A verdict may carry
the version of the source that gave it (τ-bench's reward changed between versions); the same
verdict again with its version fills in a version not recorded before, another version is refused.

``ExternalVerdictRepository`` holds the methods; ``Store`` hands it out as ``store.external``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rejudge.store._batching import chunks
from rejudge.store._errors import ConflictError, InvalidInputError
from rejudge.store._tables import _T_EXT, _T_TRACE, utcnow
from rejudge.store._unit_of_work import Repository
from sqlalchemy import func, select, update

from rejudge.model import ExternalVerdict

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

__all__ = ["StoredExternalVerdict"]


@dataclass(frozen=True)
class StoredExternalVerdict:
    """An external verdict with the trace it scores."""

    trace_id: int
    case_key: str
    repetition: int
    trace_hash: str
    verdict: ExternalVerdict


class ExternalVerdictRepository(Repository):
    """``store.external``: external verdicts (written per run, keyed by case and repetition)."""

    def save_external_verdicts(
        self,
        run_id: int,
        verdicts: Sequence[tuple[str, int, ExternalVerdict]],
        *,
        replace: bool = False,
        conn: Connection | None = None,
    ) -> int:
        """Store (case id, repetition, verdict) triples on the traces of run ``run_id``.

        All or nothing: a (case, repetition) the run does not hold, one given twice for the same
        source, or (unless ``replace``) a different value where one is stored, writes nothing.
        Returns the number of rows written (a verdict already stored as given is not counted).
        """
        if not verdicts:
            return 0
        problems: list[str] = []
        seen: set[tuple[str, int, str]] = set()
        for case_key, repetition, verdict in verdicts:
            key = (case_key, int(repetition), verdict.source)
            if key in seen:
                problems.append(
                    f"case {case_key!r} repetition {repetition} has two {verdict.source} verdicts"
                )
            seen.add(key)
        with self._conn(conn) as c:
            traces = {
                (r.case_key, r.repetition): r.id
                for r in c.execute(
                    select(_T_TRACE.c.id, _T_TRACE.c.case_key, _T_TRACE.c.repetition).where(
                        _T_TRACE.c.run_id == int(run_id)
                    )
                )
            }
            for case_key, repetition, _verdict in verdicts:
                if (case_key, int(repetition)) not in traces:
                    problems.append(
                        f"run {run_id} holds no trace of case {case_key!r} repetition {repetition}"
                    )
            if problems:
                raise InvalidInputError("; ".join(dict.fromkeys(problems)), run=run_id)
            wanted = {traces[(k, int(r))] for k, r, _v in verdicts}
            stored: dict[tuple[int, str], Any] = {}
            for chunk in chunks(sorted(wanted)):
                for row in c.execute(select(_T_EXT).where(_T_EXT.c.trace_id.in_(chunk))):
                    stored[(row.trace_id, row.source)] = row
            inserts: list[dict[str, Any]] = []
            updates: list[tuple[int, ExternalVerdict]] = []
            for case_key, repetition, verdict in verdicts:
                trace_id = traces[(case_key, int(repetition))]
                old = stored.get((trace_id, verdict.source))
                if old is None:
                    inserts.append(
                        {
                            "trace_id": trace_id,
                            "source": verdict.source,
                            "value": float(verdict.value),
                            "detail": verdict.detail,
                            "version": verdict.version,
                            "created_at": utcnow(),
                        }
                    )
                elif old.value == verdict.value and old.detail == verdict.detail:
                    if verdict.version is not None and old.version is None:
                        # the version of a verdict stored before versions were recorded: what
                        # the source said is unchanged, only now known by version
                        updates.append((old.id, verdict))
                    elif verdict.version is not None and old.version != verdict.version:
                        if not replace:
                            raise ConflictError(
                                f"case {case_key!r} repetition {repetition} has a "
                                f"{verdict.source} verdict of version {old.version}, not "
                                f"{verdict.version}; replace it explicitly to change it",
                                run=run_id,
                                case=case_key,
                            )
                        updates.append((old.id, verdict))
                else:
                    if not replace:
                        raise ConflictError(
                            f"case {case_key!r} repetition {repetition} already has a "
                            f"{verdict.source} verdict of {old.value}, not {verdict.value}; "
                            "replace it explicitly to change it",
                            run=run_id,
                            case=case_key,
                        )
                    updates.append((old.id, verdict))
            for chunk in chunks(inserts):
                c.execute(_T_EXT.insert(), list(chunk))
            for row_id, verdict in updates:
                c.execute(
                    update(_T_EXT)
                    .where(_T_EXT.c.id == row_id)
                    .values(
                        value=float(verdict.value), detail=verdict.detail, version=verdict.version
                    )
                )
        return len(inserts) + len(updates)

    def external_verdicts(
        self, run_id: int, source: str | None = None
    ) -> list[StoredExternalVerdict]:
        """The external verdicts on run ``run_id``'s traces, by case and repetition."""
        query = (
            select(
                _T_EXT.c.trace_id,
                _T_EXT.c.source,
                _T_EXT.c.value,
                _T_EXT.c.detail,
                _T_EXT.c.version,
                _T_TRACE.c.case_key,
                _T_TRACE.c.repetition,
                _T_TRACE.c.hash,
            )
            .join(_T_TRACE, _T_TRACE.c.id == _T_EXT.c.trace_id)
            .where(_T_TRACE.c.run_id == int(run_id))
            .order_by(_T_TRACE.c.case_key, _T_TRACE.c.repetition, _T_EXT.c.source)
        )
        if source is not None:
            query = query.where(_T_EXT.c.source == source)
        with self._connect() as c:
            return [
                StoredExternalVerdict(
                    trace_id=r.trace_id,
                    case_key=r.case_key,
                    repetition=r.repetition,
                    trace_hash=r.hash,
                    verdict=ExternalVerdict(
                        source=r.source, value=r.value, detail=r.detail, version=r.version
                    ),
                )
                for r in c.execute(query)
            ]

    def external_sources(self, run_id: int) -> dict[str, int]:
        """source -> how many of run ``run_id``'s traces it scored."""
        query = (
            select(_T_EXT.c.source, func.count())
            .join(_T_TRACE, _T_TRACE.c.id == _T_EXT.c.trace_id)
            .where(_T_TRACE.c.run_id == int(run_id))
            .group_by(_T_EXT.c.source)
            .order_by(_T_EXT.c.source)
        )
        with self._connect() as c:
            return {str(s): int(n) for s, n in c.execute(query)}
