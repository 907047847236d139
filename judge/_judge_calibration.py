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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rejudge.model import AgreementTable, CalibrationAgainst, CalibrationKind, JudgeCalibration

__all__ = [
    "CalibrationReference",
    "AssertionReference",
    "verdict_table",
    "assertion_table",
    "review_reference",
    "judge_calibration",
]

Key = tuple[str, int]
SCORED = ("PASS", "FAIL")


@dataclass(frozen=True)
class CalibrationReference:
    """A reference of whole-trace verdicts: a tier's evaluation, an external source, reviews.
    ``passed`` holds only the items it scored."""

    kind: CalibrationKind  # "review", "tier" or "external"
    name: str
    passed: Mapping[Key, bool]
    evaluation: int | None = None
    source: str | None = None


@dataclass(frozen=True)
class AssertionReference:
    """A reference of per-assertion verdicts: (case, repetition) -> {index: met}."""

    name: str
    met: Mapping[Key, Mapping[int, bool]]
    source: str | None = None


def verdict_table(
    judge: Mapping[Key, str], reference: Mapping[Key, bool]
) -> tuple[AgreementTable, int, int]:
    """(table, judge_unscored, reference_missing) of the judge's verdicts against a reference
    of whole-trace pass/fail."""
    cells: list[tuple[bool, bool]] = []
    unscored = missing = 0
    for key, verdict in judge.items():
        ref = reference.get(key)
        if verdict not in SCORED:
            unscored += ref is not None
            continue
        if ref is None:
            missing += 1
            continue
        cells.append((verdict == "PASS", ref))
    return AgreementTable.of(cells), unscored, missing


def assertion_table(
    judge_verdicts: Mapping[Key, str],
    judge: Mapping[Key, Sequence[bool | None]],
    reference: Mapping[Key, Mapping[int, bool]],
) -> tuple[AgreementTable, int, int]:
    """(table, judge_unscored, reference_missing) assertion by assertion: the judge's met/not
    met at each index against the reference's. Only traces the judge's evaluation holds
    count; an assertion the judge gave no result for (an invalid reply) is unscored."""
    cells: list[tuple[bool, bool]] = []
    unscored = missing = 0
    for key in judge_verdicts:
        given = list(judge.get(key) or ())
        ref = reference.get(key) or {}
        for index, met in ref.items():
            mine = given[index] if 0 <= index < len(given) else None
            if mine is None:
                unscored += 1
            else:
                cells.append((mine, met))
        missing += sum(1 for i, mine in enumerate(given) if mine is not None and i not in ref)
    return AgreementTable.of(cells), unscored, missing


def review_reference(judge: Mapping[Key, str], labels: Mapping[Key, str]) -> dict[Key, bool]:
    """What reviewers say the verdict should have been, where they say it: ``confirmed`` keeps
    the judge's PASS/FAIL, ``judge_wrong`` turns it; other labels say nothing."""
    out: dict[Key, bool] = {}
    for key, label in labels.items():
        verdict = judge.get(key)
        if verdict not in SCORED:
            continue
        if label == "confirmed":
            out[key] = verdict == "PASS"
        elif label == "judge_wrong":
            out[key] = verdict != "PASS"
    return out


def judge_calibration(
    evaluation: int,
    tier: str,
    verdicts: Mapping[Key, str],
    *,
    judge: str | None = None,
    references: Sequence[CalibrationReference] = (),
    assertions: Mapping[Key, Sequence[bool | None]] | None = None,
    assertion_references: Sequence[AssertionReference] = (),
) -> JudgeCalibration:
    """The judge's verdicts (``verdicts``: (case, repetition) -> verdict; ``assertions``: its
    per-assertion met/not met) against each reference. A reference with no item in common
    and nothing unscored is left out: it says nothing about this judge."""
    against: list[CalibrationAgainst] = []
    for ref in references:
        table, unscored, missing = verdict_table(verdicts, ref.passed)
        if table.total == 0 and unscored == 0:
            continue
        against.append(
            CalibrationAgainst(
                kind=ref.kind,
                name=ref.name,
                table=table,
                evaluation=ref.evaluation,
                source=ref.source,
                judge_unscored=unscored,
                reference_missing=missing,
            )
        )
    for aref in assertion_references:
        table, unscored, missing = assertion_table(verdicts, assertions or {}, aref.met)
        if table.total == 0 and unscored == 0:
            continue
        against.append(
            CalibrationAgainst(
                kind="assertions",
                name=aref.name,
                table=table,
                unit="assertions",
                source=aref.source,
                judge_unscored=unscored,
                reference_missing=missing,
            )
        )
    return JudgeCalibration(evaluation=evaluation, tier=tier, judge=judge, against=against)
