"""A model judge's calibration: its verdicts against a reference's, as a 2x2 table and kappa.

The properties a reader relies on: every item the judge's evaluation holds lands in exactly
one place (the table, judge-unscored or reference-missing); the table is the transposed table
with the sides swapped, so the kappa is symmetric; a judge that repeats the reference agrees
fully, one that contradicts it is weak and says so with its numbers; reviews turn the judge's
own verdict into the reference (``confirmed`` keeps it, ``judge_wrong`` turns it).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rejudge.judge import (
    AssertionReference,
    CalibrationReference,
    assertion_table,
    judge_calibration,
    review_reference,
    verdict_table,
)

from rejudge.model import WEAK_KAPPA, AgreementTable

Key = tuple[str, int]
_KEYS = st.tuples(st.sampled_from([f"task-{i}" for i in range(12)]), st.integers(0, 2))
_VERDICT = st.sampled_from(["PASS", "FAIL", "SKIP", "AGENT_ERROR", "JUDGE_OUTPUT_INVALID"])
_JUDGE = st.dictionaries(_KEYS, _VERDICT, max_size=30)
_REFERENCE = st.dictionaries(_KEYS, st.booleans(), max_size=30)


@settings(deadline=None)  # a loaded shared machine: time is not the property
@given(_JUDGE, _REFERENCE)
def test_every_item_of_the_judge_lands_in_one_place(
    judge: dict[Key, str], reference: dict[Key, bool]
) -> None:
    table, unscored, missing = verdict_table(judge, reference)
    scored = {k for k, v in judge.items() if v in ("PASS", "FAIL")}
    assert table.total == len(scored & reference.keys())
    assert missing == len(scored - reference.keys())
    assert unscored == len((judge.keys() - scored) & reference.keys())
    # the cells are what the two sides said
    assert table.pass_1 == sum(1 for k in scored if judge[k] == "PASS" and reference.get(k))
    assert table.fail_1 == sum(1 for k in scored if judge[k] == "FAIL" and reference.get(k))


@settings(deadline=None)  # a loaded shared machine: time is not the property
@given(st.dictionaries(_KEYS, st.tuples(st.booleans(), st.booleans()), max_size=30))
def test_swapping_the_sides_transposes_the_table_and_keeps_the_kappa(
    pairs: dict[Key, tuple[bool, bool]],
) -> None:
    def verdicts(side: int) -> dict[Key, str]:
        return {k: "PASS" if v[side] else "FAIL" for k, v in pairs.items()}

    def passed(side: int) -> dict[Key, bool]:
        return {k: v[side] for k, v in pairs.items()}

    ab, _, _ = verdict_table(verdicts(0), passed(1))
    ba, _, _ = verdict_table(verdicts(1), passed(0))
    assert (ab.pass_1, ab.pass_0, ab.fail_1, ab.fail_0) == (
        ba.pass_1,
        ba.fail_1,
        ba.pass_0,
        ba.fail_0,
    )
    assert ab.kappa == ba.kappa


@settings(deadline=None)  # a loaded shared machine: time is not the property
@given(_REFERENCE)
def test_a_judge_that_repeats_the_reference_agrees_and_one_that_contradicts_it_is_weak(
    reference: dict[Key, bool],
) -> None:
    same = {k: "PASS" if v else "FAIL" for k, v in reference.items()}
    opposite = {k: "FAIL" if v else "PASS" for k, v in reference.items()}
    ref = CalibrationReference(kind="external", name="τ-bench reward", passed=reference)
    agreeing = judge_calibration(1, "model-graded", same, references=[ref])
    contradicting = judge_calibration(1, "model-graded", opposite, references=[ref])
    if not reference:
        assert agreeing.against == [] and contradicting.against == []
        assert agreeing.warning is None
        return
    assert agreeing.against[0].table.agreement == 1.0 and agreeing.warning is None
    assert agreeing.against[0].stricter is None
    assert contradicting.against[0].table.agreement == 0.0
    warning = contradicting.warning
    assert warning is not None and warning.startswith("weak judge: ")
    assert f"vs τ-bench reward on {len(reference)} traces" in warning


def test_the_warning_gives_the_kappa_and_the_count() -> None:
    # 200 traces: the judge passes 100, the reward 100, agreeing on 105 (kappa 0.05)
    reference = {(f"t{i}", 0): i < 100 for i in range(200)}
    verdicts = {(f"t{i}", 0): "PASS" if (i < 52 or 100 <= i < 148) else "FAIL" for i in range(200)}
    calibration = judge_calibration(
        7,
        "model-graded",
        verdicts,
        references=[
            CalibrationReference("external", "τ-bench reward", reference, source="tau-bench")
        ],
    )
    [against] = calibration.against
    assert (against.table.pass_1, against.table.pass_0, against.table.fail_1) == (52, 48, 48)
    assert against.kappa is not None and against.kappa < WEAK_KAPPA
    assert calibration.warning == "weak judge: kappa 0.04 vs τ-bench reward on 200 traces"
    assert calibration.to_json()["against"][0]["weak"] is True


@settings(deadline=None)  # a loaded shared machine: time is not the property
@given(_JUDGE, st.dictionaries(_KEYS, st.sampled_from(["confirmed", "judge_wrong", "unclear"])))
def test_reviews_confirm_or_turn_the_judges_own_verdict(
    judge: dict[Key, str], labels: dict[Key, str]
) -> None:
    reference = review_reference(judge, labels)
    table, _, _ = verdict_table(judge, reference)
    decisive = [
        k for k, label in labels.items() if label != "unclear" and judge.get(k) in ("PASS", "FAIL")
    ]
    assert set(reference) == set(decisive)
    wrong = sum(1 for k in decisive if labels[k] == "judge_wrong")
    # a judge_wrong label is a disagreement, a confirmation an agreement
    assert table.pass_0 + table.fail_1 == wrong
    assert table.pass_1 + table.fail_0 == len(decisive) - wrong


@settings(deadline=None)  # a loaded shared machine: time is not the property
@given(
    st.dictionaries(_KEYS, st.lists(st.one_of(st.none(), st.booleans()), max_size=5), max_size=15),
    st.dictionaries(
        _KEYS, st.dictionaries(st.integers(0, 6), st.booleans(), max_size=5), max_size=15
    ),
)
def test_assertions_pair_by_index_and_count_every_one(
    judge: dict[Key, list[bool | None]], reference: dict[Key, dict[int, bool]]
) -> None:
    verdicts = dict.fromkeys(judge, "PASS")
    table, unscored, missing = assertion_table(verdicts, judge, reference)
    paired = [
        (given[i], met)
        for key, given in judge.items()
        for i, met in (reference.get(key) or {}).items()
        if i < len(given) and given[i] is not None
    ]
    assert table == AgreementTable(
        pass_1=sum(1 for a, b in paired if a and b),
        pass_0=sum(1 for a, b in paired if a and not b),
        fail_1=sum(1 for a, b in paired if not a and b),
        fail_0=sum(1 for a, b in paired if not a and not b),
    )
    in_reference = sum(len(reference.get(k) or {}) for k in judge)
    assert unscored == in_reference - len(paired)
    assert missing == sum(
        1
        for k, given in judge.items()
        for i, v in enumerate(given)
        if v is not None and i not in (reference.get(k) or {})
    )


def test_a_judge_weak_on_assertions_says_so_per_assertion() -> None:
    verdicts = {("task-1", 0): "PASS", ("task-2", 0): "FAIL"}
    calibration = judge_calibration(
        3,
        "model-graded",
        verdicts,
        assertions={("task-1", 0): [True, True], ("task-2", 0): [True, None]},
        assertion_references=[
            AssertionReference(
                "τ²-bench's judge",
                {("task-1", 0): {0: True, 1: False}, ("task-2", 0): {0: False, 1: True}},
                source="tau2-bench",
            )
        ],
    )
    [against] = calibration.against
    assert (against.table.total, against.judge_unscored, against.unit) == (3, 1, "assertions")
    assert against.stricter == "reference"  # the judge met two the reference did not
    # the judge met all three: its pass rate is 1, so it agrees no more than chance
    assert calibration.warning == "weak judge: kappa 0.00 vs τ²-bench's judge on 3 assertions"


def test_a_judge_that_passes_everything_the_reference_fails_is_weak() -> None:
    verdicts = {("task-1", 0): "PASS", ("task-2", 0): "PASS"}
    reference = CalibrationReference("tier", "state", {("task-1", 0): False, ("task-2", 0): False})
    calibration = judge_calibration(3, "model-graded", verdicts, references=[reference])
    assert calibration.warning == "weak judge: kappa 0.00 vs state on 2 traces"
    assert calibration.against[0].stricter == "reference"


@settings(deadline=None)  # a loaded shared machine: time is not the property
@given(_JUDGE, _REFERENCE)
def test_a_streamed_calibration_is_the_mapping_one(
    judge: dict[Key, str], reference: dict[Key, bool]
) -> None:
    # the service streams each side in key order (trace ids) through functions: the same
    # figures as the mappings, each reference merged with the judge's rows once
    def rows() -> list[tuple[Key, str, list[bool | None]]]:
        return [(k, v, []) for k, v in sorted(judge.items())]

    def ordered() -> list[tuple[Key, bool]]:
        return sorted(reference.items())

    held = judge_calibration(
        1, "model-graded", judge, references=[CalibrationReference("tier", "state", reference)]
    )
    streamed = judge_calibration(
        1, "model-graded", rows, references=[CalibrationReference("tier", "state", ordered)]
    )
    assert streamed == held
