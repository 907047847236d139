"""Two evaluations joined on (case, repetition) in the database: the counts a comparison is
computed from (``EvaluationReads`` inherits :class:`PairingReads`).

Why: the judge's comparison of two 50,000-trace evaluations read all 100,000 rows into Python
(5 s at 100k on the first open of Compare after a write; bench/README.md "Issue 39"). Here
the join and its grouping run in SQL: per (verdict A, verdict B, whether each key field is
equal) a count, each side's verdicts per dimension, the keys on one side only, and the
discordant pairs' rows (the flips) alone. Nothing here decides what a flip's cause is or
whether two evaluations are comparable: :func:`rejudge.judge.compare_pairing` does, from these
counts, as it does from rows in memory.

A field compares as SQL's ``=`` does: true, false, or null when either side lacks it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from rejudge.store._errors import InvalidInputError
from rejudge.store._nul import unmark
from rejudge.store._tables import _T_EJ, _T_JUDG
from rejudge.store._unit_of_work import Repository
from sqlalchemy import Text, and_, case, cast, func, or_, select

__all__ = ["PairGroup", "PairCounts", "PairedJudgment", "DiscordantPair", "PAIRING_FIELDS"]

#: the link row's columns a flip shows of each side (beside its verdict and taxonomy)
_LINK_SHOWN = ("dimension", "category", "partial_score")

#: the judgment columns a pairing may compare
PAIRING_FIELDS = (
    "trace_hash",
    "case_hash",
    "rule_set_hash",
    "tier",
    "registry_hash",
    "engine_version",
)


@dataclass(frozen=True, slots=True)
class PairGroup:
    """``count`` pairs with these verdicts and these fields equal (True), different (False) or
    unknown on a side (None), one flag per field asked for."""

    # a dataclass, not a NamedTuple: a field named ``count`` would shadow tuple.count

    verdict_a: str
    verdict_b: str
    same: tuple[bool | None, ...]
    count: int


class PairCounts(NamedTuple):
    """Two evaluations' pairing as counts (see the module)."""

    fields: tuple[str, ...]
    groups: list[PairGroup]
    #: some pair has a trace hash on both sides
    both_hashed: bool
    #: cases with a pair whose case hashes differ
    changed_cases: int
    only_a: list[tuple[str, int]]
    only_b: list[tuple[str, int]]
    #: each side's verdict counts per dimension (dimension -> verdict -> count)
    side_a: dict[str | None, dict[str, int]]
    side_b: dict[str | None, dict[str, int]]
    #: some (case, repetition) is linked twice in one evaluation: the join is not one to one
    duplicated: bool
    #: the discordant pairs, in (case, repetition) order, when asked for (``with_flips``): read
    #: by the grouped read itself, each its own group (None when not asked for)
    discordant: list[DiscordantPair] | None = None


class PairedJudgment(NamedTuple):
    """One side of a discordant pair: what a flip shows of it."""

    verdict: str
    taxonomy: list[str]
    dimension: str | None
    category: str | None
    partial_score: float | None
    #: the fields asked for, in their order
    values: tuple[str | None, ...]


class DiscordantPair(NamedTuple):
    case: str
    repetition: int
    a: PairedJudgment
    b: PairedJudgment


def _flag(value: Any) -> bool | None:
    return None if value is None else bool(value)


def _per_key(a: int, b: int, columns: Sequence[tuple[str, Any]]) -> Any:
    """One row per (case, repetition) of either evaluation: how many rows each side links, and
    each side's value of ``columns`` (label, link-row column). A pivot, not a self-join: SQLite
    would join the two sides by a nested loop over the (evaluation, verdict) index (quadratic: more
    than 10 minutes at 50,000 rows a side), where this is one scan and one sort."""
    e = _T_EJ

    def of(side: int, column: Any) -> Any:
        return func.max(case((e.c.evaluation_id == side, column)))

    picked = []
    for label, column in columns:
        picked += [of(a, column).label(f"{label}_a"), of(b, column).label(f"{label}_b")]
    return (
        select(
            e.c.case_key,
            e.c.repetition,
            func.count(case((e.c.evaluation_id == a, 1))).label("n_a"),
            func.count(case((e.c.evaluation_id == b, 1))).label("n_b"),
            *picked,
        )
        .select_from(e)
        .where(e.c.evaluation_id.in_([a, b]))
        .group_by(e.c.case_key, e.c.repetition)
        .subquery("per_key")
    )


class PairingReads(Repository):
    """Two evaluations paired in SQL."""

    def pair_counts(
        self, a: int, b: int, fields: Sequence[str], *, with_flips: bool = False
    ) -> PairCounts:
        """Evaluations ``a`` and ``b`` paired on (case, repetition), grouped (see the module);
        ``with_flips``: the discordant pairs too (:attr:`PairCounts.discordant`, as
        :meth:`discordant_pairs` reads them), from the same read.

        Why one read: the grouping already walks every key of both sides and the flips are its
        discordant subset; read apart, the pivot ran twice (at 100k, 4,681 flips of 50,000
        pairs: 0.36 s for the counts, 0.27 s for the flips again)."""
        unknown = [f for f in fields if f not in PAIRING_FIELDS]
        if unknown:
            raise InvalidInputError(f"a pairing compares {PAIRING_FIELDS}, not {unknown}")
        # the pivot carries each side's judgment id, and the fields are read by joining the
        # judgments after it (one primary-key lookup per side): carried through the pivot's
        # sort, twelve hash texts a key made the grouped read 0.65 s at 100k, this 0.32 s
        e = _T_EJ
        carried = [("verdict", e.c.verdict), ("judgment", e.c.judgment_id)]
        if with_flips:
            carried.append(("link", e.c.id))
        k = _per_key(a, b, carried)
        ja, jb = _T_JUDG.alias("judgment_a"), _T_JUDG.alias("judgment_b")
        joined = k.outerjoin(ja, ja.c.id == k.c.judgment_a).outerjoin(jb, jb.c.id == k.c.judgment_b)
        paired = and_(k.c.n_a == 1, k.c.n_b == 1)
        flip_shape: list[Any] = []
        flip_key: list[Any] = []
        if with_flips:
            # a discordant pair is its own group, keyed by its two link rows and judgments,
            # joined for the discordant pairs alone (a null key finds none) and shown as they
            # are (functions of the group's keys): carried through the pivot's sort or each
            # taken as an aggregate, what a flip shows made the read 0.86 / 0.55 s at 100k
            discordant = and_(paired, k.c.verdict_a != k.c.verdict_b)
            la, lb = e.alias("link_a"), e.alias("link_b")
            fa, fb = _T_JUDG.alias("flipped_a"), _T_JUDG.alias("flipped_b")
            joined = joined.outerjoin(la, la.c.id == case((discordant, k.c.link_a)))
            joined = joined.outerjoin(lb, lb.c.id == case((discordant, k.c.link_b)))
            joined = joined.outerjoin(fa, fa.c.id == la.c.judgment_id)
            joined = joined.outerjoin(fb, fb.c.id == lb.c.judgment_id)
            flip_key = [la.c.id, lb.c.id, fa.c.id, fb.c.id]
            flip_shape = [la.c.case_key, la.c.repetition]
            for link, j in ((la, fa), (lb, fb)):
                flip_shape += [cast(j.c.taxonomy, Text), *(link.c[c] for c in _LINK_SHOWN)]
                flip_shape += [j.c[f] for f in fields]
        flags = [(ja.c[f] == jb.c[f]).label(f"same_{f}") for f in fields]
        hashed = and_(ja.c.trace_hash.is_not(None), jb.c.trace_hash.is_not(None))
        case_differs = ja.c.case_hash != jb.c.case_hash
        shape = [
            k.c.n_a,
            k.c.n_b,
            k.c.verdict_a,
            k.c.verdict_b,
            hashed.label("hashed"),
            case_differs.label("case_differs"),
            *flags,
        ]
        grouped = (
            select(*shape, *flip_key, *flip_shape, func.count())
            .select_from(joined)
            .group_by(*shape, *flip_key)
        )
        groups: dict[tuple[Any, ...], int] = {}
        both_hashed = duplicated = any_a = any_b = any_changed = False
        flips: list[DiscordantPair] = []
        end = len(shape)
        with self._connect() as c:
            for row in c.execute(grouped):
                n_a, n_b, va, vb, both, differs = row[:6]
                same = tuple(_flag(v) for v in row[6:end])
                if with_flips and row[end] is not None:
                    flips.append(_discordant(va, vb, row[end + 4 : -1], len(fields)))
                if n_a > 1 or n_b > 1:
                    duplicated = True
                elif n_a == 1 and n_b == 1:
                    key = (va, vb, same)
                    groups[key] = groups.get(key, 0) + int(row[-1])
                    both_hashed = both_hashed or bool(both)
                    any_changed = any_changed or _flag(differs) is True
                else:
                    any_a, any_b = any_a or n_a == 1, any_b or n_b == 1
            changed_cases = 0
            if any_changed:
                changed = (
                    select(func.count(k.c.case_key.distinct()))
                    .select_from(joined)
                    .where(paired, case_differs)
                )
                changed_cases = int(c.execute(changed).scalar_one())
            keys = select(k.c.case_key, k.c.repetition)
            only_a = _keys(c, keys.where(k.c.n_a == 1, k.c.n_b == 0)) if any_a else []
            only_b = _keys(c, keys.where(k.c.n_a == 0, k.c.n_b == 1)) if any_b else []
            side_a, side_b = self._side(c, a), self._side(c, b)
        return PairCounts(
            fields=tuple(fields),
            groups=[PairGroup(va, vb, same, n) for (va, vb, same), n in groups.items()],
            both_hashed=both_hashed,
            changed_cases=changed_cases,
            only_a=only_a,
            only_b=only_b,
            side_a=side_a,
            side_b=side_b,
            duplicated=duplicated,
            discordant=sorted(flips, key=lambda p: (p.case, p.repetition)) if with_flips else None,
        )

    @staticmethod
    def _side(c: Any, evaluation_id: int) -> dict[str | None, dict[str, int]]:
        query = (
            select(_T_EJ.c.dimension, _T_EJ.c.verdict, func.count())
            .where(_T_EJ.c.evaluation_id == evaluation_id)
            .group_by(_T_EJ.c.dimension, _T_EJ.c.verdict)
        )
        out: dict[str | None, dict[str, int]] = {}
        for dimension, verdict, n in c.execute(query):
            out.setdefault(dimension, {})[verdict] = int(n)
        return out

    def linked_twice(self, a: int, b: int) -> bool:
        """Whether some (case, repetition) is linked twice in ``a`` or in ``b`` (the pairing is
        then not one to one: :attr:`PairCounts.duplicated`), without counting the pairing."""
        e = _T_EJ
        twice = (
            select(e.c.evaluation_id)
            .where(e.c.evaluation_id.in_([a, b]))
            .group_by(e.c.evaluation_id, e.c.case_key, e.c.repetition)
            .having(func.count() > 1)
            .limit(1)
        )
        with self._connect() as c:
            return c.execute(twice).first() is not None

    def _codepoints(self, column: Any) -> Any:
        """``column`` ordered as Python orders str (by code point): SQLite's default BINARY
        collation does so on UTF-8, PostgreSQL's database collation may not (en_US sorts "B"
        between "a" and "c"), its "C" collation does."""
        return column.collate("C") if self.backend == "postgresql" else column

    def discordant_pairs(
        self,
        a: int,
        b: int,
        fields: Sequence[str],
        *,
        start: int = 0,
        limit: int | None = None,
    ) -> list[DiscordantPair] | None:
        """The pairs of ``a`` and ``b`` whose verdicts differ, in (case, repetition) order, each
        side with its taxonomy, dimension, category, partial score and ``fields``' values;
        ``start`` and ``limit`` take a page of them (all by default). None when some (case,
        repetition) is linked twice in ``a`` or ``b`` (:meth:`linked_twice`: the pairing is not
        one to one, the caller pairs the rows in memory).

        One statement: a pivot of the link rows' verdicts and ids (no judgment read) keeps the
        discordant keys, and a key linked twice ordered before them, so the first row says
        whether the pairing is one to one; the page is ordered and cut in SQL and only its rows
        are joined whole, by their link ids. At 100k (Compare's first page of run-a against
        run-b's 25,466 flips) the check read the keys once more (``linked_twice``, 0.11 s CPU)
        and the page's rows were found by their keys (a scan of both sides per 400 keys, 0.1 s);
        a page past the first checks apart (a key linked twice may lie before it)."""
        if start and self.linked_twice(a, b):
            return None
        e = _T_EJ
        k = _per_key(a, b, [("verdict", e.c.verdict), ("link", e.c.id)])
        twice = or_(k.c.n_a > 1, k.c.n_b > 1)
        discordant = and_(k.c.n_a == 1, k.c.n_b == 1, k.c.verdict_a != k.c.verdict_b)
        page = (
            select(k.c.case_key, k.c.repetition, twice.label("twice"), k.c.link_a, k.c.link_b)
            .where(or_(discordant, twice))
            .order_by(case((twice, 0), else_=1), self._codepoints(k.c.case_key), k.c.repetition)
            .offset(start or None)
            .limit(limit)
            .subquery("page")
        )
        la, lb = e.alias("link_a"), e.alias("link_b")
        ja, jb = _T_JUDG.alias("judgment_a"), _T_JUDG.alias("judgment_b")
        shown: list[Any] = []
        for link, j in ((la, ja), (lb, jb)):
            shown += [link.c.verdict, cast(j.c.taxonomy, Text)]
            shown += [*(link.c[c] for c in _LINK_SHOWN), *(j.c[f] for f in fields)]
        joined = (
            page.outerjoin(la, la.c.id == page.c.link_a)
            .outerjoin(lb, lb.c.id == page.c.link_b)
            .outerjoin(ja, ja.c.id == la.c.judgment_id)
            .outerjoin(jb, jb.c.id == lb.c.judgment_id)
        )
        query = select(page.c.case_key, page.c.repetition, page.c.twice, *shown).select_from(joined)
        width = len(shown) // 2
        with self._connect() as c:
            rows = c.execute(query).all()
        if rows and any(bool(row[2]) for row in rows):
            return None
        pairs = [
            DiscordantPair(
                str(row[0]),
                int(row[1]),
                _judgment(row[3 : 3 + width]),
                _judgment(row[3 + width :]),
            )
            for row in rows
        ]
        # the join gives the page back in no order: sorted as Python orders str, the order it
        # was cut in (see _codepoints)
        return sorted(pairs, key=lambda p: (p.case, p.repetition))


def _keys(c: Any, query: Any) -> list[tuple[str, int]]:
    return sorted((str(key), int(rep)) for key, rep in c.execute(query))


def _discordant(va: str, vb: str, shown: Sequence[Any], fields: int) -> DiscordantPair:
    """A discordant pair from its group's columns: the key, then per side the taxonomy, the
    link row's :data:`_LINK_SHOWN` and the ``fields``' values."""
    width = 1 + len(_LINK_SHOWN) + fields
    side_a, side_b = shown[2 : 2 + width], shown[2 + width :]
    return DiscordantPair(
        str(shown[0]), int(shown[1]), _judgment([va, *side_a]), _judgment([vb, *side_b])
    )


@functools.lru_cache(maxsize=4096)
def _parsed_codes(text: str) -> tuple[str, ...]:
    # few distinct code lists among many flips (at 100k, 9,362 sides parsed one by one)
    return tuple(unmark(json.loads(text)) or ())


def _judgment(values: Sequence[Any]) -> PairedJudgment:
    taxonomy = values[1]
    if isinstance(taxonomy, str):  # read as text; a list, unless PostgreSQL stored it marked
        taxonomy = _parsed_codes(taxonomy)
    return PairedJudgment(
        verdict=values[0],
        taxonomy=list(taxonomy or []),
        dimension=values[2],
        category=values[3],
        partial_score=values[4],
        values=tuple(values[5:]),
    )
