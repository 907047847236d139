"""The review page's services: opening an evaluation, labelling a judgment, its labels so far."""

from __future__ import annotations

import pytest
from rejudge.store import Store

from rejudge.errors import RejudgeError
from rejudge.services import (
    calibration_summary,
    judgment_labels,
    label_judgment,
    review_page_state,
    review_queue,
)
from tests.dashboard.test_review_page import evaluation  # noqa: F401  (the fixture)


def test_label_then_move_on(evaluation: tuple[str, int]) -> None:  # noqa: F811
    url, ev = evaluation
    store = Store.open(url)
    try:
        state = review_page_state(store, ev, sample_passes=1, seed=0)
        assert state.queue == review_queue(store, ev, sample_passes=1, seed=0)
        assert state.figures == calibration_summary(store, ev)
        assert state.reviewed == 0 and len(state.queue) == 3
        first, second, third = (i.judgment_id for i in state.queue)
        assert state.next_open(first) == second and state.next_open(third) == first

        review = label_judgment(store, ev, first, "confirmed", "ann", note="")
        assert review.label == "confirmed" and review.note is None
        assert [r.id for r in judgment_labels(store, first)] == [review.id]

        state = review_page_state(store, ev, sample_passes=1, seed=0)
        assert state.reviewed == 1 and state.figures.figures.reviewed == 1
        assert state.next_open(third) == second  # the labelled one is skipped

        with pytest.raises(RejudgeError):
            label_judgment(store, ev, second, "no-such-label", "ann")
        assert judgment_labels(store, second) == []
    finally:
        store.close()
