"""Reviews: people's labels on judgments (confirmed, judge wrong, golden wrong, unclear).

Append-only: a new label is a new row, so the history of every judgment stays; several reviewers
may label the same judgment, and "the latest label per reviewer" is a query (the row with the
highest id per (judgment, reviewer)), never an update. The one write that touches an existing row
is :meth:`ReviewRepository.resolve_review`, which fills the nullable ``resolved_at``/``resolution`` once and refuses
to overwrite them.

``ReviewRepository`` holds them; ``Store`` hands it out as ``store.reviews``. They read and
write in bulk (no query per row).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple, TypedDict

from rejudge.store._batching import chunks
from rejudge.store._errors import ConflictError, InvalidInputError, NotFoundError
from rejudge.store._json_text import _decode_small, _decode_stored
from rejudge.store._judgments import _NO_ANOMALY
from rejudge.store._records import record_of
from rejudge.store._tables import (
    _T_EJ,
    _T_EVAL,
    _T_JUDG,
    _T_REV,
    _T_RUN,
    _T_SUITE,
    trace_hash_prefix,
    trace_hash_prefix_of,
    utcnow,
)
from rejudge.store._unit_of_work import Repository
from sqlalchemy import Select, Table, Text, and_, cast, func, or_, select, update

from rejudge.model import REVIEW_LABELS, QueueRow, normalize_label

if TYPE_CHECKING:
    pass

__all__ = [
    "MAX_REVIEWER_LENGTH",
    "JudgmentContext",
    "NewReview",
    "ReviewJson",
    "ReviewRecord",
    "TraceJudgment",
    "check_reviewer",
]


MAX_REVIEWER_LENGTH = 200


@dataclass(frozen=True)
class NewReview:
    judgment_id: int
    label: str
    reviewer: str
    note: str | None = None
    evaluation_id: int | None = None


class ReviewJson(TypedDict):
    """A review as JSON (``ReviewRecord.as_dict``): what ``--json`` prints, times in ISO 8601
    (the pure judge's calibration reads the :class:`ReviewRecord` itself)."""

    id: int
    judgment_id: int
    evaluation_id: int | None
    label: str
    reviewer: str
    note: str | None
    created_at: str | None
    resolved_at: str | None
    resolution: str | None


@dataclass(frozen=True)
class ReviewRecord:
    id: int
    judgment_id: int
    evaluation_id: int | None
    label: str
    reviewer: str
    note: str | None
    created_at: datetime
    resolved_at: datetime | None
    resolution: str | None

    def as_dict(self) -> ReviewJson:
        return {
            "id": self.id,
            "judgment_id": self.judgment_id,
            "evaluation_id": self.evaluation_id,
            "label": self.label,
            "reviewer": self.reviewer,
            "note": self.note,
            "created_at": self.created_at.isoformat() if self.created_at else None,
            "resolved_at": self.resolved_at.isoformat() if self.resolved_at else None,
            "resolution": self.resolution,
        }


class JudgmentContext(NamedTuple):
    """Where a judgment was judged: its case and suite, its input hashes and verdict, and the
    evaluations linking it (ascending ids)."""

    judgment_id: int
    judgment_key: str
    case: str
    repetition: int
    suite: str
    suite_hash: str
    verdict: str
    trace_hash: str
    case_hash: str
    rule_set_hash: str
    tier: str
    engine_version: str
    evaluations: list[int]


class TraceJudgment(NamedTuple):
    """One (evaluation, judgment) of a trace: what a review's resolution is computed from."""

    evaluation_id: int
    evaluation_created_at: datetime
    judgment_id: int
    case_key: str
    repetition: int
    verdict: str
    trace_hash: str
    case_hash: str
    rule_set_hash: str
    tier: str
    engine_version: str


def check_reviewer(name: str | None) -> str:
    """The reviewer's name, trimmed; raises when it is empty, too long or has control characters."""
    reviewer = (name or "").strip()
    if not reviewer:
        raise InvalidInputError("a review needs a reviewer name", field="reviewer")
    if len(reviewer) > MAX_REVIEWER_LENGTH:
        raise InvalidInputError(f"reviewer names are at most {MAX_REVIEWER_LENGTH} characters")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in reviewer):
        raise InvalidInputError("reviewer names cannot contain control characters")
    return reviewer


def _record(m: Any) -> ReviewRecord:
    return record_of(ReviewRecord, m)


def _existing(conn: Any, table: Table, ids: set[int]) -> set[int]:
    out: set[int] = set()
    wanted = sorted(ids)
    for chunk in chunks(wanted):
        out.update(
            int(i) for i in conn.execute(select(table.c.id).where(table.c.id.in_(chunk))).scalars()
        )
    return out


class ReviewRepository(Repository):
    """``store.reviews``: append-only labels, their resolution, and the context a reviewer
    sees."""

    def add_reviews(self, reviews: Sequence[NewReview]) -> list[int]:
        """Append labels in one transaction; all or nothing. Returns the new row ids, in order.

        Every label must be one of :data:`REVIEW_LABELS`, every reviewer non-empty, every judgment
        (and evaluation, when given) stored; otherwise nothing is written.
        """
        if not reviews:
            return []
        problems: list[str] = []
        rows: list[dict[str, Any]] = []
        now = utcnow()
        for index, review in enumerate(reviews):
            label = normalize_label(review.label)
            if label is None:
                problems.append(
                    f"review {index + 1}: unknown label {review.label!r} "
                    f"(use one of {', '.join(REVIEW_LABELS)})"
                )
            try:
                reviewer = check_reviewer(review.reviewer)
            except InvalidInputError as exc:
                problems.append(f"review {index + 1}: {exc}")
                reviewer = ""
            note = (review.note or "").strip() or None
            rows.append(
                {
                    "judgment_id": int(review.judgment_id),
                    "evaluation_id": review.evaluation_id,
                    "label": label,
                    "reviewer": reviewer,
                    "note": note,
                    "created_at": now,
                }
            )
        judgment_ids = {r["judgment_id"] for r in rows}
        evaluation_ids = {r["evaluation_id"] for r in rows if r["evaluation_id"] is not None}
        with self._begin() as c:
            known = _existing(c, _T_JUDG, judgment_ids)
            for missing in sorted(judgment_ids - known):
                problems.append(f"no judgment with id {missing} in the store")
            known_ev = _existing(c, _T_EVAL, evaluation_ids)
            for missing in sorted(evaluation_ids - known_ev):
                problems.append(f"no evaluation {missing} in the store")
            if problems:
                raise InvalidInputError("; ".join(problems))
            ids: list[int] = []
            for chunk in chunks(rows):
                result = c.execute(_T_REV.insert().returning(_T_REV.c.id), chunk)
                ids.extend(int(i) for i in result.scalars())
        return ids

    def add_review(
        self,
        judgment_id: int,
        label: str,
        reviewer: str,
        *,
        note: str | None = None,
        evaluation_id: int | None = None,
    ) -> ReviewRecord:
        """Append one label and return it."""
        (review_id,) = self.add_reviews(
            [NewReview(judgment_id, label, reviewer, note=note, evaluation_id=evaluation_id)]
        )
        with self._connect() as c:
            row = c.execute(select(_T_REV).where(_T_REV.c.id == review_id)).mappings().one()
        return _record(row)

    def list_reviews(
        self,
        *,
        evaluation_id: int | None = None,
        judgment_ids: Iterable[int] | None = None,
        latest_per_reviewer: bool = False,
    ) -> list[ReviewRecord]:
        """Reviews in id order (oldest first).

        ``evaluation_id``: the reviews of every judgment that evaluation links, wherever they were
        made (a judgment is shared by every evaluation of the same inputs). ``judgment_ids``: only
        those judgments. ``latest_per_reviewer``: only each reviewer's newest label per judgment.
        """
        query = select(_T_REV).order_by(_T_REV.c.id)
        if evaluation_id is not None:
            linked = select(_T_EJ.c.judgment_id).where(_T_EJ.c.evaluation_id == int(evaluation_id))
            query = query.where(_T_REV.c.judgment_id.in_(linked))
        if latest_per_reviewer:
            newest = select(func.max(_T_REV.c.id)).group_by(_T_REV.c.judgment_id, _T_REV.c.reviewer)
            query = query.where(_T_REV.c.id.in_(newest))
        with self._connect() as c:
            if judgment_ids is None:
                return [_record(m) for m in c.execute(query).mappings()]
            wanted = sorted({int(i) for i in judgment_ids})
            out: list[ReviewRecord] = []
            for chunk in chunks(wanted):
                out.extend(
                    _record(m)
                    for m in c.execute(query.where(_T_REV.c.judgment_id.in_(chunk))).mappings()
                )
        return sorted(out, key=lambda r: r.id)

    def review_history(self, judgment_id: int) -> list[ReviewRecord]:
        """Every label ever given to one judgment, oldest first."""
        return self.list_reviews(judgment_ids=[judgment_id])

    def resolve_review(
        self, review_id: int, resolution: str, *, at: datetime | None = None
    ) -> ReviewRecord:
        """Mark a review resolved (the case or rule it reported was fixed). Filled once: a review that
        is already resolved is refused, never overwritten."""
        text = (resolution or "").strip()
        if not text:
            raise InvalidInputError("a resolution needs a text saying what fixed the problem")
        with self._begin() as c:
            row = c.execute(select(_T_REV).where(_T_REV.c.id == int(review_id))).mappings().first()
            if row is None:
                raise NotFoundError(f"no review {review_id} in the store")
            if row["resolved_at"] is not None:
                raise ConflictError(
                    f"review {review_id} is already resolved ({row['resolution']}); "
                    "resolutions are never overwritten, add a new review instead"
                )
            c.execute(
                update(_T_REV)
                .where(_T_REV.c.id == int(review_id), _T_REV.c.resolved_at.is_(None))
                .values(resolved_at=at or utcnow(), resolution=text)
            )
            row = c.execute(select(_T_REV).where(_T_REV.c.id == int(review_id))).mappings().one()
        return _record(row)

    def judgment_context(self, judgment_ids: Iterable[int]) -> dict[int, JudgmentContext]:
        """judgment id -> where it was judged: case key, repetition, suite name and hash, the
        judgment's input hashes, verdict, and the evaluations linking it (ascending ids)."""
        wanted = sorted({int(i) for i in judgment_ids})
        out: dict[int, JudgmentContext] = {}
        query = (
            select(
                _T_EJ.c.judgment_id,
                _T_EJ.c.evaluation_id,
                _T_EJ.c.case_key,
                _T_EJ.c.repetition,
                _T_JUDG.c.key,
                *_judgment_inputs(),
                _T_SUITE.c.name.label("suite"),
                _T_SUITE.c.hash.label("suite_hash"),
            )
            .join(_T_JUDG, _T_JUDG.c.id == _T_EJ.c.judgment_id)
            .join(_T_EVAL, _T_EVAL.c.id == _T_EJ.c.evaluation_id)
            .join(_T_RUN, _T_RUN.c.id == _T_EVAL.c.run_id)
            .join(_T_SUITE, _T_SUITE.c.id == _T_RUN.c.suite_id)
            .order_by(_T_EJ.c.evaluation_id)
        )
        with self._connect() as c:
            for chunk in chunks(wanted):
                for m in c.execute(query.where(_T_EJ.c.judgment_id.in_(chunk))).mappings():
                    entry = out.get(m["judgment_id"])
                    if entry is None:
                        entry = out[m["judgment_id"]] = JudgmentContext(
                            judgment_id=m["judgment_id"],
                            judgment_key=m["key"],
                            case=m["case_key"],
                            repetition=m["repetition"],
                            suite=m["suite"],
                            suite_hash=m["suite_hash"],
                            verdict=m["verdict"],
                            trace_hash=m["trace_hash"],
                            case_hash=m["case_hash"],
                            rule_set_hash=m["rule_set_hash"],
                            tier=m["tier"],
                            engine_version=m["engine_version"],
                            evaluations=[],
                        )
                    entry.evaluations.append(m["evaluation_id"])
        return out

    def queue_rows(
        self, evaluation_id: int, *, queued: bool = False, judgment_ids: Collection[int] = ()
    ) -> list[QueueRow]:
        """An evaluation's rows as the review queue takes them (:class:`QueueRow`), in (case,
        repetition) order per read: with ``queued`` every FAIL and every judgment with anomalies
        (a row of neither may come too, its anomalies then empty), and the rows of
        ``judgment_ids`` (the sampled PASSes). Nine columns, not an evaluation row's twenty:
        the queue reads 19,000 rows at 100,000 judgments, and shows these only."""
        ej, j = _T_EJ.c, _T_JUDG.c
        anomalies = cast(j.anomalies, Text)
        query = (
            select(
                ej.judgment_id,
                j.key,
                ej.trace_id,
                ej.case_key,
                ej.repetition,
                ej.verdict,
                cast(j.taxonomy, Text),
                ej.partial_score,
                anomalies,
            )
            .join(_T_JUDG, j.id == ej.judgment_id)
            .where(ej.evaluation_id == evaluation_id)
            .order_by(ej.case_key, ej.repetition)
        )
        # no anomalies is an empty list or a JSON null as text; any other text may hold some
        # (the queue decides on the decoded list)
        some = and_(anomalies.is_not(None), anomalies.not_in(_NO_ANOMALY))
        reads = [query.where(or_(ej.verdict == "FAIL", some))] if queued else []
        reads += [query.where(ej.judgment_id.in_(b)) for b in chunks(sorted(set(judgment_ids)))]
        decode = _decode_stored if self.backend == "postgresql" else _decode_small
        codes: dict[str | None, tuple[str, ...]] = {None: ()}
        out: list[QueueRow] = []
        with self._connect() as c:
            for read in reads:
                for jid, key, trace, case, rep, verdict, taxonomy, score, flags in c.execute(read):
                    out.append(
                        QueueRow(
                            jid,
                            key,
                            trace,
                            case,
                            rep,
                            verdict,
                            _codes(taxonomy, codes, decode),
                            score,
                            _codes(flags, codes, decode),
                        )
                    )
        return out

    def trace_judgments(self, trace_hashes: Iterable[str]) -> list[TraceJudgment]:
        """Every (evaluation, judgment) of the given trace hashes: evaluation id and time, judgment
        id, verdict and input hashes, case key and repetition. What a review's resolution is computed
        from (a later evaluation of the same trace under a different case or rule set)."""
        wanted = set(trace_hashes)
        prefixes = sorted({trace_hash_prefix_of(h) for h in wanted})
        out: list[TraceJudgment] = []
        with self._connect() as c:
            for chunk in chunks(prefixes):
                out.extend(
                    TraceJudgment(**m)
                    for m in c.execute(trace_judgments_query(chunk)).mappings()
                    # the prefix's rows, of which the exact hashes: kept here, not in the
                    # query, where SQLite would fold a single hash into the prefix
                    # expression (trace_hash = 'x' makes substr(trace_hash, ...) a constant)
                    # and no longer match it to the index
                    if m["trace_hash"] in wanted
                )
        out.sort(key=lambda r: (r.evaluation_id, r.judgment_id))
        return out


def _codes(
    text: str | None, seen: dict[str | None, tuple[str, ...]], decode: Callable[..., Any]
) -> tuple[str, ...]:
    """A stored list of codes (taxonomy, anomalies) as one shared tuple per distinct text:
    thousands of rows carry the same few, and a kept queue pickles each tuple once."""
    hit = seen.get(text)
    if hit is None:
        hit = tuple(decode(text, {}) or ())
        if len(seen) < 4096:
            seen[text] = hit
    return hit


def trace_judgments_query(prefixes: Sequence[str]) -> Select[Any]:
    """The links and judgments whose trace hash has one of ``prefixes`` (see
    ``trace_hash_prefix``), reached through ``ix_judgments_trace_hash_prefix``."""
    return (
        select(
            _T_EJ.c.evaluation_id,
            _T_EVAL.c.created_at.label("evaluation_created_at"),
            _T_EJ.c.judgment_id,
            _T_EJ.c.case_key,
            _T_EJ.c.repetition,
            *_judgment_inputs(),
        )
        .join(_T_JUDG, _T_JUDG.c.id == _T_EJ.c.judgment_id)
        .join(_T_EVAL, _T_EVAL.c.id == _T_EJ.c.evaluation_id)
        .where(trace_hash_prefix(_T_JUDG.c.trace_hash).in_(prefixes))
        .order_by(_T_EJ.c.evaluation_id, _T_EJ.c.judgment_id)
    )


def _judgment_inputs() -> tuple[Any, ...]:
    """A judgment's verdict and input hashes, the columns a review's context reads."""
    j = _T_JUDG.c
    return (j.verdict, j.trace_hash, j.case_hash, j.rule_set_hash, j.tier, j.engine_version)
