"""The head of a trace (pure): the verdict, causes and reasons as the judgment holds them, what a
state verdict compared and its final-state diff; whatever text a judgment carries stays text."""

from __future__ import annotations

import html
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rejudge.dashboard.verdict_html import (
    HEAD_REASONS,
    verdict_head,
    verdict_head_html,
)

from tests.dashboard.conftest import TableParser

TAG = re.compile(r"<\s*/?\s*([a-zA-Z]+)")
OURS = {"div", "span", "b", "ul", "li", "table", "thead", "tbody", "tr", "th", "td"}
EXPECTED = "sha256:" + "a" * 64
OTHER = "sha256:" + "b" * 64


def _state(verdict: str, actual: str, diff: list[dict[str, object]]) -> dict[str, object]:
    return {
        "tier": "state",
        "verdict": verdict,
        "taxonomy": ["STATE_WRONG"] if diff else [],
        "reasons": [f"{len(diff)} field(s) differ"] if diff else [],
        "details": {
            "re_executed_calls": 8,
            "state_differences": len(diff),
            "state_hash_expected": EXPECTED,
            "state_hash_actual": actual,
            "world": "tau-bench-airline@7362a17",
        },
        "diff": diff,
    }


def _text(markup: str, cls: str) -> str:
    found = re.search(rf'class="{cls}"[^>]*>(.*?)</(?:div|span|ul)>', markup, re.S)
    assert found, (cls, markup)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", found.group(1))).split())


def test_a_state_fail_names_the_world_the_calls_and_every_field() -> None:
    diff = [
        {
            "kind": "state",
            "table": "reservations",
            "key": "HATHAT",
            "path": "payment_history[1].amount",
            "expected": 5,
            "actual": 55,
            "expected_present": True,
            "actual_present": True,
        },
        {
            "kind": "state",
            "table": "users",
            "key": "mia",
            "path": "payment_methods.cert",
            "expected": {"amount": 100},
            "actual": None,
            "expected_present": True,
            "actual_present": False,
        },
    ]
    head = verdict_head(_state("FAIL", OTHER, diff))
    assert head.verdict == "FAIL" and head.causes == ("STATE_WRONG",)
    assert head.compared is not None
    assert "8 call(s)" in head.compared and "tau-bench-airline@7362a17" in head.compared
    assert "differ in 2 field(s)" in head.compared
    markup = verdict_head_html(head)
    parser = TableParser()
    parser.feed(markup)
    (table,) = parser.tables
    assert table[0] == ["record", "field", "expected (golden)", "actual"]
    assert [dict(zip(table[0], row, strict=True)) for row in table[1:]] == [
        {
            "record": "reservations/HATHAT",
            "field": "payment_history[1].amount",
            "expected (golden)": "5",
            "actual": "55",
        },
        {
            "record": "users/mia",
            "field": "payment_methods.cert",
            "expected (golden)": '{"amount": 100}',
            "actual": "(absent)",
        },
    ]


def test_a_state_pass_says_the_two_final_states_are_equal() -> None:
    head = verdict_head(_state("PASS", EXPECTED, []))
    assert head.compared is not None and "the two are equal" in head.compared
    assert head.changes == ()
    assert "the two are equal" in _text(verdict_head_html(head), "rj-compared")


def test_other_tiers_and_a_state_skip_compare_nothing() -> None:
    golden = {"tier": "golden", "verdict": "FAIL", "taxonomy": ["TOOL_MISSING"], "diff": []}
    assert verdict_head(golden).compared is None
    skip = {"tier": "state", "verdict": "SKIP", "reasons": ["tier does not apply"], "details": {}}
    head = verdict_head(skip)
    assert head.compared is None and "rj-compared" not in verdict_head_html(head)
    assert _text(verdict_head_html(head), "rj-causes").strip() == "Causes: none named"


def test_long_reasons_are_counted_not_dropped() -> None:
    reasons = [f"reason {i}" for i in range(HEAD_REASONS + 3)]
    markup = verdict_head_html(verdict_head({"verdict": "FAIL", "reasons": reasons}))
    listed = _text(markup, "rj-reasons")
    assert f"reason {HEAD_REASONS - 1}" in listed and f"reason {HEAD_REASONS}" not in listed
    assert "and 3 more" in listed


# four text draws: slow to generate on a loaded two-core machine, not a slow strategy
@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.text(min_size=1), st.text(min_size=1), st.text(), st.text())
def test_judgment_text_stays_text(verdict: str, cause: str, reason: str, path: str) -> None:
    judgment = _state(verdict, OTHER, [])
    judgment["taxonomy"] = [cause]
    judgment["reasons"] = [reason]
    judgment["diff"] = [{"kind": "state", "table": path, "key": "k", "path": path, "actual": 1}]
    markup = verdict_head_html(verdict_head(judgment), title=path)
    assert set(TAG.findall(markup)) <= OURS
    assert "<a" not in markup.lower() and "href" not in markup.lower()
    assert html.escape(verdict) in markup and html.escape(cause) in markup
