"""Calibration: people review verdicts, and the figures say how far the judge can be trusted.

Pure part (no I/O): per-item labels from review rows, the calibration figures (reviewed count and
coverage, judge misjudgment rate, golden errors, unclear and disputed items, Cohen's kappa between
reviewers), review resolutions, the review queue, and the review CSV format.

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
import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from itertools import combinations
from typing import Any, NamedTuple, Protocol

from rejudge.errors import InvalidInputError
from rejudge.model import REVIEW_LABELS, kappa_of, normalize_label

__all__ = [
    "REVIEW_LABELS",
    "REVIEW_CSV_COLUMNS",
    "ReviewImportError",
    "ReviewRequiredError",
    "latest_labels",
    "item_label",
    "agreement",
    "resolve_reviews",
    "EvaluationTotals",
    "calibration_figures",
    "gaps_from",
    "build_queue",
    "sample_positions",
    "queue_items",
    "queue_csv",
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


def latest_labels(reviews: Iterable[Mapping[str, Any]]) -> dict[int, dict[str, Mapping[str, Any]]]:
    """judgment id -> reviewer -> that reviewer's newest review row (highest id)."""
    out: dict[int, dict[str, Mapping[str, Any]]] = defaultdict(dict)
    for review in sorted(reviews, key=lambda r: int(r["id"])):
        out[int(review["judgment_id"])][str(review["reviewer"])] = review
    return dict(out)


def item_label(by_reviewer: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The label every reviewer agrees on, ``disputed`` when they differ, None when unreviewed."""
    labels = {str(r["label"]) for r in by_reviewer.values()}
    if not labels:
        return None
    return labels.pop() if len(labels) == 1 else DISPUTED


def agreement(latest: Mapping[int, Mapping[str, Mapping[str, Any]]]) -> dict[str, Any]:
    """Pairwise agreement between reviewers over the items both labeled."""
    shared: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for by_reviewer in latest.values():
        for a, b in combinations(sorted(by_reviewer), 2):
            shared[(a, b)].append((str(by_reviewer[a]["label"]), str(by_reviewer[b]["label"])))
    pairs: list[dict[str, Any]] = []
    for (a, b), labels in sorted(shared.items()):
        pairs.append(
            {
                "reviewers": [a, b],
                "items": len(labels),
                "observed_agreement": _ratio(sum(1 for x, y in labels if x == y), len(labels)),
                "kappa": kappa_of(Counter(labels)),
            }
        )
    kappas: list[float] = [float(p["kappa"]) for p in pairs if p["kappa"] is not None]
    return {
        "pairs": pairs,
        "double_reviewed": sum(1 for r in latest.values() if len(r) >= 2),
        "kappa": round(sum(kappas) / len(kappas), 6) if kappas else None,
    }


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
    reviews: Iterable[Mapping[str, Any]],
    judged: Mapping[int, JudgedInputs],
    later: Iterable[LaterJudgment],
) -> dict[int, dict[str, Any] | None]:
    """review id -> its resolution (``{"at", "by", "text", "evaluation"}``) or None.

    ``judged``: judgment id -> its inputs (``store.reviews.judgment_context``). ``later``: every
    (evaluation, judgment) row of the same traces (``store.reviews.trace_judgments``).
    """
    by_trace: dict[str, list[LaterJudgment]] = defaultdict(list)
    for row in later:
        by_trace[row.trace_hash].append(row)
    out: dict[int, dict[str, Any] | None] = {}
    for review in reviews:
        rid = int(review["id"])
        if review.get("resolved_at") is not None:
            out[rid] = {
                "by": "reviewer",
                "at": review["resolved_at"],
                "text": review.get("resolution"),
                "evaluation": None,
            }
            continue
        label = review["label"]
        j = judged.get(int(review["judgment_id"]))
        if j is None or label not in ("golden_wrong", "judge_wrong"):
            out[rid] = None
            continue
        since = review.get("evaluation_id") or max(j.evaluations or [0])
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
            else {
                "by": "re-judge",
                "at": found[0].evaluation_created_at,
                "text": found[1],
                "evaluation": found[0].evaluation_id,
            }
        )
    return out


class EvaluationTotals(NamedTuple):
    """An evaluation's judgments (distinct) and rows per verdict, counted by the database: what
    :func:`calibration_figures` needs of the rows nobody reviewed."""

    judgments: int
    verdicts: Mapping[str, int]


def calibration_figures(
    rows: Iterable[Mapping[str, Any]],
    reviews: Iterable[Mapping[str, Any]],
    resolutions: Mapping[int, Mapping[str, Any] | None] | None = None,
    totals: EvaluationTotals | None = None,
) -> dict[str, Any]:
    """The calibration block of a report.

    ``rows``: the evaluation's rows (``judgment_id``, ``verdict``, ``case``, ``repetition``).
    ``reviews``: review rows (``id``, ``judgment_id``, ``label``, ``reviewer``) of those
    judgments, full history. ``resolutions``: review id -> resolution or None. With ``totals``
    (the whole evaluation's counts), ``rows`` need only be the reviewed judgments' rows: the
    others count only in the totals (the review page reads a few rows, not 50,000).
    """
    rows = list(rows)
    reviews = list(reviews)
    resolutions = resolutions or {}
    in_eval = {int(r["judgment_id"]) for r in rows}
    reviews = [r for r in reviews if int(r["judgment_id"]) in in_eval]
    latest = latest_labels(reviews)
    verdict_of = {int(r["judgment_id"]): r.get("verdict") for r in rows}
    items = {jid: item_label(by) for jid, by in latest.items()}
    counts = Counter(label for label in items.values() if label is not None)
    reviewed = len(items)
    judgments = len(in_eval) if totals is None else totals.judgments

    def coverage(verdict: str) -> dict[str, Any]:
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
        return {
            "total": total,
            "reviewed": done,
            "coverage": _ratio(done, total),
            "judge_wrong": wrong,
        }

    unresolved: Counter[str] = Counter()
    resolved: Counter[str] = Counter()
    for by in latest.values():
        for review in by.values():
            if review["label"] in ("judge_wrong", "golden_wrong"):
                if resolutions.get(int(review["id"])):
                    resolved[str(review["label"])] += 1
                else:
                    unresolved[str(review["label"])] += 1
    return {
        "reviewed": reviewed,
        "judgments": judgments,
        "coverage": _ratio(reviewed, judgments),
        "fails": coverage("FAIL"),
        "passes": coverage("PASS"),
        "labels": {label: counts.get(label, 0) for label in (*REVIEW_LABELS, DISPUTED)},
        "misjudged": counts.get("judge_wrong", 0),
        "misjudgment_rate": _ratio(counts.get("judge_wrong", 0), reviewed),
        "golden_errors": counts.get("golden_wrong", 0),
        "unclear": counts.get("unclear", 0),
        "disputed": counts.get(DISPUTED, 0),
        "unresolved": {
            "judge_wrong": unresolved.get("judge_wrong", 0),
            "golden_wrong": unresolved.get("golden_wrong", 0),
        },
        "resolved": {
            "judge_wrong": resolved.get("judge_wrong", 0),
            "golden_wrong": resolved.get("golden_wrong", 0),
        },
        "reviewers": sorted({str(r["reviewer"]) for r in reviews}),
        "review_rows": len(reviews),
        "agreement": agreement(latest),
        "verdicts_reviewed": dict(sorted(Counter(str(verdict_of[jid]) for jid in items).items())),
    }


def gaps_from(
    rows: Iterable[Mapping[str, Any]],
    reviews: Iterable[Mapping[str, Any]],
    resolutions: Mapping[int, Mapping[str, Any] | None],
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
            if review["label"] == "judge_wrong" and not resolutions.get(int(review["id"])):
                gaps.append(f"{where}: judge_wrong ({reviewer}) not resolved")
    return gaps


def build_queue(
    rows: Iterable[Mapping[str, Any]],
    reviewed: Iterable[int] = (),
    *,
    sample_passes: int = 0,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """The review queue: every FAIL, every anomaly-flagged judgment, and a seeded random sample
    of ``sample_passes`` PASSes (to catch false passes), in that order, each once.

    Items keep their row fields and gain ``reasons`` and ``reviewed``. The PASS sample depends
    only on the rows and the seed, not on what is already reviewed, so progress through it is
    stable.
    """
    ordered = _in_case_order(rows)
    queued = {int(r["judgment_id"]) for r in ordered if _queued(r)}
    passes = [
        int(r["judgment_id"])
        for r in ordered
        if r.get("verdict") == "PASS" and int(r["judgment_id"]) not in queued
    ]
    sampled = [passes[i] for i in sample_positions(len(passes), sample_passes, seed)]
    return queue_items(ordered, sampled, reviewed)


def _queued(row: Mapping[str, Any]) -> bool:
    """A row queued whatever the sample: a FAIL or a judgment with anomalies."""
    return row.get("verdict") == "FAIL" or bool(row.get("anomalies"))


def _in_case_order(rows: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return sorted(rows, key=lambda r: (str(r.get("case")), int(r.get("repetition") or 0)))


def sample_positions(passes: int, sample_passes: int, seed: int) -> list[int]:
    """Which of ``passes`` PASSes (:func:`build_queue`'s candidates, in case order) the seeded
    sample of ``sample_passes`` takes, as positions: the draw depends on their number alone, so
    a caller that read only the candidates' keys reads the few rows drawn, not all of them."""
    if sample_passes <= 0 or passes <= 0:
        return []
    return random.Random(seed).sample(range(passes), min(sample_passes, passes))


def queue_items(
    rows: Iterable[Mapping[str, Any]], sampled: Sequence[int], reviewed: Iterable[int] = ()
) -> list[dict[str, Any]]:
    """:func:`build_queue`'s items from the rows that can be queued (FAILs, rows with anomalies,
    the sampled PASSes; any other row is left out) and the judgment ids the PASS sample drew,
    in the order drawn."""
    ordered = _in_case_order(rows)
    done = {int(j) for j in reviewed}
    reasons: dict[int, list[str]] = defaultdict(list)
    for row in ordered:
        jid = int(row["judgment_id"])
        if row.get("verdict") == "FAIL":
            reasons[jid].append("FAIL")
        if row.get("anomalies"):
            reasons[jid].append("anomaly: " + ", ".join(row["anomalies"]))
    for jid in sampled:
        reasons[int(jid)].append("sampled PASS")
    rank = {"FAIL": 0, "anomaly": 1, "sampled PASS": 2}
    items = []
    for position, row in enumerate(ordered):
        jid = int(row["judgment_id"])
        if not reasons.get(jid):
            continue
        first = rank[reasons[jid][0].split(":")[0]]
        items.append((first, position, {**row, "reasons": reasons[jid], "reviewed": jid in done}))
    seen: set[int] = set()
    out = []
    for _rank, _pos, item in sorted(items, key=lambda t: (t[0], t[1])):
        if int(item["judgment_id"]) in seen:  # the same judgment linked twice: list it once
            continue
        seen.add(int(item["judgment_id"]))
        out.append(item)
    return out


def queue_csv(items: Iterable[Mapping[str, Any]], evaluation_id: int) -> str:
    """The review CSV (header + one row per queue item, label/reviewer/note left blank)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(REVIEW_CSV_COLUMNS)
    for item in items:
        score = item.get("partial_score")
        writer.writerow(
            [
                item.get("judgment_key"),
                evaluation_id,
                item.get("case"),
                item.get("repetition", 0),
                item.get("verdict"),
                " ".join(item.get("taxonomy") or []),
                "" if score is None else repr(float(score)),
                "",
                "",
                "",
                "; ".join(item.get("reasons") or []),
            ]
        )
    return buffer.getvalue()


def parse_review_csv(text: str) -> tuple[list[dict[str, Any]], list[str]]:
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
    out: list[dict[str, Any]] = []
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
            {
                "row": line,
                "judgment_key": key,
                "evaluation": int(evaluation) if evaluation.isdigit() else None,
                "case": values.get("case", ""),
                "label": label,
                "reviewer": values.get("reviewer", ""),
                "note": note or None,
            }
        )
    return out, errors
