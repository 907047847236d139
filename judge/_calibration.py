"""Calibration: people review verdicts, and the figures say how far the judge can be trusted.

Pure part (no I/O): per-item labels from review rows, the calibration figures (reviewed count and
coverage, judge misjudgment rate, golden errors, unclear and disputed items, Cohen's kappa between
reviewers), review resolutions, and the review CSV format (the review queue is
:mod:`rejudge.judge._review_queue`).

The same figures over a stored evaluation (reading and writing reviews, locking a reviewed
baseline) are use cases of the store: :mod:`rejudge.services._reviews` and
:mod:`rejudge.services._baseline`.

Definitions (docs/calibration.md has the long form):

- A reviewer's label on a judgment is their *latest* row for it (reviews are append-only).
- An item's label is the label every reviewer gave; reviewers who disagree make it ``disputed``.
- Misjudgment rate = items labeled ``judge_wrong`` / reviewed items.
- Cohen's kappa (:func:`rejudge.model.kappa_of`, the one kappa) per pair of reviewers over the
  items both labeled; with more than one pair, ``kappa`` is their mean (Light's kappa).
- A ``golden_wrong`` label is resolved when a later evaluation judged the same trace (same tier)
  under a different case hash (the case was corrected); a ``judge_wrong`` label when a later
  evaluation judged the same trace and case under other rules or another engine and the verdict
  changed; either one when a person recorded a resolution.
"""

from __future__ import annotations

import csv
import io
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from datetime import datetime
from itertools import combinations
from typing import Any, NamedTuple, Protocol, TypeVar

from rejudge.judge._calibration_figures import (
    CalibrationFigures,
    Coverage,
    Resolution,
    ReviewerAgreement,
    ReviewerPair,
)

from rejudge.errors import InvalidInputError
from rejudge.model import REVIEW_LABELS, kappa_of, normalize_label

__all__ = [
    "REVIEW_LABELS",
    "REVIEW_CSV_COLUMNS",
    "ReviewImportError",
    "ReviewRequiredError",
    "Review",
    "latest_labels",
    "item_label",
    "agreement",
    "resolve_reviews",
    "EvaluationTotals",
    "calibration_figures",
    "gaps_from",
    "CsvReview",
    "parse_review_csv",
]

DISPUTED = "disputed"

#: the review CSV, in column order (docs/calibration.md)
REVIEW_CSV_COLUMNS = (
    "judgment_key",
    "evaluation",
    "case",
    "repetition",
    "verdict",
    "taxonomy",
    "partial_score",
    "label",
    "reviewer",
    "note",
    "reason",
)
_REQUIRED_COLUMNS = ("judgment_key", "label", "reviewer")


class ReviewImportError(InvalidInputError):
    """A review file with bad rows; nothing was imported. ``errors`` lists every one."""

    def __init__(self, message: str, errors: list[str], **context: Any) -> None:
        super().__init__(message, **context)
        self.errors = errors


class ReviewRequiredError(InvalidInputError):
    """An evaluation is not fully reviewed; ``gaps`` lists what is missing."""

    def __init__(self, message: str, gaps: list[str], **context: Any) -> None:
        super().__init__(message, **context)
        self.gaps = gaps


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 6) if den else None


# =========================================================================== pure


class Review(Protocol):
    """A review as calibration reads it (``store.reviews``' ``ReviewRecord`` is one): a
    reviewer's label on a judgment, and its resolution by a person, if any."""

    @property
    def id(self) -> int: ...
    @property
    def judgment_id(self) -> int: ...
    @property
    def evaluation_id(self) -> int | None: ...
    @property
    def label(self) -> str: ...
    @property
    def reviewer(self) -> str: ...
    @property
    def resolved_at(self) -> datetime | None: ...
    @property
    def resolution(self) -> str | None: ...


R = TypeVar("R", bound=Review)


def latest_labels(reviews: Iterable[R]) -> dict[int, dict[str, R]]:
    """judgment id -> reviewer -> that reviewer's newest review (highest id)."""
    out: dict[int, dict[str, R]] = defaultdict(dict)
    for review in sorted(reviews, key=lambda r: r.id):
        out[review.judgment_id][review.reviewer] = review
    return dict(out)


def item_label(by_reviewer: Mapping[str, Review]) -> str | None:
    """The label every reviewer agrees on, ``disputed`` when they differ, None when unreviewed."""
    labels = {r.label for r in by_reviewer.values()}
    if not labels:
        return None
    return labels.pop() if len(labels) == 1 else DISPUTED


def agreement(latest: Mapping[int, Mapping[str, Review]]) -> ReviewerAgreement:
    """Pairwise agreement between reviewers over the items both labeled."""
    shared: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for by_reviewer in latest.values():
        for a, b in combinations(sorted(by_reviewer), 2):
            shared[(a, b)].append((by_reviewer[a].label, by_reviewer[b].label))
    pairs = tuple(
        ReviewerPair(
            (a, b),
            len(labels),
            _ratio(sum(1 for x, y in labels if x == y), len(labels)),
            kappa_of(Counter(labels)),
        )
        for (a, b), labels in sorted(shared.items())
    )
    kappas = [float(p.kappa) for p in pairs if p.kappa is not None]
    return ReviewerAgreement(
        pairs,
        sum(1 for r in latest.values() if len(r) >= 2),
        round(sum(kappas) / len(kappas), 6) if kappas else None,
    )


class JudgmentInputs(Protocol):
    """What a judgment was judged from and what it said."""

    @property
    def trace_hash(self) -> str: ...
    @property
    def case_hash(self) -> str: ...
    @property
    def rule_set_hash(self) -> str: ...
    @property
    def engine_version(self) -> str: ...
    @property
    def tier(self) -> str: ...
    @property
    def verdict(self) -> str: ...


class JudgedInputs(JudgmentInputs, Protocol):
    """A reviewed judgment's inputs and the evaluations linking it (``judgment_context``)."""

    @property
    def evaluations(self) -> list[int]: ...


class LaterJudgment(JudgmentInputs, Protocol):
    """One (evaluation, judgment) of a reviewed trace (``trace_judgments``)."""

    @property
    def evaluation_id(self) -> int: ...
    @property
    def evaluation_created_at(self) -> datetime: ...
    @property
    def case_key(self) -> str: ...


def resolve_reviews(
    reviews: Iterable[Review],
    judged: Mapping[int, JudgedInputs],
    later: Iterable[LaterJudgment],
) -> dict[int, Resolution | None]:
    """review id -> its :class:`Resolution`, or None while unresolved.

    ``judged``: judgment id -> its inputs (``store.reviews.judgment_context``). ``later``: every
    (evaluation, judgment) row of the same traces (``store.reviews.trace_judgments``).
    """
    by_trace: dict[str, list[LaterJudgment]] = defaultdict(list)
    for row in later:
        by_trace[row.trace_hash].append(row)
    out: dict[int, Resolution | None] = {}
    for review in reviews:
        rid = review.id
        if review.resolved_at is not None:
            out[rid] = Resolution("reviewer", review.resolved_at, review.resolution, None)
            continue
        label = review.label
        j = judged.get(review.judgment_id)
        if j is None or label not in ("golden_wrong", "judge_wrong"):
            out[rid] = None
            continue
        since = review.evaluation_id or max(j.evaluations or [0])
        found = None
        for row in by_trace.get(j.trace_hash, []):
            if row.evaluation_id <= int(since) or row.tier != j.tier:
                continue
            if label == "golden_wrong" and row.case_hash != j.case_hash:
                found = (
                    row,
                    f"case {row.case_key} corrected (case {j.case_hash[:19]} -> "
                    f"{row.case_hash[:19]}); re-judged in evaluation "
                    f"{row.evaluation_id}: {j.verdict} -> {row.verdict}",
                )
            elif (
                label == "judge_wrong"
                and row.case_hash == j.case_hash
                and (row.rule_set_hash != j.rule_set_hash or row.engine_version != j.engine_version)
                and row.verdict != j.verdict
            ):
                found = (
                    row,
                    f"re-judged under other rules in evaluation {row.evaluation_id}: "
                    f"{j.verdict} -> {row.verdict}",
                )
            if found:
                break
        out[rid] = (
            None
            if found is None
            else Resolution(
                "re-judge", found[0].evaluation_created_at, found[1], found[0].evaluation_id
            )
        )
    return out


class EvaluationTotals(NamedTuple):
    """An evaluation's judgments (distinct) and rows per verdict, counted by the database: what
    :func:`calibration_figures` needs of the rows nobody reviewed."""

    judgments: int
    verdicts: Mapping[str, int]


def calibration_figures(
    rows: Iterable[Mapping[str, Any]],
    reviews: Iterable[Review],
    resolutions: Mapping[int, Resolution | None] | None = None,
    totals: EvaluationTotals | None = None,
) -> CalibrationFigures:
    """The calibration block of a report.

    ``rows``: the evaluation's rows (``judgment_id``, ``verdict``, ``case``, ``repetition``).
    ``reviews``: reviews of those judgments, full history. ``resolutions``: review id ->
    resolution or None. With ``totals`` (the whole evaluation's counts), ``rows`` need only be
    the reviewed judgments' rows: the others count only in the totals (the review page reads a
    few rows, not 50,000).
    """
    rows = list(rows)
    resolutions = resolutions or {}
    in_eval = {int(r["judgment_id"]) for r in rows}
    reviews = [r for r in reviews if r.judgment_id in in_eval]
    latest = latest_labels(reviews)
    verdict_of = {int(r["judgment_id"]): r.get("verdict") for r in rows}
    items = {jid: item_label(by) for jid, by in latest.items()}
    counts = Counter(label for label in items.values() if label is not None)
    reviewed = len(items)
    judgments = len(in_eval) if totals is None else totals.judgments

    def coverage(verdict: str) -> Coverage:
        if totals is None:
            total = sum(1 for r in rows if r.get("verdict") == verdict)
        else:
            total = int(totals.verdicts.get(verdict, 0))
        done = sum(
            1 for r in rows if r.get("verdict") == verdict and int(r["judgment_id"]) in items
        )
        wrong = sum(
            1
            for r in rows
            if r.get("verdict") == verdict and items.get(int(r["judgment_id"])) == "judge_wrong"
        )
        return Coverage(total, done, _ratio(done, total), wrong)

    unresolved: Counter[str] = Counter()
    resolved: Counter[str] = Counter()
    for by in latest.values():
        for review in by.values():
            if review.label in ("judge_wrong", "golden_wrong"):
                if resolutions.get(review.id):
                    resolved[review.label] += 1
                else:
                    unresolved[review.label] += 1
    return CalibrationFigures(
        reviewed=reviewed,
        judgments=judgments,
        coverage=_ratio(reviewed, judgments),
        fails=coverage("FAIL"),
        passes=coverage("PASS"),
        labels={label: counts.get(label, 0) for label in (*REVIEW_LABELS, DISPUTED)},
        misjudged=counts.get("judge_wrong", 0),
        misjudgment_rate=_ratio(counts.get("judge_wrong", 0), reviewed),
        golden_errors=counts.get("golden_wrong", 0),
        unclear=counts.get("unclear", 0),
        disputed=counts.get(DISPUTED, 0),
        unresolved={
            "judge_wrong": unresolved.get("judge_wrong", 0),
            "golden_wrong": unresolved.get("golden_wrong", 0),
        },
        resolved={
            "judge_wrong": resolved.get("judge_wrong", 0),
            "golden_wrong": resolved.get("golden_wrong", 0),
        },
        reviewers=sorted({r.reviewer for r in reviews}),
        review_rows=len(reviews),
        agreement=agreement(latest),
        verdicts_reviewed=dict(sorted(Counter(str(verdict_of[jid]) for jid in items).items())),
    )


def gaps_from(
    rows: Iterable[Mapping[str, Any]],
    reviews: Iterable[Review],
    resolutions: Mapping[int, Resolution | None],
) -> list[str]:
    """What keeps an evaluation from being a reviewed baseline: every FAIL needs a review, and no
    reviewer's latest label may be an unresolved ``judge_wrong``."""
    rows = sorted(rows, key=lambda r: (str(r.get("case")), int(r.get("repetition") or 0)))
    latest = latest_labels(reviews)
    gaps: list[str] = []
    for row in rows:
        jid = int(row["judgment_id"])
        where = f"{row.get('case')} r{row.get('repetition', 0)}"
        if row.get("verdict") == "FAIL" and not latest.get(jid):
            gaps.append(f"{where}: FAIL not reviewed")
        for reviewer, review in sorted(latest.get(jid, {}).items()):
            if review.label == "judge_wrong" and not resolutions.get(review.id):
                gaps.append(f"{where}: judge_wrong ({reviewer}) not resolved")
    return gaps


class CsvReview(NamedTuple):
    """A labeled row of a filled-in review CSV, checked for its format only (the store checks
    the judgment and the evaluation): ``label`` is None where it is not a known label, which
    the errors say."""

    row: int
    judgment_key: str
    evaluation: int | None
    case: str
    label: str | None
    reviewer: str
    note: str | None


def parse_review_csv(text: str) -> tuple[list[CsvReview], list[str]]:
    """Parse a filled-in review CSV: (rows to consider, errors). Row numbers are as a
    spreadsheet shows them (the header is row 1). Rows without a label and a note are skipped
    (not reviewed yet). Checks the format only; the store checks judgments and evaluations."""
    errors: list[str] = []
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    try:
        header = next(reader)
    except StopIteration:
        return [], [
            "row 1: the file is empty (expected a header with judgment_key, label, reviewer)"
        ]
    except csv.Error as exc:
        return [], [f"row 1: not CSV ({exc})"]
    columns = [h.strip().lower() for h in header]
    missing = [c for c in _REQUIRED_COLUMNS if c not in columns]
    if missing:
        return [], [f"row 1: missing column(s) {', '.join(missing)} (see docs/calibration.md)"]
    out: list[CsvReview] = []
    line = 1
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            errors.append(f"row {line + 1}: not CSV ({exc})")
            break
        line += 1
        if not any(f.strip() for f in fields):
            continue
        if len(fields) > len(columns) and any(f.strip() for f in fields[len(columns) :]):
            errors.append(f"row {line}: {len(fields)} fields but the header has {len(columns)}")
            continue
        values = {c: (fields[i].strip() if i < len(fields) else "") for i, c in enumerate(columns)}
        raw_label = values.get("label", "")
        note = values.get("note", "")
        if not raw_label:
            if note:
                errors.append(f"row {line}: a note without a label (fill the label column)")
            continue
        label = normalize_label(raw_label)
        if label is None:
            errors.append(
                f"row {line}: unknown label {raw_label!r} (use one of {', '.join(REVIEW_LABELS)})"
            )
        key = values.get("judgment_key", "")
        if not key:
            errors.append(f"row {line}: empty judgment_key")
        evaluation = values.get("evaluation", "")
        if evaluation and not evaluation.isdigit():
            errors.append(f"row {line}: evaluation must be a number, got {evaluation!r}")
        out.append(
            CsvReview(
                row=line,
                judgment_key=key,
                evaluation=int(evaluation) if evaluation.isdigit() else None,
                case=values.get("case", ""),
                label=label,
                reviewer=values.get("reviewer", ""),
                note=note or None,
            )
        )
    return out, errors
