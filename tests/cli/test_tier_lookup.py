"""Tier names are looked up in the registry, never imported: any unknown name, whatever it looks
like, gets the same one-line error listing the known tiers."""

from __future__ import annotations

import sys

import pytest
from rejudge.judge.tiers import BUILTIN_TIERS, TierNotFoundError, get_tier, tier_names

from tests.cli.test_judge_cli import _one_line_error, seeded  # noqa: F401  (fixture)

KNOWN = (
    "known: bfcl-ast, completion, completion-contract, contract, execution, golden, model-graded, "
    "outcome, state"
)


@pytest.mark.parametrize("name", ["nope", "x.y", "../etc", "calls", "base", "os.path", "__init__"])
def test_an_unknown_tier_is_one_clean_line_listing_the_known_ones(run_cli, seeded, name) -> None:  # noqa: F811
    result = run_cli("judge", "r1", "--tier", name)
    _one_line_error(result, f"unknown tier {name!r} ({KNOWN})")
    # the library says what is wrong; the CLI names the flag that carried it
    assert result.output.startswith(f"Error: --tier: unknown tier {name!r}")
    assert "ModuleNotFoundError" not in result.output and "report it" not in result.output


@pytest.mark.parametrize("name", ["x.y", "../etc", "os", "calls", "tiers.calls"])
def test_get_tier_imports_nothing_named_by_its_input(name: str) -> None:
    before = set(sys.modules)
    with pytest.raises(TierNotFoundError) as info:
        get_tier(name)
    assert info.value.field == "tier"
    assert {m for m in set(sys.modules) - before if m.startswith("rejudge.judge.tiers")} <= set(
        BUILTIN_TIERS.values()
    )


def test_every_built_in_name_is_registered_by_its_module() -> None:
    assert tier_names() == sorted(BUILTIN_TIERS)
    for name in BUILTIN_TIERS:
        assert get_tier(name).name == name
