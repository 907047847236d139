"""``rejudge tiers``: every tier the registry knows, what it checks and what it judges."""

from __future__ import annotations

from typing import Any

import click

from rejudge.cli._context import AppContext, emit_listing, json_option, pass_app
from rejudge.judge.tiers import BUILTIN_TIERS, get_tier, tier_names

__all__ = ["tiers", "TIER_HELP"]

#: the help of every ``--tier`` option: the built-in names (a plugin's tiers are listed by
#: ``rejudge tiers``, which loads plugins; the help stays cheap)
TIER_HELP = f"one of {', '.join(sorted(BUILTIN_TIERS))}, or a plugin's (`rejudge tiers` lists them)"


def tier_rows() -> list[dict[str, Any]]:
    rows = []
    for name in tier_names():
        tier = get_tier(name)
        rows.append(
            {
                "name": name,
                "description": tier.description,
                "applies_to": getattr(tier, "applies_to", None) or "every case",
                "partial_family": tier.partial_family,
                "built_in": name in BUILTIN_TIERS,
            }
        )
    return rows


@click.command("tiers")
@json_option
@pass_app
def tiers(app: AppContext) -> None:
    """Every tier: what it checks and the cases it applies to (others get SKIP)."""
    emit_listing(
        app,
        "Tiers",
        tier_rows(),
        {"tier": "name", "what it checks": "description", "applies to": "applies_to"},
    )
