"""What a FuncBenchGen sweep gives back: a summary per grid cell, and the paper's two tables.

Typed, so the CLI renders fields instead of reaching into dicts; ``to_json()`` is the
``--json`` shape, key for key what the sweep printed when its results were dicts (a cell's
summary spread into the cell, an arm's figures spread into its row), so a saved sweep output
still reads the same. The accounting itself is documented in :mod:`rejudge.services._sweep`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = [
    "ArmFailureShares",
    "ArmSuccess",
    "CellSummary",
    "SweepCell",
    "SweepResult",
    "SweepTable",
    "sweep_table",
]

JsonValue = int | float | str | bool | None | dict[str, int]


@dataclass(frozen=True)
class CellSummary:
    """One cell's figures (:func:`rejudge.services._sweep.summarize_cell`)."""

    counts: dict[str, int]
    success: float | None
    first_failure: dict[str, int]
    efficiency: float | None
    redundant_calls_on_success: float | None

    @property
    def scored(self) -> int:
        """PASS + FAIL + timeouts: the denominator of ``success`` (other agent errors are out)."""
        return self.counts.get("PASS", 0) + self.counts.get("FAIL", 0) + self.counts["timeout"]

    def to_json(self) -> dict[str, JsonValue]:
        return {
            "counts": dict(self.counts),
            "success": self.success,
            "first_failure": dict(self.first_failure),
            "efficiency": self.efficiency,
            "redundant_calls_on_success": self.redundant_calls_on_success,
        }


@dataclass(frozen=True)
class SweepCell:
    """A grid cell: one core-node count in one arm (with or without restatement), its suite,
    run and evaluation, and its figures."""

    core: int
    depth: int
    restate: bool
    suite: str
    suite_hash: str
    run: str
    evaluation: int
    summary: CellSummary

    def to_json(self) -> dict[str, JsonValue]:
        return {
            "core": self.core,
            "depth": self.depth,
            "restate": self.restate,
            "suite": self.suite,
            "suite_hash": self.suite_hash,
            "run": self.run,
            "evaluation": self.evaluation,
            **self.summary.to_json(),
        }


@dataclass(frozen=True)
class ArmSuccess:
    """One arm's success rate by core-node count (the count as text, as the table's header)."""

    restate: bool
    success: dict[str, float | None]

    def to_json(self) -> dict[str, float | bool | None]:
        return {"restate": self.restate, **self.success}


@dataclass(frozen=True)
class ArmFailureShares:
    """One arm's failed traces (FAILs and timeouts) and the share of each first-failure type."""

    restate: bool
    failed: int
    shares: dict[str, float | None]

    def to_json(self) -> dict[str, float | int | bool | None]:
        return {"restate": self.restate, "failed": self.failed, **self.shares}


@dataclass(frozen=True)
class SweepTable:
    """The paper's two shapes over a sweep's cells, one row per arm each."""

    success: list[ArmSuccess] = field(default_factory=list)
    failure_types: list[ArmFailureShares] = field(default_factory=list)


@dataclass(frozen=True)
class SweepResult:
    """A whole sweep: the model, every cell in the order it was judged, and the tables."""

    model: str
    cells: list[SweepCell]
    table: SweepTable

    def to_json(self) -> dict[str, object]:
        return {
            "model": self.model,
            "cells": [cell.to_json() for cell in self.cells],
            "table": [arm.to_json() for arm in self.table.success],
            "failure_types": [arm.to_json() for arm in self.table.failure_types],
        }


def sweep_table(cells: Sequence[SweepCell]) -> SweepTable:
    """The paper's shapes: success by core nodes per arm, and failure-type shares per arm (of the
    arm's failed traces, ``None`` when it has none)."""
    success: list[ArmSuccess] = []
    shares: list[ArmFailureShares] = []
    for restate in sorted({c.restate for c in cells}):
        arm = [c for c in cells if c.restate == restate]
        success.append(ArmSuccess(restate, {str(c.core): c.summary.success for c in arm}))
        totals: dict[str, int] = {}
        for c in arm:
            for key, n in c.summary.first_failure.items():
                totals[key] = totals.get(key, 0) + n
        failed = sum(totals.values())
        shares.append(
            ArmFailureShares(
                restate,
                failed,
                {
                    key: round(n / failed, 4) if failed else None
                    for key, n in sorted(totals.items())
                },
            )
        )
    return SweepTable(success, shares)
