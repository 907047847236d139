"""Baselines: a report locked under a name, with the hashes of what it was computed from, so a
later judging can be checked against it. Immutable: a name is locked once."""

from __future__ import annotations

from typing import Any

from rejudge.store._errors import ConflictError, NotFoundError
from rejudge.store._records import BaselineRecord
from rejudge.store._tables import _T_BASE, utcnow
from rejudge.store._unit_of_work import Repository
from sqlalchemy import select

__all__: list[str] = []


class BaselineRepository(Repository):
    """``store.baselines``: lock, read and list baselines."""

    def save_baseline(
        self,
        *,
        name: str,
        evaluation_id: int,
        report_hash: str,
        input_hashes: dict[str, Any],
        report: dict[str, Any],
        note: str | None = None,
    ) -> BaselineRecord:
        with self._begin() as c:
            if c.execute(select(_T_BASE.c.id).where(_T_BASE.c.name == name)).first() is not None:
                raise ConflictError(
                    f"baseline {name!r} already exists; baselines are immutable, lock a new name"
                )
            c.execute(
                _T_BASE.insert(),
                [
                    {
                        "name": name,
                        "evaluation_id": evaluation_id,
                        "report_hash": report_hash,
                        "input_hashes": input_hashes,
                        "report": report,
                        "note": note,
                        "created_at": utcnow(),
                    }
                ],
            )
        return self.get_baseline(name)

    def get_baseline(self, name: str) -> BaselineRecord:
        with self._connect() as c:
            row = c.execute(select(_T_BASE).where(_T_BASE.c.name == name)).first()
        if row is None:
            raise NotFoundError(
                f"no baseline named {name!r}",
                field="baseline",
            )
        return BaselineRecord(**row._mapping)

    def list_baselines(self) -> list[BaselineRecord]:
        with self._connect() as c:
            rows = c.execute(select(_T_BASE).order_by(_T_BASE.c.id)).all()
        return [BaselineRecord(**r._mapping) for r in rows]
