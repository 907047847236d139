"""A comparison knows what it compares: evidence (other traces), a judge (the same traces judged
otherwise), both (mixed) or neither. Only evidence gets McNemar and "better"; two judges get who
is stricter, the 2x2 agreement and Cohen's kappa."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rejudge.judge import compare, comparison_kind, mcnemar_exact, plain_verdict

from rejudge.model import KEY_PARAMETERS, cohens_kappa

BASE = {
    "trace_hash": "t",
    "case_hash": "c",
    "registry_hash": "r",
    "tier": "golden",
    "rule_set_hash": "s1",
    "engine_version": "e1",
}


def rows(verdicts: list[str], **inputs: str) -> list[dict[str, object]]:
    return [
        {"case": f"c{i}", "repetition": 0, "verdict": v, "dimension": "D1", **{**BASE, **inputs}}
        for i, v in enumerate(verdicts)
    ]


def test_two_tiers_on_the_same_traces_are_a_judge_comparison() -> None:
    a = rows(["FAIL", "FAIL", "FAIL", "PASS", "PASS", "FAIL", "SKIP"])
    b = rows(["PASS", "PASS", "PASS", "PASS", "FAIL", "FAIL", "PASS"], tier="state")
    cmp = compare(a, b)
    assert cmp.kind == "judge"
    assert cmp.differs == {"evidence": [], "judge": ["tier changed"]}
    # no race between judges: no p-value, no "better"
    assert cmp.mcnemar_p is None and cmp.verdict is None
    j = cmp.judges
    assert j is not None
    assert (j.pass_pass, j.pass_fail, j.fail_pass, j.fail_fail, j.not_scored) == (1, 1, 3, 1, 1)
    assert (j.a_stricter, j.b_stricter, j.stricter) == (3, 1, "A")
    assert j.kappa == cohens_kappa(1, 1, 3, 1)
    assert j.agreement == pytest.approx(2 / 6, abs=1e-6)
    assert cmp.flips_by_cause == {"tier changed": 5}
    text = cmp.reading()
    assert "A is stricter on 3 case(s), B on 1" in text and "better" not in text
    assert "Judge comparison" in text and "tier changed" in text
    out = cmp.to_json()
    assert out["format_version"] == 2 and out["kind"] == "judge"
    assert out["judges"]["table"] == {
        "pass_pass": 1,
        "pass_fail": 1,
        "fail_pass": 3,
        "fail_fail": 1,
        "total": 6,
    }


def test_two_runs_are_an_evidence_comparison_with_mcnemar() -> None:
    a = rows(["FAIL"] * 12 + ["PASS"] * 4)
    b = [
        {**r, "trace_hash": f"other-{r['case']}"}
        for r in rows(["PASS"] * 11 + ["FAIL"] + ["PASS"] * 4)
    ]
    cmp = compare(a, b, meta_a={"run_id": 1}, meta_b={"run_id": 2})
    assert cmp.kind == "evidence" and cmp.differs["evidence"] == ["trace changed"]
    assert cmp.mcnemar_p == mcnemar_exact(0, 11)
    assert cmp.verdict == "B better" == plain_verdict(cmp.mcnemar_p, 0, 11)
    assert cmp.judges is None
    assert "Evidence comparison" in cmp.reading() and "B better" in cmp.reading()


def test_a_run_and_another_judge_at_once_is_mixed_and_says_so() -> None:
    a = rows(["FAIL", "PASS"])
    b = [{**r, "trace_hash": "t2"} for r in rows(["PASS", "PASS"], rule_set_hash="s2")]
    cmp = compare(a, b)
    assert cmp.kind == "mixed"
    assert cmp.mcnemar_p is None and cmp.verdict is None and cmp.judges is None
    assert cmp.reading().startswith("MIXED comparison")


def test_the_same_inputs_are_the_same_and_an_unpaired_pair_reads_its_meta() -> None:
    assert compare(rows(["PASS"]), rows(["PASS"])).kind == "same"
    # no case in common: the evaluations' own inputs still tell the kind
    a = [{"case": "x", "repetition": 0, "verdict": "PASS"}]
    b = [{"case": "y", "repetition": 0, "verdict": "PASS"}]
    assert compare(a, b, meta_a={"tier": "golden"}, meta_b={"tier": "state"}).kind == "judge"
    assert compare(a, b, meta_a={"run_id": 1}, meta_b={"run_id": 2}).kind == "evidence"


def test_every_key_parameter_is_one_side_and_a_new_one_is_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rejudge.model import KeyParameter, _comparison

    assert {p.side for p in KEY_PARAMETERS} <= {"evidence", "judge", "case"}
    assert len({p.field for p in KEY_PARAMETERS}) == len(KEY_PARAMETERS)
    # the model-graded tier's judge is a judge change, each part with its own cause
    assert [p.cause for p in KEY_PARAMETERS if p.side == "judge"][-3:] == [
        "rubric changed",
        "judge model changed",
        "judge parameters changed",
    ]
    # a parameter yet to come, added as one line, is a judge change with its own cause
    extended = (*KEY_PARAMETERS, KeyParameter("judge_seed", "judge", "judge seed changed"))
    monkeypatch.setattr(_comparison, "KEY_PARAMETERS", extended)
    from rejudge.judge import _compare

    monkeypatch.setattr(_compare, "KEY_PARAMETERS", extended)
    a = rows(["PASS"], judge_seed="1")
    b = rows(["FAIL"], judge_seed="2")
    cmp = compare(a, b)
    assert cmp.kind == "judge" and cmp.differs["judge"] == ["judge seed changed"]


def test_kind_from_the_causes_on_each_side() -> None:
    assert comparison_kind({"evidence": ["trace changed"], "judge": []}) == "evidence"
    assert comparison_kind({"evidence": [], "judge": ["rules changed"]}) == "judge"
    assert comparison_kind({"evidence": ["x"], "judge": ["y"]}) == "mixed"
    assert comparison_kind({}) == "same"


VERDICT = st.sampled_from(["PASS", "FAIL", "SKIP", "AGENT_ERROR"])


@given(st.lists(st.tuples(VERDICT, VERDICT), max_size=40))
def test_a_judge_table_accounts_for_every_pair(pairs: list[tuple[str, str]]) -> None:
    a = rows([va for va, _ in pairs])
    b = rows([vb for _, vb in pairs], rule_set_hash="s2")
    cmp = compare(a, b)
    if not pairs:
        assert cmp.kind == "same"
        return
    j = cmp.judges
    assert cmp.kind == "judge" and j is not None
    assert j.total + j.not_scored == len(pairs)
    assert j.a_stricter == sum(1 for p in pairs if p == ("FAIL", "PASS"))
    assert j.b_stricter == sum(1 for p in pairs if p == ("PASS", "FAIL"))
    assert j.a_stricter + j.b_stricter <= len(cmp.flips)
    assert sum(cmp.flips_by_cause.values()) == len(cmp.flips)
    if j.kappa is not None:
        assert -1.0 <= j.kappa <= 1.0
    # swapping the judges swaps who is stricter and keeps the agreement
    swapped = compare(b, a).judges
    assert swapped is not None
    assert (swapped.a_stricter, swapped.b_stricter) == (j.b_stricter, j.a_stricter)
    assert swapped.kappa == j.kappa and swapped.agreement == j.agreement
