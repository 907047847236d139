"""The repository: every read and write the other packages make goes through ``Store``.

Reads stream (``yield_per``) and writes go in bulk (one ``insert`` with a list of rows). Writes
that must be idempotent (traces, judgments, rule sets, suite snapshots) use insert-or-ignore on
their unique keys, so two processes writing the same thing never duplicate it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import Engine, Table, Text, cast, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError, OperationalError

from store.engine import make_engine
from store.errors import ConflictError, InvalidInputError, NotFoundError
from store.hashing import canonical_json, content_hash, hash_bytes
from store.migrate import _unavailable as unavailable_error
from store.migrate import ensure_schema
from store.schemas import Case, Judgment, RuleSet, RunConfig, ToolRegistry, Trace, judgment_key
from store.tables import (
    BaselineRow,
    CallRow,
    CaseRow,
    EvaluationJudgmentRow,
    EvaluationRow,
    JudgmentRow,
    RegistryRow,
    RuleSetRow,
    RunRow,
    SuiteRow,
    TraceRow,
    utcnow,
)

__all__ = [
    "Store",
    "SuiteRecord",
    "RunRecord",
    "StoredTrace",
    "EvaluationRecord",
    "BaselineRecord",
    "PreparedJudgment",
]

_T_REG: Table = RegistryRow.__table__  # type: ignore[assignment]
_T_SUITE: Table = SuiteRow.__table__  # type: ignore[assignment]
_T_CASE: Table = CaseRow.__table__  # type: ignore[assignment]
_T_RUN: Table = RunRow.__table__  # type: ignore[assignment]
_T_TRACE: Table = TraceRow.__table__  # type: ignore[assignment]
_T_CALL: Table = CallRow.__table__  # type: ignore[assignment]
_T_RULES: Table = RuleSetRow.__table__  # type: ignore[assignment]
_T_EVAL: Table = EvaluationRow.__table__  # type: ignore[assignment]
_T_JUDG: Table = JudgmentRow.__table__  # type: ignore[assignment]
_T_EJ: Table = EvaluationJudgmentRow.__table__  # type: ignore[assignment]
_T_BASE: Table = BaselineRow.__table__  # type: ignore[assignment]

_BATCH = 1000
_JUDGMENT_COLUMNS = (
    "key",
    "hash",
    "trace_hash",
    "case_hash",
    "registry_hash",
    "tier",
    "rule_set_hash",
    "engine_version",
    "verdict",
    "partial_score",
    "taxonomy",
    "body",
    "created_at",
)
_LINK_COLUMNS = (
    "evaluation_id",
    "judgment_id",
    "trace_id",
    "case_key",
    "repetition",
    "dimension",
    "category",
    "verdict",
    "partial_score",
)
_INSERT_PAGE = 100


@dataclass(frozen=True)
class SuiteRecord:
    id: int
    name: str
    hash: str
    domain: str
    format_version: int
    registry_id: int
    case_count: int
    meta: dict[str, Any]
    created_at: datetime


@dataclass(frozen=True)
class RunRecord:
    id: int
    name: str
    suite_id: int
    registry_id: int
    model: str
    provider: str
    base_url: str | None
    harness_mode: str
    config: RunConfig
    config_hash: str
    suite_hash: str
    registry_hash: str
    prompt_hash: str | None
    status: str
    started_at: datetime
    finished_at: datetime | None


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


@dataclass(frozen=True)
class StoredTrace:
    id: int
    run_id: int
    case_pk: int
    case_key: str
    repetition: int
    hash: str
    trace: Trace
    cassette_path: str | None
    cassette_hash: str | None


@dataclass(frozen=True)
class EvaluationRecord:
    id: int
    run_id: int
    tier: str
    rule_set_id: int
    engine_version: str
    inputs_hash: str | None
    status: str
    summary: dict[str, Any]
    created_at: datetime
    finished_at: datetime | None


class PreparedJudgment(NamedTuple):
    """A judgment ready for the store: its key, its hash and its body as canonical JSON text.

    The hash is ``Judgment.hash`` (sha256 of the canonical JSON of ``model_dump(mode="json")``)
    computed from the very text that is stored, so the body is serialized once. Built where the
    judging happens (a worker process pickles these small tuples of strings back).
    """

    key: str
    hash: str
    body_json: str
    trace_hash: str
    case_hash: str
    registry_hash: str
    tier: str
    rule_set_hash: str
    engine_version: str
    verdict: str
    partial_score: float | None
    taxonomy_json: str

    @classmethod
    def of(cls, judgment: Judgment, key: str | None = None) -> PreparedJudgment:
        """``key``: the judgment's key when the caller already computed it (it must be
        ``judgment.key``)."""
        return cls.from_body(judgment.model_dump(mode="json"), key)

    @classmethod
    def from_body(cls, body: Mapping[str, Any], key: str | None = None) -> PreparedJudgment:
        """From a judgment's JSON dump (``Judgment.model_dump(mode="json")``, or the same dict
        built directly: ``judge.engine.judge_body``); ``key`` as in :meth:`of`."""
        text = canonical_json(body)
        return cls(
            key=key
            if key is not None
            else judgment_key(
                body["trace_hash"],
                body["case_hash"],
                body["registry_hash"],
                body["tier"],
                body["rule_set_hash"],
                body["engine_version"],
            ),
            hash=hash_bytes(text.encode("utf-8")),
            body_json=text,
            trace_hash=body["trace_hash"],
            case_hash=body["case_hash"],
            registry_hash=body["registry_hash"],
            tier=body["tier"],
            rule_set_hash=body["rule_set_hash"],
            engine_version=body["engine_version"],
            verdict=body["verdict"],
            partial_score=body["partial_score"],
            taxonomy_json=canonical_json(body["taxonomy"]),
        )


@dataclass(frozen=True)
class BaselineRecord:
    id: int
    name: str
    evaluation_id: int
    report_hash: str
    input_hashes: dict[str, Any]
    report: dict[str, Any]
    note: str | None
    created_at: datetime


def _decode_small(text: str | None, cache: dict[str, list[Any]]) -> Any:
    """``json.loads`` for the short JSON texts a query returns many times over (taxonomy codes,
    flags): a list of strings is decoded once per distinct text and handed out as a fresh copy."""
    if text is None:
        return None
    hit = cache.get(text)
    if hit is not None:
        return list(hit)
    value = json.loads(text)
    if isinstance(value, list) and len(cache) < 4096 and all(type(v) is str for v in value):
        cache[text] = value
        return list(value)
    return value


def _decode_array(text: str, cache: dict[str, list[Any]]) -> list[Any]:
    """A JSON array of small values (see :func:`_decode_small`), each list a fresh copy."""
    hit = cache.get(text)
    if hit is None:
        hit = json.loads(text)
        if not all(v is None or (type(v) is list and all(type(x) is str for x in v)) for v in hit):
            return list(hit)
        if len(cache) < 4096:
            cache[text] = hit
    return [None if v is None else list(v) for v in hit]


def _chunks(
    rows: Sequence[dict[str, Any]], size: int = _BATCH
) -> Iterator[Sequence[dict[str, Any]]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


class Store:
    """All persistence. Construct with an engine, or use ``Store.open(url)``."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @classmethod
    def open(cls, url: str, *, migrate: bool = True) -> Store:
        """Open ``url``; a fresh or older database is migrated, a newer one is refused."""
        engine = make_engine(url)
        if migrate:
            ensure_schema(engine)
        else:
            try:
                with engine.connect():
                    pass
            except OperationalError as exc:
                raise unavailable_error(engine, exc) from exc
        return cls(engine)

    @property
    def backend(self) -> str:
        return self.engine.dialect.name

    def close(self) -> None:
        self.engine.dispose()

    # ------------------------------------------------------------------ helpers

    def _insert_ignore(self, table: Table, index_elements: list[str]) -> Any:
        if self.backend == "postgresql":
            return postgresql.insert(table).on_conflict_do_nothing(index_elements=index_elements)
        return sqlite.insert(table).on_conflict_do_nothing(index_elements=index_elements)

    # ------------------------------------------------------------------ registries

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
        with self.engine.connect() as c:
            body = c.execute(select(_T_REG.c.body).where(_T_REG.c.id == registry_id)).scalar()
        if body is None:
            raise NotFoundError(f"no tool registry with id {registry_id}")
        return ToolRegistry.model_validate(body)

    def get_registry_by_hash(self, digest: str) -> ToolRegistry:
        with self.engine.connect() as c:
            body = c.execute(select(_T_REG.c.body).where(_T_REG.c.hash == digest)).scalar()
        if body is None:
            raise NotFoundError(f"no tool registry with hash {digest}")
        return ToolRegistry.model_validate(body)

    # ------------------------------------------------------------------ suites

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
            return self._insert_suite(
                name=name,
                domain=domain,
                suite_hash=suite_hash,
                registry=registry,
                cases=cases,
                format_version=format_version,
                meta=meta,
                case_hashes=case_hashes,
            )
        except IntegrityError as exc:
            # a concurrent writer stored the same snapshot first: then it is a lookup
            try:
                return self.get_suite(name, suite_hash)
            except NotFoundError:
                detail = (str(exc.orig).strip().splitlines() or ["integrity error"])[0]
                raise InvalidInputError(
                    f"cannot store suite {name!r}: {detail} (are two cases sharing an id?)"
                ) from exc

    def _insert_suite(
        self,
        *,
        name: str,
        domain: str,
        suite_hash: str,
        registry: ToolRegistry,
        cases: Sequence[Case],
        format_version: int,
        meta: dict[str, Any] | None,
        case_hashes: Sequence[str] | None = None,
    ) -> SuiteRecord:
        with self.engine.begin() as c:
            existing = c.execute(
                select(_T_SUITE).where(_T_SUITE.c.name == name, _T_SUITE.c.hash == suite_hash)
            ).first()
            if existing is not None:
                return _suite_record(existing)
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
            for chunk in _chunks(rows):
                c.execute(_T_CASE.insert(), list(chunk))
            row = c.execute(select(_T_SUITE).where(_T_SUITE.c.id == suite_id)).one()
        return _suite_record(row)

    def get_suite(self, name: str, suite_hash: str | None = None) -> SuiteRecord:
        """The named suite's snapshot with ``suite_hash``, or its newest snapshot."""
        query = select(_T_SUITE).where(_T_SUITE.c.name == name)
        if suite_hash is not None:
            query = query.where(_T_SUITE.c.hash == suite_hash)
        with self.engine.connect() as c:
            row = c.execute(query.order_by(_T_SUITE.c.id.desc()).limit(1)).first()
        if row is None:
            raise NotFoundError(f"no suite named {name!r} in the store (load it first)")
        return _suite_record(row)

    def get_suite_by_id(self, suite_id: int) -> SuiteRecord:
        with self.engine.connect() as c:
            row = c.execute(select(_T_SUITE).where(_T_SUITE.c.id == suite_id)).first()
        if row is None:
            raise NotFoundError(f"no suite with id {suite_id}")
        return _suite_record(row)

    def list_suites(self) -> list[SuiteRecord]:
        with self.engine.connect() as c:
            rows = c.execute(select(_T_SUITE).order_by(_T_SUITE.c.name, _T_SUITE.c.id)).all()
        return [_suite_record(r) for r in rows]

    def get_cases(self, suite_id: int) -> dict[str, tuple[int, Case]]:
        """case id -> (row id, Case), in suite order."""
        with self.engine.connect() as c:
            rows = c.execute(
                select(_T_CASE.c.id, _T_CASE.c.case_key, _T_CASE.c.body)
                .where(_T_CASE.c.suite_id == suite_id)
                .order_by(_T_CASE.c.position)
            ).all()
        return {r.case_key: (r.id, Case.model_validate(r.body)) for r in rows}

    def get_case_pks(self, suite_id: int) -> dict[str, int]:
        """case id -> row id, in suite order, without reading the cases' bodies (an importer
        that only links traces to cases needs no more; 3,641 BFCL cases take ~1 s to read)."""
        with self.engine.connect() as c:
            rows = c.execute(
                select(_T_CASE.c.id, _T_CASE.c.case_key)
                .where(_T_CASE.c.suite_id == suite_id)
                .order_by(_T_CASE.c.position)
            ).all()
        return {r.case_key: r.id for r in rows}

    def get_cases_by_ids(self, case_pks: Iterable[int]) -> dict[int, Case]:
        wanted = sorted(set(case_pks))
        out: dict[int, Case] = {}
        with self.engine.connect() as c:
            for start in range(0, len(wanted), _BATCH):
                chunk = wanted[start : start + _BATCH]
                for r in c.execute(
                    select(_T_CASE.c.id, _T_CASE.c.body).where(_T_CASE.c.id.in_(chunk))
                ):
                    out[r.id] = Case.model_validate(r.body)
        return out

    # ------------------------------------------------------------------ runs

    def create_run(
        self,
        *,
        name: str,
        suite: SuiteRecord,
        config: RunConfig,
        prompt_hash: str | None = None,
        resume: bool = True,
    ) -> RunRecord:
        """Create run ``name``, or return it unchanged to resume when its inputs match."""
        config_body = config.model_dump(mode="json")
        config_hash = config.identity_hash
        with self.engine.begin() as c:
            existing = c.execute(select(_T_RUN).where(_T_RUN.c.name == name)).first()
            if existing is not None:
                if not resume:
                    raise ConflictError(f"run {name!r} already exists; choose another --name")
                if existing.config_hash != config_hash or existing.suite_id != suite.id:
                    raise ConflictError(
                        f"run {name!r} exists with a different suite or configuration ("
                        + _run_differences(existing, suite, config)
                        + "); run it with the same options to resume it, or choose another "
                        "--name to record a new run"
                    )
                return _run_record(existing)
            registry_hash = c.execute(
                select(_T_REG.c.hash).where(_T_REG.c.id == suite.registry_id)
            ).scalar_one()
            row = {
                "name": name,
                "suite_id": suite.id,
                "registry_id": suite.registry_id,
                "model": config.model,
                "provider": config.provider,
                "base_url": config.base_url,
                "harness_mode": config.harness_mode,
                "config": config_body,
                "config_hash": config_hash,
                "suite_hash": suite.hash,
                "registry_hash": registry_hash,
                "prompt_hash": prompt_hash,
                "status": "running",
                "started_at": utcnow(),
            }
            c.execute(self._insert_ignore(_T_RUN, ["name"]), [row])
            created = c.execute(select(_T_RUN).where(_T_RUN.c.name == name)).one()
        return _run_record(created)

    def get_run(self, ref: str | int) -> RunRecord:
        """A run by name, or by numeric id."""
        query = select(_T_RUN)
        if isinstance(ref, int) or (isinstance(ref, str) and ref.isdigit()):
            query = query.where((_T_RUN.c.id == int(ref)) | (_T_RUN.c.name == str(ref)))
        else:
            query = query.where(_T_RUN.c.name == ref)
        with self.engine.connect() as c:
            row = c.execute(query.order_by(_T_RUN.c.id)).first()
        if row is None:
            raise NotFoundError(f"no run {ref!r} in the store (see `rejudge runs`)")
        return _run_record(row)

    def count_runs_by_suite(self) -> dict[int, int]:
        """suite snapshot id -> how many runs were recorded or imported on it."""
        query = select(_T_RUN.c.suite_id, func.count()).group_by(_T_RUN.c.suite_id)
        with self.engine.connect() as c:
            return {int(suite_id): int(n) for suite_id, n in c.execute(query).all()}

    def list_runs(self) -> list[dict[str, Any]]:
        """Every run with its suite name and trace count (one query)."""
        counts = (
            select(_T_TRACE.c.run_id, func.count().label("traces"))
            .group_by(_T_TRACE.c.run_id)
            .subquery()
        )
        query = (
            select(_T_RUN, _T_SUITE.c.name.label("suite_name"), counts.c.traces)
            .join(_T_SUITE, _T_SUITE.c.id == _T_RUN.c.suite_id)
            .outerjoin(counts, counts.c.run_id == _T_RUN.c.id)
            .order_by(_T_RUN.c.id)
        )
        with self.engine.connect() as c:
            rows = c.execute(query).all()
        return [
            {
                "id": r.id,
                "name": r.name,
                "suite": r.suite_name,
                "model": r.model,
                "provider": r.provider,
                "harness_mode": r.harness_mode,
                "repeat": (r.config or {}).get("repeat", 1),
                "traces": int(r.traces or 0),
                "status": r.status,
                "started_at": r.started_at,
                "finished_at": r.finished_at,
            }
            for r in rows
        ]

    def finish_run(self, run_id: int, status: str = "finished") -> None:
        with self.engine.begin() as c:
            c.execute(
                update(_T_RUN)
                .where(_T_RUN.c.id == run_id)
                .values(status=status, finished_at=utcnow())
            )

    # ------------------------------------------------------------------ traces

    def _trace_row(
        self,
        run_id: int,
        case_pk: int,
        trace: Trace,
        cassette_path: str | None,
        cassette_hash: str | None,
    ) -> dict[str, Any]:
        body = trace.model_dump(mode="json")
        # same value as ``trace.hash`` (canonical JSON without timings), from the one dump
        digest = content_hash({k: v for k, v in body.items() if k != "timings"})
        return {
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
            if len(batch) >= _BATCH:
                inserted += self._save_trace_batch(batch)
                batch = []
        if batch:
            inserted += self._save_trace_batch(batch)
        return inserted

    def _save_trace_batch(self, batch: list[tuple[int, int, Trace, str | None, str | None]]) -> int:
        rows = [self._trace_row(*item) for item in batch]
        with self.engine.begin() as c:
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
            for chunk in _chunks(call_rows, 5 * _BATCH):
                c.execute(_T_CALL.insert(), list(chunk))
        return len(created)

    def replace_trace(
        self, trace_id: int, trace: Trace, *, cassette_hash: str | None = None
    ) -> None:
        """Overwrite a trace with a re-derived one (``renormalize``); its call rows follow."""
        values: dict[str, Any] = {
            "status": trace.status,
            "hash": trace.hash,
            "round_count": len(trace.rounds),
            "call_count": sum(len(r.calls) for r in trace.rounds),
            "body": trace.model_dump(mode="json"),
            "normalizer_version": trace.normalizer_version,
        }
        if cassette_hash is not None:
            values["cassette_hash"] = cassette_hash
        with self.engine.begin() as c:
            c.execute(update(_T_TRACE).where(_T_TRACE.c.id == trace_id).values(**values))
            c.execute(_T_CALL.delete().where(_T_CALL.c.trace_id == trace_id))
            rows = self._call_rows(trace_id, trace)
            if rows:
                c.execute(_T_CALL.insert(), rows)

    def trace_keys(self, run_id: int) -> set[tuple[str, int]]:
        """(case id, repetition) of every trace the run holds, for resuming."""
        with self.engine.connect() as c:
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
        with self.engine.connect() as c:
            return int(c.execute(query).scalar_one())

    def iter_traces(
        self,
        run_id: int | None = None,
        *,
        case_key: str | None = None,
        yield_per: int = _BATCH,
        shard: tuple[int, int] | None = None,
    ) -> Iterator[StoredTrace]:
        """Stream traces in id order without loading them all (``yield_per``).

        ``shard=(i, n)`` yields only traces whose id % n == i, so n workers split a store.
        """
        for row in self.iter_trace_rows(
            run_id, case_key=case_key, yield_per=yield_per, shard=shard
        ):
            yield StoredTrace(
                id=row["id"],
                run_id=row["run_id"],
                case_pk=row["case_id"],
                case_key=row["case_key"],
                repetition=row["repetition"],
                hash=row["hash"],
                trace=Trace.model_validate(row["body"]),
                cassette_path=row["cassette_path"],
                cassette_hash=row["cassette_hash"],
            )

    def iter_trace_rows(
        self,
        run_id: int | None = None,
        *,
        case_key: str | None = None,
        yield_per: int = _BATCH,
        shard: tuple[int, int] | None = None,
        decode: bool = True,
    ) -> Iterator[dict[str, Any]]:
        """Like ``iter_traces`` but yields raw row dicts (body as decoded JSON; with
        ``decode=False`` as the stored JSON text, for a caller that decodes it elsewhere or only
        when needed)."""
        query = select(
            _T_TRACE.c.id,
            _T_TRACE.c.run_id,
            _T_TRACE.c.case_id,
            _T_TRACE.c.case_key,
            _T_TRACE.c.repetition,
            _T_TRACE.c.hash,
            # fetched as text and decoded row by row: drivers decode a whole fetch batch of
            # JSON(B) at once, and thousands of live bodies make the garbage collector the
            # bottleneck (psycopg: ~3x slower reads)
            cast(_T_TRACE.c.body, Text).label("body"),
            _T_TRACE.c.cassette_path,
            _T_TRACE.c.cassette_hash,
        ).order_by(_T_TRACE.c.id)
        if run_id is not None:
            query = query.where(_T_TRACE.c.run_id == run_id)
        if case_key is not None:
            query = query.where(_T_TRACE.c.case_key == case_key)
        if shard is not None:
            index, count = shard
            query = query.where(_T_TRACE.c.id % count == index)
        with self.engine.connect() as c:
            result = c.execution_options(stream_results=True, yield_per=yield_per).execute(query)
            for row in result.mappings():
                out = dict(row)
                if decode:
                    out["body"] = json.loads(out["body"])
                yield out

    # ------------------------------------------------------------------ rule sets

    def save_rule_set(self, rule_set: RuleSet, *, builtin: bool = False) -> int:
        """Store a rule set (idempotent by hash); a name@version reused for other content is refused."""
        digest = rule_set.hash
        with self.engine.begin() as c:
            same_ref = c.execute(
                select(_T_RULES.c.id, _T_RULES.c.hash).where(
                    _T_RULES.c.name == rule_set.name, _T_RULES.c.version == rule_set.version
                )
            ).first()
            if same_ref is not None:
                if same_ref.hash != digest:
                    raise ConflictError(
                        f"rule set {rule_set.ref} is already stored with different content; "
                        "rule sets are immutable, give the changed rules a new version"
                    )
                return int(same_ref.id)
            c.execute(
                self._insert_ignore(_T_RULES, ["hash"]),
                [
                    {
                        "name": rule_set.name,
                        "version": rule_set.version,
                        "hash": digest,
                        "builtin": builtin,
                        "body": rule_set.model_dump(mode="json"),
                        "created_at": utcnow(),
                    }
                ],
            )
            return int(
                c.execute(select(_T_RULES.c.id).where(_T_RULES.c.hash == digest)).scalar_one()
            )

    def get_rule_set(self, rule_set_id: int) -> RuleSet:
        with self.engine.connect() as c:
            body = c.execute(select(_T_RULES.c.body).where(_T_RULES.c.id == rule_set_id)).scalar()
        if body is None:
            raise NotFoundError(f"no rule set with id {rule_set_id}")
        return RuleSet.model_validate(body)

    # ------------------------------------------------------------------ evaluations

    def create_evaluation(
        self, *, run_id: int, tier: str, rule_set_id: int, engine_version: str
    ) -> int:
        with self.engine.begin() as c:
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
        with self.engine.begin() as c:
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

    def finish_evaluation(
        self,
        evaluation_id: int,
        *,
        summary: dict[str, Any],
        inputs_hash: str,
        status: str = "finished",
    ) -> None:
        with self.engine.begin() as c:
            c.execute(
                update(_T_EVAL)
                .where(_T_EVAL.c.id == evaluation_id)
                .values(
                    summary=summary, inputs_hash=inputs_hash, status=status, finished_at=utcnow()
                )
            )

    def get_evaluation(self, evaluation_id: int | str) -> EvaluationRecord:
        try:
            ident = int(evaluation_id)
        except (TypeError, ValueError):
            raise NotFoundError(
                f"evaluation ids are numbers, got {evaluation_id!r} (see `rejudge runs`)"
            ) from None
        with self.engine.connect() as c:
            row = c.execute(select(_T_EVAL).where(_T_EVAL.c.id == ident)).first()
        if row is None:
            raise NotFoundError(f"no evaluation {evaluation_id} in the store")
        return _evaluation_record(row)

    def list_evaluations(self, run_id: int | None = None) -> list[EvaluationRecord]:
        query = select(_T_EVAL).order_by(_T_EVAL.c.id)
        if run_id is not None:
            query = query.where(_T_EVAL.c.run_id == run_id)
        with self.engine.connect() as c:
            return [_evaluation_record(r) for r in c.execute(query).all()]

    def find_judgments(self, keys: Sequence[str]) -> dict[str, int]:
        """judgment key -> row id for the keys already judged (lookups, not new rows)."""
        found: dict[str, int] = {}
        with self.engine.connect() as c:
            for start in range(0, len(keys), _BATCH):
                chunk = list(keys[start : start + _BATCH])
                for r in c.execute(
                    select(_T_JUDG.c.key, _T_JUDG.c.id).where(_T_JUDG.c.key.in_(chunk))
                ):
                    found[r.key] = r.id
        return found

    def lookup_judgments(
        self, keys: Sequence[str], *, body_paths: Mapping[str, Sequence[str]] | None = None
    ) -> dict[str, dict[str, Any]]:
        """judgment key -> ``{"id", "verdict", "partial_score", "taxonomy"}`` (plus, under each
        label of ``body_paths``, the body's value at that path) for the keys already judged.

        What linking a judgment to an evaluation (and summarizing it) needs, without decoding
        its body: a re-judge of unchanged inputs is this one query per batch.
        """
        t = _T_JUDG.c
        path_cols, decode_paths = self._body_paths(t.body, body_paths)
        cols = [t.key, t.id, t.verdict, t.partial_score, cast(t.taxonomy, Text).label("taxonomy")]
        cols += path_cols
        found: dict[str, dict[str, Any]] = {}
        cache: dict[str, list[Any]] = {}
        with self.engine.connect() as c:
            for start in range(0, len(keys), _BATCH):
                chunk = list(keys[start : start + _BATCH])
                for r in c.execute(select(*cols).where(t.key.in_(chunk))):
                    out = {
                        "id": r[1],
                        "verdict": r[2],
                        "partial_score": r[3],
                        "taxonomy": _decode_small(r[4], cache),
                    }
                    if path_cols:
                        out.update(decode_paths(r[5:], cache))
                    found[r[0]] = out
        return found

    def save_judgments(self, judgments: Sequence[Judgment]) -> dict[str, int]:
        """Bulk insert-or-ignore judgments by key; returns key -> row id for all of them."""
        return self.save_judgment_rows([PreparedJudgment.of(j) for j in judgments])

    def save_judgment_rows(self, rows: Sequence[PreparedJudgment]) -> dict[str, int]:
        """Bulk insert-or-ignore judgments already serialized (see :class:`PreparedJudgment`,
        built where the judging happens, e.g. in a worker process); returns key -> row id for
        all of them. The body text is stored as given: it is not decoded and encoded again."""
        if not rows:
            return {}
        with self.engine.begin() as c:
            self._insert_judgment_rows(c, rows)
        return self.find_judgments([r.key for r in rows])

    def link_judgments(self, evaluation_id: int, links: Sequence[dict[str, Any]]) -> None:
        """Attach judgments to an evaluation. Each link: judgment_id, trace_id, case_key,
        repetition, dimension, category, verdict, partial_score."""
        self.save_and_link_judgments(evaluation_id, [], links)

    def save_and_link_judgments(
        self,
        evaluation_id: int,
        rows: Sequence[PreparedJudgment],
        links: Sequence[dict[str, Any]],
    ) -> None:
        """In one transaction: insert-or-ignore ``rows`` (see :meth:`save_judgment_rows`), then
        attach judgments to the evaluation. A link names its judgment by ``judgment_id`` or, for
        one of ``rows``, by ``judgment_key``; otherwise as in :meth:`link_judgments`."""
        with self.engine.begin() as c:
            if rows:
                self._insert_judgment_rows(c, rows)
            wanted = [link["judgment_key"] for link in links if "judgment_id" not in link]
            ids: dict[str, int] = {}
            for start in range(0, len(wanted), _BATCH):
                chunk = wanted[start : start + _BATCH]
                for r in c.execute(
                    select(_T_JUDG.c.key, _T_JUDG.c.id).where(_T_JUDG.c.key.in_(chunk))
                ):
                    ids[r.key] = r.id
            params = []
            for link in links:
                judgment_id = link.get("judgment_id")
                if judgment_id is None:
                    judgment_id = ids[link["judgment_key"]]
                params.append(
                    (
                        evaluation_id,
                        judgment_id,
                        link["trace_id"],
                        link["case_key"],
                        link["repetition"],
                        link["dimension"],
                        link["category"],
                        link["verdict"],
                        link["partial_score"],
                    )
                )
            if params:
                c.exec_driver_sql(
                    self._raw_insert_ignore(_T_EJ, _LINK_COLUMNS, ("evaluation_id", "trace_id")),
                    params,
                )

    def _insert_judgment_rows(self, c: Connection, rows: Sequence[PreparedJudgment]) -> None:
        # plain DBAPI executemany: every value is already a string or a number, the JSON columns
        # take the canonical text as is (no serializer runs), one timestamp for the batch
        created = _T_JUDG.c.created_at.type.dialect_impl(c.dialect).bind_processor(c.dialect)
        now: Any = utcnow()
        if created is not None:
            now = created(now)
        params = [
            (
                r.key,
                r.hash,
                r.trace_hash,
                r.case_hash,
                r.registry_hash,
                r.tier,
                r.rule_set_hash,
                r.engine_version,
                r.verdict,
                r.partial_score,
                r.taxonomy_json,
                r.body_json,
                now,
            )
            for r in rows
        ]
        c.exec_driver_sql(
            self._raw_insert_ignore(_T_JUDG, _JUDGMENT_COLUMNS, ("key",), {"taxonomy", "body"}),
            params,
        )

    def _raw_insert_ignore(
        self,
        table: Table,
        columns: Sequence[str],
        conflict: Sequence[str],
        json_columns: frozenset[str] | set[str] = frozenset(),
    ) -> str:
        """``INSERT ... ON CONFLICT (...) DO NOTHING`` in the driver's own parameter style, for
        ``exec_driver_sql`` with a list of tuples (JSON columns bound as text)."""
        pg = self.backend == "postgresql"
        mark = "%s" if pg else "?"
        marks = ", ".join(
            f"CAST({mark} AS JSONB)" if pg and col in json_columns else mark for col in columns
        )
        cols = ", ".join(f'"{col}"' for col in columns)
        keys = ", ".join(f'"{col}"' for col in conflict)
        return (
            f'INSERT INTO "{table.name}" ({cols}) VALUES ({marks}) ON CONFLICT ({keys}) DO NOTHING'
        )

    def iter_evaluation_rows(
        self,
        evaluation_id: int,
        *,
        with_body: bool = False,
        body_paths: Mapping[str, Sequence[str]] | None = None,
        yield_per: int = _BATCH,
    ) -> Iterator[dict[str, Any]]:
        """Stream an evaluation's per-trace rows (case order), optionally with judgment bodies.

        ``body_paths`` (label -> path of object keys) adds, under each label, the value at that
        path of the judgment body (None when absent), extracted by the database: a caller that
        needs two small fields does not decode every whole body.
        """
        cols = [
            _T_EJ.c.trace_id,
            _T_EJ.c.case_key,
            _T_EJ.c.repetition,
            _T_EJ.c.dimension,
            _T_EJ.c.category,
            _T_EJ.c.verdict,
            _T_EJ.c.partial_score,
            _T_JUDG.c.id.label("judgment_id"),
            _T_JUDG.c.key.label("judgment_key"),
            _T_JUDG.c.hash.label("judgment_hash"),
            cast(_T_JUDG.c.taxonomy, Text).label("taxonomy"),
            _T_JUDG.c.trace_hash,
            _T_JUDG.c.case_hash,
            _T_JUDG.c.registry_hash,
            _T_JUDG.c.rule_set_hash,
            _T_JUDG.c.engine_version,
            _T_JUDG.c.tier,
        ]
        if with_body:
            # as text, decoded row by row (see iter_trace_rows)
            cols.append(cast(_T_JUDG.c.body, Text).label("body"))
        path_cols, decode_paths = self._body_paths(_T_JUDG.c.body, body_paths)
        n_plain = len(cols)
        cols += path_cols
        query = (
            select(*cols)
            .join(_T_JUDG, _T_JUDG.c.id == _T_EJ.c.judgment_id)
            .where(_T_EJ.c.evaluation_id == evaluation_id)
            .order_by(_T_EJ.c.case_key, _T_EJ.c.repetition)
        )
        with self.engine.connect() as c:
            result = c.execution_options(stream_results=True, yield_per=yield_per).execute(query)
            names = list(result.keys())
            cache: dict[str, list[Any]] = {}
            # bodies (text) are decoded row by row as they are yielded, not a partition at a
            # time: thousands of live decoded bodies make the garbage collector ~3x slower
            for partition in result.partitions():
                for values in partition:
                    out = dict(zip(names[:n_plain], values[:n_plain], strict=True))
                    out["taxonomy"] = _decode_small(out["taxonomy"], cache)
                    if with_body:
                        out["body"] = json.loads(out["body"])
                    if path_cols:
                        out.update(decode_paths(values[n_plain:], cache))
                    yield out

    def _body_paths(
        self, column: Any, body_paths: Mapping[str, Sequence[str]] | None
    ) -> tuple[list[Any], Callable[[Sequence[Any], dict[str, list[Any]]], dict[str, Any]]]:
        """Columns selecting the JSON values at ``body_paths`` (label -> object keys) of a JSON
        column, and a decoder of those columns' values into ``{label: value or None}``.

        SQLite parses a body once for all paths (``json_extract`` with several paths returns
        one JSON array); PostgreSQL reads each path from the binary JSONB.
        """
        labels = list(body_paths or {})
        paths = [list(body_paths[label]) for label in labels]  # type: ignore[index]
        if any(not path for path in paths):
            raise InvalidInputError("a body path names at least one key")
        if not labels:
            return [], lambda _values, _cache: {}
        if self.backend == "postgresql":
            cols = [
                cast(func.jsonb_extract_path(column, *path), Text).label(f"path_{i}")
                for i, path in enumerate(paths)
            ]

            def each(values: Sequence[Any], cache: dict[str, list[Any]]) -> dict[str, Any]:
                return {
                    label: _decode_small(text, cache)
                    for label, text in zip(labels, values, strict=True)
                }

            return cols, each
        selectors = ["$" + "".join("." + json.dumps(str(k)) for k in path) for path in paths]
        if len(selectors) == 1:
            # one path: json_extract returns a bare SQL value for a string; quote it back
            one = func.json_quote(func.json_extract(column, selectors[0])).label("path_0")

            def single(values: Sequence[Any], cache: dict[str, list[Any]]) -> dict[str, Any]:
                return {labels[0]: _decode_small(values[0], cache)}

            return [one], single
        together = func.json_extract(column, *selectors).label("paths")

        def array(values: Sequence[Any], cache: dict[str, list[Any]]) -> dict[str, Any]:
            text = values[0]
            if text is None:
                return dict.fromkeys(labels)
            return dict(zip(labels, _decode_array(text, cache), strict=True))

        return [together], array

    # ------------------------------------------------------------------ baselines

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
        with self.engine.begin() as c:
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
        with self.engine.connect() as c:
            row = c.execute(select(_T_BASE).where(_T_BASE.c.name == name)).first()
        if row is None:
            raise NotFoundError(
                f"no baseline named {name!r} (lock one with `rejudge baseline lock`)"
            )
        return BaselineRecord(**row._mapping)

    def list_baselines(self) -> list[BaselineRecord]:
        with self.engine.connect() as c:
            rows = c.execute(select(_T_BASE).order_by(_T_BASE.c.id)).all()
        return [BaselineRecord(**r._mapping) for r in rows]

    # ------------------------------------------------------------------ plumbing

    def _conn(self, conn: Connection | None) -> Any:
        if conn is not None:
            return _Borrowed(conn)
        return self.engine.begin()


class _Borrowed:
    """Use a caller's connection inside ``with`` without committing or closing it."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def __enter__(self) -> Connection:
        return self.conn

    def __exit__(self, *exc: object) -> None:
        return None


def _run_differences(existing: Any, suite: SuiteRecord, config: RunConfig) -> str:
    """What keeps ``config`` on ``suite`` from resuming the stored run row ``existing``: each
    differing identity field with its stored and its new value, and a changed suite."""
    out: list[str] = []
    if existing.suite_id != suite.id:
        out.append(f"suite snapshot: stored {existing.suite_hash}, now {suite.hash}")
    stored = existing.config if isinstance(existing.config, dict) else {}
    new = config.model_dump(mode="json")
    for key in sorted(set(stored) | set(new)):
        if key in RunConfig.OPERATIONAL_FIELDS or stored.get(key) == new.get(key):
            continue
        out.append(f"{key}: stored {stored.get(key)!r}, now {new.get(key)!r}")
    if not out:  # a format change the field comparison cannot see
        out.append(f"configuration hash: stored {existing.config_hash}, now {config.identity_hash}")
    shown = "; ".join(out[:4])
    return shown + (f"; and {len(out) - 4} more" if len(out) > 4 else "")


def _suite_record(row: Any) -> SuiteRecord:
    m = row._mapping
    return SuiteRecord(**{**m, "meta": m["meta"] or {}})


def _run_record(row: Any) -> RunRecord:
    m = row._mapping
    return RunRecord(
        id=m["id"],
        name=m["name"],
        suite_id=m["suite_id"],
        registry_id=m["registry_id"],
        model=m["model"],
        provider=m["provider"],
        base_url=m["base_url"],
        harness_mode=m["harness_mode"],
        config=RunConfig.model_validate(m["config"]),
        config_hash=m["config_hash"],
        suite_hash=m["suite_hash"],
        registry_hash=m["registry_hash"],
        prompt_hash=m["prompt_hash"],
        status=m["status"],
        started_at=m["started_at"],
        finished_at=m["finished_at"],
    )


def _evaluation_record(row: Any) -> EvaluationRecord:
    m = row._mapping
    return EvaluationRecord(**{**m, "summary": m["summary"] or {}})
