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
     │    ├── UnknownProviderError         rejudge.recorder.providers (also RecorderError)
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
     │    ├── TooBig                       rejudge.importers._json_stream: a JSON value past the limit
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
     └── ClusterError                      rejudge.services._partitions: the Dask cluster

The root classes are defined here, so ``import rejudge.errors`` loads nothing else; the others
live with the code that raises them and are re-exported from here on first access.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rejudge._lazy import lazy_exports

if TYPE_CHECKING:
    # the errors defined beside the code that raises them, declared once (read by rejudge._lazy
    # on first use)
    from rejudge.importers._bfcl_suite import BfclError as BfclError
    from rejudge.importers._bfcl_suite import BfclNotInstalledError as BfclNotInstalledError
    from rejudge.importers._detect import NoImporterError as NoImporterError
    from rejudge.importers._inspect_log import InspectLogError as InspectLogError
    from rejudge.importers._json_stream import TooBig as TooBig
    from rejudge.judge._baseline import BaselineMismatchError as BaselineMismatchError
    from rejudge.judge._calibration import ReviewImportError as ReviewImportError
    from rejudge.judge._calibration import ReviewRequiredError as ReviewRequiredError
    from rejudge.judge._rubrics import RubricError as RubricError
    from rejudge.judge._rulesets import RuleSetError as RuleSetError
    from rejudge.judge.bfcl._values import Unsupported as Unsupported
    from rejudge.judge.tiers._base import TierNotFoundError as TierNotFoundError
    from rejudge.model._prices import PriceTableError as PriceTableError
    from rejudge.model._world import WorldMismatchError as WorldMismatchError
    from rejudge.recorder._cassettes import CassetteError as CassetteError
    from rejudge.recorder._http import ProviderCallError as ProviderCallError
    from rejudge.recorder._http import RecorderError as RecorderError
    from rejudge.recorder._importer import CassetteImportError as CassetteImportError
    from rejudge.recorder._judge_calls import JudgeMissError as JudgeMissError
    from rejudge.recorder._judge_calls import JudgeServerError as JudgeServerError
    from rejudge.recorder._llama_build import LocalModelError as LocalModelError
    from rejudge.recorder._mcp import ToolServerError as ToolServerError
    from rejudge.recorder._record import ProviderUnreachableError as ProviderUnreachableError
    from rejudge.recorder._tape import ReplayMissError as ReplayMissError
    from rejudge.recorder.providers._base import UnknownProviderError as UnknownProviderError
    from rejudge.recorder.wire._register import UnknownWireFormatError as UnknownWireFormatError
    from rejudge.registry import PluginError as PluginError
    from rejudge.services._demo import DemoError as DemoError
    from rejudge.services._partitions import ClusterError as ClusterError
    from rejudge.suites._errors import SuiteError as SuiteError
    from rejudge.suites._errors import SuiteFormatError as SuiteFormatError
    from rejudge.suites._errors import SuiteNotFoundError as SuiteNotFoundError
    from rejudge.suites._errors import ToolError as ToolError
    from rejudge.suites.domains.genome.domain import GenomeSetupError as GenomeSetupError
    from rejudge.suites.domains.mcp._tools import McpToolsError as McpToolsError
    from rejudge.suites.generators._funcbench import FuncBenchError as FuncBenchError
    from rejudge.suites.generators._funcbench import KnobError as KnobError

# the whole tree, written out so a type checker (and `from rejudge.errors import *` in
# rejudge's face) sees it: the classes defined here, then those defined beside the code that
# raises them (the TYPE_CHECKING block above says where; rejudge._lazy imports them on first use)
__all__ = [
    "RejudgeError",
    "StoreError",
    "DatabaseURLError",
    "DatabaseUnavailableError",
    "SchemaVersionError",
    "NotFoundError",
    "ConflictError",
    "InvalidInputError",
    "TooBig",
    "TierNotFoundError",
    "PluginError",
    "WorldMismatchError",
    "PriceTableError",
    "RuleSetError",
    "RubricError",
    "BaselineMismatchError",
    "ReviewImportError",
    "ReviewRequiredError",
    "Unsupported",
    "UnknownWireFormatError",
    "UnknownProviderError",
    "RecorderError",
    "ProviderCallError",
    "ProviderUnreachableError",
    "ReplayMissError",
    "JudgeMissError",
    "JudgeServerError",
    "ToolServerError",
    "CassetteError",
    "CassetteImportError",
    "LocalModelError",
    "SuiteError",
    "SuiteFormatError",
    "SuiteNotFoundError",
    "McpToolsError",
    "ToolError",
    "FuncBenchError",
    "KnobError",
    "GenomeSetupError",
    "InspectLogError",
    "BfclError",
    "BfclNotInstalledError",
    "DemoError",
    "NoImporterError",
    "ClusterError",
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


#: the classes defined here: the root and the store's errors (rejudge.store exports them as its
#: own, under these names); the others are not in this namespace until first used
ROOT_CLASSES = tuple(name for name in __all__ if name in globals())

__getattr__, __dir__ = lazy_exports(__name__)
