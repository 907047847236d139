"""Reviews and calibration figures over a stored evaluation: the rows people review, the
``calibration`` block of ``rejudge report``, the gaps that keep an evaluation from a reviewed
baseline, the review queue, and the import of a filled-in review CSV (validated whole, then
appended in one transaction). The statistics and the CSV format are pure
(:mod:`rejudge.judge._calibration`); this module reads and writes the store."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from rejudge.errors import NotFoundError
from rejudge.judge import (
    CalibrationSummary,
    EvaluationTotals,
    FlaggedLabel,
    QueueItem,
    Resolution,
    Review,
    ReviewImportError,
    build_queue,
    calibration_figures,
    gaps_from,
    latest_labels,
    parse_review_csv,
    queue_csv,
    queue_items,
    resolve_reviews,
    sample_positions,
)
from rejudge.model import QueueRow
from rejudge.services._judge_steps import JudgmentInputs, judgment_inputs
from rejudge.store import (
    EvaluatedTrace,
    NewReview,
    ReviewRecord,
    Store,
)

__all__ = [
    "ReviewRow",
    "review_rows",
    "calibration_summary",
    "review_gaps",
    "review_queue",
    "ReviewQueueFile",
    "review_queue_file",
    "unlabelled_queue",
    "evaluation_queue",
    "with_labels",
    "ReviewImport",
    "import_review_csv",
    "resolve_review",
]


def resolve_review(
    store: Store, review_id: int, resolution: str, *, at: datetime | None = None
) -> ReviewRecord:
    """Record, once, that the problem review ``review_id`` reported is fixed."""
    return store.reviews.resolve_review(review_id, resolution, at=at)


# a row without a reviewer (a default reviewer fixes every such row at once)
_NO_REVIEWER = "no reviewer (fill the reviewer column or give a default reviewer)"


class ReviewRow(JudgmentInputs):
    """One judgment of an evaluation as review reads it (:func:`review_rows`): what the pure
    judge's calibration figures take (``rejudge.judge.calibration_figures``, ``gaps_from``) and
    ``rejudge export`` writes, with the judgment's inputs (:class:`JudgmentInputs`). The queue
    reads fewer fields (:class:`rejudge.model.QueueRow`; :func:`unlabelled_queue` makes them
    from these)."""

    judgment_id: int
    judgment_key: str
    trace_id: int
    case: str
    repetition: int
    dimension: str | None
    category: str | None
    verdict: str
    taxonomy: list[str]
    partial_score: float | None
    anomalies: list[str]
    judgment_hash: str


def review_rows(store: Store, evaluation_id: int | str) -> list[ReviewRow]:
    """An evaluation's rows with judgment ids and keys, anomalies and the report's fields."""
    ev = store.evaluations.get_evaluation(evaluation_id)
    # the judgment's anomalies come as their own column: no body is read (at 100,000 rows the
    # bodies were most of the review page's time)
    return [_review_row(r) for r in store.judgments.iter_evaluation_rows(ev.id)]


def _review_row(r: EvaluatedTrace) -> ReviewRow:
    return {
        "judgment_id": int(r.judgment_id),
        "judgment_key": r.judgment_key,
        "trace_id": r.trace_id,
        "case": r.case_key,
        "repetition": r.repetition,
        "dimension": r.dimension,
        "category": r.category,
        "verdict": r.verdict,
        "taxonomy": list(r.taxonomy or []),
        "partial_score": r.partial_score,
        "anomalies": list(r.anomalies or []),
        **judgment_inputs(r),
        "judgment_hash": r.judgment_hash,
    }


def evaluation_queue(
    store: Store, evaluation_id: int, *, sample_passes: int = 0, seed: int = 0
) -> list[QueueItem]:
    """:func:`unlabelled_queue` of the evaluation's rows, reading only the rows it can hold:
    the FAILs and anomaly-flagged rows, the PASSes' keys (the sample draws from their number)
    and the sampled PASSes by id, each in the queue's fields only (``store.reviews.queue_rows``).
    At 100,000 judgments the PASSes (two thirds of the rows) were read and decoded in full for a
    sample of ten."""
    keys = sorted(store.judgments.review_pass_keys(evaluation_id), key=lambda k: (k[1], k[2]))
    sampled = [keys[i][0] for i in sample_positions(len(keys), sample_passes, seed)]
    rows = store.reviews.queue_rows(evaluation_id, queued=True, judgment_ids=sampled)
    return queue_items(rows, sampled)


def _reviewed_rows(
    store: Store, evaluation_id: int, reviews: list[ReviewRecord]
) -> tuple[list[ReviewRow], EvaluationTotals]:
    """The rows of the evaluation's reviewed judgments, and its totals (for the rest)."""
    ids = {r.judgment_id for r in reviews}
    rows = [
        _review_row(r)
        for r in store.judgments.iter_evaluation_rows(evaluation_id, judgment_ids=ids)
    ]
    judgments, verdicts = store.evaluations.judgment_totals(evaluation_id)
    return rows, EvaluationTotals(judgments, verdicts)


def _reviews_and_resolutions(
    store: Store, evaluation_id: int, reviews: list[ReviewRecord] | None = None
) -> tuple[list[ReviewRecord], dict[int, Resolution | None]]:
    if reviews is None:
        reviews = store.reviews.list_reviews(evaluation_id=evaluation_id)
    flagged = {r.judgment_id for r in reviews if r.label in ("golden_wrong", "judge_wrong")}
    if not flagged:
        return reviews, {}
    context = store.reviews.judgment_context(flagged)
    later = store.reviews.trace_judgments({c.trace_hash for c in context.values()})
    return reviews, resolve_reviews(reviews, context, later)


def calibration_summary(
    store: Store,
    evaluation_id: int | str,
    *,
    rows: list[ReviewRow] | None = None,
    reviews: list[ReviewRecord] | None = None,
) -> CalibrationSummary:
    """The ``calibration`` block of ``rejudge report`` for a stored evaluation: the figures of
    :func:`calibration_figures`, the gaps that keep it from a reviewed baseline, and every
    ``golden_wrong`` label linked to its case (suite, case key) with its resolution.

    ``rows`` (:func:`review_rows`) and ``reviews`` (its reviews) may be passed when the
    caller holds them already: the review page reads 100,000 rows once, not twice per click."""
    ev = store.evaluations.get_evaluation(evaluation_id)
    reviews, resolutions = _reviews_and_resolutions(store, ev.id, reviews)
    if rows is None:
        # the reviewed judgments' rows and the evaluation's counts: the same figures as from
        # every row (the unreviewed ones count only in the totals and the FAILs' gaps)
        rows, totals = _reviewed_rows(store, ev.id, reviews)
        figures = calibration_figures(rows, reviews, resolutions, totals)
        unreviewed_fails = figures.fails.total - sum(1 for r in rows if r["verdict"] == "FAIL")
        gap_count = len(gaps_from(rows, reviews, resolutions)) + unreviewed_fails
    else:
        figures = calibration_figures(rows, reviews, resolutions)
        gap_count = len(gaps_from(rows, reviews, resolutions))
    suite = None
    try:
        suite = store.suites.get_suite_by_id(store.runs.get_run(ev.run_id).suite_id)
    except NotFoundError:
        pass
    by_jid = {r["judgment_id"]: r for r in rows}
    flagged = []
    for review in reviews:
        if review.label not in ("golden_wrong", "judge_wrong"):
            continue
        row = by_jid[review.judgment_id]
        resolution = resolutions.get(review.id)
        flagged.append(
            FlaggedLabel(
                review=review.id,
                label=review.label,
                reviewer=review.reviewer,
                note=review.note,
                case=row["case"],
                repetition=row["repetition"],
                suite=suite.name if suite else None,
                suite_hash=suite.hash if suite else None,
                case_hash=row["case_hash"],
                verdict=row["verdict"],
                resolved=resolution is not None,
                resolution=None if resolution is None else resolution.text,
                resolved_in=None if resolution is None else resolution.evaluation,
            )
        )
    return CalibrationSummary(figures, flagged, gap_count)


def review_gaps(store: Store, evaluation_id: int | str) -> list[str]:
    """Why the evaluation cannot be locked with ``--require-review`` (empty: it can)."""
    ev = store.evaluations.get_evaluation(evaluation_id)
    rows = review_rows(store, ev.id)
    reviews, resolutions = _reviews_and_resolutions(store, ev.id)
    return gaps_from(rows, reviews, resolutions)


class ReviewQueueFile(NamedTuple):
    """An evaluation's review queue as the CSV a reviewer fills in, and its number of rows."""

    evaluation: int
    rows: int
    text: str


def review_queue_file(
    store: Store, evaluation_id: int | str, *, sample_passes: int, seed: int, unreviewed: bool
) -> ReviewQueueFile:
    """``rejudge review export``: :func:`review_queue` (only the items nobody has labeled yet
    when ``unreviewed``) written as CSV (:func:`rejudge.judge.queue_csv`)."""
    ev = store.evaluations.get_evaluation(evaluation_id)
    items = review_queue(store, ev.id, sample_passes=sample_passes, seed=seed)
    if unreviewed:
        items = [i for i in items if not i.reviewed]
    return ReviewQueueFile(ev.id, len(items), queue_csv(items, ev.id))


def review_queue(
    store: Store,
    evaluation_id: int | str,
    *,
    sample_passes: int = 0,
    seed: int = 0,
    rows: list[ReviewRow] | None = None,
    reviews: list[ReviewRecord] | None = None,
    base: list[QueueItem] | None = None,
) -> list[QueueItem]:
    """:func:`build_queue` over a stored evaluation, with each item's latest labels attached
    (``rows`` and ``reviews`` as for :func:`calibration_summary`; ``base``: the queue of
    :func:`unlabelled_queue` for the same rows, sample and seed, when the caller keeps it)."""
    ev = store.evaluations.get_evaluation(evaluation_id)
    if base is None and rows is None:
        base = evaluation_queue(store, ev.id, sample_passes=sample_passes, seed=seed)
    elif base is None:
        base = unlabelled_queue(rows or [], sample_passes=sample_passes, seed=seed)
    if reviews is None:
        reviews = store.reviews.list_reviews(evaluation_id=ev.id)
    return with_labels(base, latest_labels(reviews))


def unlabelled_queue(
    rows: list[ReviewRow], *, sample_passes: int = 0, seed: int = 0
) -> list[QueueItem]:
    """The queue's items before any label: which judgments, why, in what order. It depends on
    the rows, the sample and the seed only, never on the reviews (build_queue's sample is
    independent of them), so a caller may keep it while labels come in."""
    return build_queue(map(_queue_row, rows), (), sample_passes=sample_passes, seed=seed)


def _queue_row(r: ReviewRow) -> QueueRow:
    return QueueRow(
        r["judgment_id"],
        r["judgment_key"],
        r["trace_id"],
        r["case"],
        r["repetition"],
        r["verdict"],
        r["taxonomy"],
        r["partial_score"],
        r["anomalies"],
    )


def with_labels(
    base: list[QueueItem], latest: Mapping[int, Mapping[str, Review]]
) -> list[QueueItem]:
    """``base`` items with ``reviewed`` and each reviewer's latest label (items are replaced,
    never changed: one nobody labelled, as most are, is the base's own)."""
    items = []
    for item in base:
        by = latest.get(item.judgment_id)
        if by:
            labels = {name: r.label for name, r in sorted(by.items())}
            item = item._replace(reviewed=True, labels=labels)
        elif item.reviewed:
            item = item._replace(reviewed=False, labels={})
        items.append(item)
    return items


class _PlannedReview(NamedTuple):
    """A CSV row that passed every check: the label to append unless it is the latest already."""

    judgment_id: int
    label: str
    reviewer: str
    note: str | None
    evaluation_id: int | None


@dataclass(frozen=True)
class ReviewImport:
    """What ``review import`` did: the labeled rows read from ``file`` (the import's
    ``source``), the labels appended, those equal to the reviewer's latest label (not appended
    again), and who labeled what."""

    rows: int
    imported: int
    unchanged: int
    reviewers: list[str]
    labels: dict[str, int]
    file: str

    def to_json(self) -> dict[str, int | str | list[str] | dict[str, int]]:
        return {
            "rows": self.rows,
            "imported": self.imported,
            "unchanged": self.unchanged,
            "reviewers": list(self.reviewers),
            "labels": dict(self.labels),
            "file": self.file,
        }


def import_review_csv(
    store: Store, text: str, *, default_reviewer: str | None = None, source: str = "file"
) -> ReviewImport:
    """Validate every row of a filled-in review CSV, then append its labels in one transaction.

    Unknown judgment keys, judgments that are not part of the row's evaluation, a case that does
    not match the judgment, unknown labels, a missing reviewer (no cell and no default) and the
    same reviewer labeling one judgment twice are errors naming the row. Any error: nothing is
    written and :class:`ReviewImportError` lists them all. A row equal to the reviewer's latest
    label (same label and note) is counted as unchanged, so importing a file twice adds nothing.
    """
    rows, errors = parse_review_csv(text)
    keys = sorted({r.judgment_key for r in rows if r.judgment_key})
    ids = store.judgments.find_judgments(keys)
    context = store.reviews.judgment_context(ids.values())
    evaluations = {r.evaluation for r in rows if r.evaluation is not None}
    known_evaluations = set()
    for named in evaluations:
        try:
            known_evaluations.add(store.evaluations.get_evaluation(named).id)
        except NotFoundError:
            pass
    seen: dict[tuple[int, str], int] = {}
    fresh: list[NewReview] = []
    plan: list[_PlannedReview] = []
    for row in rows:
        line = row.row
        jid = ids.get(row.judgment_key)
        if row.judgment_key and jid is None:
            errors.append(f"row {line}: unknown judgment {row.judgment_key!r}")
        ev = row.evaluation
        if ev is not None and ev not in known_evaluations:
            errors.append(f"row {line}: no evaluation {ev} in the store")
        elif (
            ev is not None
            and jid is not None
            and (jid not in context or ev not in context[jid].evaluations)
        ):
            errors.append(
                f"row {line}: judgment {row.judgment_key[:19]}... is not in evaluation {ev}"
            )
        if jid is not None and row.case and jid in context and context[jid].case != row.case:
            errors.append(
                f"row {line}: case {row.case!r} does not match the judgment's case "
                f"{context[jid].case!r}"
            )
        reviewer = (row.reviewer or default_reviewer or "").strip()
        if not reviewer:
            errors.append(f"row {line}: {_NO_REVIEWER}")
        elif any(ord(ch) < 32 for ch in reviewer) or len(reviewer) > 200:
            errors.append(f"row {line}: reviewer name {reviewer[:40]!r} is not valid")
        if jid is not None and reviewer:
            earlier = seen.get((jid, reviewer))
            if earlier is not None:
                errors.append(
                    f"row {line}: {reviewer} already labeled this judgment in row {earlier}"
                )
            seen[(jid, reviewer)] = line
        if jid is not None and reviewer and row.label:
            plan.append(_PlannedReview(jid, row.label, reviewer, row.note, row.evaluation))
    if errors:
        shown = "; ".join(errors[:20]) + (
            f"; ... and {len(errors) - 20} more" if len(errors) > 20 else ""
        )
        # a default reviewer fixes the import only when every problem is a missing reviewer
        only_reviewer = all(e.endswith(_NO_REVIEWER) for e in errors)
        raise ReviewImportError(
            f"{len(errors)} problem(s) in {source}, nothing imported: {shown}",
            errors,
            file=source,
            field="reviewer" if only_reviewer else None,
        )
    latest = latest_labels(store.reviews.list_reviews(judgment_ids=[p.judgment_id for p in plan]))
    unchanged = 0
    for item in plan:
        before = latest.get(item.judgment_id, {}).get(item.reviewer)
        if before is not None and before.label == item.label and (before.note or None) == item.note:
            unchanged += 1
            continue
        fresh.append(
            NewReview(
                judgment_id=item.judgment_id,
                label=item.label,
                reviewer=item.reviewer,
                note=item.note,
                evaluation_id=item.evaluation_id,
            )
        )
    written = store.reviews.add_reviews(fresh)
    return ReviewImport(
        rows=len(rows),
        imported=len(written),
        unchanged=unchanged,
        reviewers=sorted({r.reviewer for r in fresh}),
        labels=dict(sorted(Counter(r.label for r in fresh).items())),
        file=source,
    )
