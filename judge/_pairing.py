"""Two evaluations paired case by case: what a comparison is computed from, as counts.

:func:`rejudge.judge.compare` reads nothing but a :class:`Pairing`: how many (case, repetition)
pairs had each (verdict A, verdict B, which key parameters are equal) combination, the keys on
one side only, each side's verdicts per dimension, and the flips. :func:`pair_rows` builds it
from two lists of judgment rows in memory; the compare service builds the same from the store's
SQL join (``store.evaluations.pairing``), so a 100k comparison never loads its 100,000 rows
into Python, while the comparison itself (kinds, causes, reasons, the test) stays computed here,
once, from either source. tests/judge/test_pairing.py checks the two sources give equal
comparisons on generated evaluations.

Each ``same`` flag of a pair is over one (field, cause) of :attr:`Pairing.order`: True when both
judgments know the field and agree, False when both know it and differ, None when either lacks
it (as :func:`rejudge.model.flip_causes` reads a field: unknown names no cause).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from typing import Any

from rejudge.model import FLIP_CAUSES, Flip, flip_causes

__all__ = ["Pairing", "pair_rows", "flip_of", "FlipSide", "flip_between"]

#: (verdict A, verdict B, one ``same`` flag per field of the pairing's order)
PairKey = tuple[str | None, str | None, tuple[bool | None, ...]]
#: one side's verdict counts per dimension (None: no dimension): dimension -> verdict -> count
SideCounts = Mapping[str | None, Mapping[str | None, int]]


@dataclass(frozen=True)
class Pairing:
    """Two evaluations joined on (case, repetition), as counts (see the module)."""

    order: tuple[tuple[str, str], ...]
    pairs: Mapping[PairKey, int]
    #: some pair has a trace hash on both sides
    both_hashed: bool
    #: how many cases have a pair whose case hashes differ
    changed_cases: int
    only_a: list[tuple[str, int]]
    only_b: list[tuple[str, int]]
    side_a: SideCounts
    side_b: SideCounts
    #: the flips in (case, repetition) order; None when they were not read (figures only)
    flips: list[Flip] | None = field(default=None)


def causes_of(same: Sequence[bool | None], order: Sequence[tuple[str, str]]) -> list[str]:
    """The flip causes of a pair whose fields compare as ``same`` (in ``order``), by the one rule
    (:func:`rejudge.model.flip_causes`) applied to stand-in values that compare alike."""
    a = {name: None if s is None else 0 for (name, _), s in zip(order, same, strict=True)}
    b = {
        name: None if s is None else (0 if s else 1)
        for (name, _), s in zip(order, same, strict=True)
    }
    return flip_causes(a, b, order)


def _same(va: Any, vb: Any) -> bool | None:
    return None if va is None or vb is None else va == vb


def _key(row: Mapping[str, Any]) -> tuple[str, int]:
    return str(row.get("case")), int(row.get("repetition") or 0)


def _side(rows: Iterable[Mapping[str, Any]]) -> dict[str | None, dict[str | None, int]]:
    out: dict[str | None, Counter[str | None]] = {}
    for r in rows:
        dim = r.get("dimension")
        out.setdefault(str(dim) if dim else None, Counter())[r.get("verdict")] += 1
    return {d: dict(c) for d, c in out.items()}


def pair_rows(
    rows_a: Iterable[Mapping[str, Any]],
    rows_b: Iterable[Mapping[str, Any]],
    order: Sequence[tuple[str, str]] = FLIP_CAUSES,
) -> Pairing:
    """The pairing of two evaluations' rows in memory (a key seen twice on one side: the last)."""
    a = {_key(r): r for r in rows_a}
    b = {_key(r): r for r in rows_b}
    shared = sorted(set(a) & set(b))
    pairs: Counter[PairKey] = Counter()
    flips: list[Flip] = []
    changed: set[str] = set()
    both_hashed = False
    for key in shared:
        ra, rb = a[key], b[key]
        va, vb = ra.get("verdict"), rb.get("verdict")
        same = tuple(_same(ra.get(name), rb.get(name)) for name, _ in order)
        pairs[(va, vb, same)] += 1
        both_hashed = both_hashed or (
            ra.get("trace_hash") is not None and rb.get("trace_hash") is not None
        )
        if _same(ra.get("case_hash"), rb.get("case_hash")) is False:
            changed.add(key[0])
        if va != vb:
            flips.append(flip_of(key[0], key[1], ra, rb))
    return Pairing(
        order=tuple(order),
        pairs=dict(pairs),
        both_hashed=both_hashed,
        changed_cases=len(changed),
        only_a=sorted(set(a) - set(b)),
        only_b=sorted(set(b) - set(a)),
        side_a=_side(a.values()),
        side_b=_side(b.values()),
        flips=flips,
    )


def flip_of(case: str, repetition: int, ra: Mapping[str, Any], rb: Mapping[str, Any]) -> Flip:
    """The flip of one pair of rows, with what a view shows beside it (not in the JSON)."""
    return Flip.between(
        case,
        repetition,
        ra,
        rb,
        dimension=ra.get("dimension") or rb.get("dimension"),
        category=ra.get("category") or rb.get("category"),
        partial_from=ra.get("partial_score"),
        partial_to=rb.get("partial_score"),
    )


@dataclass(frozen=True)
class FlipSide:
    """One side of a pair as its flip reads it where no judgment row is at hand (the compare
    service's SQL join): the verdict, what a view shows beside it, and the key parameters'
    values by field name."""

    verdict: str | None
    taxonomy: Sequence[str]
    dimension: str | None
    category: str | None
    partial_score: float | None
    inputs: Mapping[str, str | None]


def flip_between(case: str, repetition: int, a: FlipSide, b: FlipSide) -> Flip:
    """:func:`flip_of` two typed sides: the flip of the rows they stand for."""
    return flip_of(case, repetition, _row_of(a), _row_of(b))


def _row_of(side: FlipSide) -> dict[str, Any]:
    # a judgment row's keys (the fields' names): flip_of reads the verdict's, Flip.between the
    # inputs by name
    row = {f.name: getattr(side, f.name) for f in dataclass_fields(side) if f.name != "inputs"}
    return row | dict(side.inputs)
