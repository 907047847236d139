"""The ``recorded`` domain: suites over evidence recorded elsewhere (other projects' cassettes).

Such a suite folder carries its own ``registry.json`` (the tools as the recording application
sent them), so the domain has no registry of its own; and nothing here can run those tools,
so its sandbox refuses every call: a recorded suite is judged, never recorded again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rejudge.suites._domain import ToolResult, register_domain

from rejudge.errors import NotFoundError
from rejudge.model import ToolRegistry

__all__ = ["RECORDED_DOMAIN", "RecordedDomain"]

RECORDED_DOMAIN = "recorded"


class _NoSandbox:
    def execute(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        return ToolResult(
            ok=False, error=f"{name!r} belongs to a recorded suite: its tools run elsewhere"
        )


@dataclass
class RecordedDomain:
    name: str = RECORDED_DOMAIN

    def registry(self) -> ToolRegistry:
        raise NotFoundError(
            "a suite of the recorded domain carries its tools in its own registry.json"
        )

    def new_sandbox(self, case_metadata: dict[str, Any] | None = None) -> _NoSandbox:
        return _NoSandbox()


register_domain(RECORDED_DOMAIN, RecordedDomain)
