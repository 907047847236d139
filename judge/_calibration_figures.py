"""The calibration figures as typed results (:func:`rejudge.judge.calibration_figures` makes
them): what the review page shows and ``rejudge review summary`` renders, and, as their
``to_json()``, the ``calibration`` block of a report (stored with a baseline: the JSON's keys
and their order are the report's, unchanged)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

__all__ = [
    "Coverage",
    "ReviewerPair",
    "ReviewerAgreement",
    "Resolution",
    "CalibrationFigures",
    "FlaggedLabel",
    "CalibrationSummary",
]


class Coverage(NamedTuple):
    """The judgments of one verdict: how many, how many reviewed (and the ratio), and how many
    of those a reviewer called ``judge_wrong``."""

    total: int
    reviewed: int
    coverage: float | None
    judge_wrong: int

    def to_json(self) -> dict[str, Any]:
        return self._asdict()


class ReviewerPair(NamedTuple):
    """Two reviewers' agreement over the items both labelled."""

    reviewers: tuple[str, str]
    items: int
    observed_agreement: float | None
    kappa: float | None

    def to_json(self) -> dict[str, Any]:
        return {**self._asdict(), "reviewers": list(self.reviewers)}


class ReviewerAgreement(NamedTuple):
    """Pairwise agreement between reviewers; ``kappa`` is the pairs' mean (Light's kappa)."""

    pairs: tuple[ReviewerPair, ...]
    double_reviewed: int
    kappa: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "pairs": [p.to_json() for p in self.pairs],
            "double_reviewed": self.double_reviewed,
            "kappa": self.kappa,
        }


class Resolution(NamedTuple):
    """How a ``golden_wrong`` or ``judge_wrong`` label was resolved: by a person (``by``
    "reviewer") or by a later evaluation that judged the trace again ("re-judge", in
    ``evaluation``), when, and in words."""

    by: str
    at: datetime | None
    text: str | None
    evaluation: int | None


@dataclass(frozen=True)
class CalibrationFigures:
    """An evaluation's calibration figures (docs/calibration.md defines each)."""

    reviewed: int
    judgments: int
    coverage: float | None
    fails: Coverage
    passes: Coverage
    #: items per label (each review label, then ``disputed``)
    labels: Mapping[str, int]
    misjudged: int
    misjudgment_rate: float | None
    golden_errors: int
    unclear: int
    disputed: int
    #: latest ``judge_wrong``/``golden_wrong`` labels not resolved, and resolved
    unresolved: Mapping[str, int]
    resolved: Mapping[str, int]
    reviewers: list[str]
    review_rows: int
    agreement: ReviewerAgreement
    verdicts_reviewed: Mapping[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "reviewed": self.reviewed,
            "judgments": self.judgments,
            "coverage": self.coverage,
            "fails": self.fails.to_json(),
            "passes": self.passes.to_json(),
            "labels": dict(self.labels),
            "misjudged": self.misjudged,
            "misjudgment_rate": self.misjudgment_rate,
            "golden_errors": self.golden_errors,
            "unclear": self.unclear,
            "disputed": self.disputed,
            "unresolved": dict(self.unresolved),
            "resolved": dict(self.resolved),
            "reviewers": list(self.reviewers),
            "review_rows": self.review_rows,
            "agreement": self.agreement.to_json(),
            "verdicts_reviewed": dict(self.verdicts_reviewed),
        }


class FlaggedLabel(NamedTuple):
    """A reviewer's ``golden_wrong`` or ``judge_wrong`` label, linked to its case (suite, case
    key and hash) and its resolution, if any."""

    review: int
    label: str
    reviewer: str
    note: str | None
    case: str
    repetition: int
    suite: str | None
    suite_hash: str | None
    case_hash: str
    verdict: str
    resolved: bool
    resolution: str | None
    resolved_in: int | None

    def to_json(self) -> dict[str, Any]:
        return self._asdict()


@dataclass(frozen=True)
class CalibrationSummary:
    """A stored evaluation's calibration (``rejudge review summary``, the review page, the
    ``calibration`` block of ``rejudge report``): its figures, every flagged label, and the gaps
    that keep it from a reviewed baseline (``ready_to_lock`` when there are none)."""

    figures: CalibrationFigures
    flagged: list[FlaggedLabel]
    gaps: int

    @property
    def ready_to_lock(self) -> bool:
        return not self.gaps

    def to_json(self) -> dict[str, Any]:
        return {
            **self.figures.to_json(),
            "flagged": [f.to_json() for f in self.flagged],
            "gaps": self.gaps,
            "ready_to_lock": self.ready_to_lock,
        }
