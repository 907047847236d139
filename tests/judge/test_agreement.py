"""Agreement statistics (pure): the 2x2 table, Cohen's kappa, what is left out, the causes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rejudge.judge import cohens_kappa, external_pass_hat_k, pass_hat_k, tier_agreement


def test_kappa_of_a_worked_table() -> None:
    # p_o = 35/50 = 0.7; rejudge passes 25/50, the source 30/50: p_e = .5*.6 + .5*.4 = 0.5
    assert cohens_kappa(20, 5, 10, 15) == pytest.approx(0.4)
    assert cohens_kappa(0, 0, 0, 0) is None
    assert cohens_kappa(10, 0, 0, 0) == 1.0  # one answer on both sides, every trace agreeing
    assert cohens_kappa(0, 10, 0, 0) == 0.0  # each side one answer, never the same one


@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=60))
def test_kappa_is_one_exactly_when_every_trace_agrees(pairs: list[tuple[bool, bool]]) -> None:
    cells = {
        (a, b): sum(1 for p in pairs if p == (a, b)) for a in (True, False) for b in (True, False)
    }
    kappa = cohens_kappa(
        cells[(True, True)], cells[(True, False)], cells[(False, True)], cells[(False, False)]
    )
    if all(a == b for a, b in pairs):
        assert kappa == 1.0
    elif kappa is not None:
        assert -1.0 <= kappa < 1.0


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
        assert got[str(k)] == pass_hat_k({"a": (4, 3), "b": (4, 1)}, k)
