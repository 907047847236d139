"""The comparability rule and the flip-cause rule are defined once, and every surface uses them."""

from __future__ import annotations

from rejudge.model import (
    FLIP_CAUSES,
    comparability_reasons,
    flip_cause,
    flip_causes,
)


def test_a_cause_counts_only_inputs_known_on_both_sides() -> None:
    a = {"trace_hash": "t1", "rule_set_hash": "r1", "tier": "golden"}
    b = {"trace_hash": None, "rule_set_hash": "r2", "tier": "golden"}
    assert flip_causes(a, b) == ["rules changed"]
    assert flip_cause(a, {**b, "trace_hash": "t2"}) == "trace changed"
    assert flip_cause(a, a) is None
    assert flip_cause(a, None) is None and flip_causes(None, b) == []


def test_causes_come_in_the_reviewers_order() -> None:
    a = {field: "x" for field, _ in FLIP_CAUSES}
    b = {field: "y" for field, _ in FLIP_CAUSES}
    assert flip_causes(a, b) == [label for _, label in FLIP_CAUSES]


def test_comparability_names_each_reason_and_pools_no_harness_modes() -> None:
    assert (
        comparability_reasons(
            only_a=0,
            only_b=0,
            changed_cases=0,
            registries_differ=False,
            harness_a="production-parity",
            harness_b=None,
        )
        == []
    )
    reasons = comparability_reasons(
        only_a=2,
        only_b=1,
        changed_cases=3,
        registries_differ=True,
        harness_a="production-parity",
        harness_b="oracle-assisted",
    )
    assert reasons == [
        "case sets differ: 2 only in A, 1 only in B",
        "3 case(s) differ in content (golden or case changed)",
        "tool registries differ",
        "harness modes differ (production-parity vs oracle-assisted); results are never pooled",
    ]


def test_the_cli_and_the_dashboard_use_the_same_rules() -> None:
    from rejudge.judge import CAUSES, compare_rows

    assert CAUSES is FLIP_CAUSES
    rows_a = [{"case": "c", "repetition": 0, "verdict": "PASS", "rule_set_hash": "r1"}]
    rows_b = [{"case": "c", "repetition": 0, "verdict": "FAIL", "rule_set_hash": "r2"}]
    out = compare_rows(rows_a, rows_b, meta_a={"harness_mode": "x"}, meta_b={"harness_mode": "y"})
    assert out["flips"][0]["cause"] == flip_cause(rows_a[0], rows_b[0]) == "rules changed"
    assert out["reasons"] == comparability_reasons(
        only_a=0, only_b=0, changed_cases=0, registries_differ=False, harness_a="x", harness_b="y"
    )
