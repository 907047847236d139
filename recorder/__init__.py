"""The recorder: live runs to cassettes and traces, offline replay, imports, capture of any
agent's traffic, and the local model server.

The package's public names, imported lazily (``import recorder`` loads neither httpx nor vcrpy)::

    from rejudge.recorder import read_cassette, trace_of

Use cases that read or write the store (record, replay, renormalize, import, capture into a
store) are in :mod:`rejudge.services`; ``capture`` here is the submodule.
"""

from __future__ import annotations

from rejudge._lazy import lazy_exports

# public name -> the private module that defines it (each module's __all__;
# tests/test_public_api.py keeps this table complete)
_EXPORTS: dict[str, str] = {
    "Capture": "rejudge.recorder._capture",
    "RECORD_MODES": "rejudge.recorder._capture",
    "capture_cassette": "rejudge.recorder._capture",
    "registry_from_interactions": "rejudge.recorder._capture",
    "CASSETTE_FORMAT": "rejudge.recorder._cassettes",
    "CASSETTE_SUFFIXES": "rejudge.recorder._cassettes",
    "CassetteError": "rejudge.recorder._cassettes",
    "CassetteFile": "rejudge.recorder._cassettes",
    "Exchange": "rejudge.recorder._cassettes",
    "REDACTED": "rejudge.recorder._cassettes",
    "SECRET_REQUEST_HEADERS": "rejudge.recorder._cassettes",
    "SECRET_RESPONSE_HEADERS": "rejudge.recorder._cassettes",
    "cassette_path": "rejudge.recorder._cassettes",
    "cassette_stem": "rejudge.recorder._cassettes",
    "decode_body": "rejudge.recorder._cassettes",
    "exchanges_from_interactions": "rejudge.recorder._cassettes",
    "is_cassette_file": "rejudge.recorder._cassettes",
    "parse_cassette": "rejudge.recorder._cassettes",
    "read_cassette": "rejudge.recorder._cassettes",
    "scrub_body": "rejudge.recorder._cassettes",
    "scrub_headers": "rejudge.recorder._cassettes",
    "scrub_interaction": "rejudge.recorder._cassettes",
    "scrub_text": "rejudge.recorder._cassettes",
    "serialize_cassette": "rejudge.recorder._cassettes",
    "write_cassette": "rejudge.recorder._cassettes",
    "capture_meta": "rejudge.recorder._derive",
    "cassette_meta": "rejudge.recorder._derive",
    "outcome_meta": "rejudge.recorder._derive",
    "rejudge_version": "rejudge.recorder._derive",
    "run_config_from_meta": "rejudge.recorder._derive",
    "trace_from_cassette": "rejudge.recorder._derive",
    "trace_of": "rejudge.recorder._derive",
    "ProviderCallError": "rejudge.recorder._http",
    "RETRYABLE_STATUS": "rejudge.recorder._http",
    "RateLimiter": "rejudge.recorder._http",
    "RecorderError": "rejudge.recorder._http",
    "RetryPolicy": "rejudge.recorder._http",
    "parse_retry_after": "rejudge.recorder._http",
    "send_with_retries": "rejudge.recorder._http",
    "CassetteImportError": "rejudge.recorder._importer",
    "IMPORTED_DOMAIN": "rejudge.recorder._importer",
    "MAPPING_FILE_NAMES": "rejudge.recorder._importer",
    "PlannedTrace": "rejudge.recorder._importer",
    "adhoc_suite": "rejudge.recorder._importer",
    "find_cassettes": "rejudge.recorder._importer",
    "find_mapping": "rejudge.recorder._importer",
    "import_run_config": "rejudge.recorder._importer",
    "import_summary": "rejudge.recorder._importer",
    "load_mapping": "rejudge.recorder._importer",
    "plan_import": "rejudge.recorder._importer",
    "CHAT_FORMAT": "rejudge.recorder._local_server",
    "INSTALL_HINT": "rejudge.recorder._local_server",
    "LocalModelError": "rejudge.recorder._local_server",
    "LocalModelServer": "rejudge.recorder._local_server",
    "MODEL_NAME": "rejudge.recorder._local_server",
    "PORTABLE_REBUILD": "rejudge.recorder._local_server",
    "check_server_installed": "rejudge.recorder._local_server",
    "describe_exit": "rejudge.recorder._local_server",
    "find_smollm2_model": "rejudge.recorder._local_server",
    "free_port": "rejudge.recorder._local_server",
    "LoopOutcome": "rejudge.recorder._loop",
    "ORACLE_EXTRA_ROUNDS": "rejudge.recorder._loop",
    "PRODUCTION_PARITY_BUDGET": "rejudge.recorder._loop",
    "restatement": "rejudge.recorder._loop",
    "result_text": "rejudge.recorder._loop",
    "round_budget": "rejudge.recorder._loop",
    "run_case": "rejudge.recorder._loop",
    "select_tools": "rejudge.recorder._loop",
    "ModelExchange": "rejudge.recorder._normalizer",
    "NORMALIZER_VERSION": "rejudge.recorder._normalizer",
    "model_exchanges": "rejudge.recorder._normalizer",
    "normalize_exchanges": "rejudge.recorder._normalizer",
    "PendingCommit": "rejudge.recorder._record",
    "ProviderUnreachableError": "rejudge.recorder._record",
    "RecordProgress": "rejudge.recorder._record",
    "UNREACHABLE_STREAK": "rejudge.recorder._record",
    "record_jobs": "rejudge.recorder._record",
    "Divergence": "rejudge.recorder._replay",
    "NETWORK_FAILURES": "rejudge.recorder._replay",
    "RenormalizeReport": "rejudge.recorder._replay",
    "ReplayReport": "rejudge.recorder._replay",
    "first_difference": "rejudge.recorder._replay",
    "load_trace_cassette": "rejudge.recorder._replay",
    "replay_trace": "rejudge.recorder._replay",
    "ReplayMissError": "rejudge.recorder._tape",
    "TAPE_EXTENSION": "rejudge.recorder._tape",
    "Tape": "rejudge.recorder._tape",
    "TapeTransport": "rejudge.recorder._tape",
    "differing_fields": "rejudge.recorder._tape",
    "match_view": "rejudge.recorder._tape",
    "requests_match": "rejudge.recorder._tape",
    "vcr_before_record_request": "rejudge.recorder._tape",
    "vcr_before_record_response": "rejudge.recorder._tape",
    "vcr_body_matcher": "rejudge.recorder._tape",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
