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
from sqlalchemy import Text, and_, cast, func, literal, select, union_all

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
    #: the discordant pairs, in (case, repetition) order, when asked for (``with_flips``; None
    #: when not asked for)
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


def _pairs(a: int, b: int, *, discordant: bool = False) -> tuple[Any, Any, Any]:
    """A's link rows (``link_a``, to be kept to ``a`` by the caller's WHERE) joined to B's of
    the same (case, repetition) (``link_b``; ``discordant``: of another verdict), on the pairing
    index (migration 0106): walked in A's order of the index, B's link of each key is one search
    that reads its verdict and judgment from the index. The pairs of a one-to-one pairing, each
    once (:meth:`PairingReads.linked_twice` says whether it is one)."""
    e = _T_EJ
    la, lb = e.alias("link_a"), e.alias("link_b")
    on = and_(
        lb.c.evaluation_id == b,
        lb.c.case_key == la.c.case_key,
        lb.c.repetition == la.c.repetition,
    )
    if discordant:
        on = and_(on, lb.c.verdict != la.c.verdict)
    return la, lb, la.join(lb, on)


def _unpaired(c: Any, a: int, b: int) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """The keys linked in ``a`` only and in ``b`` only, in one statement (each side's link rows
    with no link of the other side's at their key: one search each in the pairing index)."""
    e = _T_EJ

    def lonely(side: str, x: int, y: int) -> Any:
        mine, other = e.alias(f"lone_{side}"), e.alias(f"other_{side}")
        paired = (
            select(other.c.id)
            .where(
                other.c.evaluation_id == y,
                other.c.case_key == mine.c.case_key,
                other.c.repetition == mine.c.repetition,
            )
            .exists()
        )
        return select(literal(side).label("side"), mine.c.case_key, mine.c.repetition).where(
            mine.c.evaluation_id == x, ~paired
        )

    found: dict[str, list[tuple[str, int]]] = {"a": [], "b": []}
    for side, key, rep in c.execute(union_all(lonely("a", a, b), lonely("b", b, a))):
        found[side].append((str(key), int(rep)))
    return sorted(found["a"]), sorted(found["b"])


class PairingReads(Repository):
    """Two evaluations paired in SQL."""

    def pair_counts(
        self, a: int, b: int, fields: Sequence[str], *, with_flips: bool = False
    ) -> PairCounts:
        """Evaluations ``a`` and ``b`` paired on (case, repetition), grouped (see the module);
        ``with_flips``: the discordant pairs too (:attr:`PairCounts.discordant`, as
        :meth:`discordant_pairs` reads them), in the same call. When some key is linked twice
        in ``a`` or ``b`` (:meth:`linked_twice`) the pairing is not one to one and only
        :attr:`PairCounts.duplicated` is read (every count empty: the caller pairs the rows).

        Why a join on the key: A's link rows are walked in the order of the pairing index
        (migration 0106) and B's link of each is one search in it, verdict and judgment read
        from the index; the pivot that grouped both sides' rows by their key sorted 100,000 of
        them (at 100k, the grouped read 0.33 s of SQLite's CPU, this 0.18-0.21 s). Why the flips
        apart: carried through the grouping, what a flip shows made every pair's link row be
        read (0.43 s at 100k, 4,681 flips of 50,000 pairs); a second walk of the index for the
        discordant pairs alone reads theirs only (0.10 s)."""
        unknown = [f for f in fields if f not in PAIRING_FIELDS]
        if unknown:
            raise InvalidInputError(f"a pairing compares {PAIRING_FIELDS}, not {unknown}")
        if self.linked_twice(a, b):
            return PairCounts(
                fields=tuple(fields),
                groups=[],
                both_hashed=False,
                changed_cases=0,
                only_a=[],
                only_b=[],
                side_a={},
                side_b={},
                duplicated=True,
                discordant=[] if with_flips else None,
            )
        la, lb, pairs = _pairs(a, b)
        # the fields are read by joining each side's judgment (one primary-key lookup a side)
        ja, jb = _T_JUDG.alias("judgment_a"), _T_JUDG.alias("judgment_b")
        joined = pairs.outerjoin(ja, ja.c.id == la.c.judgment_id).outerjoin(
            jb, jb.c.id == lb.c.judgment_id
        )
        flags = [(ja.c[f] == jb.c[f]).label(f"same_{f}") for f in fields]
        hashed = and_(ja.c.trace_hash.is_not(None), jb.c.trace_hash.is_not(None))
        case_differs = ja.c.case_hash != jb.c.case_hash
        shape = [
            la.c.verdict,
            lb.c.verdict,
            hashed.label("hashed"),
            case_differs.label("case_differs"),
            *flags,
        ]
        # grouped outside the join (OFFSET 0 keeps the subquery whole, on SQLite and on
        # PostgreSQL): flattened, SQLite's GROUP BY sorted every pair with the judgment columns
        # its flags are computed from (at 100k, 0.14 s of SQLite's CPU; the flags alone, 0.09)
        each_pair = (
            select(*(column.label(f"c{i}") for i, column in enumerate(shape)))
            .select_from(joined)
            .where(la.c.evaluation_id == a)
            .offset(0)
            .subquery("each_pair")
        )
        grouped = select(*each_pair.c, func.count()).group_by(*each_pair.c)
        groups: dict[tuple[Any, ...], int] = {}
        both_hashed = any_changed = False
        flips: list[DiscordantPair] | None = [] if with_flips else None
        with self._connect() as c:
            for row in c.execute(grouped):
                va, vb, both, differs = row[:4]
                same = tuple(_flag(v) for v in row[4:-1])
                key = (va, vb, same)
                groups[key] = groups.get(key, 0) + int(row[-1])
                both_hashed = both_hashed or bool(both)
                any_changed = any_changed or _flag(differs) is True
            changed_cases = 0
            if any_changed:
                changed = (
                    select(func.count(la.c.case_key.distinct()))
                    .select_from(joined)
                    .where(la.c.evaluation_id == a, case_differs)
                )
                changed_cases = int(c.execute(changed).scalar_one())
            if with_flips and any(va != vb for va, vb, _ in groups):
                flips = [pair for pair, _twice in self._flips(c, a, b, fields)]
            side_a, side_b = self._side(c, a), self._side(c, b)
            paired = sum(groups.values())
            only_a: list[tuple[str, int]] = []
            only_b: list[tuple[str, int]] = []
            if _linked(side_a) > paired or _linked(side_b) > paired:
                only_a, only_b = _unpaired(c, a, b)
        return PairCounts(
            fields=tuple(fields),
            groups=[PairGroup(va, vb, same, n) for (va, vb, same), n in groups.items()],
            both_hashed=both_hashed,
            changed_cases=changed_cases,
            only_a=only_a,
            only_b=only_b,
            side_a=side_a,
            side_b=side_b,
            duplicated=False,
            discordant=flips,
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
        with self._connect() as c:
            return bool(c.execute(select(_twice(a, b))).scalar())

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

        One statement for a first page: A's links walked in the pairing index's order (which is
        the page's on SQLite), B's of each key searched in it, the page cut there and only its
        rows read whole, with whether some key is linked twice beside them (a page past the
        first checks apart: a key linked twice may lie before it). At 100k, the pivot of both
        sides' links this replaced sorted all 100,000 of them for a page of 1,000 flips."""
        if start and self.linked_twice(a, b):
            return None
        with self._connect() as c:
            found = self._flips(c, a, b, fields, start=start, limit=limit, twice=not start)
        if any(twice for _pair, twice in found) or (not found and self.linked_twice(a, b)):
            return None
        return [pair for pair, _twice in found]

    def _flips(
        self,
        c: Any,
        a: int,
        b: int,
        fields: Sequence[str],
        *,
        start: int = 0,
        limit: int | None = None,
        twice: bool = False,
    ) -> list[tuple[DiscordantPair, bool]]:
        """The discordant pairs (a page of them with ``start`` or ``limit``), in (case,
        repetition) order, each with whether some key is linked twice in ``a`` or ``b`` when
        ``twice`` (else False). The pairs are found on the pairing index; only theirs are read
        whole (their link rows by id, their judgments by id)."""
        la, lb, pairs = _pairs(a, b, discordant=True)
        page = (
            select(la.c.case_key, la.c.repetition, la.c.id.label("id_a"), lb.c.id.label("id_b"))
            .select_from(pairs)
            .where(la.c.evaluation_id == a)
        )
        if start or limit is not None:
            page = (
                page.order_by(self._codepoints(la.c.case_key), la.c.repetition)
                .offset(start or None)
                .limit(limit)
            )
        cut = page.subquery("page")
        sa, sb = _T_EJ.alias("shown_a"), _T_EJ.alias("shown_b")
        ja, jb = _T_JUDG.alias("judgment_a"), _T_JUDG.alias("judgment_b")
        shown: list[Any] = []
        for link, j in ((sa, ja), (sb, jb)):
            shown += [link.c.verdict, cast(j.c.taxonomy, Text)]
            shown += [*(link.c[c] for c in _LINK_SHOWN), *(j.c[f] for f in fields)]
        joined = (
            cut.join(sa, sa.c.id == cut.c.id_a)
            .join(sb, sb.c.id == cut.c.id_b)
            .outerjoin(ja, ja.c.id == sa.c.judgment_id)
            .outerjoin(jb, jb.c.id == sb.c.judgment_id)
        )
        flag = _twice(a, b).label("twice") if twice else literal(False).label("twice")
        query = select(cut.c.case_key, cut.c.repetition, flag, *shown).select_from(joined)
        width = len(shown) // 2
        found = [
            (
                DiscordantPair(
                    str(row[0]),
                    int(row[1]),
                    _judgment(row[3 : 3 + width]),
                    _judgment(row[3 + width :]),
                ),
                bool(row[2]),
            )
            for row in c.execute(query)
        ]
        # the join gives the pairs back in no order: sorted as Python orders str, the order a
        # page was cut in (see _codepoints)
        return sorted(found, key=lambda f: (f[0].case, f[0].repetition))


def _twice(a: int, b: int) -> Any:
    """Whether some (case, repetition) is linked twice in ``a`` or ``b`` (SQL's EXISTS: its
    first such key ends the walk of the pairing index)."""
    e = _T_EJ
    return (
        select(e.c.evaluation_id)
        .where(e.c.evaluation_id.in_([a, b]))
        .group_by(e.c.evaluation_id, e.c.case_key, e.c.repetition)
        .having(func.count() > 1)
        .exists()
    )


def _linked(side: dict[str | None, dict[str, int]]) -> int:
    """How many links a side's verdict counts count."""
    return sum(sum(verdicts.values()) for verdicts in side.values())


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
