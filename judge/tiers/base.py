"""The tier protocol and the tier registry.

A tier is an object with:

- ``name`` (str): the registry key, stored on every judgment;
- ``description`` (str): one line for ``rejudge`` listings;
- ``partial_family`` (``"contract"`` or ``"execution"``): which partial-score weights of the
  rule set apply to the components the tier returns;
- ``applies(case, registry) -> bool``: whether the tier is meaningful for a case (the suite
  self-test only requires PASS under applicable tiers);
- ``evaluate(ctx: judge.context.JudgeContext) -> TierResult``: the pure scoring;
- optionally ``uses_registry_index = False`` when ``evaluate`` never reads the compiled registry
  facts (``ctx.index``, the analysed calls): batch judging then does not build them up front.

The engine handles SKIP, AGENT_ERROR, hashing, precedence ordering of codes, partial-score
weighting, anomaly flags and turning any exception into a recorded ``JUDGE_ERROR``; a tier only
returns its causes (taxonomy codes, an empty list meaning PASS), its diff, reasons and partial
components in [0, 1].

Adding a tier (``outcome``, ``bfcl-ast``): put a module ``judge/tiers/<name>.py`` (dashes become
underscores) that defines the class and calls :func:`register_tier` at import time. The registry
imports ``judge.tiers.<module>`` on first lookup of an unknown name, so no other file needs an
edit. New taxonomy codes go through :func:`judge.taxonomy.register_code`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from rejudge.store.errors import NotFoundError
from rejudge.store.schemas import Case, ToolRegistry

if TYPE_CHECKING:
    from rejudge.judge.context import JudgeContext

__all__ = ["Tier", "TierResult", "register_tier", "get_tier", "tier_names", "TierNotFoundError"]


class TierNotFoundError(NotFoundError):
    pass


@dataclass(slots=True)
class TierResult:
    codes: list[str] = field(default_factory=list)
    diff: list[dict[str, Any]] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # partial-score components in [0, 1], keyed like the rule set's weights for the family
    partial: dict[str, float] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    anomalies: list[str] = field(default_factory=list)


@runtime_checkable
class Tier(Protocol):
    # read-only: the built-in tiers are frozen dataclasses, and the registry never sets them
    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def partial_family(self) -> str: ...

    def applies(self, case: Case, registry: ToolRegistry) -> bool: ...

    def evaluate(self, ctx: JudgeContext) -> TierResult: ...


_TIERS: dict[str, Tier] = {}
_BUILTIN_MODULES = ("rejudge.judge.tiers.calls",)
_OPTIONAL_MODULES = ("rejudge.judge.tiers.outcome", "rejudge.judge.tiers.bfcl_ast")


def register_tier(tier: Tier, *, replace: bool = False) -> None:
    if tier.name in _TIERS and not replace and _TIERS[tier.name] is not tier:
        raise ValueError(f"tier {tier.name!r} is already registered")
    if tier.partial_family not in ("contract", "execution"):
        raise ValueError("partial_family must be 'contract' or 'execution'")
    _TIERS[tier.name] = tier


def _import(module: str) -> None:
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise


_builtins_loaded = False


def _load_builtins() -> None:
    # once per process: get_tier runs per judgment, and import_module costs ~1 us even cached
    global _builtins_loaded
    if _builtins_loaded:
        return
    for module in _BUILTIN_MODULES:
        _import(module)
    _builtins_loaded = True


def get_tier(name: str) -> Tier:
    _load_builtins()
    tier = _TIERS.get(name)
    if tier is None:
        _import(f"rejudge.judge.tiers.{name.replace('-', '_')}")
        tier = _TIERS.get(name)
    if tier is None:
        raise TierNotFoundError(f"unknown tier {name!r} (known: {', '.join(tier_names())})")
    return tier


def tier_names() -> list[str]:
    _load_builtins()
    for module in _OPTIONAL_MODULES:
        _import(module)
    return sorted(_TIERS)
