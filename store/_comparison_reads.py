"""Read model of two evaluations side by side: verdict pairs, coverage and flips (the methods of
``ComparisonReadsMixin``, which :class:`rejudge.store.Store` inherits).

Two evaluations are joined case by case on (case id, repetition), the pairing that
``rejudge compare`` uses. Why a case flipped is the first judgment input that differs, in an
order the caller passes (the model's ``FLIP_CAUSES``): the store knows the columns, the model
decides which change explains a flip. A flip read here is the model's :class:`Flip`, the one
``rejudge compare`` lists, its causes named by the same rule (:func:`rejudge.model.flip_causes`
over the judgments' input columns); the SQL ``CASE`` only filters and counts by cause, with the
same NULL-means-unknown semantics.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from rejudge.store._errors import InvalidInputError
from rejudge.store._read_common import _T_EJ, _T_JUDG, count_if
from sqlalchemy import and_, case, distinct, func, literal, or_, select
from sqlalchemy.sql import Select

from rejudge.model._comparison import UNKNOWN_CAUSE, Flip

if TYPE_CHECKING:
    from sqlalchemy import Engine

__all__ = ["FLIP_DIRECTIONS", "PairCounts", "Coverage"]

FLIP_DIRECTIONS: tuple[str, ...] = ("PASS→FAIL", "FAIL→PASS", "other")

# (verdict in A, verdict in B) -> rows; None marks a (case, repetition) only one side has
PairCounts = dict[tuple[str | None, str | None], int]
# (judgment column, label) in the order the first differing column names the cause
CauseOrder = Sequence[tuple[str, str]]


class Coverage(NamedTuple):
    """Rows in A, in B, and paired; cases whose content or registry differs between them."""

    a: int
    b: int
    paired: int
    changed_cases: int
    registry_changed_rows: int


def _pivot(a: int, b: int) -> Any:
    """One row per (case, repetition) of A or B with both sides' columns side by side.

    A single scan of the two evaluations' link rows grouped by (case, repetition): no
    self-join, so pairing stays O(n log n) on SQLite, which would otherwise probe one side
    by evaluation id only and go quadratic.
    """

    def side(ev: int, column: Any) -> Any:
        return func.max(case((_T_EJ.c.evaluation_id == ev, column), else_=None))

    return (
        select(
            _T_EJ.c.case_key,
            _T_EJ.c.repetition,
            side(a, _T_EJ.c.verdict).label("va"),
            side(b, _T_EJ.c.verdict).label("vb"),
            side(a, _T_EJ.c.judgment_id).label("ja"),
            side(b, _T_EJ.c.judgment_id).label("jb"),
            side(a, _T_EJ.c.trace_id).label("ta"),
            side(b, _T_EJ.c.trace_id).label("tb"),
            side(a, _T_EJ.c.partial_score).label("pa"),
            side(b, _T_EJ.c.partial_score).label("pb"),
            func.max(_T_EJ.c.dimension).label("dimension"),
            func.max(_T_EJ.c.category).label("category"),
        )
        .where(_T_EJ.c.evaluation_id.in_([a, b]))
        .group_by(_T_EJ.c.case_key, _T_EJ.c.repetition)
        .subquery("pv")
    )


def _flip_query(
    a: int,
    b: int,
    cause_order: CauseOrder,
    *,
    direction: str | None = None,
    case_contains: str | None = None,
    dimensions: Sequence[str] | None = None,
    causes: Sequence[str] | None = None,
) -> tuple[Select[Any], Any]:
    unknown = [field for field, _label in cause_order if field not in _T_JUDG.c]
    if unknown:
        raise InvalidInputError(f"flip causes name columns judgments do not have: {unknown}")
    if direction is not None and direction not in FLIP_DIRECTIONS:
        raise InvalidInputError(f"flip direction is one of {', '.join(FLIP_DIRECTIONS)}")
    pv = _pivot(a, b)
    ja = _T_JUDG.alias("ja")
    jb = _T_JUDG.alias("jb")
    whens = [(ja.c[field] != jb.c[field], literal(label)) for field, label in cause_order]
    # CASE needs at least one WHEN: with no causes named, every flip's cause is unknown
    cause = (case(*whens, else_=literal(UNKNOWN_CAUSE)) if whens else literal(UNKNOWN_CAUSE)).label(
        "cause"
    )
    # a flip is any verdict change on the same (case, repetition), as in judge.compare
    flipped = and_(pv.c.va.is_not(None), pv.c.vb.is_not(None), pv.c.va != pv.c.vb)
    pass_fail = and_(pv.c.va == "PASS", pv.c.vb == "FAIL")
    fail_pass = and_(pv.c.va == "FAIL", pv.c.vb == "PASS")
    query = (
        select(
            pv.c.case_key.label("case"),
            pv.c.repetition,
            pv.c.va.label("from_verdict"),
            pv.c.vb.label("to_verdict"),
            cause,
            pv.c.dimension,
            pv.c.category,
            ja.c.taxonomy.label("taxonomy_a"),
            jb.c.taxonomy.label("taxonomy_b"),
            pv.c.pa.label("partial_a"),
            pv.c.pb.label("partial_b"),
            pv.c.ta.label("trace_a"),
            pv.c.tb.label("trace_b"),
            # the inputs the cause rule reads, both sides (rejudge.model.flip_causes)
            *(ja.c[field].label(f"a_{field}") for field, _label in cause_order),
            *(jb.c[field].label(f"b_{field}") for field, _label in cause_order),
        )
        .select_from(pv.join(ja, ja.c.id == pv.c.ja).join(jb, jb.c.id == pv.c.jb))
        .where(flipped)
    )
    if direction == "PASS→FAIL":
        query = query.where(pass_fail)
    elif direction == "FAIL→PASS":
        query = query.where(fail_pass)
    elif direction == "other":
        query = query.where(~or_(pass_fail, fail_pass))
    if case_contains:
        query = query.where(pv.c.case_key.contains(case_contains, autoescape=True))
    if dimensions:
        query = query.where(pv.c.dimension.in_(list(dimensions)))
    if causes:
        query = query.where(cause.in_(list(causes)))
    return query, pv


def _flip(row: Any, cause_order: CauseOrder) -> Flip:
    """A flip query's row as the model's Flip, its causes by the model's rule."""
    side_a = {field: row[f"a_{field}"] for field, _label in cause_order}
    side_b = {field: row[f"b_{field}"] for field, _label in cause_order}
    side_a |= {"verdict": row["from_verdict"], "taxonomy": row["taxonomy_a"]}
    side_b |= {"verdict": row["to_verdict"], "taxonomy": row["taxonomy_b"]}
    return Flip.between(
        str(row["case"]),
        int(row["repetition"]),
        side_a,
        side_b,
        cause_order,
        dimension=row["dimension"],
        category=row["category"],
        partial_from=row["partial_a"],
        partial_to=row["partial_b"],
        trace_from=row["trace_a"],
        trace_to=row["trace_b"],
    )


class ComparisonReadsMixin:
    """``Store``'s reads of two evaluations side by side: verdict pairs, coverage, flips."""

    if TYPE_CHECKING:
        # provided by ``Store``
        engine: Engine

        # the atomic()-joining transaction and connection (Store._begin / _connect)
        def _begin(self) -> Any: ...

        def _connect(self) -> Any: ...

    def pair_counts(self, a: int, b: int) -> PairCounts:
        """(verdict in A, verdict in B) -> number of (case, repetition) rows. One grouped scan."""
        pv = _pivot(a, b)
        query = select(pv.c.va, pv.c.vb, func.count().label("n")).group_by(pv.c.va, pv.c.vb)
        with self._connect() as c:
            return {(r.va, r.vb): int(r.n) for r in c.execute(query)}

    def coverage(self, a: int, b: int, pairs: PairCounts | None = None) -> Coverage:
        """How far A and B line up; pass ``pairs`` from :meth:`pair_counts` to save its scan."""
        if pairs is None:
            pairs = self.pair_counts(a, b)
        pv = _pivot(a, b)
        ja = _T_JUDG.alias("ja")
        jb = _T_JUDG.alias("jb")
        joined = pv.join(ja, ja.c.id == pv.c.ja).join(jb, jb.c.id == pv.c.jb)
        query = select(
            func.count(
                distinct(case((ja.c.case_hash != jb.c.case_hash, pv.c.case_key), else_=None))
            ).label("cases"),
            count_if(ja.c.registry_hash != jb.c.registry_hash).label("registry"),
        ).select_from(joined)
        with self._connect() as c:
            changed = c.execute(query).one()
        return Coverage(
            a=sum(n for (va, _vb), n in pairs.items() if va is not None),
            b=sum(n for (_va, vb), n in pairs.items() if vb is not None),
            paired=sum(n for (va, vb), n in pairs.items() if va is not None and vb is not None),
            changed_cases=int(changed.cases),
            registry_changed_rows=int(changed.registry),
        )

    def flips(
        self,
        a: int,
        b: int,
        *,
        cause_order: CauseOrder,
        direction: str | None = None,
        case_contains: str | None = None,
        dimensions: Sequence[str] | None = None,
        causes: Sequence[str] | None = None,
        limit: int | None = 1000,
    ) -> list[Flip]:
        """Verdict changes between A and B (PASS→FAIL, FAIL→PASS and any other change, e.g. to
        SKIP or AGENT_ERROR), each with the first input that differs as its cause."""
        query, pv = _flip_query(
            a,
            b,
            cause_order,
            direction=direction,
            case_contains=case_contains,
            dimensions=dimensions,
            causes=causes,
        )
        query = query.order_by(pv.c.case_key, pv.c.repetition)
        if limit is not None:
            query = query.limit(limit)
        with self._connect() as c:
            rows = c.execute(query).mappings().all()
        return [_flip(r, cause_order) for r in rows]

    def flip_count(
        self, a: int, b: int, *, cause_order: CauseOrder, **filters: Any
    ) -> dict[str, int]:
        """Number of flips per cause (``total`` included), with the same filters as :meth:`flips`."""
        query, _pv = _flip_query(a, b, cause_order, **filters)
        sub = query.subquery()
        grouped = select(sub.c.cause, func.count().label("n")).group_by(sub.c.cause)
        with self._connect() as c:
            out = {str(r.cause): int(r.n) for r in c.execute(grouped)}
        out["total"] = sum(out.values())
        return out
