"""Which changed rule-set settings likely explain a flip: every setting is in the table, and the
τ-bench settings explain the flips between standard@2 and tau-bench@1 (issue 39's "likely rule
change —" on all 52 flips)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rejudge.judge import (
    SETTING_CODES,
    TIER_APPLIES,
    RuleSettings,
    diff_rule_sets,
    likely_settings,
    load_rule_set,
)
from rejudge.judge import _taxonomy as tx


def test_every_setting_of_a_rule_set_is_in_the_table() -> None:
    assert set(SETTING_CODES) == set(RuleSettings.model_fields)
    known = {*tx.CODES, TIER_APPLIES}
    assert {c for codes in SETTING_CODES.values() for c in codes} <= known
    # only the diagnostic weights govern no verdict
    assert [s for s, codes in SETTING_CODES.items() if not codes] == ["partial_weights"]


def test_the_tau_bench_settings_explain_a_call_flip() -> None:
    changed = [
        d["path"] for d in diff_rule_sets(load_rule_set("standard@2"), load_rule_set("tau-bench@1"))
    ]
    assert {"settings.judged_calls", "settings.terminal_tools", "settings.failed_calls"} <= set(
        changed
    )
    # a read the golden tier counted as unexpected under standard@2, not judged under tau-bench@1
    found = likely_settings(["TOOL_UNEXPECTED"], [], changed, verdict_a="FAIL", verdict_b="PASS")
    assert "settings.judged_calls" in found and "settings.terminal_tools" in found
    # a required output looked for in the replies only
    assert likely_settings([], ["OUTPUT_MISSING"], changed) == ["settings.outputs_from"]
    # a value code is none of theirs
    assert likely_settings(["PARAM_WRONG_VALUE"], [], ["settings.outputs_from"]) == []


def test_a_skip_on_one_side_is_the_tier_applying() -> None:
    changed = ["settings.state_applies", "settings.reward"]
    assert likely_settings([], [], changed, verdict_a="SKIP", verdict_b="PASS") == [
        "settings.state_applies"
    ]
    assert likely_settings([], [], changed, verdict_a="PASS", verdict_b="PASS") == []
    assert likely_settings(["STATE_WRONG"], [], changed) == ["settings.reward"]


CODE = st.sampled_from(sorted(tx.CODES))
PATH = st.sampled_from(sorted(f"settings.{s}" for s in SETTING_CODES))


@given(st.lists(CODE, max_size=4), st.lists(CODE, max_size=4), st.lists(PATH, max_size=6))
def test_a_setting_is_named_only_for_a_code_it_governs(
    a: list[str], b: list[str], changed: list[str]
) -> None:
    found = likely_settings(a, b, changed)
    moved = set(a) ^ set(b)
    assert all(path in changed for path in found)
    for path in changed:
        governs = set(SETTING_CODES[path.split(".")[1]])
        assert (path in found) == bool(moved & governs)
    # symmetric: the direction of the flip does not change which rule explains it
    assert likely_settings(b, a, changed) == found
