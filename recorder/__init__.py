"""The recorder: live runs to cassettes and traces, offline replay, imports, capture of any
agent's traffic, and the local model server.

The package's public names, imported lazily (``import recorder`` loads neither httpx nor vcrpy)::

    from rejudge.recorder import read_cassette, trace_of

Use cases that read or write the store (record, replay, renormalize, import, capture into a
store) are in :mod:`rejudge.services`; ``capture`` here is the submodule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rejudge._lazy import lazy_exports

if TYPE_CHECKING:
    # the names this face exports, declared once (read by rejudge._lazy on first use)
    from rejudge.recorder._capture import RECORD_MODES as RECORD_MODES
    from rejudge.recorder._capture import Capture as Capture
    from rejudge.recorder._capture import capture_cassette as capture_cassette
    from rejudge.recorder._capture import registry_from_interactions as registry_from_interactions
    from rejudge.recorder._cassettes import CASSETTE_FORMAT as CASSETTE_FORMAT
    from rejudge.recorder._cassettes import CASSETTE_SUFFIXES as CASSETTE_SUFFIXES
    from rejudge.recorder._cassettes import REDACTED as REDACTED
    from rejudge.recorder._cassettes import SECRET_REQUEST_HEADERS as SECRET_REQUEST_HEADERS
    from rejudge.recorder._cassettes import SECRET_RESPONSE_HEADERS as SECRET_RESPONSE_HEADERS
    from rejudge.recorder._cassettes import CassetteError as CassetteError
    from rejudge.recorder._cassettes import CassetteFile as CassetteFile
    from rejudge.recorder._cassettes import Exchange as Exchange
    from rejudge.recorder._cassettes import cassette_path as cassette_path
    from rejudge.recorder._cassettes import cassette_stem as cassette_stem
    from rejudge.recorder._cassettes import decode_body as decode_body
    from rejudge.recorder._cassettes import (
        exchanges_from_interactions as exchanges_from_interactions,
    )
    from rejudge.recorder._cassettes import is_cassette_file as is_cassette_file
    from rejudge.recorder._cassettes import is_secret_name as is_secret_name
    from rejudge.recorder._cassettes import parse_cassette as parse_cassette
    from rejudge.recorder._cassettes import read_cassette as read_cassette
    from rejudge.recorder._cassettes import scrub_body as scrub_body
    from rejudge.recorder._cassettes import scrub_headers as scrub_headers
    from rejudge.recorder._cassettes import scrub_interaction as scrub_interaction
    from rejudge.recorder._cassettes import scrub_text as scrub_text
    from rejudge.recorder._cassettes import scrub_value as scrub_value
    from rejudge.recorder._cassettes import scrubbed_cassette_bytes as scrubbed_cassette_bytes
    from rejudge.recorder._cassettes import serialize_cassette as serialize_cassette
    from rejudge.recorder._cassettes import write_atomic as write_atomic
    from rejudge.recorder._cassettes import write_cassette as write_cassette
    from rejudge.recorder._derive import capture_meta as capture_meta
    from rejudge.recorder._derive import cassette_meta as cassette_meta
    from rejudge.recorder._derive import outcome_meta as outcome_meta
    from rejudge.recorder._derive import rejudge_version as rejudge_version
    from rejudge.recorder._derive import run_config_from_meta as run_config_from_meta
    from rejudge.recorder._derive import trace_from_cassette as trace_from_cassette
    from rejudge.recorder._derive import trace_of as trace_of
    from rejudge.recorder._exchanges import ExchangeClass as ExchangeClass
    from rejudge.recorder._exchanges import classify_exchange as classify_exchange
    from rejudge.recorder._exchanges import exchange_wire_format as exchange_wire_format
    from rejudge.recorder._http import RETRYABLE_STATUS as RETRYABLE_STATUS
    from rejudge.recorder._http import ProviderCallError as ProviderCallError
    from rejudge.recorder._http import RateLimiter as RateLimiter
    from rejudge.recorder._http import RecorderError as RecorderError
    from rejudge.recorder._http import RetryPolicy as RetryPolicy
    from rejudge.recorder._http import parse_retry_after as parse_retry_after
    from rejudge.recorder._http import send_with_retries as send_with_retries
    from rejudge.recorder._import_plan import NamedFile as NamedFile
    from rejudge.recorder._import_plan import PlanOptions as PlanOptions
    from rejudge.recorder._import_plan import PlanPart as PlanPart
    from rejudge.recorder._import_plan import assemble_plan as assemble_plan
    from rejudge.recorder._import_plan import name_cassettes as name_cassettes
    from rejudge.recorder._import_plan import plan_folder as plan_folder
    from rejudge.recorder._import_plan import plan_import as plan_import
    from rejudge.recorder._import_plan import read_cassettes as read_cassettes
    from rejudge.recorder._import_plan import reading_order as reading_order
    from rejudge.recorder._importer import IMPORTED_DOMAIN as IMPORTED_DOMAIN
    from rejudge.recorder._importer import MAPPING_FILE_NAMES as MAPPING_FILE_NAMES
    from rejudge.recorder._importer import CassetteImportError as CassetteImportError
    from rejudge.recorder._importer import ImportPlan as ImportPlan
    from rejudge.recorder._importer import PlannedTrace as PlannedTrace
    from rejudge.recorder._importer import SkippedFile as SkippedFile
    from rejudge.recorder._importer import adhoc_suite as adhoc_suite
    from rejudge.recorder._importer import find_cassettes as find_cassettes
    from rejudge.recorder._importer import find_mapping as find_mapping
    from rejudge.recorder._importer import import_run_config as import_run_config
    from rejudge.recorder._importer import import_summary as import_summary
    from rejudge.recorder._importer import load_mapping as load_mapping
    from rejudge.recorder._judge_calls import JUDGE_CASSETTE_FORMAT as JUDGE_CASSETTE_FORMAT
    from rejudge.recorder._judge_calls import JUDGE_DIR as JUDGE_DIR
    from rejudge.recorder._judge_calls import JudgeEndpoint as JudgeEndpoint
    from rejudge.recorder._judge_calls import JudgeJob as JudgeJob
    from rejudge.recorder._judge_calls import JudgeMissError as JudgeMissError
    from rejudge.recorder._judge_calls import JudgeServerError as JudgeServerError
    from rejudge.recorder._judge_calls import RecordedReply as RecordedReply
    from rejudge.recorder._judge_calls import judge_cassette_name as judge_cassette_name
    from rejudge.recorder._judge_calls import judge_cassette_path as judge_cassette_path
    from rejudge.recorder._judge_calls import judge_request_body as judge_request_body
    from rejudge.recorder._judge_calls import judge_rubric_dir as judge_rubric_dir
    from rejudge.recorder._judge_calls import judge_run_dir as judge_run_dir
    from rejudge.recorder._judge_calls import record_judge_jobs as record_judge_jobs
    from rejudge.recorder._judge_calls import replay_judge_sample as replay_judge_sample
    from rejudge.recorder._llama_build import CMAKE_FLAGS as CMAKE_FLAGS
    from rejudge.recorder._llama_build import LLAMA_CPP_PYTHON_VERSION as LLAMA_CPP_PYTHON_VERSION
    from rejudge.recorder._llama_build import TOOL_TEMPLATE as TOOL_TEMPLATE
    from rejudge.recorder._llama_build import LlamaServerBuild as LlamaServerBuild
    from rejudge.recorder._llama_build import LocalModelError as LocalModelError
    from rejudge.recorder._llama_build import build_llama_server as build_llama_server
    from rejudge.recorder._llama_build import default_build_dir as default_build_dir
    from rejudge.recorder._llama_build import find_llama_server as find_llama_server
    from rejudge.recorder._local_server import DEFAULT_THREADS as DEFAULT_THREADS
    from rejudge.recorder._local_server import INSTALL_HINT as INSTALL_HINT
    from rejudge.recorder._local_server import MAX_TOKENS as MAX_TOKENS
    from rejudge.recorder._local_server import MODEL_NAME as MODEL_NAME
    from rejudge.recorder._local_server import PORTABLE_REBUILD as PORTABLE_REBUILD
    from rejudge.recorder._local_server import LocalModelServer as LocalModelServer
    from rejudge.recorder._local_server import describe_exit as describe_exit
    from rejudge.recorder._local_server import find_smollm2_model as find_smollm2_model
    from rejudge.recorder._local_server import free_port as free_port
    from rejudge.recorder._loop import ORACLE_EXTRA_ROUNDS as ORACLE_EXTRA_ROUNDS
    from rejudge.recorder._loop import PRODUCTION_PARITY_BUDGET as PRODUCTION_PARITY_BUDGET
    from rejudge.recorder._loop import LoopOutcome as LoopOutcome
    from rejudge.recorder._loop import restatement as restatement
    from rejudge.recorder._loop import result_text as result_text
    from rejudge.recorder._loop import round_budget as round_budget
    from rejudge.recorder._loop import run_case as run_case
    from rejudge.recorder._loop import select_tools as select_tools
    from rejudge.recorder._mcp import MCP_FAILURE_KEY as MCP_FAILURE_KEY
    from rejudge.recorder._mcp import REPLAY_WORLDS as REPLAY_WORLDS
    from rejudge.recorder._mcp import McpReplayExecutor as McpReplayExecutor
    from rejudge.recorder._mcp import McpReplayWorld as McpReplayWorld
    from rejudge.recorder._mcp import ToolServerError as ToolServerError
    from rejudge.recorder._mcp import mcp_interaction as mcp_interaction
    from rejudge.recorder._mcp import mcp_message as mcp_message
    from rejudge.recorder._mcp import result_of_response as result_of_response
    from rejudge.recorder._mcp_client import McpConnection as McpConnection
    from rejudge.recorder._mcp_client import McpExecutor as McpExecutor
    from rejudge.recorder._mcp_client import McpServer as McpServer
    from rejudge.recorder._mcp_client import McpSnapshot as McpSnapshot
    from rejudge.recorder._mcp_client import McpWorld as McpWorld
    from rejudge.recorder._mcp_client import list_mcp_tools as list_mcp_tools
    from rejudge.recorder._normalizer import NORMALIZER_VERSION as NORMALIZER_VERSION
    from rejudge.recorder._normalizer import ModelExchange as ModelExchange
    from rejudge.recorder._normalizer import model_exchanges as model_exchanges
    from rejudge.recorder._normalizer import normalize_exchanges as normalize_exchanges
    from rejudge.recorder._normalizer import tool_outcome as tool_outcome
    from rejudge.recorder._record import UNREACHABLE_STREAK as UNREACHABLE_STREAK
    from rejudge.recorder._record import PendingCommit as PendingCommit
    from rejudge.recorder._record import ProviderUnreachableError as ProviderUnreachableError
    from rejudge.recorder._record import RecordProgress as RecordProgress
    from rejudge.recorder._record import record_jobs as record_jobs
    from rejudge.recorder._replay import NETWORK_FAILURES as NETWORK_FAILURES
    from rejudge.recorder._replay import Divergence as Divergence
    from rejudge.recorder._replay import RenormalizeReport as RenormalizeReport
    from rejudge.recorder._replay import ReplayReport as ReplayReport
    from rejudge.recorder._replay import first_difference as first_difference
    from rejudge.recorder._replay import load_trace_cassette as load_trace_cassette
    from rejudge.recorder._replay import replay_trace as replay_trace
    from rejudge.recorder._tape import TAPE_EXTENSION as TAPE_EXTENSION
    from rejudge.recorder._tape import ReplayMissError as ReplayMissError
    from rejudge.recorder._tape import Tape as Tape
    from rejudge.recorder._tape import TapeTransport as TapeTransport
    from rejudge.recorder._tape import differing_fields as differing_fields
    from rejudge.recorder._tape import match_view as match_view
    from rejudge.recorder._tape import requests_match as requests_match
    from rejudge.recorder._tape import vcr_before_record_request as vcr_before_record_request
    from rejudge.recorder._tape import vcr_before_record_response as vcr_before_record_response
    from rejudge.recorder._tape import vcr_body_matcher as vcr_body_matcher


__getattr__, __dir__ = lazy_exports(__name__)
