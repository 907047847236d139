"""Tiers by name: ``contract``, ``execution``, ``completion``, ``completion-contract``,
``golden`` (:mod:`judge.tiers.calls`), ``outcome`` and ``bfcl-ast``, plus any registered later
(see :mod:`judge.tiers.base`: names are looked up in the registry, never imported)."""

from .base import (
    BUILTIN_TIERS,
    Tier,
    TierNotFoundError,
    TierResult,
    get_tier,
    register_tier,
    tier_names,
)

__all__ = [
    "BUILTIN_TIERS",
    "Tier",
    "TierResult",
    "TierNotFoundError",
    "get_tier",
    "register_tier",
    "tier_names",
]
