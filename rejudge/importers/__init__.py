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
    from rejudge.importers._contract import Importer as Importer
    from rejudge.importers._contract import get_importer as get_importer
    from rejudge.importers._detect import Detected as Detected
    from rejudge.importers._detect import detect_importer as detect_importer
    from rejudge.importers._sniff import Detection as Detection
    from rejudge.importers._sniff import Sniff as Sniff

# public name -> the private module that defines it (each module's __all__;
# tests/test_public_api.py keeps this table complete)
_EXPORTS: dict[str, str] = {
    "Detect": "rejudge.importers._contract",
    "Importer": "rejudge.importers._contract",
    "ReplaySource": "rejudge.importers._contract",
    "Rederive": "rejudge.importers._contract",
    "get_importer": "rejudge.importers._contract",
    "importer_names": "rejudge.importers._contract",
    "importer_rows": "rejudge.importers._contract",
    "register_importer": "rejudge.importers._contract",
    "replay_source": "rejudge.importers._contract",
    "Detected": "rejudge.importers._detect",
    "DetectedImport": "rejudge.importers._detect",
    "import_detected": "rejudge.importers._detect",
    "NoImporterError": "rejudge.importers._detect",
    "detect_all": "rejudge.importers._detect",
    "detect_importer": "rejudge.importers._detect",
    "Detection": "rejudge.importers._sniff",
    "HEAD_BYTES": "rejudge.importers._sniff",
    "Sniff": "rejudge.importers._sniff",
    "WHOLE_JSON_LIMIT": "rejudge.importers._sniff",
    "CATEGORIES": "rejudge.importers._bfcl_schema",
    "CategoryInfo": "rejudge.importers._bfcl_schema",
    "checker_kind": "rejudge.importers._bfcl_schema",
    "convert_parameters": "rejudge.importers._bfcl_schema",
    "render_value": "rejudge.importers._bfcl_schema",
    "representative_call": "rejudge.importers._bfcl_schema",
    "signature": "rejudge.importers._bfcl_schema",
    "suite_name": "rejudge.importers._bfcl_schema",
    "wire_name": "rejudge.importers._bfcl_schema",
    "BfclError": "rejudge.importers._bfcl_suite",
    "BfclNotInstalledError": "rejudge.importers._bfcl_suite",
    "bfcl_data_dir": "rejudge.importers._bfcl_suite",
    "bfcl_version": "rejudge.importers._bfcl_suite",
    "bfcl_categories": "rejudge.importers._bfcl_suite",
    "build_suite": "rejudge.importers._bfcl_suite",
    "imported_suite": "rejudge.importers._bfcl_suite",
    "read_jsonl": "rejudge.importers._bfcl_suite",
    "suite_meta": "rejudge.importers._bfcl_suite",
    "ImportedSuite": "rejudge.importers._bfcl_suite",
    "NORMALIZER_VERSION": "rejudge.importers._bfcl_read",
    "CategoryResults": "rejudge.importers._bfcl_read",
    "category_of": "rejudge.importers._bfcl_read",
    "decode_result": "rejudge.importers._bfcl_read",
    "plan_results": "rejudge.importers._bfcl_read",
    "score_file_path": "rejudge.importers._bfcl_read",
    "score_files": "rejudge.importers._bfcl_read",
    "trace_from_result": "rejudge.importers._bfcl_read",
    "read_results": "rejudge.importers._bfcl_read",
    "result_traces": "rejudge.importers._bfcl_read",
    "results_hash": "rejudge.importers._bfcl_read",
    "BfclResultImport": "rejudge.importers._bfcl_results",
    "import_bfcl": "rejudge.importers._bfcl_results",
    "import_bfcl_results": "rejudge.importers._bfcl_results",
    "CHAT_JSONL_SOURCE": "rejudge.importers._chat_jsonl",
    "ChatFile": "rejudge.importers._chat_jsonl",
    "ChatImportResult": "rejudge.importers._chat_jsonl",
    "ChatLine": "rejudge.importers._chat_jsonl",
    "import_chat_jsonl": "rejudge.importers._chat_jsonl",
    "read_chat": "rejudge.importers._chat_jsonl",
    "ImportResult": "rejudge.importers._cassettes",
    "import_cassettes": "rejudge.importers._cassettes",
    "InspectImportResult": "rejudge.importers._inspect",
    "INSPECT_DOMAIN": "rejudge.importers._inspect_read",
    "INSPECT_SOURCE": "rejudge.importers._inspect_read",
    "InspectImport": "rejudge.importers._inspect_read",
    "InspectVerdict": "rejudge.importers._inspect_read",
    "parse_inspect_samples": "rejudge.importers._inspect_read",
    "score_value": "rejudge.importers._inspect_read",
    "InspectLog": "rejudge.importers._inspect_log",
    "InspectLogError": "rejudge.importers._inspect_log",
    "SUPPORTED_LOG_VERSIONS": "rejudge.importers._inspect_log",
    "read_inspect_log": "rejudge.importers._inspect_log",
    "SHIPPED_TAU2_BENCH": "rejudge.importers._tau2_read",
    "TAU2_SOURCE": "rejudge.importers._tau2_read",
    "is_tau2_results": "rejudge.importers._tau2_read",
    "tau2_entries": "rejudge.importers._tau2_read",
    "tau2_tasks": "rejudge.importers._tau2_read",
    "Relabel": "rejudge.importers._tau2_tasks",
    "TAU2_WORLDS": "rejudge.importers._tau2_suite",
    "Tau2Plan": "rejudge.importers._tau2_suite",
    "tau2_plan": "rejudge.importers._tau2_suite",
    "tau2_registry": "rejudge.importers._tau2_suite",
    "task_conflicts": "rejudge.importers._tau2_suite",
    "ran_tasks": "rejudge.importers._tau2_tasks",
    "shipped_data": "rejudge.importers._shipped",
    "SHIPPED_TAU_BENCH": "rejudge.importers._tau_read",
    "TAU_DOMAIN": "rejudge.importers._tau_tools",
    "TAU_READ_ONLY_TOOLS": "rejudge.importers._tau_tools",
    "inferred_registry": "rejudge.importers._tau_tools",
    "TAU_SOURCE": "rejudge.importers._tau_read",
    "TauImport": "rejudge.importers._tau_read",
    "KNOWN_FILES": "rejudge.importers._tau_version",
    "TAU_REWARD_VERSIONS": "rejudge.importers._tau_version",
    "RewardVersion": "rejudge.importers._tau_version",
    "git_blob_id": "rejudge.importers._tau_version",
    "reward_version_of": "rejudge.importers._tau_version",
    "shown_reward_version": "rejudge.importers._tau_version",
    "hit_step_limit": "rejudge.importers._tau_read",
    "with_world": "rejudge.importers._tau_read",
    "TauVerdict": "rejudge.importers._tau_read",
    "case_id_of": "rejudge.importers._tau_read",
    "load_json": "rejudge.importers._tau_read",
    "parse_tau_bench": "rejudge.importers._tau_read",
    "read_tau": "rejudge.importers._tau_read",
    "tau_flavor": "rejudge.importers._tau_read",
    "tau_registry": "rejudge.importers._tau_tools",
    "TauImportResult": "rejudge.importers._tau_bench",
    "import_tau_bench": "rejudge.importers._tau_bench",
    "read_tau_file": "rejudge.importers._tau_bench",
    "OTEL_DOMAIN": "rejudge.importers._otel",
    "OTEL_SOURCE": "rejudge.importers._otel",
    "OtelFile": "rejudge.importers._otel",
    "OtelImportResult": "rejudge.importers._otel",
    "import_otel": "rejudge.importers._otel",
    "read_otel": "rejudge.importers._otel",
    "Call": "rejudge.importers._otel_messages",
    "Message": "rejudge.importers._otel_messages",
    "SpanFacts": "rejudge.importers._otel_messages",
    "facts_of": "rejudge.importers._otel_messages",
    "message_of": "rejudge.importers._otel_messages",
    "unwrap_json": "rejudge.importers._otel_messages",
    "OTEL_NORMALIZER_VERSION": "rejudge.importers._otel_read",
    "OtelTrace": "rejudge.importers._otel_read",
    "scrub_attributes": "rejudge.importers._otel_read",
    "trace_of_facts": "rejudge.importers._otel_read",
    "trace_of_spans": "rejudge.importers._otel_read",
    "tool_call_of": "rejudge.importers._otel_read",
    "LANGFUSE_SOURCE": "rejudge.importers._langfuse",
    "LangfuseFile": "rejudge.importers._langfuse",
    "LangfuseImportResult": "rejudge.importers._langfuse",
    "import_langfuse": "rejudge.importers._langfuse",
    "read_langfuse": "rejudge.importers._langfuse",
    "LangfuseTrace": "rejudge.importers._langfuse_doc",
    "is_observation": "rejudge.importers._langfuse_doc",
    "is_trace": "rejudge.importers._langfuse_doc",
    "traces_of_documents": "rejudge.importers._langfuse_doc",
    "one_answer": "rejudge.importers._langfuse_messages",
    "read_messages": "rejudge.importers._langfuse_messages",
    "LANGFUSE_NORMALIZER_VERSION": "rejudge.importers._langfuse_read",
    "trace_of_observations": "rejudge.importers._langfuse_read",
    "Conversation": "rejudge.importers._conversation",
    "conversation_trace": "rejudge.importers._conversation",
    "Span": "rejudge.importers._otel_spans",
    "SpanEvent": "rejudge.importers._otel_spans",
    "iter_documents": "rejudge.importers._otel_spans",
    "spans_of_document": "rejudge.importers._otel_spans",
    "import_inspect": "rejudge.importers._inspect",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
