"""Importing, in one place: every way another program's evidence becomes a run.

One module per importer (``_cassettes.py``, ``_inspect.py``, ``_bfcl_results.py``,
``_tau_bench.py``, ``_otel.py``, ``_chat_jsonl.py``, ``_langfuse.py``), each one :class:`Importer` registered at its
bottom: it *detects* a path (a :class:`Detection`, confidence and reason, from the
:class:`Sniff` every detector shares), then *reads* it into the trace model and stores the run
through :func:`rejudge.services.ingest_run`, the one path to a stored trace. The contract is
:mod:`._contract`; ``rejudge import FILE`` picks the importer with :func:`detect_importer`.
docs/architecture.md has the recipe for adding one.

    from rejudge.importers import detect_importer
    found = detect_importer("spans.json")   # found.importer.name == "otel"
    result = found.importer(store, "spans.json")
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rejudge._lazy import lazy_exports

if TYPE_CHECKING:
    # the names this face exports, declared once (read by rejudge._lazy on first use)
    from rejudge.importers._bfcl_read import NORMALIZER_VERSION as NORMALIZER_VERSION
    from rejudge.importers._bfcl_read import CategoryResults as CategoryResults
    from rejudge.importers._bfcl_read import category_of as category_of
    from rejudge.importers._bfcl_read import decode_result as decode_result
    from rejudge.importers._bfcl_read import plan_results as plan_results
    from rejudge.importers._bfcl_read import read_results as read_results
    from rejudge.importers._bfcl_read import result_traces as result_traces
    from rejudge.importers._bfcl_read import results_hash as results_hash
    from rejudge.importers._bfcl_read import score_file_path as score_file_path
    from rejudge.importers._bfcl_read import score_files as score_files
    from rejudge.importers._bfcl_read import trace_from_result as trace_from_result
    from rejudge.importers._bfcl_results import BfclResultImport as BfclResultImport
    from rejudge.importers._bfcl_results import import_bfcl as import_bfcl
    from rejudge.importers._bfcl_results import import_bfcl_results as import_bfcl_results
    from rejudge.importers._bfcl_schema import CATEGORIES as CATEGORIES
    from rejudge.importers._bfcl_schema import CategoryInfo as CategoryInfo
    from rejudge.importers._bfcl_schema import checker_kind as checker_kind
    from rejudge.importers._bfcl_schema import convert_parameters as convert_parameters
    from rejudge.importers._bfcl_schema import render_value as render_value
    from rejudge.importers._bfcl_schema import representative_call as representative_call
    from rejudge.importers._bfcl_schema import signature as signature
    from rejudge.importers._bfcl_schema import suite_name as suite_name
    from rejudge.importers._bfcl_schema import wire_name as wire_name
    from rejudge.importers._bfcl_suite import BfclError as BfclError
    from rejudge.importers._bfcl_suite import BfclNotInstalledError as BfclNotInstalledError
    from rejudge.importers._bfcl_suite import ImportedSuite as ImportedSuite
    from rejudge.importers._bfcl_suite import bfcl_categories as bfcl_categories
    from rejudge.importers._bfcl_suite import bfcl_data_dir as bfcl_data_dir
    from rejudge.importers._bfcl_suite import bfcl_version as bfcl_version
    from rejudge.importers._bfcl_suite import build_suite as build_suite
    from rejudge.importers._bfcl_suite import imported_suite as imported_suite
    from rejudge.importers._bfcl_suite import read_jsonl as read_jsonl
    from rejudge.importers._bfcl_suite import suite_meta as suite_meta
    from rejudge.importers._cassettes import ImportResult as ImportResult
    from rejudge.importers._cassettes import import_cassettes as import_cassettes
    from rejudge.importers._chat_jsonl import CHAT_JSONL_SOURCE as CHAT_JSONL_SOURCE
    from rejudge.importers._chat_jsonl import ChatFile as ChatFile
    from rejudge.importers._chat_jsonl import ChatImportResult as ChatImportResult
    from rejudge.importers._chat_jsonl import ChatLine as ChatLine
    from rejudge.importers._chat_jsonl import import_chat_jsonl as import_chat_jsonl
    from rejudge.importers._chat_jsonl import iter_chat as iter_chat
    from rejudge.importers._chat_jsonl import read_chat as read_chat
    from rejudge.importers._contract import Detect as Detect
    from rejudge.importers._contract import Importer as Importer
    from rejudge.importers._contract import Rederive as Rederive
    from rejudge.importers._contract import ReplaySource as ReplaySource
    from rejudge.importers._contract import get_importer as get_importer
    from rejudge.importers._contract import importer_names as importer_names
    from rejudge.importers._contract import importer_rows as importer_rows
    from rejudge.importers._contract import register_importer as register_importer
    from rejudge.importers._contract import replay_source as replay_source
    from rejudge.importers._conversation import Conversation as Conversation
    from rejudge.importers._conversation import conversation_trace as conversation_trace
    from rejudge.importers._detect import Detected as Detected
    from rejudge.importers._detect import DetectedImport as DetectedImport
    from rejudge.importers._detect import NoImporterError as NoImporterError
    from rejudge.importers._detect import detect_all as detect_all
    from rejudge.importers._detect import detect_importer as detect_importer
    from rejudge.importers._detect import import_detected as import_detected
    from rejudge.importers._inspect import InspectImportResult as InspectImportResult
    from rejudge.importers._inspect import import_inspect as import_inspect
    from rejudge.importers._inspect_log import SUPPORTED_LOG_VERSIONS as SUPPORTED_LOG_VERSIONS
    from rejudge.importers._inspect_log import InspectLog as InspectLog
    from rejudge.importers._inspect_log import InspectLogError as InspectLogError
    from rejudge.importers._inspect_log import read_inspect_log as read_inspect_log
    from rejudge.importers._inspect_read import INSPECT_DOMAIN as INSPECT_DOMAIN
    from rejudge.importers._inspect_read import INSPECT_SOURCE as INSPECT_SOURCE
    from rejudge.importers._inspect_read import InspectImport as InspectImport
    from rejudge.importers._inspect_read import InspectVerdict as InspectVerdict
    from rejudge.importers._inspect_read import parse_inspect_samples as parse_inspect_samples
    from rejudge.importers._inspect_read import score_value as score_value
    from rejudge.importers._json_stream import Piece as Piece
    from rejudge.importers._json_stream import TooBig as TooBig
    from rejudge.importers._json_stream import iter_pieces as iter_pieces
    from rejudge.importers._langfuse import LANGFUSE_SOURCE as LANGFUSE_SOURCE
    from rejudge.importers._langfuse import LangfuseFile as LangfuseFile
    from rejudge.importers._langfuse import LangfuseImportResult as LangfuseImportResult
    from rejudge.importers._langfuse import LangfuseStream as LangfuseStream
    from rejudge.importers._langfuse import import_langfuse as import_langfuse
    from rejudge.importers._langfuse import iter_langfuse as iter_langfuse
    from rejudge.importers._langfuse import read_langfuse as read_langfuse
    from rejudge.importers._langfuse_doc import LangfuseTrace as LangfuseTrace
    from rejudge.importers._langfuse_doc import Record as Record
    from rejudge.importers._langfuse_doc import Router as Router
    from rejudge.importers._langfuse_doc import build_trace as build_trace
    from rejudge.importers._langfuse_doc import is_observation as is_observation
    from rejudge.importers._langfuse_doc import is_trace as is_trace
    from rejudge.importers._langfuse_doc import traces_of_documents as traces_of_documents
    from rejudge.importers._langfuse_messages import one_answer as one_answer
    from rejudge.importers._langfuse_messages import read_messages as read_messages
    from rejudge.importers._langfuse_read import (
        LANGFUSE_NORMALIZER_VERSION as LANGFUSE_NORMALIZER_VERSION,
    )
    from rejudge.importers._langfuse_read import trace_of_observations as trace_of_observations
    from rejudge.importers._otel import OTEL_DOMAIN as OTEL_DOMAIN
    from rejudge.importers._otel import OTEL_SOURCE as OTEL_SOURCE
    from rejudge.importers._otel import OtelFile as OtelFile
    from rejudge.importers._otel import OtelImportResult as OtelImportResult
    from rejudge.importers._otel import OtelStream as OtelStream
    from rejudge.importers._otel import import_otel as import_otel
    from rejudge.importers._otel import iter_otel as iter_otel
    from rejudge.importers._otel import read_otel as read_otel
    from rejudge.importers._otel_messages import Call as Call
    from rejudge.importers._otel_messages import Message as Message
    from rejudge.importers._otel_messages import SpanFacts as SpanFacts
    from rejudge.importers._otel_messages import facts_of as facts_of
    from rejudge.importers._otel_messages import message_of as message_of
    from rejudge.importers._otel_messages import unwrap_json as unwrap_json
    from rejudge.importers._otel_read import OTEL_NORMALIZER_VERSION as OTEL_NORMALIZER_VERSION
    from rejudge.importers._otel_read import OtelTrace as OtelTrace
    from rejudge.importers._otel_read import scrub_span as scrub_span
    from rejudge.importers._otel_read import tool_call_of as tool_call_of
    from rejudge.importers._otel_read import trace_of_facts as trace_of_facts
    from rejudge.importers._otel_read import trace_of_spans as trace_of_spans
    from rejudge.importers._otel_spans import STREAMED_KEYS as STREAMED_KEYS
    from rejudge.importers._otel_spans import Span as Span
    from rejudge.importers._otel_spans import SpanEvent as SpanEvent
    from rejudge.importers._otel_spans import iter_documents as iter_documents
    from rejudge.importers._otel_spans import iter_sized_documents as iter_sized_documents
    from rejudge.importers._otel_spans import pack_span as pack_span
    from rejudge.importers._otel_spans import scrub_attributes as scrub_attributes
    from rejudge.importers._otel_spans import spans_of_document as spans_of_document
    from rejudge.importers._otel_spans import spans_of_pieces as spans_of_pieces
    from rejudge.importers._otel_spans import unpack_span as unpack_span
    from rejudge.importers._shipped import shipped_data as shipped_data
    from rejudge.importers._sniff import HEAD_BYTES as HEAD_BYTES
    from rejudge.importers._sniff import WHOLE_JSON_LIMIT as WHOLE_JSON_LIMIT
    from rejudge.importers._sniff import Detection as Detection
    from rejudge.importers._sniff import Sniff as Sniff
    from rejudge.importers._spill import SPILL_BUDGET as SPILL_BUDGET
    from rejudge.importers._spill import Groups as Groups
    from rejudge.importers._tau2_read import SHIPPED_TAU2_BENCH as SHIPPED_TAU2_BENCH
    from rejudge.importers._tau2_read import TAU2_SOURCE as TAU2_SOURCE
    from rejudge.importers._tau2_read import is_tau2_results as is_tau2_results
    from rejudge.importers._tau2_read import tau2_entries as tau2_entries
    from rejudge.importers._tau2_read import tau2_tasks as tau2_tasks
    from rejudge.importers._tau2_suite import TAU2_WORLDS as TAU2_WORLDS
    from rejudge.importers._tau2_suite import Tau2Plan as Tau2Plan
    from rejudge.importers._tau2_suite import task_conflicts as task_conflicts
    from rejudge.importers._tau2_suite import tau2_plan as tau2_plan
    from rejudge.importers._tau2_suite import tau2_registry as tau2_registry
    from rejudge.importers._tau2_tasks import Relabel as Relabel
    from rejudge.importers._tau2_tasks import ran_tasks as ran_tasks
    from rejudge.importers._tau_bench import TauImportResult as TauImportResult
    from rejudge.importers._tau_bench import import_tau_bench as import_tau_bench
    from rejudge.importers._tau_bench import read_tau_file as read_tau_file
    from rejudge.importers._tau_read import SHIPPED_TAU_BENCH as SHIPPED_TAU_BENCH
    from rejudge.importers._tau_read import TAU_SOURCE as TAU_SOURCE
    from rejudge.importers._tau_read import TauImport as TauImport
    from rejudge.importers._tau_read import TauVerdict as TauVerdict
    from rejudge.importers._tau_read import case_id_of as case_id_of
    from rejudge.importers._tau_read import hit_step_limit as hit_step_limit
    from rejudge.importers._tau_read import load_json as load_json
    from rejudge.importers._tau_read import parse_tau_bench as parse_tau_bench
    from rejudge.importers._tau_read import read_tau as read_tau
    from rejudge.importers._tau_read import tau_flavor as tau_flavor
    from rejudge.importers._tau_read import with_world as with_world
    from rejudge.importers._tau_tools import TAU_DOMAIN as TAU_DOMAIN
    from rejudge.importers._tau_tools import TAU_READ_ONLY_TOOLS as TAU_READ_ONLY_TOOLS
    from rejudge.importers._tau_tools import inferred_registry as inferred_registry
    from rejudge.importers._tau_tools import tau_registry as tau_registry
    from rejudge.importers._tau_version import KNOWN_FILES as KNOWN_FILES
    from rejudge.importers._tau_version import TAU_REWARD_VERSIONS as TAU_REWARD_VERSIONS
    from rejudge.importers._tau_version import RewardVersion as RewardVersion
    from rejudge.importers._tau_version import git_blob_id as git_blob_id
    from rejudge.importers._tau_version import reward_version_of as reward_version_of
    from rejudge.importers._tau_version import shown_reward_version as shown_reward_version


__getattr__, __dir__ = lazy_exports(__name__)
