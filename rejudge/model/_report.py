"""A report's aggregate and its rows: what ``rejudge judge`` stores with an evaluation, what
``rejudge report`` prints, what a baseline locks and hashes (DESIGN §11).

:func:`rejudge.judge.build_report` builds these from judgment rows; the CLI, the JSON writer,
the demo and the dashboard read their attributes. Each ``to_json`` gives the very mapping the
report was before it was typed (keys, order, optional keys left out when absent), because that
mapping is stored in evaluations and hashed by baselines: an old baseline's ``report_sha256``
must still match. ``from_json`` reads a stored summary back, including one an older rejudge
wrote with fewer keys (what it did not record reads as empty).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rejudge.model._verdicts import VerdictCounts

__all__ = [
    "Anomaly",
    "PassHatK",
    "Report",
    "ReportRow",
    "ReportSummary",
    "TopFailure",
    "VerdictSummary",
    "WorstTool",
]


@dataclass(frozen=True, slots=True)
class VerdictSummary:
    """How many rows, their verdicts, and accuracy over the scored ones (a whole report, or one
    dimension, category or suite of it)."""

    cases: int
    verdict_counts: VerdictCounts
    scored_count: int
    accuracy: float | None

    @classmethod
    def of(cls, cases: int, counts: VerdictCounts) -> VerdictSummary:
        """The summary of ``cases`` rows with these counts (accuracy by the one formula)."""
        return cls(cases, counts, counts.scored, counts.accuracy)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> VerdictSummary:
        counts = VerdictCounts.from_json(data.get("verdict_counts") or {})
        return cls(
            cases=int(data.get("cases", counts.total)),
            verdict_counts=counts,
            scored_count=int(data.get("scored_count", counts.scored)),
            accuracy=data.get("accuracy", counts.accuracy),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
            "verdict_counts": self.verdict_counts.to_json(),
            "scored_count": self.scored_count,
            "accuracy": self.accuracy,
        }


@dataclass(frozen=True, slots=True)
class TopFailure:
    """A primary failure cause: how many FAILs it heads, and their share of the FAILs."""

    code: str
    count: int
    share: float | None

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "count": self.count, "share": self.share}


@dataclass(frozen=True, slots=True)
class WorstTool:
    """A tool and how many FAILs implicate it."""

    tool: str
    failures: int

    def to_json(self) -> dict[str, Any]:
        return {"tool": self.tool, "failures": self.failures}


@dataclass(frozen=True, slots=True)
class Anomaly:
    """A judged trace the judge flagged (a harness oddity worth a look, not a verdict)."""

    case: str
    repetition: int
    flags: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"case": self.case, "repetition": self.repetition, "flags": list(self.flags)}


@dataclass(frozen=True, slots=True)
class ReportRow:
    """One judged trace of a report: its case, repetition, verdict, causes and partial score."""

    case: str
    repetition: int
    verdict: str | None
    taxonomy: list[str]
    partial_score: float | None

    def __reduce__(self) -> tuple[type[ReportRow], tuple[Any, ...]]:
        # pickled as its constructor's arguments: a slots dataclass's own state walks fields()
        # for every row, and the dashboard keeps a report on disk (dashboard/kept.py): 50,000
        # rows took 0.36-0.48 s to write and 0.40-0.45 s to read back, this about half
        return (
            ReportRow,
            (self.case, self.repetition, self.verdict, self.taxonomy, self.partial_score),
        )

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ReportRow:
        return cls(
            case=data["case"],
            repetition=int(data.get("repetition") or 0),
            verdict=data.get("verdict"),
            taxonomy=list(data.get("taxonomy") or []),
            partial_score=data.get("partial_score"),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "repetition": self.repetition,
            "verdict": self.verdict,
            "taxonomy": list(self.taxonomy),
            "partial_score": self.partial_score,
        }


@dataclass(frozen=True, slots=True)
class PassHatK:
    """τ-bench's pass^k for k = 1..max_k (None where no case has k scored repetitions).

    ``cases`` says how many cases each k's mean is over (those with at least k scored
    repetitions), so a terminal can write the count beside the rate. It is not in the JSON (a
    locked report's hash covers that), so a summary read back from JSON has none."""

    values: dict[int, float | None]
    cases: dict[int, int] = field(default_factory=dict, compare=False)

    @property
    def max_k(self) -> int:
        return max(self.values, default=0)

    def __getitem__(self, k: int) -> float | None:
        return self.values[k]

    @classmethod
    def from_json(cls, data: Mapping[str, float | None]) -> PassHatK:
        return cls({int(k): v for k, v in data.items()})

    def to_json(self) -> dict[str, float | None]:
        return {str(k): v for k, v in sorted(self.values.items())}


def _groups(data: Mapping[str, Any] | None) -> dict[str, VerdictSummary]:
    return {name: VerdictSummary.from_json(v) for name, v in (data or {}).items()}


@dataclass(frozen=True, slots=True)
class ReportSummary:
    """A report's aggregate. ``suites`` is left out of the JSON when no row named a suite,
    ``pass_at_k`` when no case was repeated, ``harness_assistance`` when not given."""

    totals: VerdictSummary
    dimensions: dict[str, VerdictSummary]
    categories: dict[str, VerdictSummary]
    taxonomy_counts: dict[str, int]
    top_failures: list[TopFailure]
    worst_tools: list[WorstTool]
    average_partial_score: float | None
    anomalies: list[Anomaly]
    harness_mode: str | None
    suites: dict[str, VerdictSummary] = field(default_factory=dict)
    pass_at_k: PassHatK | None = None
    harness_assistance: dict[str, Any] | None = None

    # the whole report's figures, read as often as the rest
    @property
    def cases(self) -> int:
        return self.totals.cases

    @property
    def verdict_counts(self) -> VerdictCounts:
        return self.totals.verdict_counts

    @property
    def scored_count(self) -> int:
        return self.totals.scored_count

    @property
    def accuracy(self) -> float | None:
        return self.totals.accuracy

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ReportSummary:
        """A stored summary (any rejudge's); what an older one did not record reads as empty."""
        pass_at_k = data.get("pass_at_k")
        assistance = data.get("harness_assistance")
        return cls(
            totals=VerdictSummary.from_json(data),
            dimensions=_groups(data.get("dimensions")),
            categories=_groups(data.get("categories")),
            taxonomy_counts=dict(data.get("taxonomy_counts") or {}),
            top_failures=[
                TopFailure(t["code"], int(t["count"]), t.get("share"))
                for t in data.get("top_failures") or []
            ],
            worst_tools=[
                WorstTool(t["tool"], int(t["failures"])) for t in data.get("worst_tools") or []
            ],
            average_partial_score=data.get("average_partial_score"),
            anomalies=[
                Anomaly(a["case"], int(a.get("repetition") or 0), list(a.get("flags") or []))
                for a in data.get("anomalies") or []
            ],
            harness_mode=data.get("harness_mode"),
            suites=_groups(data.get("suites")),
            pass_at_k=PassHatK.from_json(pass_at_k) if pass_at_k is not None else None,
            harness_assistance=dict(assistance) if assistance is not None else None,
        )

    def to_json(self, *, with_count: bool = True) -> dict[str, Any]:
        """The stored mapping; ``with_count=False`` leaves the ``cases`` count out, as a report
        prints its summary beside its rows (``rejudge report --json``, a baseline's report)."""

        def grouped(groups: dict[str, VerdictSummary]) -> dict[str, Any]:
            return {name: s.to_json() for name, s in groups.items()}

        out = self.totals.to_json()
        if not with_count:
            del out["cases"]
        out["dimensions"] = grouped(self.dimensions)
        out["categories"] = grouped(self.categories)
        if self.suites:
            out["suites"] = grouped(self.suites)
        out["taxonomy_counts"] = dict(self.taxonomy_counts)
        out["top_failures"] = [t.to_json() for t in self.top_failures]
        out["worst_tools"] = [t.to_json() for t in self.worst_tools]
        out["average_partial_score"] = self.average_partial_score
        if self.pass_at_k is not None:
            out["pass_at_k"] = self.pass_at_k.to_json()
        out["anomalies"] = [a.to_json() for a in self.anomalies]
        out["harness_mode"] = self.harness_mode
        if self.harness_assistance is not None:
            out["harness_assistance"] = dict(self.harness_assistance)
        return out


@dataclass(frozen=True, slots=True)
class Report:
    """A summary and, when asked for, its rows in (case, repetition) order."""

    summary: ReportSummary
    cases: list[ReportRow] | None = None

    def to_json(self) -> dict[str, Any]:
        """The flat report a baseline locks and hashes: with rows, the summary without its
        ``cases`` count, then the rows under ``cases`` (the form every stored baseline has)."""
        if self.cases is None:
            return self.summary.to_json()
        return {
            **self.summary.to_json(with_count=False),
            "cases": [row.to_json() for row in self.cases],
        }
