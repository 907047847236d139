"""Suites: immutable suite snapshots, their cases, and the tool registries they judge against.

A snapshot is keyed by (name, content hash): storing the same one again is a lookup, so two
processes loading one suite never duplicate it. Registries are stored once per content hash.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rejudge.store._batching import chunks
from rejudge.store._errors import InvalidInputError, NotFoundError
from rejudge.store._records import SuiteRecord, suite_record_from_row
from rejudge.store._tables import _T_CASE, _T_REG, _T_SUITE, utcnow
from rejudge.store._unit_of_work import Repository
from sqlalchemy import select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from rejudge.model import Case, ToolRegistry, content_hash

__all__: list[str] = []


class SuiteRepository(Repository):
    """``store.suites``: suite snapshots, their cases and tool registries."""

    def save_registry(self, registry: ToolRegistry, conn: Connection | None = None) -> int:
        """Store a registry snapshot (idempotent by content hash) and return its id."""
        digest = registry.hash
        row = {
            "hash": digest,
            "domain": registry.domain,
            "version": registry.version,
            "body": registry.model_dump(mode="json"),
            "created_at": utcnow(),
        }
        with self._conn(conn) as c:
            c.execute(self._insert_ignore(_T_REG, ["hash"]), [row])
            return int(c.execute(select(_T_REG.c.id).where(_T_REG.c.hash == digest)).scalar_one())

    def get_registry(self, registry_id: int) -> ToolRegistry:
        where = _T_REG.c.id == registry_id
        body = self._body_where(_T_REG, where, f"no tool registry with id {registry_id}")
        return ToolRegistry.model_validate(body)

    def get_registry_by_hash(self, digest: str) -> ToolRegistry:
        where = _T_REG.c.hash == digest
        body = self._body_where(_T_REG, where, f"no tool registry with hash {digest}")
        return ToolRegistry.model_validate(body)

    def save_suite(
        self,
        *,
        name: str,
        domain: str,
        suite_hash: str,
        registry: ToolRegistry,
        cases: Sequence[Case],
        format_version: int = 1,
        meta: dict[str, Any] | None = None,
        case_hashes: Sequence[str] | None = None,
    ) -> SuiteRecord:
        """Store an immutable suite snapshot; the same (name, hash) is a lookup, not a new row.

        ``case_hashes``: the cases' content hashes when the caller has them already (a suite
        source computes them for its own hash), so they are not computed twice."""
        if case_hashes is not None and len(case_hashes) != len(cases):
            raise ValueError("case_hashes must hold one hash per case")
        try:
            with self._begin() as c:
                existing = c.execute(
                    select(_T_SUITE).where(_T_SUITE.c.name == name, _T_SUITE.c.hash == suite_hash)
                ).first()
                if existing is not None:
                    return suite_record_from_row(existing)
                registry_id = self.save_registry(registry, conn=c)
                suite_id = c.execute(
                    _T_SUITE.insert().returning(_T_SUITE.c.id),
                    [
                        {
                            "name": name,
                            "hash": suite_hash,
                            "domain": domain,
                            "format_version": format_version,
                            "registry_id": registry_id,
                            "case_count": len(cases),
                            "meta": meta or {},
                            "created_at": utcnow(),
                        }
                    ],
                ).scalar_one()
                rows = []
                for position, case in enumerate(cases):
                    body = case.model_dump(mode="json")  # once: the row's body and its hash
                    rows.append(
                        {
                            "suite_id": suite_id,
                            "case_key": case.id,
                            "hash": case_hashes[position] if case_hashes else content_hash(body),
                            "position": position,
                            "dimension": case.dimension,
                            "category": case.category,
                            "body": body,
                        }
                    )
                for chunk in chunks(rows):
                    c.execute(_T_CASE.insert(), list(chunk))
                row = c.execute(select(_T_SUITE).where(_T_SUITE.c.id == suite_id)).one()
            return suite_record_from_row(row)
        except IntegrityError as exc:
            # a concurrent writer stored the same snapshot first: then it is a lookup
            try:
                return self.get_suite(name, suite_hash)
            except NotFoundError:
                detail = (str(exc.orig).strip().splitlines() or ["integrity error"])[0]
                raise InvalidInputError(
                    f"cannot store suite {name!r}: {detail} (are two cases sharing an id?)"
                ) from exc

    def get_suite(self, name: str, suite_hash: str | None = None) -> SuiteRecord:
        """The named suite's snapshot with ``suite_hash``, or its newest snapshot."""
        query = select(_T_SUITE).where(_T_SUITE.c.name == name)
        if suite_hash is not None:
            query = query.where(_T_SUITE.c.hash == suite_hash)
        with self._connect() as c:
            row = c.execute(query.order_by(_T_SUITE.c.id.desc()).limit(1)).first()
        if row is None:
            raise NotFoundError(f"no suite named {name!r} in the store (load it first)")
        return suite_record_from_row(row)

    def get_suite_by_id(self, suite_id: int) -> SuiteRecord:
        with self._connect() as c:
            row = c.execute(select(_T_SUITE).where(_T_SUITE.c.id == suite_id)).first()
        if row is None:
            raise NotFoundError(f"no suite with id {suite_id}")
        return suite_record_from_row(row)

    def list_suites(self) -> list[SuiteRecord]:
        with self._connect() as c:
            # a staged suite (an import in progress, store/_staging.py) is no snapshot yet
            query = select(_T_SUITE).where(_T_SUITE.c.hash.not_like("importing:%"))
            rows = c.execute(query.order_by(_T_SUITE.c.name, _T_SUITE.c.id)).all()
        return [suite_record_from_row(r) for r in rows]

    def get_cases(self, suite_id: int) -> dict[str, tuple[int, Case]]:
        """case id -> (row id, Case), in suite order."""
        with self._connect() as c:
            rows = c.execute(
                select(_T_CASE.c.id, _T_CASE.c.case_key, _T_CASE.c.body)
                .where(_T_CASE.c.suite_id == suite_id)
                .order_by(_T_CASE.c.position)
            ).all()
        return {r.case_key: (r.id, Case.model_validate(r.body)) for r in rows}

    def get_case_pks(self, suite_id: int) -> dict[str, int]:
        """case id -> row id, in suite order, without reading the cases' bodies (an importer
        that only links traces to cases needs no more; 3,641 BFCL cases take ~1 s to read)."""
        with self._connect() as c:
            rows = c.execute(
                select(_T_CASE.c.id, _T_CASE.c.case_key)
                .where(_T_CASE.c.suite_id == suite_id)
                .order_by(_T_CASE.c.position)
            ).all()
        return {r.case_key: r.id for r in rows}

    def get_cases_by_ids(self, case_pks: Iterable[int]) -> dict[int, Case]:
        wanted = sorted(set(case_pks))
        out: dict[int, Case] = {}
        with self._connect() as c:
            for chunk in chunks(wanted):
                for r in c.execute(
                    select(_T_CASE.c.id, _T_CASE.c.body).where(_T_CASE.c.id.in_(chunk))
                ):
                    out[r.id] = Case.model_validate(r.body)
        return out
