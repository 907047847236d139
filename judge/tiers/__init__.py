"""Tiers by name: ``contract``, ``execution``, ``completion``, ``completion-contract``,
``golden`` (built in, :mod:`judge.tiers.calls`), plus any registered later (see
:mod:`judge.tiers.base` for how ``outcome`` and ``bfcl-ast`` plug in)."""

from .base import Tier, TierNotFoundError, TierResult, get_tier, register_tier, tier_names

__all__ = ["Tier", "TierResult", "TierNotFoundError", "get_tier", "register_tier", "tier_names"]
