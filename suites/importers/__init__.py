"""Importers that turn other benchmarks' data into rejudge suites and runs (BFCL: :mod:`.bfcl`;
τ-bench runs: :mod:`._tau`, reading τ²-bench's through :mod:`rejudge.importers._tau2_read`
(the version of τ-bench's reward that scored a file: :mod:`._tau_version`);
the ``recorded`` domain of suites over other projects' cassettes: :mod:`._recorded`)."""

from __future__ import annotations

from rejudge._lazy import lazy_exports

# public name -> the private module that defines it (each module's __all__;
# tests/test_public_api.py keeps this table complete)
_EXPORTS: dict[str, str] = {
    "BfclError": "rejudge.suites.importers._bfcl",
    "BfclNotInstalledError": "rejudge.suites.importers._bfcl",
    "CATEGORIES": "rejudge.suites.importers._bfcl",
    "CategoryInfo": "rejudge.suites.importers._bfcl",
    "ImportedSuite": "rejudge.suites.importers._bfcl",
    "bfcl_data_dir": "rejudge.suites.importers._bfcl",
    "bfcl_version": "rejudge.suites.importers._bfcl",
    "build_suite": "rejudge.suites.importers._bfcl",
    "checker_kind": "rejudge.suites.importers._bfcl",
    "convert_parameters": "rejudge.suites.importers._bfcl",
    "bfcl_categories": "rejudge.suites.importers._bfcl",
    "imported_suite": "rejudge.suites.importers._bfcl",
    "suite_meta": "rejudge.suites.importers._bfcl",
    "render_value": "rejudge.suites.importers._bfcl",
    "representative_call": "rejudge.suites.importers._bfcl",
    "suite_name": "rejudge.suites.importers._bfcl",
    "wire_name": "rejudge.suites.importers._bfcl",
    "RECORDED_DOMAIN": "rejudge.suites.importers._recorded",
    "RecordedDomain": "rejudge.suites.importers._recorded",
    "SHIPPED_TAU_BENCH": "rejudge.suites.importers._tau",
    "TAU_DOMAIN": "rejudge.suites.importers._tau_tools",
    "TAU_READ_ONLY_TOOLS": "rejudge.suites.importers._tau_tools",
    "inferred_registry": "rejudge.suites.importers._tau_tools",
    "TAU_SOURCE": "rejudge.suites.importers._tau",
    "TauImport": "rejudge.suites.importers._tau",
    "KNOWN_FILES": "rejudge.suites.importers._tau_version",
    "TAU_REWARD_VERSIONS": "rejudge.suites.importers._tau_version",
    "RewardVersion": "rejudge.suites.importers._tau_version",
    "git_blob_id": "rejudge.suites.importers._tau_version",
    "reward_version_of": "rejudge.suites.importers._tau_version",
    "shown_reward_version": "rejudge.suites.importers._tau_version",
    "hit_step_limit": "rejudge.suites.importers._tau",
    "with_world": "rejudge.suites.importers._tau",
    "TauVerdict": "rejudge.suites.importers._tau",
    "case_id_of": "rejudge.suites.importers._tau",
    "load_json": "rejudge.suites.importers._tau",
    "parse_tau_bench": "rejudge.suites.importers._tau",
    "tau_registry": "rejudge.suites.importers._tau_tools",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
