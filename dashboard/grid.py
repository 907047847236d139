"""A grid of N runs x cases for one suite: which model passes what (pure).

Each column is one run's evaluation under the same tier (and, where chosen, rule set); each
row a case, each cell that run's PASS count over its scored repetitions of the case ("2/3",
"PASS", "FAIL", "—" when it did not score the case). Above the grid, each run's pass rate with
the counts it is a rate of and its 95% Wilson interval (:func:`rejudge.model.wilson_interval`,
the one the CLI's model-vs-model table uses), so two rates whose intervals overlap are not read
as a ranking.

No comparison is computed here: the grid shows counts; a paired test of two runs is Compare's
(the judge's), one click from the grid.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rejudge.model import ReportRow, wilson_interval

__all__ = [
    "GridColumn",
    "CountedColumn",
    "RunRate",
    "Grid",
    "build_grid",
    "grid_of_counts",
    "cell_text",
]

_SCORED = ("PASS", "FAIL")


@dataclass(frozen=True)
class GridColumn:
    """One run's evaluation: its label (run · model) and its report's cases."""

    evaluation: int
    label: str
    cases: Sequence[ReportRow]


@dataclass(frozen=True)
class CountedColumn:
    """One run's evaluation as counts per case, ``(case, passed, scored)`` in case order: what
    the store counts in SQL (``per_case_passes``) instead of the report's every row (at 100k a
    column's report read and built 50,000 rows, seconds, on the Models page's first open)."""

    evaluation: int
    label: str
    cases: Sequence[tuple[str, int, int]]


@dataclass(frozen=True)
class RunRate:
    evaluation: int
    label: str
    passed: int
    scored: int
    low: float | None
    high: float | None

    @property
    def rate(self) -> float | None:
        return self.passed / self.scored if self.scored else None

    def shown(self) -> str:
        """ "72.0% [58.3–82.5] (36 of 50)": the rate, its interval and its counts."""
        if not self.scored or self.low is None or self.high is None:
            return "— (0 scored)"
        rate = 100 * self.passed / self.scored
        return (
            f"{rate:.1f}% [{100 * self.low:.1f}–{100 * self.high:.1f}] "
            f"({self.passed} of {self.scored})"
        )


@dataclass(frozen=True)
class Grid:
    rates: tuple[RunRate, ...]
    #: case ids, in the order of the first column that has them
    cases: tuple[str, ...]
    #: per case, per column: (passed, scored) over its repetitions
    cells: tuple[tuple[tuple[int, int], ...], ...]


def build_grid(columns: Sequence[GridColumn]) -> Grid:
    """The grid of reports' rows: each column counted per case, then :func:`grid_of_counts`."""
    return grid_of_counts(
        [CountedColumn(c.evaluation, c.label, _counted(c.cases)) for c in columns]
    )


def _counted(rows: Sequence[ReportRow]) -> list[tuple[str, int, int]]:
    """(case, passed, scored) per case, in the rows' order of first appearance."""
    per_case: dict[str, tuple[int, int]] = {}
    for row in rows:
        passed, scored = per_case.get(str(row.case), (0, 0))
        if row.verdict in _SCORED:
            passed, scored = passed + (row.verdict == "PASS"), scored + 1
        per_case[str(row.case)] = (passed, scored)
    return [(case, passed, scored) for case, (passed, scored) in per_case.items()]


def grid_of_counts(columns: Sequence[CountedColumn]) -> Grid:
    counts: list[dict[str, tuple[int, int]]] = []
    order: dict[str, None] = {}
    rates = []
    for column in columns:
        per_case: dict[str, tuple[int, int]] = {}
        for case, passed, scored in column.cases:
            order.setdefault(case, None)
            per_case[case] = (passed, scored)
        counts.append(per_case)
        passed = sum(p for p, _ in per_case.values())
        scored = sum(n for _, n in per_case.values())
        low, high = wilson_interval(passed, scored) if scored else (None, None)
        rates.append(RunRate(column.evaluation, column.label, passed, scored, low, high))
    cases = tuple(order)
    cells = tuple(tuple(c.get(case, (0, 0)) for c in counts) for case in cases)
    return Grid(tuple(rates), cases, cells)


def cell_text(passed: int, scored: int) -> str:
    """A cell as read: PASS / FAIL for one scored repetition, "2/3 PASS" for several."""
    if scored == 0:
        return "—"
    if scored == 1:
        return "PASS" if passed else "FAIL"
    return f"{passed}/{scored} PASS"
