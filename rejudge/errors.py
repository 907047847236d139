"""Every error rejudge raises on purpose, in one tree under :class:`RejudgeError`.

The CLI prints any of them as one ``Error: ...`` line (exit 1); anything else is a bug. Messages
say what is wrong and what to do, in library terms; the CLI adds its flag names. Each error can
carry its context as attributes (``run``, ``case``, ``file``, ``field``; ``None`` when it does not
apply), so a caller can act on it without parsing the message::

    RejudgeError
     ├── StoreError                        rejudge.store
     │    ├── DatabaseURLError
     │    ├── DatabaseUnavailableError
     │    └── SchemaVersionError
     ├── NotFoundError                     a named thing does not exist
     │    ├── TierNotFoundError            rejudge.judge.tiers
     │    ├── PluginError                  rejudge.registry: a plugin failed to load
     │    ├── UnknownWireFormatError       rejudge.recorder.wire
     │    └── BfclNotInstalledError        rejudge.importers._bfcl_suite (also BfclError)
     ├── ConflictError                     the store already holds something else under that key
     ├── InvalidInputError                 input that cannot be used as given
     │    ├── RuleSetError                 rejudge.judge._rulesets
     │    ├── RubricError                  rejudge.judge._rubrics
     │    ├── BaselineMismatchError        rejudge.judge._baseline
     │    ├── ReviewImportError            rejudge.judge._calibration
     │    ├── ReviewRequiredError          rejudge.judge._calibration
     │    ├── InspectLogError              rejudge.importers._inspect_log
     │    ├── NoImporterError              rejudge.importers: no importer takes a file
     │    ├── WorldMismatchError           rejudge.model: a world of other data than keyed
     │    ├── PriceTableError              rejudge.model: a price table that cannot be used
     │    └── GenomeSetupError             rejudge.suites.domains.genome
     ├── RecorderError                     rejudge.recorder
     │    ├── ProviderCallError            a model call gave no usable response
     │    ├── ProviderUnreachableError     rejudge.recorder._record
     │    ├── ReplayMissError              rejudge.recorder._tape
     │    ├── JudgeMissError               rejudge.recorder._judge_calls: no usable judge cassette
     │    ├── JudgeServerError             rejudge.recorder._judge_calls: the judge server is down
     │    └── ToolServerError              rejudge.recorder._mcp: an MCP server failed
     ├── CassetteError                     rejudge.recorder._cassettes
     ├── CassetteImportError               rejudge.recorder._importer
     ├── LocalModelError                   rejudge.recorder._llama_build
     ├── SuiteError                        rejudge.suites
     │    ├── SuiteFormatError             (also InvalidInputError)
     │    ├── SuiteNotFoundError           (also NotFoundError)
     │    ├── McpToolsError                rejudge.suites.domains.mcp (also InvalidInputError)
     │    └── FuncBenchError               rejudge.suites.generators._funcbench
     │         └── KnobError               (also InvalidInputError)
     ├── ToolError                         raised by a sandbox tool; the model sees it as a result
     ├── Unsupported                       rejudge.judge.bfcl._values: a value bfcl-eval cannot take
     ├── BfclError                         rejudge.importers._bfcl_suite
     ├── DemoError                         rejudge.services._demo
     └── ClusterError                      rejudge.services._distributed: the Dask cluster

The root classes are defined here, so ``import rejudge.errors`` loads nothing else; the others
live with the code that raises them and are re-exported from here on first access.
"""

from __future__ import annotations

from typing import Any

from rejudge._lazy import lazy_exports

__all__ = [
    "RejudgeError",
    "StoreError",
    "DatabaseURLError",
    "DatabaseUnavailableError",
    "SchemaVersionError",
    "NotFoundError",
    "ConflictError",
    "InvalidInputError",
]


class RejudgeError(Exception):
    """Root of every error rejudge raises on purpose; the CLI prints it as one line.

    ``run``, ``case``, ``file`` and ``field`` name what the error is about, when it is about one
    (a run id or name, a case id, a file path, a field or option of the input).
    """

    def __init__(
        self,
        *args: Any,
        run: str | int | None = None,
        case: str | None = None,
        file: str | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(*args)
        self.run = run
        self.case = case
        self.file = file
        self.field = field


class StoreError(RejudgeError):
    """The database cannot be used (bad URL, unreachable, schema of another version)."""


class DatabaseURLError(StoreError):
    """A database URL that names no supported database."""


class DatabaseUnavailableError(StoreError):
    """The database does not answer, or refuses the connection."""


class SchemaVersionError(StoreError):
    """The database schema is older or newer than this rejudge; migrate it."""


class NotFoundError(RejudgeError):
    """A named thing (run, suite, tier, rule set, ...) does not exist."""


class ConflictError(RejudgeError):
    """The store already holds something different under the same name or key."""


class InvalidInputError(RejudgeError):
    """Input that cannot be used as given; the message says which part and why."""


# the errors defined beside the code that raises them: public name -> defining module
_EXPORTS: dict[str, str] = {
    "TierNotFoundError": "rejudge.judge.tiers._base",
    "PluginError": "rejudge.registry",
    "WorldMismatchError": "rejudge.model._world",
    "PriceTableError": "rejudge.model._prices",
    "RuleSetError": "rejudge.judge._rulesets",
    "RubricError": "rejudge.judge._rubrics",
    "BaselineMismatchError": "rejudge.judge._baseline",
    "ReviewImportError": "rejudge.judge._calibration",
    "ReviewRequiredError": "rejudge.judge._calibration",
    "Unsupported": "rejudge.judge.bfcl._values",
    "UnknownWireFormatError": "rejudge.recorder.wire._registry",
    "RecorderError": "rejudge.recorder._http",
    "ProviderCallError": "rejudge.recorder._http",
    "ProviderUnreachableError": "rejudge.recorder._record",
    "ReplayMissError": "rejudge.recorder._tape",
    "JudgeMissError": "rejudge.recorder._judge_calls",
    "JudgeServerError": "rejudge.recorder._judge_calls",
    "ToolServerError": "rejudge.recorder._mcp",
    "CassetteError": "rejudge.recorder._cassettes",
    "CassetteImportError": "rejudge.recorder._importer",
    "LocalModelError": "rejudge.recorder._llama_build",
    "SuiteError": "rejudge.suites._errors",
    "SuiteFormatError": "rejudge.suites._errors",
    "SuiteNotFoundError": "rejudge.suites._errors",
    "McpToolsError": "rejudge.suites.domains.mcp._tools",
    "ToolError": "rejudge.suites._errors",
    "FuncBenchError": "rejudge.suites.generators._funcbench",
    "KnobError": "rejudge.suites.generators._funcbench",
    "GenomeSetupError": "rejudge.suites.domains.genome.domain",
    "InspectLogError": "rejudge.importers._inspect_log",
    "BfclError": "rejudge.importers._bfcl_suite",
    "BfclNotInstalledError": "rejudge.importers._bfcl_suite",
    "DemoError": "rejudge.services._demo",
    "NoImporterError": "rejudge.importers._detect",
    "ClusterError": "rejudge.services._distributed",
}

__all__ += list(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
