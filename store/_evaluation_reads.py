"""Read model of one evaluation: verdict counts per dimension or category, taxonomy counts, and
the per-case repetition counts pass^k is computed from: ``EvaluationReads``,
which ``store.evaluations`` (:class:`rejudge.store._evaluations.EvaluationRepository`) inherits.

Everything is grouped in the database over the evaluation's link rows (which carry the verdict,
partial score, case key, dimension and category), so no judgment body is parsed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from rejudge.store._batching import BATCH
from rejudge.store._json_text import _decode_small, _decode_stored
from rejudge.store._nul import MARK, unmark
from rejudge.store._pairing_reads import PairingReads
from rejudge.store._read_common import accuracy, count_if
from rejudge.store._tables import _T_EJ, _T_JUDG, _T_REV
from rejudge.store._unit_of_work import Repository
from sqlalchemy import Text, and_, case, cast, distinct, func, select, true

from rejudge.model import VERDICTS, ReportRow

__all__ = ["GroupCounts", "PairGroups", "PassCell", "CasePasses", "ReportCounts"]

GROUPINGS = ("dimension", "category")


class GroupCounts(NamedTuple):
    """One dimension's or category's verdict counts and accuracy (no average partial score,
    which a sum of groups would not give back to the last bit)."""

    PASS: int
    FAIL: int
    SKIP: int
    AGENT_ERROR: int
    scored: int
    accuracy: float | None


class PairGroups(NamedTuple):
    """Two evaluations' :class:`GroupCounts` per dimension and per category, each keyed by the
    column's value (``str``: a NULL is ``"None"``) in the database's ORDER BY of that column."""

    dimension_a: dict[str, GroupCounts]
    category_a: dict[str, GroupCounts]
    dimension_b: dict[str, GroupCounts]
    category_b: dict[str, GroupCounts]


class PassCell(NamedTuple):
    """``cases`` cases had ``n`` scored repetitions of which ``c`` passed."""

    n: int
    c: int
    cases: int


class CasePasses(NamedTuple):
    case: str
    scored: int
    passed: int
    repetitions: int
    # the first repetition that passed and the first that failed (None: none did), so a page
    # can open an inconsistent case's two outcomes side by side
    first_pass: int | None = None
    first_fail: int | None = None


#: one judged trace as a report counts it, in the order of ``ReportBuilder.add_values``'s
#: arguments: case, repetition, verdict, taxonomy, partial score, dimension, category, suite
#: (None: the store records none per link), implicated tools, anomaly flags
ReportValues = tuple[
    str, int, str, list[str] | None, float | None, str | None, str | None, None, Any, Any
]


class ReportCounts(NamedTuple):
    """An evaluation's rows counted as its report counts them, grouped in the database: rows
    per (verdict, taxonomy, dimension, category, implicated tools); PASS/FAIL rows per partial
    score; per case (in case order) its scored and passed rows; the rows with anomaly flags."""

    groups: list[tuple[str, list[str] | None, str | None, str | None, list[str] | None, int]]
    scores: list[tuple[float, int]]
    outcomes: list[tuple[str, int, int]]
    anomalies: list[tuple[str, int, list[str]]]

    def choices(self) -> tuple[list[str], list[str]]:
        """The verdicts and the taxonomy codes the evaluation's rows name (sorted): what a
        report's filters offer, from the groups (every row is in one), not a read of its own."""
        verdicts = {verdict for verdict, *_rest in self.groups if verdict}
        codes = {code for _verdict, taxonomy, *_rest in self.groups for code in taxonomy or ()}
        return sorted(verdicts), sorted(codes)


def _taxonomy_codes(backend: str) -> Any:
    """The elements of ``judgments.taxonomy`` as a table joined beside each judgment row: a
    lateral set-returning function on PostgreSQL (JSONB), ``json_each`` on SQLite."""
    if backend == "postgresql":
        # a taxonomy stored marked (a code holding a NUL: rejudge.store._nul) is an object
        # whose one key holds the escaped codes: those are unnested (taxonomy_counts decodes them)
        listed = func.coalesce(
            func.jsonb_extract_path(_T_JUDG.c.taxonomy, MARK), _T_JUDG.c.taxonomy
        )
        return func.jsonb_array_elements_text(listed).table_valued("value").lateral("t")
    return func.json_each(_T_JUDG.c.taxonomy).table_valued("value").alias("t")


def _per_case(evaluation_id: int) -> Any:
    return (
        select(
            _T_EJ.c.case_key,
            count_if(_T_EJ.c.verdict.in_(["PASS", "FAIL"])).label("n"),
            count_if(_T_EJ.c.verdict == "PASS").label("c"),
            func.count().label("runs"),
            func.min(case((_T_EJ.c.verdict == "PASS", _T_EJ.c.repetition))).label("first_pass"),
            func.min(case((_T_EJ.c.verdict == "FAIL", _T_EJ.c.repetition))).label("first_fail"),
        )
        .where(_T_EJ.c.evaluation_id == evaluation_id)
        .group_by(_T_EJ.c.case_key)
    )


class EvaluationReads(PairingReads, Repository):
    """The reads of one evaluation: verdicts per group, taxonomy, pass^k counts (and of two
    evaluations paired, :class:`PairingReads`)."""

    def report_values(self, evaluation_id: int) -> Iterator[ReportValues]:
        """Stream what an evaluation's report is built from (:data:`ReportValues`), in case
        order as :meth:`~rejudge.store._judgments.JudgmentRepository.iter_evaluation_rows`
        streams it (the order pass^k's sums run in).

        Why not that stream: it reads and builds every judgment's hashes, tier and engine
        version too, none of which a report counts; at 50,000 rows that was half of building
        the report (``rejudge report``, the dashboard's Report page)."""
        query = (
            select(
                _T_EJ.c.case_key,
                _T_EJ.c.repetition,
                _T_EJ.c.verdict,
                cast(_T_JUDG.c.taxonomy, Text),
                _T_EJ.c.partial_score,
                _T_EJ.c.dimension,
                _T_EJ.c.category,
                cast(_T_JUDG.c.implicated_tools, Text),
                cast(_T_JUDG.c.anomalies, Text),
            )
            .join(_T_JUDG, _T_JUDG.c.id == _T_EJ.c.judgment_id)
            .where(_T_EJ.c.evaluation_id == evaluation_id)
            .order_by(_T_EJ.c.case_key, _T_EJ.c.repetition)
        )
        cache: dict[str, list[Any]] = {}
        # PostgreSQL's lists may be marked (a NUL in them: rejudge.store._nul)
        decode = _decode_stored if self.backend == "postgresql" else _decode_small
        with self._connect() as c:
            stream = {"stream_results": True, "yield_per": BATCH}
            for partition in c.execute(query, execution_options=stream).partitions():
                for case_key, rep, verdict, codes, score, dim, cat, tools, flags in partition:
                    yield (
                        case_key,
                        rep,
                        verdict,
                        decode(codes, cache),
                        score,
                        dim,
                        cat,
                        None,
                        decode(tools, cache),
                        decode(flags, cache),
                    )

    def report_counts(self, evaluation_id: int) -> ReportCounts:
        """:class:`ReportCounts`: what a report's summary is built from without a row per judged
        trace (at 50,000 rows, grouping in SQL is a fraction of streaming every row)."""
        ev = _T_EJ.c.evaluation_id == evaluation_id
        codes, tools = cast(_T_JUDG.c.taxonomy, Text), cast(_T_JUDG.c.implicated_tools, Text)
        linked = _T_EJ.join(_T_JUDG, _T_JUDG.c.id == _T_EJ.c.judgment_id)
        keys = (_T_EJ.c.verdict, codes, _T_EJ.c.dimension, _T_EJ.c.category, tools)
        grouped = select(*keys, func.count()).select_from(linked).where(ev).group_by(*keys)
        scored = _T_EJ.c.verdict.in_(["PASS", "FAIL"])
        scores = (
            select(_T_EJ.c.partial_score, func.count())
            .where(ev, scored, _T_EJ.c.partial_score.is_not(None))
            .group_by(_T_EJ.c.partial_score)
        )
        per_case = _per_case(evaluation_id).subquery()
        # in case order, as a stream of the rows in (case, repetition) order first meets them
        # (the order pass^k's float sums run in)
        outcomes = (
            select(per_case.c.case_key, per_case.c.n, per_case.c.c)
            .where(per_case.c.n > 0)
            .order_by(per_case.c.case_key)
        )
        flagged = (
            select(_T_EJ.c.case_key, _T_EJ.c.repetition, cast(_T_JUDG.c.anomalies, Text))
            .select_from(linked)
            # no flag is stored as an empty list, not NULL: only the flagged rows are read
            .where(ev, _T_JUDG.c.anomalies.is_not(None), cast(_T_JUDG.c.anomalies, Text) != "[]")
            .order_by(_T_EJ.c.case_key, _T_EJ.c.repetition)
        )
        cache: dict[str, list[Any]] = {}
        with self._connect() as c:
            groups = [
                (v, _decode_small(t, cache), d, k, _decode_small(u, cache), int(n))
                for v, t, d, k, u, n in c.execute(grouped)
            ]
            counted = [(float(score), int(n)) for score, n in c.execute(scores)]
            per = [(str(k), int(n), int(p)) for k, n, p in c.execute(outcomes)]
            anomalies = [
                (key, rep, found)
                for key, rep, text in c.execute(flagged)
                if (found := _decode_small(text, cache))
            ]
        return ReportCounts(groups, counted, per, anomalies)

    def verdict_rows(
        self, evaluation_id: int, verdict: str, limit: int | None = None
    ) -> list[ReportRow]:
        """The report's rows (:class:`~rejudge.model.ReportRow`) of one verdict, in the report's
        order, the first ``limit`` (None: all): (case, repetition) as Python orders them, which
        is the cases' code points, the byte order of their UTF-8 (SQLite's BINARY collation,
        PostgreSQL's "C"; not the database's default collation)."""
        collation = "C" if self.backend == "postgresql" else "BINARY"
        query = (
            select(
                _T_EJ.c.case_key,
                _T_EJ.c.repetition,
                cast(_T_JUDG.c.taxonomy, Text),
                _T_EJ.c.partial_score,
            )
            .join(_T_JUDG, _T_JUDG.c.id == _T_EJ.c.judgment_id)
            .where(_T_EJ.c.evaluation_id == evaluation_id, _T_EJ.c.verdict == verdict)
            .order_by(_T_EJ.c.case_key.collate(collation), _T_EJ.c.repetition)
            .limit(limit)
        )
        cache: dict[str, list[Any]] = {}
        with self._connect() as c:
            rows = [
                ReportRow(key, rep, verdict, _decode_small(codes, cache) or [], score)
                for key, rep, codes, score in c.execute(query)
            ]
        return sorted(rows, key=lambda r: (str(r.case), int(r.repetition or 0)))

    def verdict_counts(self, evaluation_id: int) -> dict[str, int]:
        query = (
            select(_T_EJ.c.verdict, func.count())
            .where(_T_EJ.c.evaluation_id == evaluation_id)
            .group_by(_T_EJ.c.verdict)
        )
        counts = dict.fromkeys(VERDICTS, 0)
        with self._connect() as c:
            for verdict, n in c.execute(query):
                counts[verdict] = counts.get(verdict, 0) + int(n)
        return counts

    def judgment_totals(self, evaluation_id: int) -> tuple[int, dict[str, int]]:
        """(distinct judgments, rows per verdict) of an evaluation: what review's figures need
        of the rows no one reviewed, counted here instead of read."""
        distinct = select(func.count(func.distinct(_T_EJ.c.judgment_id))).where(
            _T_EJ.c.evaluation_id == evaluation_id
        )
        with self._connect() as c:
            judgments = int(c.execute(distinct).scalar_one())
        return judgments, self.verdict_counts(evaluation_id)

    def pair_group_counts(self, a: int, b: int) -> PairGroups:
        """:class:`PairGroups` of ``a`` and ``b`` from one grouped read of both evaluations' link
        rows (per evaluation, dimension, category and verdict a count): what Compare's per
        dimension and category bars show. Read per side and grouping, the same rows were walked
        four times (at 100k, 50,000 a side: 0.055 s of CPU each).

        Each key's place is its rank in the database's ORDER BY of that column (a window over
        the groups), so the keys come in the database's order under any collation."""
        e = _T_EJ
        query = (
            select(
                e.c.evaluation_id,
                e.c.dimension,
                e.c.category,
                e.c.verdict,
                func.count(),
                func.dense_rank().over(order_by=e.c.dimension),
                func.dense_rank().over(order_by=e.c.category),
            )
            .where(e.c.evaluation_id.in_([a, b]))
            .group_by(e.c.evaluation_id, e.c.dimension, e.c.category, e.c.verdict)
        )
        # (evaluation, grouping) -> key -> verdict -> count; grouping -> key -> rank
        counted: dict[tuple[int, str], dict[str, dict[str, int]]] = {}
        ranks: dict[str, dict[str, int]] = {by: {} for by in GROUPINGS}
        with self._connect() as c:
            for ev, dimension, category, verdict, n, dim_rank, cat_rank in c.execute(query):
                for by, key, rank in (
                    ("dimension", str(dimension), dim_rank),
                    ("category", str(category), cat_rank),
                ):
                    group = counted.setdefault((int(ev), by), {}).setdefault(key, {})
                    group[verdict] = group.get(verdict, 0) + int(n)
                    ranks[by][key] = int(rank)

        def side(ev: int, by: str) -> dict[str, GroupCounts]:
            groups = counted.get((ev, by), {})
            out: dict[str, GroupCounts] = {}
            for key in sorted(groups, key=ranks[by].__getitem__):
                counts = {v: groups[key].get(v, 0) for v in VERDICTS}
                out[key] = GroupCounts(
                    **counts,
                    scored=counts["PASS"] + counts["FAIL"],
                    accuracy=accuracy(counts["PASS"], counts["FAIL"]),
                )
            return out

        return PairGroups(
            side(a, "dimension"), side(a, "category"), side(b, "dimension"), side(b, "category")
        )

    def taxonomy_counts(self, evaluation_id: int) -> dict[str, int]:
        """How many of the evaluation's FAIL judgments name each taxonomy code (as the judge's
        report counts them: once per judgment), unnested in SQL; most frequent first."""
        codes = _taxonomy_codes(self.backend)
        query = (
            select(codes.c.value.label("code"), func.count(distinct(_T_EJ.c.id)).label("n"))
            .select_from(
                _T_EJ.join(_T_JUDG, _T_JUDG.c.id == _T_EJ.c.judgment_id).join(codes, true())
            )
            .where(_T_EJ.c.evaluation_id == evaluation_id, _T_EJ.c.verdict == "FAIL")
            .group_by(codes.c.value)
        )
        if self.backend == "postgresql":
            # a marked taxonomy's codes counted apart, then decoded (a judgment is in one part)
            marked = func.jsonb_typeof(_T_JUDG.c.taxonomy) == "object"
            query = query.add_columns(marked.label("marked")).group_by(marked)
        counts: dict[str, int] = {}
        with self._connect() as c:
            for r in c.execute(query):
                code = str(r.code)
                if len(r) > 2 and r.marked:
                    code = unmark({MARK: code})
                counts[code] = counts.get(code, 0) + int(r.n)
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    def pass_histogram(self, evaluation_id: int) -> list[PassCell]:
        """How many cases had ``n`` scored repetitions of which ``c`` passed, one cell per (n, c)."""
        sub = _per_case(evaluation_id).subquery()
        query = (
            select(sub.c.n, sub.c.c, func.count().label("cases"))
            .group_by(sub.c.n, sub.c.c)
            .order_by(sub.c.n, sub.c.c)
        )
        with self._connect() as c:
            return [PassCell(n=int(r.n), c=int(r.c), cases=int(r.cases)) for r in c.execute(query)]

    def review_stamp(self, evaluation_id: int) -> tuple[int, int, int]:
        """(reviews, newest review id, resolved reviews) of the judgments an evaluation links:
        any label or resolution changes it, so a reader can cache what it derives from the
        reviews under it."""
        rev = _T_REV
        linked = select(_T_EJ.c.judgment_id).where(_T_EJ.c.evaluation_id == evaluation_id)
        query = select(
            func.count(),
            func.coalesce(func.max(rev.c.id), 0),
            func.count(rev.c.resolved_at),
        ).where(rev.c.judgment_id.in_(linked))
        with self._connect() as c:
            n, newest, resolved = c.execute(query).one()
        return int(n), int(newest), int(resolved)

    def per_case_passes(
        self, evaluation_id: int, *, only_inconsistent: bool = False, limit: int | None = 500
    ) -> list[CasePasses]:
        """Per case: scored repetitions, passes; inconsistent cases (some but not all pass)
        first; the first ``limit`` (None: every case)."""
        sub = _per_case(evaluation_id).subquery()
        mixed = and_(sub.c.c > 0, sub.c.c < sub.c.n)
        query = select(
            sub.c.case_key, sub.c.n, sub.c.c, sub.c.runs, sub.c.first_pass, sub.c.first_fail
        ).order_by(case((mixed, 0), else_=1), sub.c.case_key)
        if only_inconsistent:
            query = query.where(mixed)
        with self._connect() as c:
            return [
                CasePasses(
                    case=r.case_key,
                    scored=int(r.n),
                    passed=int(r.c),
                    repetitions=int(r.runs),
                    first_pass=None if r.first_pass is None else int(r.first_pass),
                    first_fail=None if r.first_fail is None else int(r.first_fail),
                )
                for r in c.execute(query.limit(limit))
            ]
