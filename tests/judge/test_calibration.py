"""Calibration: kappa and misjudgment figures against hand-computed examples, the review queue,
and the review -> fix -> re-judge -> resolved workflow on a real store (both backends)."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rejudge.judge import (
    QueueItem,
    Resolution,
    ReviewRequiredError,
    agreement,
    build_queue,
    calibration_figures,
    gaps_from,
    latest_labels,
    load_rule_set,
)
from rejudge.store import ReviewRecord, Store

from rejudge.errors import InvalidInputError
from rejudge.model import QueueRow, RunConfig, cohens_kappa, kappa_of
from rejudge.services import (
    calibration_summary,
    compare_evaluations,
    judge_run,
    lock_evaluation_baseline,
    review_gaps,
    review_queue,
)

from .conftest import REGISTRY, call, case, gcall, trace

# --------------------------------------------------------------------------- kappa


def test_kappa_hand_computed() -> None:
    # A: c c c c c c j j j j ; B: c c c c j j c j j j
    # p_o = 7/10; p_e = (6*5 + 4*5) / 100 = 0.5; kappa = (0.7 - 0.5) / 0.5 = 0.4
    pairs = (
        [("confirmed", "confirmed")] * 4
        + [("confirmed", "judge_wrong")] * 2
        + [("judge_wrong", "confirmed")]
        + [("judge_wrong", "judge_wrong")] * 3
    )
    assert cohen_kappa(pairs) == pytest.approx(0.4)


def cohen_kappa(pairs: list[tuple[str, str]]) -> float | None:
    # the reviewers' kappa is the one kappa of rejudge over their label pairs' counts
    return kappa_of(Counter(pairs))


def test_kappa_edges() -> None:
    assert cohen_kappa([("confirmed", "confirmed"), ("unclear", "unclear")]) == pytest.approx(1.0)
    # always opposite: p_o = 0, p_e = 0.5 -> -1
    opposite = [("confirmed", "judge_wrong")] * 2 + [("judge_wrong", "confirmed")] * 2
    assert cohen_kappa(opposite) == pytest.approx(-1.0)
    # three categories: p_o = 2/3, A = {c:1, j:1, g:1}, B = {c:1, j:2}; p_e = (1 + 2) / 9
    three = [
        ("confirmed", "confirmed"),
        ("judge_wrong", "judge_wrong"),
        ("golden_wrong", "judge_wrong"),
    ]
    assert cohen_kappa(three) == pytest.approx((2 / 3 - 1 / 3) / (1 - 1 / 3))
    assert cohen_kappa([]) is None
    assert cohen_kappa([("confirmed", "confirmed")] * 3) is None  # chance agreement is certain


_LABEL = st.sampled_from(["confirmed", "judge_wrong", "golden_wrong", "unclear"])


@settings(deadline=None)  # a loaded shared machine: time is not the property
@given(st.lists(st.tuples(_LABEL, _LABEL), max_size=40))
def test_one_kappa_for_labels_and_verdicts(pairs: list[tuple[str, str]]) -> None:
    kappa = cohen_kappa(pairs)
    # undefined exactly when there is no item or both raters gave one and the same label
    assert (kappa is None) == (
        not pairs or len({*(a for a, _ in pairs), *(b for _, b in pairs)}) == 1
    )
    if kappa is not None:
        assert -1.0 <= kappa <= 1.0
        assert kappa == cohen_kappa([(b, a) for a, b in pairs])  # symmetric in the raters
        assert (kappa == 1.0) == all(a == b for a, b in pairs)
    # two classes: the 2x2 table's kappa is the same function's
    binary = [(a == "confirmed", b == "confirmed") for a, b in pairs]
    cells = Counter(binary)
    assert cohens_kappa(
        cells[(True, True)], cells[(True, False)], cells[(False, True)], cells[(False, False)]
    ) == kappa_of(cells)


# --------------------------------------------------------------------------- figures


def rows() -> list[dict[str, Any]]:
    verdicts = {1: "FAIL", 2: "FAIL", 3: "FAIL", 4: "FAIL", 5: "PASS", 6: "PASS"}
    return [
        {"judgment_id": j, "verdict": v, "case": f"c{j}", "repetition": 0}
        for j, v in verdicts.items()
    ]


def reviews() -> list[ReviewRecord]:
    data = [
        (1, "judge_wrong", "ana"),  # superseded by ana's next label on 1
        (1, "confirmed", "ana"),
        (1, "confirmed", "ben"),
        (2, "judge_wrong", "ana"),
        (3, "golden_wrong", "ana"),
        (3, "unclear", "ben"),
        (5, "confirmed", "ana"),
        (99, "judge_wrong", "ana"),  # a judgment of another evaluation: ignored
    ]
    return [labelled(i + 1, j, label, who) for i, (j, label, who) in enumerate(data)]


def labelled(review: int, judgment: int, label: str, reviewer: str) -> ReviewRecord:
    """A review as the store hands it out."""
    at = datetime(2026, 1, 1, tzinfo=UTC)
    return ReviewRecord(review, judgment, None, label, reviewer, None, at, None, None)


def test_figures_hand_computed() -> None:
    fig = calibration_figures(rows(), reviews())
    # items: 1 confirmed (both), 2 judge_wrong, 3 disputed (golden_wrong vs unclear), 5 confirmed
    assert fig.reviewed == 4 and fig.judgments == 6
    assert fig.labels == {
        "confirmed": 2,
        "judge_wrong": 1,
        "golden_wrong": 0,
        "unclear": 0,
        "disputed": 1,
    }
    assert fig.misjudged == 1 and fig.misjudgment_rate == pytest.approx(0.25)
    assert fig.fails == (4, 3, 0.75, 1)  # total, reviewed, coverage, judge_wrong
    assert fig.passes == (2, 1, 0.5, 0)
    assert fig.golden_errors == 0 and fig.disputed == 1
    assert fig.unresolved == {"judge_wrong": 1, "golden_wrong": 1}
    assert fig.reviewers == ["ana", "ben"] and fig.review_rows == 7
    # ana vs ben on items 1 and 3: (c, c), (g, u): p_o = 1/2, p_e = 1/4 -> kappa = 1/3
    (pair,) = fig.agreement.pairs
    assert pair.reviewers == ("ana", "ben") and pair.items == 2
    assert pair.observed_agreement == 0.5
    assert pair.kappa == pytest.approx(1 / 3, abs=1e-6)
    assert fig.agreement.kappa == pytest.approx(1 / 3, abs=1e-6)
    # the report's calibration block, key for key (a baseline stores and hashes it)
    assert fig.to_json()["fails"] == {
        "total": 4,
        "reviewed": 3,
        "coverage": 0.75,
        "judge_wrong": 1,
    }
    assert list(fig.to_json()) == [
        "reviewed",
        "judgments",
        "coverage",
        "fails",
        "passes",
        "labels",
        "misjudged",
        "misjudgment_rate",
        "golden_errors",
        "unclear",
        "disputed",
        "unresolved",
        "resolved",
        "reviewers",
        "review_rows",
        "agreement",
        "verdicts_reviewed",
    ]
    assert fig.to_json()["agreement"]["pairs"] == [
        {"reviewers": ["ana", "ben"], "items": 2, "observed_agreement": 0.5, "kappa": pair.kappa}
    ]


def test_seed_baseline_figures_zero_misjudged() -> None:
    """Seed 001's baseline: every FAIL reviewed and confirmed -> 0.0% misjudged, 0 golden errors."""
    r = [{"judgment_id": j, "verdict": "FAIL", "case": f"c{j}"} for j in range(7)]
    labels = [labelled(j + 1, j, "confirmed", "lead") for j in range(7)]
    fig = calibration_figures(r, labels)
    assert fig.misjudgment_rate == 0.0 and fig.golden_errors == 0
    assert fig.fails.coverage == 1.0
    assert gaps_from(r, labels, {}) == []


def test_light_kappa_is_the_mean_of_pairs() -> None:
    labels = []
    n = 0
    for item, (a, b, c) in enumerate(
        [("confirmed", "confirmed", "judge_wrong"), ("judge_wrong", "judge_wrong", "judge_wrong")]
    ):
        for who, label in (("a", a), ("b", b), ("c", c)):
            n += 1
            labels.append(labelled(n, item, label, who))
    result = agreement(latest_labels(labels))
    kappas = {p.reviewers: p.kappa for p in result.pairs}
    assert kappas[("a", "b")] == pytest.approx(1.0)
    # a/c and b/c: (c, j), (j, j): p_o = 1/2, p_e = (1*0 + 1*2)/4 = 1/2 -> 0
    assert kappas[("a", "c")] == pytest.approx(0.0) and kappas[("b", "c")] == pytest.approx(0.0)
    assert result.kappa == pytest.approx(1 / 3, abs=1e-6)
    assert result.double_reviewed == 2


def test_gaps() -> None:
    fig_rows = rows()
    gaps = gaps_from(fig_rows, reviews(), {})
    assert gaps == ["c2 r0: judge_wrong (ana) not resolved", "c4 r0: FAIL not reviewed"]
    resolved = gaps_from(fig_rows, reviews(), {4: Resolution("reviewer", None, "fixed", None)})
    assert resolved == ["c4 r0: FAIL not reviewed"]


# --------------------------------------------------------------------------- queue


def queue_rows() -> list[QueueRow]:
    out = []
    for i in range(40):
        verdict = "FAIL" if i % 10 == 0 else "PASS"
        anomalies = ["zero_score_all_executed"] if i == 7 else []
        key = f"sha256:{i:064x}"
        out.append(QueueRow(100 + i, key, 200 + i, f"k{i:02d}", 0, verdict, [], None, anomalies))
    return out


def test_queue_order_sample_and_progress() -> None:
    queue = build_queue(queue_rows(), reviewed={100}, sample_passes=5, seed=3)
    reasons = [item.reasons[0].split(":")[0] for item in queue]
    assert reasons == ["FAIL"] * 4 + ["anomaly"] + ["sampled PASS"] * 5
    assert [q.case for q in queue[:4]] == ["k00", "k10", "k20", "k30"]
    assert queue[0].reviewed is True and not any(q.reviewed for q in queue[1:])
    sampled = [q.case for q in queue if q.reasons == ("sampled PASS",)]
    assert sampled == sorted(sampled)  # shown in case order
    again = build_queue(queue_rows(), reviewed={100, 101, 105}, sample_passes=5, seed=3)
    assert [q.case for q in again] == [q.case for q in queue]  # stable under progress
    other = build_queue(queue_rows(), sample_passes=5, seed=4)
    assert [q.case for q in other] != [q.case for q in queue]
    assert len(build_queue(queue_rows(), sample_passes=1000)) == 40  # every row once
    assert len(build_queue(queue_rows())) == 5  # no sample asked
    # an item carries what a reviewer is shown, and the anomalies it was queued for
    assert queue[4] == QueueItem(
        107,
        f"sha256:{7:064x}",
        207,
        "k07",
        0,
        "PASS",
        (),
        None,
        ("anomaly: zero_score_all_executed",),
        False,
    )


# --------------------------------------------------------------------------- store workflow

CASES = [
    case(gcall("get_order", order_id="W441"), id="a", dimension="D1"),
    case(
        gcall("request_cancel", order_id="W441", reason="Changed my mind"), id="b", dimension="D2"
    ),
    case(gcall("get_order", order_id="W442"), id="c", dimension="D1"),
]
FIXED_C = case(gcall("get_order", order_id="W443"), id="c", dimension="D1")
TRACES = [
    trace(call("get_order", order_id="W441"), case_id="a"),
    trace(call("request_cancel", order_id="W441", reason="changed my mind"), case_id="b"),
    trace(call("get_order", order_id="W443"), case_id="c"),
]


@pytest.fixture
def world(store: Store) -> dict[str, Any]:
    suite = store.suites.save_suite(
        name="t", domain="retail", suite_hash="sha256:t1", registry=REGISTRY, cases=CASES
    )
    run = store.runs.create_run(name="r1", suite=suite, config=RunConfig(model="m"))
    pks = store.suites.get_case_pks(suite.id)
    store.traces.save_traces([(run.id, pks[t.case_id], t, None, None) for t in TRACES])
    e1 = judge_run(store, "r1", "golden", load_rule_set("standard@1")).evaluation_id
    return {"e1": e1, "suite": suite}


def judgment_of(store: Store, evaluation: int, case_key: str) -> int:
    for r in store.judgments.iter_evaluation_rows(evaluation):
        if r.case_key == case_key:
            return int(r.judgment_id)
    raise AssertionError(case_key)


def test_review_fix_rejudge_resolve_and_lock(store: Store, world: dict[str, Any]) -> None:
    e1 = world["e1"]
    assert review_gaps(store, e1) == ["b r0: FAIL not reviewed", "c r0: FAIL not reviewed"]
    with pytest.raises(ReviewRequiredError) as refused:
        lock_evaluation_baseline(store, e1, "main", require_review=True)
    assert refused.value.gaps == review_gaps(store, e1)
    assert "b r0: FAIL not reviewed" in str(refused.value) and "\n" not in str(refused.value)
    assert store.baselines.list_baselines() == []

    jb, jc = judgment_of(store, e1, "b"), judgment_of(store, e1, "c")
    store.reviews.add_review(
        jb, "judge_wrong", "ana", note="case-insensitive reason", evaluation_id=e1
    )
    store.reviews.add_review(
        jc, "golden_wrong", "ana", note="the user meant W443", evaluation_id=e1
    )
    store.reviews.add_review(jc, "golden_wrong", "ben", evaluation_id=e1)
    summary = calibration_summary(store, e1)
    figures = summary.figures
    assert figures.fails.coverage == 1.0 and figures.misjudgment_rate == 0.5
    assert figures.golden_errors == 1 and summary.ready_to_lock is False
    golden = [f for f in summary.flagged if f.label == "golden_wrong"]
    assert {(f.suite, f.case, f.resolved) for f in golden} == {("t", "c", False)}
    assert review_gaps(store, e1) == ["b r0: judge_wrong (ana) not resolved"]

    # the case is corrected: a new snapshot of suite t; the run is re-judged against it
    fixed = [CASES[0], CASES[1], FIXED_C]
    snap = store.suites.save_suite(
        name="t", domain="retail", suite_hash="sha256:t2", registry=REGISTRY, cases=fixed
    )
    e2 = judge_run(
        store, "r1", "golden", load_rule_set("standard@1"), suite_id=snap.id
    ).evaluation_id
    cmp = compare_evaluations(store, e1, e2)
    assert [(f.case, f.from_verdict, f.to_verdict, f.cause) for f in cmp.flips] == [
        ("c", "FAIL", "PASS", "case changed")
    ]
    summary = calibration_summary(store, e1)
    golden = [f for f in summary.flagged if f.label == "golden_wrong"]
    assert all(f.resolved and f.resolved_in == e2 for f in golden) and len(golden) == 2
    assert "case c corrected" in (golden[0].resolution or "")
    figures = summary.figures
    assert figures.resolved["golden_wrong"] == 2 and figures.unresolved["golden_wrong"] == 0

    # the rule is fixed (standard@2 normalizes the reason): the judge_wrong label resolves
    e3 = judge_run(
        store, "r1", "golden", load_rule_set("standard@2"), suite_id=snap.id
    ).evaluation_id
    assert review_gaps(store, e1) == []
    locked = lock_evaluation_baseline(store, e1, "reviewed", require_review=True)
    assert locked.calibration["misjudgment_rate"] == 0.5 and locked.reviewed is True
    stored = store.baselines.get_baseline("reviewed")
    assert stored.report["calibration"]["golden_errors"] == 1
    assert stored.report["calibration"]["fails"]["coverage"] == 1.0
    # e3 has no FAIL left: lockable as is
    assert review_gaps(store, e3) == []


def test_explicit_resolution_and_queue(store: Store, world: dict[str, Any]) -> None:
    e1 = world["e1"]
    jb = judgment_of(store, e1, "b")
    review = store.reviews.add_review(jb, "judge_wrong", "ana")
    assert review_gaps(store, e1)[0] == "b r0: judge_wrong (ana) not resolved"
    store.reviews.resolve_review(review.id, "accepted: the rule will change in standard@2")
    assert review_gaps(store, e1) == ["c r0: FAIL not reviewed"]
    queue = review_queue(store, e1, sample_passes=1, seed=0)
    assert [(q.case, q.reasons, q.reviewed) for q in queue] == [
        ("b", ("FAIL",), True),
        ("c", ("FAIL",), False),
        ("a", ("sampled PASS",), False),
    ]
    assert queue[0].labels == {"ana": "judge_wrong"} and queue[1].labels == {}


def test_judging_against_another_suite_is_refused(store: Store, world: dict[str, Any]) -> None:
    other = store.suites.save_suite(
        name="other", domain="retail", suite_hash="sha256:o", registry=REGISTRY, cases=CASES
    )
    with pytest.raises(InvalidInputError, match="another snapshot of that suite"):
        judge_run(store, "r1", "golden", load_rule_set("standard@1"), suite_id=other.id)
