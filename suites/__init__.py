"""Suites and domains: the case format, tool worlds (registries, fixtures, sandboxes),
validation and the golden self-test.

Importing this package registers every built-in domain with :mod:`suites.domain`.
"""

from __future__ import annotations

import importlib

from rejudge.suites._answers import (
    ANSWER_RULES,
    VERSION_2,
    answer_outputs,
    with_answers,
    write_version_2,
)
from rejudge.suites._case_format import (
    DEFAULT_CASES_FILE,
    FORMAT_VERSION,
    MANIFEST_NAME,
    NINE_FIELDS,
    SUITE_REGISTRY_FILE,
    SUPPORTED_FORMAT_VERSIONS,
    CaseLine,
    SuiteManifest,
    SuiteSource,
    SuiteVersion,
    builtin_suites,
    case_schema,
    case_schema_errors,
    case_to_json,
    dump_cases,
    format_path,
    load_case_file,
    load_manifest,
    load_suite,
    own_registry,
    read_case_lines,
    resolve_suite_path,
    resolve_versioned_suite,
    split_version,
    suite_hash,
    suite_schema,
    write_suite,
)
from rejudge.suites._domain import (
    CaseChecks,
    Domain,
    Sandbox,
    ToolResult,
    domain_names,
    get_domain,
    register_domain,
)
from rejudge.suites._errors import (
    SuiteError,
    SuiteFormatError,
    SuiteNotFoundError,
    ToolError,
)
from rejudge.suites._sandbox import (
    SchemaSandbox,
    SchemaWorld,
    WorldSandbox,
    deep_freeze,
    thaw,
)
from rejudge.suites._selftest import (
    CaseSelftest,
    JudgeFn,
    SelftestReport,
    StepResult,
    expand_calls,
    golden_trace,
    resolve_arguments,
    selftest_case,
    selftest_suite,
)
from rejudge.suites._validate import (
    PHRASING_FREE_FIELDS,
    CaseEntry,
    Problem,
    check_cases,
    get_path,
    validate_case_lines,
    validate_suite,
)

# --- built-in domains: importing each module registers its domain. One line per domain. ---------
BUILTIN_DOMAIN_MODULES: tuple[str, ...] = (
    "rejudge.suites.domains.retail",  # seed 001
    "rejudge.suites.domains.genome",  # seed 000's shape
    "rejudge.suites.domains.funcbench",  # seed 003: generated graphs, silent failures
    "rejudge.suites.domains.bfcl",  # imported BFCL categories (stub executor)
    "rejudge.suites.domains.mcp",  # an MCP server's tools (calls run on the server)
    "rejudge.suites.domains.recorded",  # suites over cassettes recorded elsewhere
)
# --- end of built-in domains ----------------------------------------------------------------------

for _module in BUILTIN_DOMAIN_MODULES:
    importlib.import_module(_module)

__all__ = [
    "CaseChecks",
    "CaseEntry",
    "CaseLine",
    "CaseSelftest",
    "DEFAULT_CASES_FILE",
    "ANSWER_RULES",
    "Domain",
    "FORMAT_VERSION",
    "JudgeFn",
    "MANIFEST_NAME",
    "NINE_FIELDS",
    "PHRASING_FREE_FIELDS",
    "Problem",
    "SUITE_REGISTRY_FILE",
    "SUPPORTED_FORMAT_VERSIONS",
    "Sandbox",
    "SchemaSandbox",
    "SchemaWorld",
    "WorldSandbox",
    "SelftestReport",
    "StepResult",
    "SuiteError",
    "SuiteFormatError",
    "SuiteManifest",
    "SuiteNotFoundError",
    "SuiteSource",
    "SuiteVersion",
    "ToolError",
    "VERSION_2",
    "ToolResult",
    "answer_outputs",
    "builtin_suites",
    "case_schema",
    "case_schema_errors",
    "case_to_json",
    "check_cases",
    "deep_freeze",
    "domain_names",
    "dump_cases",
    "expand_calls",
    "format_path",
    "get_domain",
    "get_path",
    "golden_trace",
    "load_case_file",
    "load_manifest",
    "load_suite",
    "own_registry",
    "read_case_lines",
    "register_domain",
    "resolve_arguments",
    "resolve_suite_path",
    "resolve_versioned_suite",
    "selftest_case",
    "selftest_suite",
    "split_version",
    "suite_hash",
    "suite_schema",
    "thaw",
    "validate_case_lines",
    "validate_suite",
    "with_answers",
    "write_suite",
    "write_version_2",
]
