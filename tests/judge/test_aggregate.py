"""Reports, pass^k, comparisons (McNemar) and baselines against hand-computed values."""

from __future__ import annotations

from math import comb

import pytest
from rejudge.judge import (
    BaselineMismatchError,
    build_report,
    check_baseline,
    compare_rows,
    lock_baseline,
    mcnemar_exact,
    pass_hat_k,
    report_hash,
)


def row(case, verdict, rep=0, dim="D1", cat="x", tax=(), score=None, tools=(), **kw):
    return {
        "case": case,
        "repetition": rep,
        "verdict": verdict,
        "dimension": dim,
        "category": cat,
        "taxonomy": list(tax),
        "partial_score": score,
        "implicated_tools": list(tools),
        **kw,
    }


def test_mcnemar_hand_values():
    # b=0, c=5: p = 2 * (1/32) = 0.0625
    assert mcnemar_exact(0, 5) == pytest.approx(0.0625)
    # b=1, c=9: p = 2 * (1 + 10) / 1024 = 0.021484375
    assert mcnemar_exact(1, 9) == pytest.approx(22 / 1024)
    # symmetric and capped at 1
    assert mcnemar_exact(9, 1) == mcnemar_exact(1, 9)
    assert mcnemar_exact(3, 3) == 1.0
    assert mcnemar_exact(0, 0) == 1.0
    # a 2-point swing on 72 cases (b=0, c=2 discordant) is not significant
    assert mcnemar_exact(0, 2) == 0.5


def test_pass_hat_k_hand_values():
    # case a: 4 trials, 2 passes; case b: 4 trials, 4 passes
    outcomes = {"a": (4, 2), "b": (4, 4)}
    assert pass_hat_k(outcomes, 1) == pytest.approx((2 / 4 + 1) / 2)
    assert pass_hat_k(outcomes, 2) == pytest.approx((comb(2, 2) / comb(4, 2) + 1) / 2)  # (1/6+1)/2
    assert pass_hat_k(outcomes, 3) == pytest.approx((0 + 1) / 2)
    assert pass_hat_k(outcomes, 5) is None


def test_report_counts_and_keys():
    rows = [
        row("c1", "PASS", score=1.0),
        row(
            "c2", "FAIL", tax=["TOOL_MISSING", "PARAM_WRONG_VALUE"], score=0.5, tools=["get_order"]
        ),
        row(
            "c3",
            "FAIL",
            dim="D2",
            tax=["PARAM_WRONG_VALUE"],
            score=0.8,
            tools=["get_order", "request_cancel"],
        ),
        row("c4", "SKIP", dim="D2"),
        row("c5", "AGENT_ERROR", dim="D3", anomalies=[]),
        row(
            "c6",
            "FAIL",
            dim="D3",
            tax=["TOOL_UNEXPECTED"],
            score=0.0,
            anomalies=["zero_partial_score_all_calls_executed"],
        ),
    ]
    rep = build_report(rows, harness_mode="production-parity").to_json()
    assert rep["verdict_counts"] == {"PASS": 1, "FAIL": 3, "SKIP": 1, "AGENT_ERROR": 1}
    assert rep["scored_count"] == 4
    assert rep["accuracy"] == 0.25  # SKIP and AGENT_ERROR are not in the denominator
    assert rep["dimensions"]["D2"]["accuracy"] == 0.0
    assert rep["dimensions"]["D3"]["verdict_counts"]["AGENT_ERROR"] == 1
    assert rep["taxonomy_counts"] == {
        "TOOL_MISSING": 1,
        "TOOL_UNEXPECTED": 1,
        "PARAM_WRONG_VALUE": 2,
    }
    assert rep["top_failures"][0]["code"] in (
        "PARAM_WRONG_VALUE",
        "TOOL_MISSING",
        "TOOL_UNEXPECTED",
    )
    assert sum(t["count"] for t in rep["top_failures"]) == 3  # primary causes of three FAILs
    assert rep["worst_tools"][0] == {"tool": "get_order", "failures": 2}
    assert rep["average_partial_score"] == pytest.approx((1.0 + 0.5 + 0.8 + 0.0) / 4)
    assert rep["anomalies"] == [
        {"case": "c6", "repetition": 0, "flags": ["zero_partial_score_all_calls_executed"]}
    ]
    assert rep["harness_mode"] == "production-parity"
    assert "pass_at_k" not in rep
    assert [c["case"] for c in rep["cases"]] == ["c1", "c2", "c3", "c4", "c5", "c6"]


def test_report_pass_at_k_over_repetitions():
    rows = [row("a", v, rep=i) for i, v in enumerate(["PASS", "FAIL", "PASS", "FAIL"])]
    rows += [row("b", "PASS", rep=i) for i in range(4)]
    rep = build_report(rows).to_json()
    assert rep["pass_at_k"]["1"] == pytest.approx(0.75)
    assert rep["pass_at_k"]["2"] == pytest.approx((1 / 6 + 1) / 2, abs=1e-6)
    assert rep["pass_at_k"]["4"] == pytest.approx(0.5)


def test_pass_at_k_counts_the_cases_each_k_is_over():
    # a: 4 scored repetitions, b: 2, c: 1 -> k=1 over 3 cases, k=2 over 2, k=3 and k=4 over 1
    rows = [row("a", v, rep=i) for i, v in enumerate(["PASS", "FAIL", "PASS", "FAIL"])]
    rows += [row("b", "PASS", rep=i) for i in range(2)] + [row("c", "FAIL")]
    hat = build_report(rows).summary.pass_at_k
    assert hat is not None and hat.cases == {1: 3, 2: 2, 3: 1, 4: 1}
    # the JSON (what a baseline locks and hashes) is the values alone, as before
    assert hat.to_json() == {"1": hat[1], "2": hat[2], "3": hat[3], "4": hat[4]}


def test_compare_flips_causes_and_comparability():
    h = {"case_hash": "c", "registry_hash": "r", "tier": "golden", "trace_hash": "t"}
    a = [
        row("c1", "PASS", rule_set_hash="s1", **h),
        row("c2", "FAIL", rule_set_hash="s1", **h),
        row("c3", "FAIL", rule_set_hash="s1", **h),
    ]
    b = [
        row("c1", "PASS", rule_set_hash="s2", **h),
        row("c2", "PASS", rule_set_hash="s2", **h),
        row("c3", "FAIL", rule_set_hash="s2", **{**h, "trace_hash": "t2"}),
    ]
    out = compare_rows(
        a,
        b,
        meta_a={"id": "A", "harness_mode": "production-parity"},
        meta_b={"id": "B", "harness_mode": "production-parity"},
    )
    assert out["comparable"] is True and out["reasons"] == []
    assert [(f["case"], f["from"], f["to"], f["cause"]) for f in out["flips"]] == [
        ("c2", "FAIL", "PASS", "rules changed")
    ]
    assert out["discordant"] == {"pass_to_fail": 0, "fail_to_pass": 1}
    # c3's trace differs and every rule set does: two changes at once, so no test and no verdict
    assert out["kind"] == "mixed"
    assert out["differs"] == {"evidence": ["trace changed"], "judge": ["rules changed"]}
    assert out["mcnemar_p"] is None and out["verdict"] is None and out["judges"] is None
    assert out["flips_by_cause"] == {"rules changed": 1}
    assert out["accuracy_a"] == pytest.approx(1 / 3, abs=1e-6) and out[
        "accuracy_b"
    ] == pytest.approx(2 / 3, abs=1e-6)
    assert out["dimensions"]["D1"]["delta"] == pytest.approx(1 / 3, abs=1e-5)


def test_compare_not_comparable_is_loud():
    a = [row("c1", "PASS", case_hash="x"), row("c2", "PASS")]
    b = [row("c1", "FAIL", case_hash="y")]
    out = compare_rows(
        a,
        b,
        meta_a={"harness_mode": "oracle-assisted"},
        meta_b={"harness_mode": "production-parity"},
    )
    assert out["comparable"] is False
    assert len(out["reasons"]) == 3
    assert out["flips"][0]["cause"] == "case changed"
    assert out["only_a"] == [{"case": "c2", "repetition": 0}]


def test_baseline_lock_and_check():
    base_rows = [row("c1", "PASS"), row("c2", "PASS"), row("c3", "FAIL")]
    inputs = {"suite_hash": "s", "rule_set_hash": "r", "tier": "golden"}
    base = lock_baseline("main", build_report(base_rows).to_json(), inputs)
    assert base["report_sha256"] == report_hash(build_report(base_rows).to_json())
    same = check_baseline(base, build_report(base_rows).to_json(), inputs)
    assert same["regression"] is False
    # each accuracy with the counts it is a rate of (PASS of PASS + FAIL)
    assert (same["passed_baseline"], same["scored_baseline"]) == (2, 3)
    assert (same["passed_current"], same["scored_current"]) == (2, 3)
    worse = check_baseline(
        base,
        build_report([row("c1", "PASS"), row("c2", "FAIL"), row("c3", "PASS")]).to_json(),
        inputs,
    )
    assert worse["regression"] is True and worse["flips"][0]["case"] == "c2"
    # accuracy equal, flips ignored when told so
    assert (
        check_baseline(
            base,
            build_report([row("c1", "PASS"), row("c2", "FAIL"), row("c3", "PASS")]).to_json(),
            inputs,
            fail_on_flip=False,
        )["regression"]
        is False
    )
    drop = check_baseline(
        base,
        build_report([row("c1", "PASS"), row("c2", "FAIL"), row("c3", "FAIL")]).to_json(),
        inputs,
        fail_on_flip=False,
        max_accuracy_drop=0.5,
    )
    assert drop["regression"] is False and drop["accuracy_drop"] == pytest.approx(1 / 3, abs=1e-6)
    assert (drop["passed_current"], drop["scored_current"]) == (1, 3)
    with pytest.raises(BaselineMismatchError, match="rule_set_hash"):
        check_baseline(
            base, build_report(base_rows).to_json(), {**inputs, "rule_set_hash": "other"}
        )
    allowed = check_baseline(
        base,
        build_report(base_rows).to_json(),
        {**inputs, "rule_set_hash": "o"},
        allow_mismatch=True,
    )
    assert allowed["input_mismatches"] and allowed["judge_changed"] == ["rules changed"]
    # a judge input (the tier) is a judge change; a suite input is not
    with pytest.raises(
        BaselineMismatchError, match=r"judge changed .*\(tier changed; inputs tier\)"
    ):
        check_baseline(base, build_report(base_rows).to_json(), {**inputs, "tier": "state"})
    with pytest.raises(BaselineMismatchError, match="evaluation inputs differ") as info:
        check_baseline(base, build_report(base_rows).to_json(), {**inputs, "suite_hash": "x"})
    assert "judge" not in str(info.value)
    tampered = {**base, "report": {**base["report"], "accuracy": 1.0}}
    with pytest.raises(BaselineMismatchError, match="altered"):
        check_baseline(tampered, build_report(base_rows).to_json(), inputs)


def test_report_streams_and_ignores_row_order():
    import random

    rng = random.Random(3)
    rows = []
    for i in range(300):
        verdict = rng.choice(["PASS", "FAIL", "FAIL", "SKIP", "AGENT_ERROR"])
        rows.append(
            {
                "case": f"c{i % 40:02d}",
                "repetition": i // 40,
                "verdict": verdict,
                "taxonomy": rng.sample(["TOOL_MISSING", "PARAM_WRONG_VALUE", "ORDER_WRONG"], 2)
                if verdict == "FAIL"
                else [],
                "partial_score": round(rng.random(), 6),
                "dimension": f"D{i % 3}",
                "category": "x",
                "implicated_tools": ["t1"] if verdict == "FAIL" else [],
                "anomalies": ["flag"] if i % 17 == 0 else [],
            }
        )
    expected = build_report(rows).to_json()
    shuffled = rows[:]
    rng.shuffle(shuffled)
    assert build_report(iter(shuffled)).to_json() == expected  # a one-pass iterator, any order
    assert build_report(r for r in rows).to_json() == expected
    assert expected["cases"][0]["case"] == "c00" and len(expected["cases"]) == 300
    assert [a["case"] for a in expected["anomalies"]] == sorted(
        a["case"] for a in expected["anomalies"]
    )
    summary = build_report(iter(rows), include_cases=False).to_json()
    assert summary["cases"] == 300  # without the per-row list, "cases" is the row count
    assert {k: v for k, v in summary.items() if k != "cases"} == {
        k: v for k, v in expected.items() if k != "cases"
    }
