"""Suites and domains: the case format, tool worlds (registries, fixtures, sandboxes),
validation and the golden self-test.

Importing this package registers every built-in domain with :mod:`suites.domain`.
"""

from __future__ import annotations

import importlib

from rejudge.suites.case_format import (
    FORMAT_VERSION,
    SuiteManifest,
    SuiteSource,
    builtin_suites,
    load_case_file,
    load_suite,
)
from rejudge.suites.domain import (
    Domain,
    Sandbox,
    ToolResult,
    domain_names,
    get_domain,
    register_domain,
)
from rejudge.suites.errors import SuiteError, SuiteFormatError, SuiteNotFoundError

# --- built-in domains: importing each module registers its domain. One line per domain. ---------
BUILTIN_DOMAIN_MODULES: tuple[str, ...] = (
    "rejudge.suites.domains.retail",  # seed 001
    "rejudge.suites.domains.genome",  # seed 000's shape
    "rejudge.suites.domains.funcbench",  # seed 003: generated graphs, silent failures
    "rejudge.suites.importers.bfcl",  # imported BFCL categories (stub executor)
)
# --- end of built-in domains ----------------------------------------------------------------------

for _module in BUILTIN_DOMAIN_MODULES:
    importlib.import_module(_module)

__all__ = [
    "BUILTIN_DOMAIN_MODULES",
    "FORMAT_VERSION",
    "SuiteManifest",
    "SuiteSource",
    "builtin_suites",
    "load_case_file",
    "load_suite",
    "Domain",
    "Sandbox",
    "ToolResult",
    "domain_names",
    "get_domain",
    "register_domain",
    "SuiteError",
    "SuiteFormatError",
    "SuiteNotFoundError",
]
