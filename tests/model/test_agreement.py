"""The typed agreement with an external verdict: Cohen's kappa of a 2x2 table, and the JSON
``rejudge report EVAL --against external`` prints (computed figures included, keys in order)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rejudge.model import (
    Agreement,
    AgreementTable,
    Disagreement,
    PassHatK,
    TierAgreement,
    cohens_kappa,
)


def test_kappa_of_a_worked_table() -> None:
    # p_o = 35/50 = 0.7; rejudge passes 25/50, the source 30/50: p_e = .5*.6 + .5*.4 = 0.5
    assert cohens_kappa(20, 5, 10, 15) == pytest.approx(0.4)
    assert cohens_kappa(0, 0, 0, 0) is None
    # one answer on both sides, every trace agreeing: p_e = 1, Cohen's formula is 0/0 and the
    # kappa undefined (docs/calibration.md), never 1.0
    assert cohens_kappa(10, 0, 0, 0) is None
    assert cohens_kappa(0, 0, 0, 10) is None
    assert cohens_kappa(0, 10, 0, 0) == 0.0  # each side one answer, never the same one


@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=60))
def test_kappa_is_one_exactly_when_every_trace_agrees_on_both_classes(
    pairs: list[tuple[bool, bool]],
) -> None:
    cells = {
        (a, b): sum(1 for p in pairs if p == (a, b)) for a in (True, False) for b in (True, False)
    }
    kappa = cohens_kappa(
        cells[(True, True)], cells[(True, False)], cells[(False, True)], cells[(False, False)]
    )
    single_class = len(set(pairs)) == 1 and pairs[0][0] == pairs[0][1]
    if single_class:
        assert kappa is None  # chance agreement is certain: undefined
    elif all(a == b for a, b in pairs):
        assert kappa == 1.0
    else:
        assert kappa is not None
        assert -1.0 <= kappa < 1.0


def test_the_table_dumps_its_cells_then_its_figures() -> None:
    table = AgreementTable(pass_1=20, pass_0=5, fail_1=10, fail_0=15)
    assert table.to_json() == {
        "pass_1": 20,
        "pass_0": 5,
        "fail_1": 10,
        "fail_0": 15,
        "total": 50,
        "agreement": 0.7,
        "kappa": 0.4,
    }
    assert list(table.to_json()) == ["pass_1", "pass_0", "fail_1", "fail_0", "total"] + [
        "agreement",
        "kappa",
    ]
    empty = AgreementTable().to_json()
    assert (empty["total"], empty["agreement"], empty["kappa"]) == (0, None, None)


def test_an_agreement_dumps_in_the_order_a_script_reads() -> None:
    fail = Disagreement("a", 1, "FAIL", 1.0, ["TOOL_MISSING"], ["no call"])
    passed = Disagreement("b", 0, "PASS", 0.0)
    tier = TierAgreement(
        tier="golden",
        evaluation=3,
        rules="standard@2",
        table=AgreementTable(pass_1=1, pass_0=1, fail_1=1),
        not_scored=1,
        no_external=2,
        disagreements=[fail, passed],
        causes={"TOOL_MISSING": 1},
    )
    result = Agreement(
        run="tau",
        source="tau-bench",
        traces=5,
        external_pass_rate=0.6,
        external_pass_hat_k=PassHatK({1: 0.6}),
        tiers=[tier],
    )
    data = result.to_json()
    assert list(data) == [
        "run",
        "source",
        "traces",
        "external_pass_rate",
        "external_pass_hat_k",
        "tiers",
        "rules",
        "rules_reason",
        "external_versions",
        "external_passed",
    ]
    assert data["external_pass_hat_k"] == {"1": 0.6}  # JSON keys are strings
    [dumped] = data["tiers"]
    assert list(dumped) == [
        "tier",
        "evaluation",
        "rules",
        "table",
        "not_scored",
        "no_external",
        "causes",
        "disagreements",
    ]
    assert dumped["table"]["total"] == 3
    assert dumped["disagreements"] == [
        {
            "case": "a",
            "repetition": 1,
            "verdict": "FAIL",
            "external": 1.0,
            "kind": "rejudge FAIL, external 1",
            "causes": ["TOOL_MISSING"],
            "reasons": ["no call"],
        },
        {
            "case": "b",
            "repetition": 0,
            "verdict": "PASS",
            "external": 0.0,
            "kind": "rejudge PASS, external 0",
            "causes": [],
            "reasons": [],
        },
    ]
    assert result.tier("golden") is tier and result.tier("state") is None
