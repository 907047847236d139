"""The domain seam: a tool world the recorder executes calls in and the suites are written for.

A domain gives a tool registry (what the judge needs to know) and fresh sandboxes (where calls
run). Domains register by name; the recorder and the self-test look them up with ``get_domain``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from rejudge.errors import InvalidInputError
from rejudge.model import ToolRegistry
from rejudge.registry import REGISTRY

__all__ = [
    "ToolResult",
    "Sandbox",
    "Domain",
    "CaseChecks",
    "register_domain",
    "get_domain",
    "domain_names",
]


@dataclass(frozen=True)
class ToolResult:
    """What one executed call gave back. ``ok=False`` is a tool error shown to the model."""

    ok: bool
    result: Any = None
    error: str | None = None

    def as_message_content(self) -> Any:
        return self.result if self.ok else {"error": self.error}


@runtime_checkable
class Sandbox(Protocol):
    """Executes calls for one trace; a fresh one per trace, so every case starts clean."""

    def execute(self, name: str, arguments: dict[str, Any]) -> ToolResult: ...


@runtime_checkable
class Domain(Protocol):
    name: str

    def registry(self) -> ToolRegistry: ...

    def new_sandbox(self, case_metadata: dict[str, Any] | None = None) -> Sandbox: ...


@runtime_checkable
class CaseChecks(Protocol):
    """Optional extras a domain may offer to :func:`suites.validate.validate_suite`.

    ``case_id_pattern``: a regex every case id must fully match (a named group ``dim`` ties the
    id to the dimension ``"D" + dim``); None for no pattern. ``check_case`` yields
    ``(field, message)`` for each domain rule a case breaks.
    """

    case_id_pattern: str | None

    def check_case(self, case: Any, registry: ToolRegistry) -> Any: ...


def register_domain(name: str, factory: Callable[[], Domain]) -> None:
    """Register a domain, built by ``factory()`` on its first lookup (:mod:`rejudge.registry`)."""
    REGISTRY.register_factory("domain", name, factory)


def domain_names() -> list[str]:
    return REGISTRY.names("domain")


def get_domain(name: str) -> Domain:
    domain: Domain = REGISTRY.get("domain", name)
    return domain


def package_data(*parts: str) -> Path:
    """Path of a data file shipped inside the suites package."""
    return Path(__file__).parent.joinpath(*parts)


def read_json_data(path: Path, what: str) -> Any:
    """A shipped JSON data file (a world's initial data), or one clear error naming the file:
    a world whose data cannot be read must never become a traceback in a judging."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InvalidInputError(
            f"{path}: {what} is missing; reinstall rejudge", file=str(path)
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"{path}: cannot be read ({exc})", file=str(path)) from None
    except json.JSONDecodeError as exc:
        raise InvalidInputError(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
            file=str(path),
        ) from None
