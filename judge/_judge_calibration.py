"""A model judge's calibration (pure): its verdicts set against every other verdict on the same
traces, as 2x2 tables with Cohen's kappa (:class:`rejudge.model.JudgeCalibration`).

Items are keyed by (case, repetition); per assertion, by (case, repetition, index in the
case's ``nl_assertions``). Only items both sides scored enter a table: the judge's PASS/FAIL
(a JUDGE_OUTPUT_INVALID, SKIP or AGENT_ERROR is counted as ``judge_unscored``) against the
reference's pass/fail (a reference that did not score an item the judge did counts as
``reference_missing``). A trace the judge's evaluation does not hold at all is not counted on
either side: the evaluation did not cover it.

A review label becomes a reference verdict through the judge's own verdict: ``confirmed``
means the right verdict is the judge's, ``judge_wrong`` the other one; ``golden_wrong``,
``unclear`` and ``disputed`` say neither and stay out of the table.

The service (:mod:`rejudge.services._judge_calibration`) reads the store and calls this.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from rejudge.model import AgreementTable, CalibrationAgainst, CalibrationKind, JudgeCalibration

__all__ = [
    "CalibrationReference",
    "AssertionReference",
    "verdict_table",
    "assertion_table",
    "merge_table",
    "merge_assertions",
    "review_reference",
    "judge_calibration",
]

Key = tuple[str, int]
# any hashable item key (a trace id, a (case, repetition) pair): review_reference only matches them
ItemKey = TypeVar("ItemKey")
J = TypeVar("J")  # a judge-side value of a merge
R = TypeVar("R")  # a reference-side value of a merge
SCORED = ("PASS", "FAIL")


#: items in ascending key order (a trace id, or (case, repetition)): what a streamed side is
Ordered = Callable[[], Iterable[tuple[Any, Any]]]


@dataclass(frozen=True)
class CalibrationReference:
    """A reference of whole-trace verdicts: a tier's evaluation, an external source, reviews.
    ``passed`` holds only the items it scored: a mapping, or a function giving (key, passed)
    pairs in ascending key order afresh on every call (streamed from the store)."""

    kind: CalibrationKind  # "review", "tier" or "external"
    name: str
    passed: Mapping[Any, bool] | Ordered
    evaluation: int | None = None
    source: str | None = None


@dataclass(frozen=True)
class AssertionReference:
    """A reference of per-assertion verdicts: key -> {index: met}, a mapping or a function
    giving (key, {index: met}) pairs in ascending key order."""

    name: str
    met: Mapping[Any, Mapping[int, bool]] | Ordered
    source: str | None = None


def _ordered(side: Mapping[Any, Any] | Ordered) -> Iterable[tuple[Any, Any]]:
    return sorted(side.items()) if isinstance(side, Mapping) else side()


def _joined(
    judge: Iterable[tuple[Any, J]], reference: Iterable[tuple[Any, R]]
) -> Iterator[tuple[J, R | None]]:
    """Each of the judge's values with the reference's under the same key (None: it has none),
    by one forward merge of the two streams in ascending key order (each key once)."""
    refs = iter(reference)
    ref = next(refs, None)
    for key, mine in judge:
        while ref is not None and ref[0] < key:
            ref = next(refs, None)
        yield mine, (ref[1] if ref is not None and ref[0] == key else None)


def merge_table(
    judge: Iterable[tuple[Any, str]], reference: Iterable[tuple[Any, bool]]
) -> tuple[AgreementTable, int, int]:
    """(table, judge_unscored, reference_missing) of the judge's verdicts against a reference
    of whole-trace pass/fail, both given in ascending key order (each key once): one merge,
    counts only, nothing per item held."""
    counts = [0, 0, 0, 0]  # pass_1, pass_0, fail_1, fail_0
    unscored = missing = 0
    for verdict, theirs in _joined(judge, reference):
        if verdict not in SCORED:
            unscored += theirs is not None
        elif theirs is None:
            missing += 1
        else:
            counts[(0 if verdict == "PASS" else 2) + (0 if theirs else 1)] += 1
    return AgreementTable(*counts), unscored, missing


def verdict_table(
    judge: Mapping[Key, str], reference: Mapping[Key, bool]
) -> tuple[AgreementTable, int, int]:
    """(table, judge_unscored, reference_missing) of the judge's verdicts against a reference
    of whole-trace pass/fail (:func:`merge_table` over the two sorted)."""
    return merge_table(sorted(judge.items()), sorted(reference.items()))


def merge_assertions(
    judge: Iterable[tuple[Any, Sequence[bool | None]]],
    reference: Iterable[tuple[Any, Mapping[int, bool]]],
) -> tuple[AgreementTable, int, int]:
    """(table, judge_unscored, reference_missing) assertion by assertion: the judge's met/not
    met at each index against the reference's, both in ascending key order, for every trace
    the judge's evaluation holds (``judge``); an assertion the judge gave no result for (an
    invalid reply) is unscored."""
    counts = [0, 0, 0, 0]
    unscored = missing = 0
    for results, found in _joined(judge, reference):
        theirs: Mapping[int, bool] = found if found is not None else {}
        given = list(results or ())
        for index, met in theirs.items():
            mine = given[index] if 0 <= index < len(given) else None
            if mine is None:
                unscored += 1
            else:
                counts[(0 if mine else 2) + (0 if met else 1)] += 1
        missing += sum(1 for i, mine in enumerate(given) if mine is not None and i not in theirs)
    return AgreementTable(*counts), unscored, missing


def assertion_table(
    judge_verdicts: Mapping[Key, str],
    judge: Mapping[Key, Sequence[bool | None]],
    reference: Mapping[Key, Mapping[int, bool]],
) -> tuple[AgreementTable, int, int]:
    """(table, judge_unscored, reference_missing) assertion by assertion (:func:`merge_assertions`
    over the traces ``judge_verdicts`` holds, sorted)."""
    held = ((key, judge.get(key) or ()) for key in sorted(judge_verdicts))
    return merge_assertions(held, sorted(reference.items()))


def review_reference(
    judge: Mapping[ItemKey, str], labels: Mapping[ItemKey, str]
) -> dict[ItemKey, bool]:
    """What reviewers say the verdict should have been, where they say it: ``confirmed`` keeps
    the judge's PASS/FAIL, ``judge_wrong`` turns it; other labels say nothing."""
    out: dict[ItemKey, bool] = {}
    for key, label in labels.items():
        verdict = judge.get(key)
        if verdict not in SCORED:
            continue
        if label == "confirmed":
            out[key] = verdict == "PASS"
        elif label == "judge_wrong":
            out[key] = verdict != "PASS"
    return out


#: the judge's side streamed: (key, verdict, per-assertion results) in ascending key order,
#: afresh on every call
JudgeRows = Callable[[], Iterable[tuple[Any, str, Sequence[bool | None]]]]


def judge_calibration(
    evaluation: int,
    tier: str,
    verdicts: Mapping[Key, str] | JudgeRows,
    *,
    judge: str | None = None,
    references: Sequence[CalibrationReference] = (),
    assertions: Mapping[Key, Sequence[bool | None]] | None = None,
    assertion_references: Sequence[AssertionReference] = (),
) -> JudgeCalibration:
    """The judge's verdicts (``verdicts``: (case, repetition) -> verdict, with ``assertions``
    its per-assertion met/not met; or a :data:`JudgeRows` function streaming both) against
    each reference, one merge per reference. A reference with no item in common and nothing
    unscored is left out: it says nothing about this judge."""
    if isinstance(verdicts, Mapping):
        held, given = verdicts, assertions or {}

        def rows() -> Iterable[tuple[Any, str, Sequence[bool | None]]]:
            return ((k, v, given.get(k) or ()) for k, v in sorted(held.items()))
    else:
        rows = verdicts

    def against_of(
        merged: tuple[AgreementTable, int, int], **about: Any
    ) -> CalibrationAgainst | None:
        """One reference's figures; None when it has no item in common and nothing unscored."""
        table, unscored, missing = merged
        if table.total == 0 and unscored == 0:
            return None
        return CalibrationAgainst(
            table=table, judge_unscored=unscored, reference_missing=missing, **about
        )

    found = [
        *(
            against_of(
                merge_table(((k, v) for k, v, _a in rows()), _ordered(ref.passed)),
                kind=ref.kind,
                name=ref.name,
                evaluation=ref.evaluation,
                source=ref.source,
            )
            for ref in references
        ),
        *(
            against_of(
                merge_assertions(((k, a) for k, _v, a in rows()), _ordered(aref.met)),
                kind="assertions",
                name=aref.name,
                unit="assertions",
                source=aref.source,
            )
            for aref in assertion_references
        ),
    ]
    against = [a for a in found if a is not None]
    return JudgeCalibration(evaluation=evaluation, tier=tier, judge=judge, against=against)
