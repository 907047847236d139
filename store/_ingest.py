"""Reads the ingest path needs beyond ``Store``'s own methods (free functions over a Store)."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from rejudge.store._tables import TraceRow
from sqlalchemy import select

if TYPE_CHECKING:
    from rejudge.store._repository import Store

__all__ = ["stored_cassette_hashes"]


def stored_cassette_hashes(
    store: Store, run_id: int, case_ids: Collection[str]
) -> dict[tuple[str, int], str | None]:
    """(case, repetition) -> cassette hash of the traces ``run_id`` already holds for ``case_ids``."""
    query = select(TraceRow.case_key, TraceRow.repetition, TraceRow.cassette_hash).where(
        TraceRow.run_id == run_id, TraceRow.case_key.in_(sorted(case_ids))
    )
    with store.engine.connect() as conn:
        return {(r.case_key, r.repetition): r.cassette_hash for r in conn.execute(query)}
