"""SQLAlchemy tables (typed ORM declarative style; queries use Core ``select``/``insert``).

Bodies are kept as JSON (JSONB on PostgreSQL) next to the indexed columns that queries filter
and aggregate on. Every change here needs an Alembic revision in ``migrations/versions``; a test
checks that autogenerate finds nothing to add.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    func,
    literal_column,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = ["Base"]

JSONType = JSON().with_variant(JSONB(), "postgresql")

# stable constraint names so migrations are identical on every backend
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map = {dict[str, Any]: JSONType, list[Any]: JSONType}


Hash = String(80)


class RegistryRow(Base):
    __tablename__ = "tool_registries"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    hash: Mapped[str] = mapped_column(Hash, unique=True)
    domain: Mapped[str] = mapped_column(String(200))
    version: Mapped[str] = mapped_column(String(50))
    body: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class SuiteRow(Base):
    """An immutable suite snapshot; editing a case makes a new snapshot with a new hash."""

    __tablename__ = "suites"
    __table_args__ = (UniqueConstraint("name", "hash"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), index=True)
    hash: Mapped[str] = mapped_column(Hash)
    domain: Mapped[str] = mapped_column(String(200))
    format_version: Mapped[int] = mapped_column(Integer)
    registry_id: Mapped[int] = mapped_column(ForeignKey("tool_registries.id"))
    case_count: Mapped[int] = mapped_column(Integer)
    meta: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CaseRow(Base):
    __tablename__ = "cases"
    __table_args__ = (UniqueConstraint("suite_id", "case_key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    suite_id: Mapped[int] = mapped_column(ForeignKey("suites.id", ondelete="CASCADE"))
    case_key: Mapped[str] = mapped_column(String(200))
    hash: Mapped[str] = mapped_column(Hash, index=True)
    position: Mapped[int] = mapped_column(Integer)
    dimension: Mapped[str] = mapped_column(String(50))
    category: Mapped[str] = mapped_column(String(200))
    body: Mapped[dict[str, Any]]


class RunRow(Base):
    __tablename__ = "runs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    suite_id: Mapped[int] = mapped_column(ForeignKey("suites.id"))
    registry_id: Mapped[int] = mapped_column(ForeignKey("tool_registries.id"))
    model: Mapped[str] = mapped_column(String(300))
    provider: Mapped[str] = mapped_column(String(50))
    base_url: Mapped[str | None] = mapped_column(String(500))
    harness_mode: Mapped[str] = mapped_column(String(50))
    config: Mapped[dict[str, Any]]
    config_hash: Mapped[str] = mapped_column(Hash)
    suite_hash: Mapped[str] = mapped_column(Hash)
    registry_hash: Mapped[str] = mapped_column(Hash)
    prompt_hash: Mapped[str | None] = mapped_column(Hash)
    status: Mapped[str] = mapped_column(String(30), default="running")
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # the case ids the latest recording planned when it recorded a subset (None: the suite)
    planned_cases: Mapped[list[Any] | None]


class TraceRow(Base):
    __tablename__ = "traces"
    __table_args__ = (UniqueConstraint("run_id", "case_key", "repetition"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    case_id: Mapped[int] = mapped_column(ForeignKey("cases.id"))
    case_key: Mapped[str] = mapped_column(String(200))
    repetition: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(30))
    hash: Mapped[str] = mapped_column(Hash, index=True)
    # the hash of what judging reads (rejudge.model.behaviour_hash): repeated trials that
    # behaved alike share it; None only for a row a bulk loader wrote without it
    behaviour_hash: Mapped[str | None] = mapped_column(Hash)
    round_count: Mapped[int] = mapped_column(Integer)
    call_count: Mapped[int] = mapped_column(Integer)
    body: Mapped[dict[str, Any]]
    cassette_path: Mapped[str | None] = mapped_column(String(1000))
    cassette_hash: Mapped[str | None] = mapped_column(Hash)
    normalizer_version: Mapped[str | None] = mapped_column(String(50))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CallRow(Base):
    """One row per tool call, so tool-level aggregates are plain SQL."""

    __tablename__ = "trace_calls"
    __table_args__ = (Index("ix_trace_calls_trace_round", "trace_id", "round_index", "call_index"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    trace_id: Mapped[int] = mapped_column(ForeignKey("traces.id", ondelete="CASCADE"))
    round_index: Mapped[int] = mapped_column(Integer)
    call_index: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(300), index=True)
    ok: Mapped[bool | None]
    parse_error: Mapped[bool] = mapped_column(default=False)


class RuleSetRow(Base):
    __tablename__ = "rule_sets"
    __table_args__ = (UniqueConstraint("name", "version"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    version: Mapped[str] = mapped_column(String(50))
    hash: Mapped[str] = mapped_column(Hash, unique=True)
    builtin: Mapped[bool] = mapped_column(default=False)
    body: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class EvaluationRow(Base):
    __tablename__ = "evaluations"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    tier: Mapped[str] = mapped_column(String(50))
    rule_set_id: Mapped[int] = mapped_column(ForeignKey("rule_sets.id"))
    engine_version: Mapped[str] = mapped_column(String(50))
    # hash over every input (trace, case, registry hashes, tier, rules, engine)
    inputs_hash: Mapped[str | None] = mapped_column(Hash, index=True)
    status: Mapped[str] = mapped_column(String(30), default="running")
    summary: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class JudgmentBodyRow(Base):
    """A judgment's body without its ``trace_hash``, stored once however many judgments share
    it: every repeated trial that behaved alike is judged into the same body but for the trace
    hash, which its judgment row carries (see ``rejudge.model._judgment_text``)."""

    __tablename__ = "judgment_bodies"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # sha256 of the stored text (not a judgment's hash: that one covers its trace hash too)
    hash: Mapped[str] = mapped_column(Hash, unique=True)
    body: Mapped[dict[str, Any]]


class JudgmentRow(Base):
    """A judgment, unique by its inputs; evaluations point at judgments through a link table.
    Its body is ``judgment_bodies.body`` (shared) with ``trace_hash`` put back."""

    __tablename__ = "judgments"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(Hash, unique=True)
    hash: Mapped[str] = mapped_column(Hash)
    # indexed by a prefix only (ix_judgments_trace_hash_prefix, below)
    trace_hash: Mapped[str] = mapped_column(Hash)
    case_hash: Mapped[str] = mapped_column(Hash)
    registry_hash: Mapped[str] = mapped_column(Hash)
    tier: Mapped[str] = mapped_column(String(50))
    rule_set_hash: Mapped[str] = mapped_column(Hash)
    engine_version: Mapped[str] = mapped_column(String(50))
    verdict: Mapped[str] = mapped_column(String(20))
    partial_score: Mapped[float | None] = mapped_column(Float)
    taxonomy: Mapped[list[Any]]
    # copied out of the body, like the verdict, score and taxonomy: what a report aggregates,
    # read without parsing every body (SQLite parses a 1.3 KB body per row to extract a path)
    anomalies: Mapped[list[Any] | None]
    implicated_tools: Mapped[list[Any] | None]
    # judgment_bodies.id, always set by the store (read back in the transaction that writes
    # the row; nothing deletes a body). Nullable and without a database-level foreign key so
    # that SQLite adds and drops it in place (migration 0101 says why a rebuild is unsafe)
    body_id: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


#: where a trace hash's indexed prefix starts (1-based, after ``sha256:``) and its length
TRACE_HASH_PREFIX_AT, TRACE_HASH_PREFIX_LEN = 8, 8


def trace_hash_prefix(column: Any) -> Any:
    """``substr(column, 8, 8)``: what ``ix_judgments_trace_hash_prefix`` indexes. The numbers
    are written into the statement, not bound: an expression index serves the same expression
    only, and a PostgreSQL generic plan (psycopg prepares a statement run 5 times) does not
    know a bound parameter's value (SQLite compares it)."""
    return func.substr(
        column,
        literal_column(str(TRACE_HASH_PREFIX_AT)),
        literal_column(str(TRACE_HASH_PREFIX_LEN)),
    )


def trace_hash_prefix_of(trace_hash: str) -> str:
    """The same prefix computed here (``substr`` counts characters from 1)."""
    return trace_hash[TRACE_HASH_PREFIX_AT - 1 : TRACE_HASH_PREFIX_AT - 1 + TRACE_HASH_PREFIX_LEN]


# Only a review's resolution looks judgments up by trace hash (store.reviews.trace_judgments),
# and every judging writes this index a row per judgment: on its random 71-character keys the
# index outgrew the page cache and doubled a judgment's insert cost (bench/README.md, "Issue 40
# item 7"). Its 8 hex digits are as selective for that lookup (the full hash is checked in
# the query) in a ninth of the key. It cannot be a join through traces.hash: renormalizing a
# trace rewrites its hash in place, and older links must still find the old hash's judgments.
Index("ix_judgments_trace_hash_prefix", trace_hash_prefix(JudgmentRow.__table__.c.trace_hash))


class EvaluationJudgmentRow(Base):
    __tablename__ = "evaluation_judgments"
    __table_args__ = (
        UniqueConstraint("evaluation_id", "trace_id"),
        # the dimension too: each side's verdicts per dimension, counted by every comparison,
        # are read from the index alone (migration 0107)
        Index("ix_evaluation_judgments_eval_verdict", "evaluation_id", "verdict", "dimension"),
        # two evaluations paired on (case, repetition): B's link of A's key is one search, its
        # verdict and judgment read from the index (store._pairing_reads; migration 0106)
        Index(
            "ix_evaluation_judgments_pair",
            "evaluation_id",
            "case_key",
            "repetition",
            "verdict",
            "judgment_id",
        ),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    evaluation_id: Mapped[int] = mapped_column(ForeignKey("evaluations.id", ondelete="CASCADE"))
    judgment_id: Mapped[int] = mapped_column(ForeignKey("judgments.id"))
    trace_id: Mapped[int] = mapped_column(ForeignKey("traces.id", ondelete="CASCADE"))
    case_key: Mapped[str] = mapped_column(String(200))
    repetition: Mapped[int] = mapped_column(Integer)
    dimension: Mapped[str] = mapped_column(String(50))
    category: Mapped[str] = mapped_column(String(200))
    # copied from the judgment so aggregates need no join
    verdict: Mapped[str] = mapped_column(String(20))
    partial_score: Mapped[float | None] = mapped_column(Float)


class BaselineRow(Base):
    __tablename__ = "baselines"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    evaluation_id: Mapped[int] = mapped_column(ForeignKey("evaluations.id"))
    report_hash: Mapped[str] = mapped_column(Hash)
    input_hashes: Mapped[dict[str, Any]]
    report: Mapped[dict[str, Any]]
    note: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ReviewRow(Base):
    """A person's label on a judgment. Append-only: a new label is a new row (the history stays);
    several reviewers may label the same judgment; "latest per reviewer" is a query.

    ``evaluation_id`` is the evaluation the reviewer was looking at (a judgment is shared by every
    evaluation of the same inputs). ``resolved_at``/``resolution`` are filled once, when the
    problem a label reports is fixed; they are never overwritten.
    """

    __tablename__ = "reviews"
    __table_args__ = (Index("ix_reviews_judgment_reviewer", "judgment_id", "reviewer"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    judgment_id: Mapped[int] = mapped_column(ForeignKey("judgments.id", ondelete="CASCADE"))
    evaluation_id: Mapped[int | None] = mapped_column(
        ForeignKey("evaluations.id", ondelete="SET NULL"), index=True
    )
    label: Mapped[str] = mapped_column(String(20))
    reviewer: Mapped[str] = mapped_column(String(200))
    note: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    resolved_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    resolution: Mapped[str | None] = mapped_column(Text)


class ExternalVerdictRow(Base):
    """Another harness's score of a stored trace (τ-bench's reward, an Inspect AI scorer).

    One row per (trace, source): the outside verdict rejudge's own verdicts are compared with.
    ``value`` is a number in [0, 1] (1 is a success); ``detail`` keeps the source's own record
    of it (its reward breakdown, its scorer's explanation).
    """

    __tablename__ = "external_verdicts"
    __table_args__ = (UniqueConstraint("trace_id", "source"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    trace_id: Mapped[int] = mapped_column(ForeignKey("traces.id", ondelete="CASCADE"))
    source: Mapped[str] = mapped_column(String(100), index=True)
    value: Mapped[float] = mapped_column(Float)
    detail: Mapped[dict[str, Any] | None]
    # the version of the source that gave the verdict (τ-bench's reward changed between its
    # versions); null when not known (every verdict stored before migration 0103)
    version: Mapped[str | None] = mapped_column(String(100), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class TraceAnomalyRow(Base):
    """What an importer could not read right in one trace of a file it imported (``otel``,
    ``langfuse``, ``chat-jsonl``), one row per trace that has any, written in the transaction
    of the trace's batch: a big file's anomalies are never held whole, in memory or in the run's
    config (which held them before revision 0104, and still does for runs imported then)."""

    __tablename__ = "trace_anomalies"
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)
    case_key: Mapped[str] = mapped_column(String(200), primary_key=True)
    # the trace's place in the file's order: what "the first N" of a run's anomalies means
    position: Mapped[int] = mapped_column(Integer)
    anomalies: Mapped[list[Any]]


# every table as the Core handle the repositories write their queries on: one typed name per
# table, for every module (the ORM types __table__ as a FromClause)
_T_REG: Table = RegistryRow.__table__  # type: ignore[assignment]
_T_SUITE: Table = SuiteRow.__table__  # type: ignore[assignment]
_T_CASE: Table = CaseRow.__table__  # type: ignore[assignment]
_T_RUN: Table = RunRow.__table__  # type: ignore[assignment]
_T_TRACE: Table = TraceRow.__table__  # type: ignore[assignment]
_T_CALL: Table = CallRow.__table__  # type: ignore[assignment]
_T_RULES: Table = RuleSetRow.__table__  # type: ignore[assignment]
_T_EVAL: Table = EvaluationRow.__table__  # type: ignore[assignment]
_T_BODY: Table = JudgmentBodyRow.__table__  # type: ignore[assignment]
_T_JUDG: Table = JudgmentRow.__table__  # type: ignore[assignment]
_T_EJ: Table = EvaluationJudgmentRow.__table__  # type: ignore[assignment]
_T_BASE: Table = BaselineRow.__table__  # type: ignore[assignment]
_T_REV: Table = ReviewRow.__table__  # type: ignore[assignment]
_T_EXT: Table = ExternalVerdictRow.__table__  # type: ignore[assignment]
_T_ANOM: Table = TraceAnomalyRow.__table__  # type: ignore[assignment]
