"""The tier protocol and the tier registry.

A tier is an object with:

- ``name`` (str): the registry key, stored on every judgment;
- ``description`` (str): one line for ``rejudge`` listings;
- ``partial_family`` (``"contract"`` or ``"execution"``): which partial-score weights of the
  rule set apply to the components the tier returns;
- ``applies(case, registry) -> bool``: whether the tier is meaningful for a case (the suite
  self-test only requires PASS under applicable tiers);
- optionally ``inapplicable(case, registry, settings) -> str | None``: the reason the tier does
  not apply to a case under a rule set's settings (None: it applies); the engine asks it
  instead of ``applies`` (the ``state`` tier's ``state_applies`` setting);
- ``evaluate(ctx: judge.context.JudgeContext) -> TierResult``: the pure scoring;
- optionally ``uses_registry_index = False`` when ``evaluate`` never reads the compiled registry
  facts (``ctx.index``, the analysed calls): batch judging then does not build them up front.
- optionally ``scores_calls = False`` when the partial score is not a measure of the trace's
  calls (a model judge's score): the engine then never flags a zero score although every call
  executed (``zero_partial_score_all_calls_executed``), an anomaly of call-scoring rules only.

The engine handles SKIP, AGENT_ERROR, hashing, precedence ordering of codes, partial-score
weighting, anomaly flags and turning any exception into a recorded ``JUDGE_ERROR``; a tier only
returns its causes (taxonomy codes, an empty list meaning PASS), its diff, reasons and partial
components in [0, 1].

Adding a tier: a module that defines the class and calls :func:`register_tier` at import time.
A built-in tier also gets one line in ``rejudge.registry.BUILTINS["tier"]`` (the one way any
built-in is declared), so its module is imported on the first lookup of its name; a tier of
another package registers through the ``rejudge.plugins`` entry-point group
(:mod:`rejudge.registry`). A name is only ever looked up: no module is imported because a user
typed its name. New taxonomy codes go through :func:`judge.taxonomy.register_code`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from rejudge.errors import NotFoundError
from rejudge.model import Case, ToolRegistry
from rejudge.registry import BUILTINS, REGISTRY

if TYPE_CHECKING:
    from rejudge.judge._context import JudgeContext

__all__ = [
    "BUILTIN_TIERS",
    "Tier",
    "TierResult",
    "register_tier",
    "get_tier",
    "tier_names",
    "TierNotFoundError",
]


class TierNotFoundError(NotFoundError):
    """No tier of that name is registered; the message lists the known ones (``field="tier"``)."""


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
    # a verdict the tier decides itself instead of PASS/FAIL from its codes: only "SKIP" (the
    # model-graded tier's unusable judge reply: its codes name why, and it never counts)
    verdict: str | None = None


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


# the built-in tiers: name -> the module that registers it (their lines in the registry's table).
# The core tiers' module is loaded before any lookup, so they always win.
BUILTIN_TIERS: dict[str, str] = BUILTINS["tier"]
_CORE_MODULE = BUILTIN_TIERS["contract"]


def _check_tier(name: str, tier: Any) -> None:
    if getattr(tier, "name", None) != name:
        raise ValueError(f"tier registered as {name!r} is named {getattr(tier, 'name', None)!r}")
    if tier.partial_family not in ("contract", "execution"):
        raise ValueError("partial_family must be 'contract' or 'execution'")


REGISTRY.configure("tier", error=TierNotFoundError, check=_check_tier)


def register_tier(tier: Tier, *, replace: bool = False) -> None:
    """Add a tier to the registry (:mod:`rejudge.registry`) under its ``name``."""
    REGISTRY.register("tier", tier.name, tier, replace=replace)


_core_loaded = False


def _load_core() -> None:
    # once per process: get_tier runs per judgment, and import_module costs ~1 us even cached
    global _core_loaded
    if _core_loaded:
        return
    importlib.import_module(_CORE_MODULE)
    _core_loaded = True


def get_tier(name: str) -> Tier:
    _load_core()
    tier: Tier = REGISTRY.get("tier", name)
    return tier


def tier_names() -> list[str]:
    """Every tier name: the built-in ones, plugins' and any registered since."""
    _load_core()
    return REGISTRY.names("tier")
