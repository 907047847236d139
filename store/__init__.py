"""The store: its entry (:class:`Store`, which hands out one repository per concept:
``store.suites``, ``store.runs``, ``store.traces``, ``store.evaluations``, ``store.judgments``,
...), the engine factory and the migrations runner, the records and read models the
repositories hand out, and its errors.

The data model it persists (cases, traces, registries, judgments) and its hashing are
:mod:`rejudge.model`'s; this package holds all of rejudge's SQL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rejudge._lazy import lazy_exports

if TYPE_CHECKING:
    # the names this face exports, declared once (read by rejudge._lazy on first use), by theme
    # isort: off
    # the entry (its repositories are its attributes)
    from rejudge.store._store import Store as Store

    # the engine and the schema: connecting, migrating
    from rejudge.store._engine import DEFAULT_DB_URL as DEFAULT_DB_URL
    from rejudge.store._engine import make_engine as make_engine
    from rejudge.store._engine import redact_url as redact_url
    from rejudge.store._engine import backend_name as backend_name
    from rejudge.store._migrate import alembic_config as alembic_config
    from rejudge.store._migrate import upgrade as upgrade
    from rejudge.store._migrate import downgrade as downgrade
    from rejudge.store._migrate import current_revision as current_revision
    from rejudge.store._migrate import head_revision as head_revision
    from rejudge.store._migrate import ensure_schema as ensure_schema

    # the records the store hands out
    from rejudge.store._records import SuiteRecord as SuiteRecord
    from rejudge.store._records import RunRecord as RunRecord
    from rejudge.store._records import StoredTrace as StoredTrace
    from rejudge.store._records import EvaluationRecord as EvaluationRecord
    from rejudge.store._records import BaselineRecord as BaselineRecord
    from rejudge.store._reviews import MAX_REVIEWER_LENGTH as MAX_REVIEWER_LENGTH
    from rejudge.store._reviews import NewReview as NewReview
    from rejudge.store._reviews import JudgmentContext as JudgmentContext
    from rejudge.store._reviews import TraceJudgment as TraceJudgment
    from rejudge.store._reviews import ReviewJson as ReviewJson
    from rejudge.store._reviews import ReviewRecord as ReviewRecord
    from rejudge.store._reviews import check_reviewer as check_reviewer
    from rejudge.store._external import StoredExternalVerdict as StoredExternalVerdict
    from rejudge.store._traces import StreamedTrace as StreamedTrace
    from rejudge.store._anomalies import TraceAnomalies as TraceAnomalies
    from rejudge.store._judgment_rows import KnownJudgment as KnownJudgment
    from rejudge.store._judgment_rows import JudgmentLink as JudgmentLink
    from rejudge.store._judgment_rows import EvaluatedTrace as EvaluatedTrace
    from rejudge.store._judgment_rows import JudgmentBody as JudgmentBody

    # the read models (the dashboard's aggregates, as named tuples)
    from rejudge.store._catalog_reads import FilterOptions as FilterOptions
    from rejudge.store._catalog_reads import RunSummary as RunSummary
    from rejudge.store._catalog_reads import EvaluationSummary as EvaluationSummary
    from rejudge.store._catalog_reads import BaselineSummary as BaselineSummary
    from rejudge.store._catalog_reads import TrendPoint as TrendPoint
    from rejudge.store._catalog_reads import PartialBucket as PartialBucket
    from rejudge.store._evaluation_reads import GroupCounts as GroupCounts
    from rejudge.store._evaluation_reads import PairGroups as PairGroups
    from rejudge.store._evaluation_reads import ReportCounts as ReportCounts
    from rejudge.store._evaluation_reads import PassCell as PassCell
    from rejudge.store._evaluation_reads import CasePasses as CasePasses
    from rejudge.store._pairing_reads import PairCounts as PairCounts
    from rejudge.store._pairing_reads import PairGroup as PairGroup
    from rejudge.store._pairing_reads import PairedJudgment as PairedJudgment
    from rejudge.store._pairing_reads import DiscordantPair as DiscordantPair
    from rejudge.store._pairing_reads import PAIRING_FIELDS as PAIRING_FIELDS
    from rejudge.store._run_reads import TraceRowSummary as TraceRowSummary
    from rejudge.store._run_reads import RunUsage as RunUsage
    from rejudge.store._run_reads import TraceUsage as TraceUsage
    from rejudge.store._runs import RunListing as RunListing
    from rejudge.store._staging import STAGED_RUN_STATUS as STAGED_RUN_STATUS
    from rejudge.store._staging import STAGED_SUITE_PREFIX as STAGED_SUITE_PREFIX
    from rejudge.store._trace_reads import TraceListing as TraceListing
    from rejudge.store._trace_reads import TraceDetail as TraceDetail
    from rejudge.store._trace_reads import RunProgress as RunProgress
    from rejudge.store._trace_reads import PendingCase as PendingCase
    from rejudge.store._trace_reads import RecentTrace as RecentTrace

    # the tables' declarative base: its metadata is what Alembic's environment compares
    from rejudge.store._tables import Base as Base

    # the store's errors (defined in rejudge.errors)
    from rejudge.store._errors import RejudgeError as RejudgeError
    from rejudge.store._errors import StoreError as StoreError
    from rejudge.store._errors import DatabaseURLError as DatabaseURLError
    from rejudge.store._errors import DatabaseUnavailableError as DatabaseUnavailableError
    from rejudge.store._errors import SchemaVersionError as SchemaVersionError
    from rejudge.store._errors import NotFoundError as NotFoundError
    from rejudge.store._errors import ConflictError as ConflictError
    from rejudge.store._errors import InvalidInputError as InvalidInputError
    # isort: on


__getattr__, __dir__ = lazy_exports(__name__)
