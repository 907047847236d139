"""The Rule impact page's "Why" counts (dashboard/explained.py): each changed setting's flips,
counted as the page's per-flip column names them, and the flips none of them explains."""

from __future__ import annotations

from rejudge.dashboard.explained import explained, explained_codes, likely
from rejudge.judge import _taxonomy as tx

from rejudge.model import Flip
from rejudge.services import FlipCodes


def _flip(case: str, before: list[str], after: list[str], to: str = "FAIL") -> Flip:
    return Flip(
        case=case,
        repetition=0,
        from_verdict="PASS" if to == "FAIL" else "FAIL",
        to_verdict=to,
        cause="rules changed",
        taxonomy_from=before,
        taxonomy_to=after,
    )


def test_counts_agree_with_each_flips_likely_settings() -> None:
    changed = ["settings.free_text_rule", "settings.whitelist"]
    flips = [
        _flip("c1", [], [tx.PARAM_WRONG_VALUE]),  # the free-text rule's code
        _flip("c2", [], [tx.TOOL_UNEXPECTED]),  # the whitelist's
        _flip("c3", [tx.PARAM_WRONG_VALUE], [], to="PASS"),
        _flip("c4", [], [tx.TOOL_MISSING]),  # neither's
    ]
    got = explained(flips, changed)
    per_flip = [likely(f, changed) for f in flips]
    assert got.flips == 4
    assert got.by_setting == {p: sum(p in paths for paths in per_flip) for p in changed}
    assert got.unexplained == sum(not paths for paths in per_flip)
    assert got.by_setting == {"settings.free_text_rule": 2, "settings.whitelist": 1}
    assert got.unexplained == 1
    assert explained([], changed) == type(got)(0, dict.fromkeys(changed, 0), 0)


def test_the_flips_frame_is_pandas_own_frame_of_the_flips() -> None:
    """Compare's and Rule impact's table of flips, from shallow dicts (dashboard/links.py)."""
    import pandas as pd
    from rejudge.dashboard.links import flips_frame

    flips = [
        _flip("c1", [], [tx.PARAM_WRONG_VALUE]),
        _flip("c2", [tx.TOOL_MISSING], [], to="PASS"),
    ]
    assert flips_frame(flips).equals(pd.DataFrame(flips))
    assert list(flips_frame([]).columns) == list(pd.DataFrame(flips).columns)


def test_flips_counted_by_their_codes_count_as_the_flips() -> None:
    """Rule impact counts every flip's causes from the flips' verdicts and codes, counted
    (rejudge.services.compare_first_flips), not from every flip made whole."""
    changed = ["settings.free_text_rule", "settings.whitelist"]
    codes = [
        FlipCodes("PASS", "FAIL", (), (tx.PARAM_WRONG_VALUE,), 3),
        FlipCodes("PASS", "FAIL", (), (tx.TOOL_UNEXPECTED, tx.PARAM_WRONG_VALUE), 2),
        FlipCodes("FAIL", "PASS", (tx.TOOL_MISSING,), (), 4),
    ]
    flips = [
        _flip(f"c{i}-{n}", list(c.taxonomy_a), list(c.taxonomy_b), to=str(c.verdict_b))
        for i, c in enumerate(codes)
        for n in range(c.flips)
    ]
    got = explained_codes(codes, changed)
    assert got == explained(flips, changed)
    assert got.flips == 9 and got.unexplained == 4
    assert got.by_setting == {"settings.free_text_rule": 5, "settings.whitelist": 2}
