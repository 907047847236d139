"""What is left here of importing other benchmarks' data (BFCL's categories as suites:
:mod:`._bfcl`; the ``recorded`` domain of suites over other projects' cassettes:
:mod:`._recorded`). τ-bench's and τ²-bench's readers live in :mod:`rejudge.importers`."""

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
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
