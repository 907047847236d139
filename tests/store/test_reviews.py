"""Reviews on both backends: append-only history, several reviewers, latest-per-reviewer query,
all-or-nothing validation, resolutions filled once, and the context queries."""

from __future__ import annotations

import pytest
from rejudge.store import (
    ConflictError,
    InvalidInputError,
    NewReview,
    NotFoundError,
    Store,
    check_reviewer,
)
from rejudge.store._tables import ReviewRow

from rejudge.model import normalize_label
from tests.store.store_factories import count_rows


def test_labels_append_and_history_stays(store: Store, judged: dict) -> None:
    jid = judged["ids"][1]
    ev = judged["evaluation"]
    first = store.reviews.add_review(
        jid, "judge_wrong", "ana", note="tool was right", evaluation_id=ev
    )
    second = store.reviews.add_review(jid, "confirmed", "ana", evaluation_id=ev)
    other = store.reviews.add_review(jid, "Golden wrong", "ben")
    assert other.label == "golden_wrong" and other.evaluation_id is None
    history = store.reviews.review_history(jid)
    assert [(r.reviewer, r.label) for r in history] == [
        ("ana", "judge_wrong"),
        ("ana", "confirmed"),
        ("ben", "golden_wrong"),
    ]
    assert history[0].note == "tool was right" and history[0] == first
    latest = store.reviews.list_reviews(evaluation_id=ev, latest_per_reviewer=True)
    assert {(r.reviewer, r.label) for r in latest} == {
        ("ana", "confirmed"),
        ("ben", "golden_wrong"),
    }
    assert [r.id for r in latest] == sorted([second.id, other.id])
    assert count_rows(store, ReviewRow) == 3


def test_reviews_of_an_evaluation_only(store: Store, judged: dict) -> None:
    store.reviews.add_reviews(
        [
            NewReview(judged["ids"][0], "confirmed", "ana"),
            NewReview(judged["ids"][2], "unclear", "ana", note="  "),
        ],
    )
    assert len(store.reviews.list_reviews(evaluation_id=judged["evaluation"])) == 2
    assert store.reviews.list_reviews(evaluation_id=judged["evaluation"] + 100) == []
    (only,) = store.reviews.list_reviews(judgment_ids=[judged["ids"][2]])
    assert only.note is None  # blank notes are stored as no note
    assert store.reviews.list_reviews(judgment_ids=[]) == []


def test_bad_reviews_write_nothing_and_name_every_problem(store: Store, judged: dict) -> None:
    store.reviews.add_review(judged["ids"][0], "confirmed", "ana")
    with pytest.raises(InvalidInputError) as caught:
        store.reviews.add_reviews(
            [
                NewReview(judged["ids"][1], "confirmed", "ana"),
                NewReview(judged["ids"][1], "maybe", "ana"),
                NewReview(judged["ids"][2], "unclear", "   "),
                NewReview(99999, "unclear", "ben"),
                NewReview(judged["ids"][2], "unclear", "ben", evaluation_id=4242),
            ],
        )
    message = str(caught.value)
    assert "review 2: unknown label 'maybe'" in message
    assert "review 3: a review needs a reviewer" in message
    assert "no judgment with id 99999" in message
    assert "no evaluation 4242" in message
    assert count_rows(store, ReviewRow) == 1


def test_label_and_reviewer_rules() -> None:
    assert normalize_label(" Judge-Wrong ") == "judge_wrong"
    assert normalize_label("golden wrong") == "golden_wrong"
    assert normalize_label("CONFIRMED") == "confirmed"
    assert normalize_label("wrong") is None and normalize_label(None) is None
    assert check_reviewer("  ana ") == "ana"
    for bad in ("", "  ", "a\tb", "x" * 201):
        with pytest.raises(InvalidInputError):
            check_reviewer(bad)


def test_resolution_is_filled_once(store: Store, judged: dict) -> None:
    review = store.reviews.add_review(judged["ids"][1], "judge_wrong", "ana")
    assert review.resolved_at is None
    done = store.reviews.resolve_review(review.id, "rule standard@3 accepts the alias")
    assert done.resolution == "rule standard@3 accepts the alias" and done.resolved_at is not None
    with pytest.raises(ConflictError, match="already resolved"):
        store.reviews.resolve_review(review.id, "something else")
    assert store.reviews.review_history(judged["ids"][1])[0].resolution == done.resolution
    with pytest.raises(InvalidInputError):
        store.reviews.resolve_review(review.id, " ")
    with pytest.raises(NotFoundError):
        store.reviews.resolve_review(12345, "x")


def test_context_queries(store: Store, judged: dict) -> None:
    ctx = store.reviews.judgment_context(judged["ids"])
    assert set(ctx) == set(judged["ids"])
    entry = ctx[judged["ids"][1]]
    assert entry.case == judged["cases"][1] and entry.suite == "retail"
    assert entry.evaluations == [judged["evaluation"]] and entry.verdict == "FAIL"
    rows = store.reviews.trace_judgments([judged["traces"][2]])
    assert [(r.judgment_id, r.evaluation_id) for r in rows] == [
        (judged["ids"][2], judged["evaluation"])
    ]
    assert store.reviews.trace_judgments([]) == []


def test_deleting_a_judgment_removes_its_reviews_but_an_evaluation_does_not(
    store: Store, judged: dict
) -> None:
    review = store.reviews.add_review(
        judged["ids"][0], "confirmed", "ana", evaluation_id=judged["evaluation"]
    )
    from rejudge.store._tables import EvaluationRow

    with store.engine.begin() as c:
        c.execute(EvaluationRow.__table__.delete())  # type: ignore[attr-defined]
    (kept,) = store.reviews.list_reviews(judgment_ids=[judged["ids"][0]])
    assert kept.id == review.id and kept.evaluation_id is None
