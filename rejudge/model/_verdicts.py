"""How many of each verdict, and the one accuracy formula every surface reports.

Accuracy is PASS / (PASS + FAIL): SKIP and AGENT_ERROR are counted and shown but never in the
denominator. It is kept exact (the ``--json`` of a report or a comparison must equal
``PASS / scored``); renderers round for display only. The judge's reports, ``rejudge compare``
and the store's read models (its SQL counts) all take it from :class:`VerdictCounts`.

:class:`TraceStatuses` counts how a run's traces ended as the store holds them (``completed``,
``step_limit``, ``agent_error``...): the demo, ``rejudge runs`` and the dashboard say
"200 (completed 195, step_limit 5)", never a total under one status.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any

from rejudge.model._schemas import VERDICTS

__all__ = ["TraceStatuses", "VerdictCounts", "accuracy"]


def accuracy(passed: int, failed: int) -> float | None:
    """PASS / (PASS + FAIL), exact; None when nothing was scored."""
    scored = passed + failed
    return passed / scored if scored else None


@dataclass(frozen=True, slots=True)
class VerdictCounts:
    """One count per verdict of :data:`rejudge.model.VERDICTS`, in that order."""

    PASS: int = 0
    FAIL: int = 0
    SKIP: int = 0
    AGENT_ERROR: int = 0

    @classmethod
    def from_verdicts(cls, verdicts: Iterable[Any]) -> VerdictCounts:
        """Count an iterable of verdicts (anything that is not a verdict is not counted)."""
        counts = dict.fromkeys(VERDICTS, 0)
        for verdict in verdicts:
            if verdict in counts:
                counts[verdict] += 1
        return cls(**counts)

    @classmethod
    def from_json(cls, data: dict[str, int]) -> VerdictCounts:
        """The counts of a ``verdict_counts`` mapping (missing verdicts count 0)."""
        return cls(**{v: int(data.get(v, 0)) for v in VERDICTS})

    @property
    def scored(self) -> int:
        """PASS + FAIL: the verdicts accuracy is over."""
        return self.PASS + self.FAIL

    @property
    def total(self) -> int:
        return self.PASS + self.FAIL + self.SKIP + self.AGENT_ERROR

    @property
    def accuracy(self) -> float | None:
        """PASS / scored, exact; None when nothing was scored."""
        return accuracy(self.PASS, self.FAIL)

    def to_json(self) -> dict[str, int]:
        """The ``verdict_counts`` mapping: each verdict of VERDICTS, in order."""
        return {v: getattr(self, v) for v in VERDICTS}


# one field per verdict, in the order VERDICTS lists them (a new verdict needs its field)
if tuple(f.name for f in fields(VerdictCounts)) != VERDICTS:  # pragma: no cover
    raise AssertionError("VerdictCounts' fields must be VERDICTS, in order")


@dataclass(frozen=True, slots=True)
class TraceStatuses:
    """How many traces ended with each status (the store's ``status`` column), most first."""

    counts: tuple[tuple[str, int], ...] = ()

    @classmethod
    def of(cls, counts: dict[str, int]) -> TraceStatuses:
        ordered = sorted(((s, n) for s, n in counts.items() if n), key=lambda sn: (-sn[1], sn[0]))
        return cls(tuple(ordered))

    @property
    def total(self) -> int:
        return sum(n for _, n in self.counts)

    def as_dict(self) -> dict[str, int]:
        return dict(self.counts)

    def describe(self) -> str:
        """``"200 (completed 195, step_limit 5)"``; ``"0"`` for no trace."""
        if not self.counts:
            return "0"
        return f"{self.total} (" + ", ".join(f"{s} {n}" for s, n in self.counts) + ")"
