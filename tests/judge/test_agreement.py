"""Agreement statistics (pure): judgment rows into the 2x2 table, what is left out, the causes,
the external pass^k (the table's own figures: tests/model/test_agreement.py)."""

from __future__ import annotations

from rejudge.judge import external_pass_hat_k, pass_hat_k, tier_agreement


def test_rows_fill_the_table_and_list_the_disagreements() -> None:
    rows = [
        {"case": "a", "repetition": 0, "verdict": "PASS", "taxonomy": []},
        {
            "case": "a",
            "repetition": 1,
            "verdict": "FAIL",
            "taxonomy": ["TOOL_MISSING"],
            "reasons": ["x"],
        },
        {"case": "b", "repetition": 0, "verdict": "PASS", "taxonomy": []},
        {"case": "b", "repetition": 1, "verdict": "AGENT_ERROR", "taxonomy": []},
        {"case": "c", "repetition": 0, "verdict": "FAIL", "taxonomy": ["PARAM_WRONG_VALUE"]},
    ]
    external = {
        ("a", 0): (1.0, True),
        ("a", 1): (1.0, True),
        ("b", 0): (0.0, False),
        ("b", 1): (1.0, True),
    }
    result = tier_agreement(rows, external, tier="golden")
    t = result.table
    assert (t.pass_1, t.pass_0, t.fail_1, t.fail_0) == (1, 1, 1, 0)
    assert (result.not_scored, result.no_external) == (1, 1)
    assert [(d.case, d.repetition, d.kind) for d in result.disagreements] == [
        ("a", 1, "rejudge FAIL, external 1"),
        ("b", 0, "rejudge PASS, external 0"),
    ]
    assert result.disagreements[0].reasons == ["x"]
    assert result.causes == {"TOOL_MISSING": 1}


def test_external_pass_hat_k_is_the_report_estimator() -> None:
    external = {("a", r): (1.0, r < 3) for r in range(4)} | {
        ("b", r): (0.0, r == 0) for r in range(4)
    }
    got = external_pass_hat_k(external)
    for k in range(1, 5):
        assert got[k] == pass_hat_k({"a": (4, 3), "b": (4, 1)}, k)
