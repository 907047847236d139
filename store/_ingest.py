"""What the ingest path reads around its writes: the cassette hashes a run already holds, so
committing traces skips (case, repetition) keys that are stored and can tell which writer won one.

``IngestReadsMixin`` holds the method; :class:`rejudge.store.Store` inherits from it.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from rejudge.store._tables import TraceRow
from sqlalchemy import select

if TYPE_CHECKING:
    from sqlalchemy import Engine

# the store's own: Store composes it; nothing here is for the facade
__all__: list[str] = []


class IngestReadsMixin:
    """``Store``'s reads the ingest path needs to skip what a run already holds."""

    if TYPE_CHECKING:
        # provided by ``Store``
        engine: Engine

        def _connect(self) -> Any: ...

    def stored_cassette_hashes(
        self, run_id: int, case_ids: Collection[str]
    ) -> dict[tuple[str, int], str | None]:
        """(case, repetition) -> cassette hash of the traces ``run_id`` holds for ``case_ids``."""
        query = select(TraceRow.case_key, TraceRow.repetition, TraceRow.cassette_hash).where(
            TraceRow.run_id == run_id, TraceRow.case_key.in_(sorted(case_ids))
        )
        with self._connect() as conn:
            return {(r.case_key, r.repetition): r.cassette_hash for r in conn.execute(query)}
