"""Calibration: people review verdicts, and the figures say how far the judge can be trusted.

Pure part (no I/O): per-item labels from review rows, the calibration figures (reviewed count and
coverage, judge misjudgment rate, golden errors, unclear and disputed items, Cohen's kappa between
reviewers), review resolutions, the review queue, and the review CSV format.

Store-level part (reads and writes through :mod:`store.reviews` and the repository, prints
nothing): :func:`calibration_summary`, :func:`review_gaps`, :func:`review_queue`,
:func:`import_review_csv`, :func:`lock_reviewed_baseline`. The analysis exports built on the
reviews are in :mod:`judge.exports`.

Definitions (docs/calibration.md has the long form):

- A reviewer's label on a judgment is their *latest* row for it (reviews are append-only).
- An item's label is the label every reviewer gave; reviewers who disagree make it ``disputed``.
- Misjudgment rate = items labeled ``judge_wrong`` / reviewed items.
- Cohen's kappa per pair of reviewers over the items both labeled; with more than one pair,
  ``kappa`` is their mean (Light's kappa).
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
from itertools import combinations
from typing import Any

from rejudge.store.errors import InvalidInputError, NotFoundError
from rejudge.store.repository import Store
from rejudge.store.reviews import (
    NewReview,
    add_reviews,
    judgment_context,
    list_reviews,
    normalize_label,
    trace_judgments,
)
from rejudge.store.tables import REVIEW_LABELS

__all__ = [
    "REVIEW_LABELS",
    "REVIEW_CSV_COLUMNS",
    "ReviewImportError",
    "ReviewRequiredError",
    "latest_labels",
    "item_label",
    "cohen_kappa",
    "agreement",
    "resolve_reviews",
    "calibration_figures",
    "gaps_from",
    "build_queue",
    "queue_csv",
    "parse_review_csv",
    "review_rows",
    "calibration_summary",
    "review_gaps",
    "review_queue",
    "import_review_csv",
    "lock_reviewed_baseline",
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

    def __init__(self, message: str, errors: list[str]) -> None:
        super().__init__(message)
        self.errors = errors


class ReviewRequiredError(InvalidInputError):
    """An evaluation is not fully reviewed; ``gaps`` lists what is missing."""

    def __init__(self, message: str, gaps: list[str]) -> None:
        super().__init__(message)
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


def cohen_kappa(
    pairs: Sequence[tuple[str, str]], categories: Sequence[str] = REVIEW_LABELS
) -> float | None:
    """Cohen's kappa of two raters over paired labels: (p_o - p_e) / (1 - p_e).

    None when there are no pairs, or when chance agreement is certain (both raters used one and
    the same category for every item: kappa is undefined there).
    """
    n = len(pairs)
    if n == 0:
        return None
    cats = list(dict.fromkeys([*categories, *(a for a, _ in pairs), *(b for _, b in pairs)]))
    first = Counter(a for a, _ in pairs)
    second = Counter(b for _, b in pairs)
    p_o = sum(1 for a, b in pairs if a == b) / n
    p_e = sum(first[c] * second[c] for c in cats) / (n * n)
    if p_e >= 1.0:
        return None
    return round((p_o - p_e) / (1 - p_e), 6)


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
                "kappa": cohen_kappa(labels),
            }
        )
    kappas: list[float] = [float(p["kappa"]) for p in pairs if p["kappa"] is not None]
    return {
        "pairs": pairs,
        "double_reviewed": sum(1 for r in latest.values() if len(r) >= 2),
        "kappa": round(sum(kappas) / len(kappas), 6) if kappas else None,
    }


def resolve_reviews(
    reviews: Iterable[Mapping[str, Any]],
    judged: Mapping[int, Mapping[str, Any]],
    later: Iterable[Mapping[str, Any]],
) -> dict[int, dict[str, Any] | None]:
    """review id -> its resolution (``{"at", "by", "text", "evaluation"}``) or None.

    ``judged``: judgment id -> its inputs (``trace_hash``, ``case_hash``, ``rule_set_hash``,
    ``engine_version``, ``tier``, ``verdict``, ``evaluations``: ids linking it). ``later``: every
    (evaluation, judgment) row of the same traces (:func:`store.reviews.trace_judgments`).
    """
    by_trace: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for row in later:
        by_trace[str(row["trace_hash"])].append(row)
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
        since = review.get("evaluation_id") or max(j.get("evaluations") or [0])
        found = None
        for row in by_trace.get(str(j["trace_hash"]), []):
            if int(row["evaluation_id"]) <= int(since) or row["tier"] != j["tier"]:
                continue
            if label == "golden_wrong" and row["case_hash"] != j["case_hash"]:
                found = (
                    row,
                    f"case {row['case_key']} corrected (case {str(j['case_hash'])[:19]} -> "
                    f"{str(row['case_hash'])[:19]}); re-judged in evaluation "
                    f"{row['evaluation_id']}: {j['verdict']} -> {row['verdict']}",
                )
            elif (
                label == "judge_wrong"
                and row["case_hash"] == j["case_hash"]
                and (
                    row["rule_set_hash"] != j["rule_set_hash"]
                    or row["engine_version"] != j["engine_version"]
                )
                and row["verdict"] != j["verdict"]
            ):
                found = (
                    row,
                    f"re-judged under other rules in evaluation {row['evaluation_id']}: "
                    f"{j['verdict']} -> {row['verdict']}",
                )
            if found:
                break
        out[rid] = (
            None
            if found is None
            else {
                "by": "re-judge",
                "at": found[0].get("evaluation_created_at"),
                "text": found[1],
                "evaluation": int(found[0]["evaluation_id"]),
            }
        )
    return out


def calibration_figures(
    rows: Iterable[Mapping[str, Any]],
    reviews: Iterable[Mapping[str, Any]],
    resolutions: Mapping[int, Mapping[str, Any] | None] | None = None,
) -> dict[str, Any]:
    """The calibration block of a report.

    ``rows``: the evaluation's rows (``judgment_id``, ``verdict``, ``case``, ``repetition``).
    ``reviews``: review rows (``id``, ``judgment_id``, ``label``, ``reviewer``) of those
    judgments, full history. ``resolutions``: review id -> resolution or None.
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

    def coverage(verdict: str) -> dict[str, Any]:
        total = sum(1 for r in rows if r.get("verdict") == verdict)
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
        "judgments": len(in_eval),
        "coverage": _ratio(reviewed, len(in_eval)),
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
    ordered = sorted(rows, key=lambda r: (str(r.get("case")), int(r.get("repetition") or 0)))
    done = {int(j) for j in reviewed}
    reasons: dict[int, list[str]] = defaultdict(list)
    for row in ordered:
        jid = int(row["judgment_id"])
        if row.get("verdict") == "FAIL":
            reasons[jid].append("FAIL")
        if row.get("anomalies"):
            reasons[jid].append("anomaly: " + ", ".join(row["anomalies"]))
    passes = [
        r for r in ordered if r.get("verdict") == "PASS" and int(r["judgment_id"]) not in reasons
    ]
    if sample_passes > 0 and passes:
        rng = random.Random(seed)
        for row in rng.sample(passes, min(sample_passes, len(passes))):
            reasons[int(row["judgment_id"])].append("sampled PASS")
    rank = {"FAIL": 0, "anomaly": 1, "sampled PASS": 2}
    items = []
    for position, row in enumerate(ordered):
        jid = int(row["judgment_id"])
        if jid not in reasons:
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


# =========================================================================== store-level


def review_rows(store: Store, evaluation_id: int | str) -> list[dict[str, Any]]:
    """An evaluation's rows with judgment ids and keys, anomalies and the report's fields."""
    ev = store.get_evaluation(evaluation_id)
    out = []
    for r in store.iter_evaluation_rows(ev.id, with_body=True):
        body = r.get("body") or {}
        out.append(
            {
                "judgment_id": int(r["judgment_id"]),
                "judgment_key": r["judgment_key"],
                "trace_id": r["trace_id"],
                "case": r["case_key"],
                "repetition": r["repetition"],
                "dimension": r["dimension"],
                "category": r["category"],
                "verdict": r["verdict"],
                "taxonomy": list(r.get("taxonomy") or []),
                "partial_score": r["partial_score"],
                "anomalies": list(body.get("anomalies") or []),
                "trace_hash": r["trace_hash"],
                "case_hash": r["case_hash"],
                "registry_hash": r["registry_hash"],
                "rule_set_hash": r["rule_set_hash"],
                "tier": r["tier"],
                "engine_version": r["engine_version"],
                "judgment_hash": r["judgment_hash"],
            }
        )
    return out


def _reviews_and_resolutions(
    store: Store, evaluation_id: int
) -> tuple[list[dict[str, Any]], dict[int, dict[str, Any] | None]]:
    reviews = [r.as_dict() for r in list_reviews(store, evaluation_id=evaluation_id)]
    flagged = {
        int(r["judgment_id"]) for r in reviews if r["label"] in ("golden_wrong", "judge_wrong")
    }
    if not flagged:
        return reviews, {}
    context = judgment_context(store, flagged)
    later = trace_judgments(store, {c["trace_hash"] for c in context.values()})
    return reviews, resolve_reviews(reviews, context, later)


def calibration_summary(store: Store, evaluation_id: int | str) -> dict[str, Any]:
    """The ``calibration`` block of ``rejudge report`` for a stored evaluation: the figures of
    :func:`calibration_figures`, the gaps that keep it from a reviewed baseline, and every
    ``golden_wrong`` label linked to its case (suite, case key) with its resolution."""
    ev = store.get_evaluation(evaluation_id)
    rows = review_rows(store, ev.id)
    reviews, resolutions = _reviews_and_resolutions(store, ev.id)
    figures = calibration_figures(rows, reviews, resolutions)
    gaps = gaps_from(rows, reviews, resolutions)
    suite = None
    try:
        suite = store.get_suite_by_id(store.get_run(ev.run_id).suite_id)
    except NotFoundError:
        pass
    by_jid = {r["judgment_id"]: r for r in rows}
    flagged = []
    for review in reviews:
        if review["label"] not in ("golden_wrong", "judge_wrong"):
            continue
        row = by_jid[int(review["judgment_id"])]
        resolution = resolutions.get(int(review["id"]))
        flagged.append(
            {
                "review": review["id"],
                "label": review["label"],
                "reviewer": review["reviewer"],
                "note": review["note"],
                "case": row["case"],
                "repetition": row["repetition"],
                "suite": suite.name if suite else None,
                "suite_hash": suite.hash if suite else None,
                "case_hash": row["case_hash"],
                "verdict": row["verdict"],
                "resolved": resolution is not None,
                "resolution": None if resolution is None else resolution["text"],
                "resolved_in": None if resolution is None else resolution["evaluation"],
            }
        )
    figures["flagged"] = flagged
    figures["gaps"] = len(gaps)
    figures["ready_to_lock"] = not gaps
    return figures


def review_gaps(store: Store, evaluation_id: int | str) -> list[str]:
    """Why the evaluation cannot be locked with ``--require-review`` (empty: it can)."""
    ev = store.get_evaluation(evaluation_id)
    rows = review_rows(store, ev.id)
    reviews, resolutions = _reviews_and_resolutions(store, ev.id)
    return gaps_from(rows, reviews, resolutions)


def review_queue(
    store: Store, evaluation_id: int | str, *, sample_passes: int = 0, seed: int = 0
) -> list[dict[str, Any]]:
    """:func:`build_queue` over a stored evaluation, with each item's latest labels attached."""
    ev = store.get_evaluation(evaluation_id)
    rows = review_rows(store, ev.id)
    latest = latest_labels(r.as_dict() for r in list_reviews(store, evaluation_id=ev.id))
    items = build_queue(rows, latest, sample_passes=sample_passes, seed=seed)
    for item in items:
        by = latest.get(int(item["judgment_id"]), {})
        item["labels"] = {name: dict(r) for name, r in sorted(by.items())}
    return items


def import_review_csv(
    store: Store, text: str, *, default_reviewer: str | None = None, source: str = "file"
) -> dict[str, Any]:
    """Validate every row of a filled-in review CSV, then append its labels in one transaction.

    Unknown judgment keys, judgments that are not part of the row's evaluation, a case that does
    not match the judgment, unknown labels, a missing reviewer (no cell and no default) and the
    same reviewer labeling one judgment twice are errors naming the row. Any error: nothing is
    written and :class:`ReviewImportError` lists them all. A row equal to the reviewer's latest
    label (same label and note) is counted as unchanged, so importing a file twice adds nothing.
    """
    rows, errors = parse_review_csv(text)
    keys = sorted({r["judgment_key"] for r in rows if r["judgment_key"]})
    ids = store.find_judgments(keys)
    context = judgment_context(store, ids.values())
    evaluations = {r["evaluation"] for r in rows if r["evaluation"] is not None}
    known_evaluations = set()
    for ev in evaluations:
        try:
            known_evaluations.add(store.get_evaluation(ev).id)
        except NotFoundError:
            pass
    seen: dict[tuple[int, str], int] = {}
    fresh: list[NewReview] = []
    plan: list[dict[str, Any]] = []
    for row in rows:
        line = row["row"]
        jid = ids.get(row["judgment_key"])
        if row["judgment_key"] and jid is None:
            errors.append(f"row {line}: unknown judgment {row['judgment_key']!r}")
        ev = row["evaluation"]
        if ev is not None and ev not in known_evaluations:
            errors.append(f"row {line}: no evaluation {ev} in the store")
        elif (
            ev is not None
            and jid is not None
            and ev not in context.get(jid, {}).get("evaluations", [])
        ):
            errors.append(
                f"row {line}: judgment {row['judgment_key'][:19]}... is not in evaluation {ev}"
            )
        if (
            jid is not None
            and row["case"]
            and context.get(jid, {}).get("case") not in (None, row["case"])
        ):
            errors.append(
                f"row {line}: case {row['case']!r} does not match the judgment's case "
                f"{context[jid]['case']!r}"
            )
        reviewer = (row["reviewer"] or default_reviewer or "").strip()
        if not reviewer:
            errors.append(
                f"row {line}: no reviewer (fill the reviewer column or pass --reviewer NAME)"
            )
        elif any(ord(ch) < 32 for ch in reviewer) or len(reviewer) > 200:
            errors.append(f"row {line}: reviewer name {reviewer[:40]!r} is not valid")
        if jid is not None and reviewer:
            earlier = seen.get((jid, reviewer))
            if earlier is not None:
                errors.append(
                    f"row {line}: {reviewer} already labeled this judgment in row {earlier}"
                )
            seen[(jid, reviewer)] = line
        if jid is not None and reviewer and row["label"]:
            plan.append({**row, "judgment_id": jid, "reviewer": reviewer})
    if errors:
        shown = "; ".join(errors[:20]) + (
            f"; ... and {len(errors) - 20} more" if len(errors) > 20 else ""
        )
        raise ReviewImportError(
            f"{len(errors)} problem(s) in {source}, nothing imported: {shown}", errors
        )
    latest = latest_labels(
        r.as_dict() for r in list_reviews(store, judgment_ids=[p["judgment_id"] for p in plan])
    )
    unchanged = 0
    for item in plan:
        before = latest.get(item["judgment_id"], {}).get(item["reviewer"])
        if (
            before is not None
            and before["label"] == item["label"]
            and (before["note"] or None) == item["note"]
        ):
            unchanged += 1
            continue
        fresh.append(
            NewReview(
                judgment_id=item["judgment_id"],
                label=item["label"],
                reviewer=item["reviewer"],
                note=item["note"],
                evaluation_id=item["evaluation"],
            )
        )
    written = add_reviews(store, fresh)
    return {
        "rows": len(rows),
        "imported": len(written),
        "unchanged": unchanged,
        "reviewers": sorted({r.reviewer for r in fresh}),
        "labels": dict(sorted(Counter(r.label for r in fresh).items())),
    }


def lock_reviewed_baseline(
    store: Store,
    evaluation_id: int | str,
    name: str,
    *,
    note: str | None = None,
    require_review: bool = False,
) -> dict[str, Any]:
    """Lock an evaluation as a baseline whose report carries its calibration figures.

    With ``require_review`` the lock is refused (:class:`ReviewRequiredError`, listing every gap)
    until every FAIL is reviewed and no ``judge_wrong`` label is unresolved.
    """
    from .baseline import lock_baseline
    from .batch import evaluation_report
    from .ops import evaluation_inputs

    ev = store.get_evaluation(evaluation_id)
    if require_review:
        gaps = review_gaps(store, ev.id)
        if gaps:
            shown = "; ".join(gaps[:20]) + (
                f"; ... and {len(gaps) - 20} more" if len(gaps) > 20 else ""
            )
            raise ReviewRequiredError(
                f"evaluation {ev.id} is not fully reviewed ({len(gaps)} gap(s)): {shown}; "
                f"review them (`rejudge review export {ev.id}`, the dashboard's Review page) "
                "or lock without --require-review",
                gaps,
            )
    full = evaluation_report(store, ev.id)
    calibration = calibration_summary(store, ev.id)
    report = {**full["summary"], "cases": full["cases"], "calibration": calibration}
    inputs = evaluation_inputs(store, ev.id)
    locked = lock_baseline(name, report, inputs)
    record = store.save_baseline(
        name=name,
        evaluation_id=ev.id,
        report_hash=locked["report_sha256"],
        input_hashes=locked["inputs"],
        report=locked["report"],
        note=note,
    )
    return {
        "baseline": record.name,
        "evaluation": ev.id,
        "report_sha256": record.report_hash,
        "inputs": record.input_hashes,
        "accuracy": record.report.get("accuracy"),
        "verdict_counts": record.report.get("verdict_counts"),
        "reviewed": require_review,
        "calibration": {
            k: calibration[k]
            for k in ("reviewed", "fails", "misjudgment_rate", "golden_errors", "unclear", "gaps")
        },
    }
