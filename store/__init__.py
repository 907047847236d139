"""The store: data model, hashing, engine factory, migrations runner and repository."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rejudge._lazy import lazy_exports

if TYPE_CHECKING:
    # the data model, its hashing and the Store as a type checker sees them (at run time the
    # lazy table below imports them on first use)
    from rejudge.store._errors import ConflictError as ConflictError
    from rejudge.store._errors import DatabaseUnavailableError as DatabaseUnavailableError
    from rejudge.store._errors import DatabaseURLError as DatabaseURLError
    from rejudge.store._errors import InvalidInputError as InvalidInputError
    from rejudge.store._errors import NotFoundError as NotFoundError
    from rejudge.store._errors import RejudgeError as RejudgeError
    from rejudge.store._errors import SchemaVersionError as SchemaVersionError
    from rejudge.store._errors import StoreError as StoreError
    from rejudge.store._hashing import HASH_ALGORITHM as HASH_ALGORITHM
    from rejudge.store._hashing import NOT_BEHAVIOUR as NOT_BEHAVIOUR
    from rejudge.store._hashing import behaviour_hash as behaviour_hash
    from rejudge.store._hashing import canonical_json as canonical_json
    from rejudge.store._hashing import content_hash as content_hash
    from rejudge.store._hashing import hash_bytes as hash_bytes
    from rejudge.store._repository import Store as Store
    from rejudge.store._schemas import CASE_FORMAT_VERSION as CASE_FORMAT_VERSION
    from rejudge.store._schemas import EXTERNAL_PASS_AT as EXTERNAL_PASS_AT
    from rejudge.store._schemas import HARNESS_MODES as HARNESS_MODES
    from rejudge.store._schemas import JUDGMENT_FORMAT_VERSION as JUDGMENT_FORMAT_VERSION
    from rejudge.store._schemas import REGISTRY_FORMAT_VERSION as REGISTRY_FORMAT_VERSION
    from rejudge.store._schemas import REVIEW_LABELS as REVIEW_LABELS
    from rejudge.store._schemas import RULE_SET_FORMAT_VERSION as RULE_SET_FORMAT_VERSION
    from rejudge.store._schemas import TRACE_FORMAT_VERSION as TRACE_FORMAT_VERSION
    from rejudge.store._schemas import VERDICTS as VERDICTS
    from rejudge.store._schemas import Alternative as Alternative
    from rejudge.store._schemas import Case as Case
    from rejudge.store._schemas import ExternalVerdict as ExternalVerdict
    from rejudge.store._schemas import Golden as Golden
    from rejudge.store._schemas import GoldenCall as GoldenCall
    from rejudge.store._schemas import HarnessAssistance as HarnessAssistance
    from rejudge.store._schemas import HarnessMode as HarnessMode
    from rejudge.store._schemas import Judgment as Judgment
    from rejudge.store._schemas import ParamRule as ParamRule
    from rejudge.store._schemas import Round as Round
    from rejudge.store._schemas import RuleSet as RuleSet
    from rejudge.store._schemas import RunConfig as RunConfig
    from rejudge.store._schemas import ServerToolUse as ServerToolUse
    from rejudge.store._schemas import ToolCall as ToolCall
    from rejudge.store._schemas import ToolRegistry as ToolRegistry
    from rejudge.store._schemas import ToolSpec as ToolSpec
    from rejudge.store._schemas import Trace as Trace
    from rejudge.store._schemas import TraceError as TraceError
    from rejudge.store._schemas import TraceStatus as TraceStatus
    from rejudge.store._schemas import UserTurn as UserTurn
    from rejudge.store._schemas import Verdict as Verdict
    from rejudge.store._schemas import WorldRef as WorldRef
    from rejudge.store._schemas import judgment_key as judgment_key
    from rejudge.store._schemas import normalize_label as normalize_label

# public name -> the private module that defines it (each module's __all__;
# tests/test_public_api.py keeps this table complete)
_EXPORTS: dict[str, str] = {
    "ReviewStoreMixin": "rejudge.store._reviews",
    "BATCH": "rejudge.store._batching",
    "chunks": "rejudge.store._batching",
    "BaselineSummary": "rejudge.store._catalog_reads",
    "EvaluationSummary": "rejudge.store._catalog_reads",
    "FilterOptions": "rejudge.store._catalog_reads",
    "PartialBucket": "rejudge.store._catalog_reads",
    "RunSummary": "rejudge.store._catalog_reads",
    "TrendPoint": "rejudge.store._catalog_reads",
    "CatalogReadsMixin": "rejudge.store._catalog_reads",
    "Coverage": "rejudge.store._comparison_reads",
    "FLIP_DIRECTIONS": "rejudge.store._comparison_reads",
    "Flip": "rejudge.store._comparison_reads",
    "PairCounts": "rejudge.store._comparison_reads",
    "ComparisonReadsMixin": "rejudge.store._comparison_reads",
    "DEFAULT_DB_URL": "rejudge.store._engine",
    "backend_name": "rejudge.store._engine",
    "make_engine": "rejudge.store._engine",
    "redact_url": "rejudge.store._engine",
    "ConflictError": "rejudge.store._errors",
    "DatabaseURLError": "rejudge.store._errors",
    "DatabaseUnavailableError": "rejudge.store._errors",
    "InvalidInputError": "rejudge.store._errors",
    "NotFoundError": "rejudge.store._errors",
    "RejudgeError": "rejudge.store._errors",
    "SchemaVersionError": "rejudge.store._errors",
    "StoreError": "rejudge.store._errors",
    "CasePasses": "rejudge.store._evaluation_reads",
    "GroupSummary": "rejudge.store._evaluation_reads",
    "PassCell": "rejudge.store._evaluation_reads",
    "EvaluationReadsMixin": "rejudge.store._evaluation_reads",
    "HASH_ALGORITHM": "rejudge.store._hashing",
    "behaviour_hash": "rejudge.store._hashing",
    "canonical_json": "rejudge.store._hashing",
    "content_hash": "rejudge.store._hashing",
    "hash_bytes": "rejudge.store._hashing",
    "IngestReadsMixin": "rejudge.store._ingest",
    "JudgmentStoreMixin": "rejudge.store._judgments",
    "alembic_config": "rejudge.store._migrate",
    "current_revision": "rejudge.store._migrate",
    "downgrade": "rejudge.store._migrate",
    "ensure_schema": "rejudge.store._migrate",
    "head_revision": "rejudge.store._migrate",
    "upgrade": "rejudge.store._migrate",
    "BaselineRecord": "rejudge.store._records",
    "EvaluationRecord": "rejudge.store._records",
    "PreparedJudgment": "rejudge.store._records",
    "RunRecord": "rejudge.store._records",
    "StoredTrace": "rejudge.store._records",
    "SuiteRecord": "rejudge.store._records",
    "evaluation_record_from_row": "rejudge.store._records",
    "run_differences": "rejudge.store._records",
    "text_hash": "rejudge.store._records",
    "run_record_from_row": "rejudge.store._records",
    "suite_record_from_row": "rejudge.store._records",
    "Store": "rejudge.store._repository",
    "MAX_REVIEWER_LENGTH": "rejudge.store._reviews",
    "NewReview": "rejudge.store._reviews",
    "REVIEW_LABELS": "rejudge.store._schemas",
    "ReviewRecord": "rejudge.store._reviews",
    "check_reviewer": "rejudge.store._reviews",
    "CASE_FORMAT_VERSION": "rejudge.store._schemas",
    "Case": "rejudge.store._schemas",
    "Golden": "rejudge.store._schemas",
    "GoldenCall": "rejudge.store._schemas",
    "HARNESS_MODES": "rejudge.store._schemas",
    "HarnessAssistance": "rejudge.store._schemas",
    "HarnessMode": "rejudge.store._schemas",
    "JUDGMENT_FORMAT_VERSION": "rejudge.store._schemas",
    "Judgment": "rejudge.store._schemas",
    "ExternalVerdict": "rejudge.store._schemas",
    "EXTERNAL_PASS_AT": "rejudge.store._schemas",
    "ExternalVerdictRow": "rejudge.store._tables",
    "ExternalVerdictStoreMixin": "rejudge.store._external",
    "StoredExternalVerdict": "rejudge.store._external",
    "ParamRule": "rejudge.store._schemas",
    "REGISTRY_FORMAT_VERSION": "rejudge.store._schemas",
    "RULE_SET_FORMAT_VERSION": "rejudge.store._schemas",
    "Round": "rejudge.store._schemas",
    "ServerToolUse": "rejudge.store._schemas",
    "Alternative": "rejudge.store._schemas",
    "UserTurn": "rejudge.store._schemas",
    "RuleSet": "rejudge.store._schemas",
    "RunConfig": "rejudge.store._schemas",
    "TRACE_FORMAT_VERSION": "rejudge.store._schemas",
    "ToolCall": "rejudge.store._schemas",
    "ToolRegistry": "rejudge.store._schemas",
    "WorldRef": "rejudge.store._schemas",
    "ToolSpec": "rejudge.store._schemas",
    "Trace": "rejudge.store._schemas",
    "TraceError": "rejudge.store._schemas",
    "TraceStatus": "rejudge.store._schemas",
    "VERDICTS": "rejudge.store._schemas",
    "Verdict": "rejudge.store._schemas",
    "judgment_key": "rejudge.store._schemas",
    "normalize_label": "rejudge.store._schemas",
    "Base": "rejudge.store._tables",
    "BaselineRow": "rejudge.store._tables",
    "CallRow": "rejudge.store._tables",
    "CaseRow": "rejudge.store._tables",
    "EvaluationJudgmentRow": "rejudge.store._tables",
    "EvaluationRow": "rejudge.store._tables",
    "JSONType": "rejudge.store._tables",
    "JudgmentBodyRow": "rejudge.store._tables",
    "JudgmentRow": "rejudge.store._tables",
    "JudgmentTemplate": "rejudge.store._judgment_text",
    "join_judgment_text": "rejudge.store._judgment_text",
    "put_trace_hash": "rejudge.store._judgment_text",
    "split_judgment_text": "rejudge.store._judgment_text",
    "NOT_BEHAVIOUR": "rejudge.store._hashing",
    "RegistryRow": "rejudge.store._tables",
    "ReviewRow": "rejudge.store._tables",
    "RuleSetRow": "rejudge.store._tables",
    "RunRow": "rejudge.store._tables",
    "SuiteRow": "rejudge.store._tables",
    "TraceRow": "rejudge.store._tables",
    "utcnow": "rejudge.store._tables",
    "PendingCase": "rejudge.store._trace_reads",
    "RecentTrace": "rejudge.store._trace_reads",
    "RunProgress": "rejudge.store._trace_reads",
    "TraceDetail": "rejudge.store._trace_reads",
    "TraceListing": "rejudge.store._trace_reads",
    "TraceReadsMixin": "rejudge.store._trace_reads",
    "RunReadsMixin": "rejudge.store._run_reads",
    "RunUsage": "rejudge.store._run_reads",
    "TraceRowSummary": "rejudge.store._run_reads",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
