"""The domains of BFCL's imported categories: one per category, call-only (stub executor).

A BFCL suite (:mod:`rejudge.importers._bfcl_suite`, built from the ``bfcl-eval`` package's
data) names the domain ``bfcl-<category>``; its registry is rebuilt from that data on first use,
and its sandbox records every call of an offered tool and executes none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rejudge.suites._domain import ToolResult, register_domain

from rejudge.importers._bfcl_schema import CATEGORIES, suite_name
from rejudge.model import ToolRegistry

if TYPE_CHECKING:
    from rejudge.suites._case_format import SuiteSource

__all__ = ["BfclDomain"]


class _StubSandbox:
    """BFCL cases are call-only: every call of an offered tool is recorded, never executed."""

    def __init__(self, tools: Sequence[str] | None) -> None:
        self.tools = set(tools) if tools is not None else None

    def execute(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        if self.tools is not None and name not in self.tools:
            return ToolResult(ok=False, error=f"unknown tool {name!r}")
        return ToolResult(ok=True, result={"status": "recorded (BFCL cases are call-only)"})


@dataclass
class BfclDomain:
    """The domain of one imported category: its registry is rebuilt from bfcl-eval's data."""

    name: str
    category: str
    _registry: ToolRegistry | None = field(default=None, repr=False)

    def registry(self) -> ToolRegistry:
        if self._registry is None:
            self._registry = _cached_suite(self.category).registry
        return self._registry

    def new_sandbox(self, case_metadata: dict[str, Any] | None = None) -> _StubSandbox:
        tools = (case_metadata or {}).get("tools")
        return _StubSandbox(tools if isinstance(tools, list) else None)


@lru_cache(maxsize=16)
def _cached_suite(category: str) -> SuiteSource:
    # imported here: the suite builder imports rejudge.suites, which imports this module
    from rejudge.importers._bfcl_suite import build_suite

    return build_suite(category)


def _domain_factory(category: str) -> Callable[[], BfclDomain]:
    return lambda: BfclDomain(name=suite_name(category), category=category)


for _category in CATEGORIES:
    register_domain(suite_name(_category), _domain_factory(_category))
