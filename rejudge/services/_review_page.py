"""The review page's use cases: one call per thing a reviewer does.

The dashboard's review page parses its widgets, calls one of these and renders what comes back:
opening an evaluation gives its queue and calibration figures (:func:`review_page_state`),
picking an item gives that judgment's labels so far (:func:`judgment_labels`), a label click
appends one review (:func:`label_judgment`). The queue and the figures are those of
:mod:`rejudge.services._reviews`, so the page and ``rejudge review`` never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict, Unpack

from rejudge.judge import CalibrationSummary, QueueItem
from rejudge.services._reviews import ReviewRow, calibration_summary, review_queue, review_rows
from rejudge.store import ReviewRecord, Store

__all__ = [
    "ReviewPageState",
    "review_page_state",
    "evaluation_review_rows",
    "review_stamp",
    "judgment_labels",
    "label_judgment",
]


@dataclass(frozen=True)
class ReviewPageState:
    """An evaluation as the review page shows it: the queue, in order, and its figures."""

    evaluation_id: int
    queue: list[QueueItem]
    figures: CalibrationSummary

    @property
    def reviewed(self) -> int:
        """How many queue items already carry a label."""
        return sum(1 for item in self.queue if item.reviewed)

    def next_open(self, after: int) -> int:
        """The judgment to show once ``after`` is labelled: the next unreviewed one in the queue
        (wrapping round), or ``after`` itself when nothing else is open."""
        ids = [item.judgment_id for item in self.queue]
        open_ids = [i for i, item in zip(ids, self.queue, strict=True) if not item.reviewed]
        remaining = [i for i in open_ids if i != after]
        position = ids.index(after) if after in ids else -1
        later = [i for i in remaining if ids.index(i) > position]
        return (later or remaining or [after])[0]

    def __reduce__(self) -> tuple[Any, ...]:
        # kept on disk by the dashboard (dashboard/kept.py) on a computing open: the queue as
        # its columns, each a plain tuple, pickles in a fifth of the time 19,000 named tuples
        # take at 100,000 judgments (pickle calls each one's __reduce__ and __getnewargs__)
        columns = tuple(zip(*self.queue, strict=True)) if self.queue else ()
        return (_page_state, (self.evaluation_id, columns, self.figures))


def _page_state(
    evaluation_id: int, columns: tuple[tuple[Any, ...], ...], figures: CalibrationSummary
) -> ReviewPageState:
    """A :class:`ReviewPageState` back from its pickle (:meth:`ReviewPageState.__reduce__`)."""
    queue = list(map(QueueItem._make, zip(*columns, strict=True)))
    return ReviewPageState(evaluation_id, queue, figures)


class QueueOptions(TypedDict, total=False):
    """What :func:`review_page_state` hands :func:`review_queue` as it came (the defaults are
    review_queue's)."""

    sample_passes: int
    seed: int
    rows: list[ReviewRow] | None
    base: list[QueueItem] | None


def review_page_state(
    store: Store, evaluation_id: int | str, **queue: Unpack[QueueOptions]
) -> ReviewPageState:
    """The review queue of an evaluation (every FAIL, every anomaly, a seeded PASS sample of
    ``sample_passes``) with each item's latest labels, and its calibration figures.

    Without ``rows`` only what they show is read: the rows the queue can hold (every FAIL and
    anomaly, the sampled PASSes: :func:`evaluation_queue`), the reviewed judgments' rows and the
    evaluation's counts (at 100,000 judgments, a third of the rows instead of all of them).
    ``rows`` (:func:`evaluation_review_rows`) gives every row instead. ``base`` is the queue
    before labels (:func:`evaluation_queue`, or :func:`unlabelled_queue` of the rows, for the
    same sample and seed), which labels never change, so a caller keeps it between clicks."""
    ev = store.evaluations.get_evaluation(evaluation_id)
    reviews = store.reviews.list_reviews(evaluation_id=ev.id)
    return ReviewPageState(
        evaluation_id=ev.id,
        queue=review_queue(store, ev.id, reviews=reviews, **queue),
        figures=calibration_summary(store, ev.id, rows=queue.get("rows"), reviews=reviews),
    )


def evaluation_review_rows(store: Store, evaluation_id: int | str) -> list[ReviewRow]:
    """An evaluation's rows as review needs them (verdicts, anomalies, keys): what
    :func:`review_page_state` takes as ``rows``."""
    return review_rows(store, store.evaluations.get_evaluation(evaluation_id).id)


def review_stamp(store: Store, evaluation_id: int) -> tuple[int, int, int]:
    """(reviews, the newest review id, resolved reviews) of an evaluation: changes with every
    label or resolution, so a page caches its queue under it and a write invalidates it."""
    return store.evaluations.review_stamp(evaluation_id)


def judgment_labels(store: Store, judgment_id: int) -> list[ReviewRecord]:
    """Every label one judgment has had, oldest first (a reviewer's latest is the one counted)."""
    return store.reviews.review_history(judgment_id)


def label_judgment(
    store: Store,
    evaluation_id: int,
    judgment_id: int,
    label: str,
    reviewer: str,
    *,
    note: str | None = None,
) -> ReviewRecord:
    """Append one reviewer's label on a judgment of an evaluation and return it.

    The label must be one of the review labels and the reviewer named; an unknown judgment or
    evaluation is refused (:class:`~rejudge.errors.RejudgeError`) and nothing is written.
    """
    return store.reviews.add_review(
        judgment_id, label, reviewer, note=note or None, evaluation_id=evaluation_id
    )
