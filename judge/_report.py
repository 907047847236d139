"""Reports: pure aggregation of judgment rows into the ``judge`` / ``report`` JSON of DESIGN §11.

The result is typed (:class:`rejudge.model.Report`, :class:`~rejudge.model.ReportSummary`,
:class:`~rejudge.model.ReportRow`); its ``to_json`` is the mapping evaluations store and
baselines hash. A *row* in is a plain dict per judged trace (what the store's evaluation query returns):

``case`` (id), ``repetition`` (int, default 0), ``verdict``, ``taxonomy`` (list of codes),
``partial_score`` (float or None), ``dimension``, ``category``, optional ``suite``,
``implicated_tools`` (list; else taken from ``details.implicated_tools``), ``anomalies`` (list).

Accuracy is PASS / (PASS + FAIL); SKIP and AGENT_ERROR are counted and shown but never in the
denominator. The average partial score is reported apart (over PASS + FAIL rows that have one).
pass^k uses τ-bench's unbiased estimator: for each case with n scored repetitions of which c
passed, C(c, k) / C(n, k), averaged over the cases with n >= k.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from math import comb
from typing import Any

from rejudge.model import (
    VERDICTS,
    Anomaly,
    PassHatK,
    Report,
    ReportRow,
    ReportSummary,
    TopFailure,
    VerdictCounts,
    VerdictSummary,
    WorstTool,
)

from ._taxonomy import order_codes

__all__ = [
    "build_report",
    "ReportBuilder",
    "pass_hat_k",
    "pass_hat_k_all",
    "verdict_summary",
    "row_tools",
]


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def verdict_summary(rows: Iterable[Mapping[str, Any]]) -> VerdictSummary:
    """``cases``, ``verdict_counts``, ``scored_count`` and ``accuracy`` of some rows."""
    counts = _Counts()
    for row in rows:
        counts.add(row.get("verdict"))
    return counts.summary()


def pass_hat_k(outcomes: Mapping[Any, tuple[int, int]], k: int) -> float | None:
    """τ-bench's pass^k: mean over cases of C(c, k) / C(n, k); ``outcomes`` = case -> (n, c)."""
    values = [comb(c, k) / comb(n, k) for n, c in outcomes.values() if n >= k and k >= 1]
    return _round(sum(values) / len(values)) if values else None


def pass_hat_k_all(outcomes: Mapping[Any, tuple[int, int]], max_k: int) -> PassHatK:
    """``pass_hat_k(outcomes, k)`` for k = 1..max_k, the same floats.

    C(n, k) and C(c, k) are carried from k - 1 to k with exact integer arithmetic
    (C(n, k) = C(n, k - 1) * (n - k + 1) // k), so every quotient divides the very integers
    ``math.comb`` returns, in the same order: identical results, without recomputing two
    binomials from scratch for every (case, k) (quadratic in the repetitions otherwise).
    """
    items = list(outcomes.values())
    c_n = [1] * len(items)
    c_c = [1] * len(items)
    out: dict[int, float | None] = {}
    cases: dict[int, int] = {}
    for k in range(1, max_k + 1):
        values = []
        for i, (n, c) in enumerate(items):
            if n < k:
                continue
            c_n[i] = c_n[i] * (n - k + 1) // k
            c_c[i] = c_c[i] * (c - k + 1) // k if c >= k else 0
            values.append(c_c[i] / c_n[i])
        out[k] = _round(sum(values) / len(values)) if values else None
        cases[k] = len(values)
    return PassHatK(out, cases)


def row_tools(row: Mapping[str, Any]) -> list[str]:
    tools = row.get("implicated_tools")
    if tools is None:
        details = row.get("details") or {}
        tools = details.get("implicated_tools", [])
    return list(tools or [])


class _Counts:
    """Streaming :func:`verdict_summary`."""

    __slots__ = ("n", "counts")

    def __init__(self) -> None:
        self.n = 0
        self.counts = dict.fromkeys(VERDICTS, 0)

    def add(self, verdict: Any) -> None:
        self.n += 1
        if verdict in self.counts:
            self.counts[verdict] += 1

    def summary(self) -> VerdictSummary:
        # accuracy exact, by VerdictCounts.accuracy (the one formula)
        return VerdictSummary.of(self.n, VerdictCounts(**self.counts))


def _order(row: Mapping[str, Any]) -> tuple[str, int]:
    return str(row.get("case")), int(row.get("repetition") or 0)


def build_report(
    rows: Iterable[Mapping[str, Any]],
    *,
    harness_mode: str | None = None,
    harness_assistance: Mapping[str, Any] | None = None,
    top_n: int = 5,
    include_cases: bool = True,
) -> Report:
    """Aggregate judgment rows; deterministic (everything sorted), no I/O.

    One pass over ``rows`` (an iterator is fine): memory grows with the number of distinct
    cases, dimensions and flagged rows, not with the rows, unless ``include_cases`` asks for the
    per-row list.
    """
    builder = ReportBuilder(include_cases=include_cases)
    add = builder.add
    for row in rows:
        add(row)
    summary = builder.report(
        harness_mode=harness_mode, harness_assistance=harness_assistance, top_n=top_n
    )
    return Report(summary, builder.rows() if include_cases else None)


class ReportBuilder:
    """:func:`build_report` fed one row at a time (e.g. while the rows are being judged)."""

    def __init__(self, *, include_cases: bool = True) -> None:
        self.include_cases = include_cases
        self.total = _Counts()
        self.groups: dict[str, dict[str, _Counts]] = {"dimension": {}, "category": {}, "suite": {}}
        self.taxonomy: Counter[str] = Counter()
        self.primary: Counter[str] = Counter()
        self.tools: Counter[str] = Counter()
        self.scores: Counter[float] = Counter()  # score -> how many rows (few distinct values)
        self.anomalies: list[tuple[tuple[str, int], Anomaly]] = []
        self.outcomes: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        self.cases: list[tuple[tuple[str, int], ReportRow]] = []
        self.score_n = 0

    def add(self, row: Mapping[str, Any]) -> None:
        verdict = row.get("verdict")
        case: Any = row.get("case")  # the store's rows always name it; a test's may not
        self.total.add(verdict)
        for key, by_name in self.groups.items():
            value = row.get(key)
            if value is not None:
                name = str(value)
                counts = by_name.get(name)
                if counts is None:
                    counts = by_name[name] = _Counts()
                counts.add(verdict)
        codes = list(row.get("taxonomy") or [])
        if verdict == "FAIL":
            self.taxonomy.update(set(codes))
            if codes:
                self.primary[order_codes(codes)[0]] += 1
            self.tools.update(set(row_tools(row)))
        if verdict in ("PASS", "FAIL"):
            score = row.get("partial_score")
            if score is not None:
                self.scores[float(score)] += 1
                self.score_n += 1
            entry = self.outcomes[str(row.get("case"))]
            entry[0] += 1
            entry[1] += verdict == "PASS"
        flags = list(row.get("anomalies") or [])
        if flags:
            self.anomalies.append((_order(row), Anomaly(case, row.get("repetition", 0), flags)))
        if self.include_cases:
            self.cases.append(
                (
                    _order(row),
                    ReportRow(
                        case,
                        row.get("repetition", 0),
                        verdict,
                        codes,
                        row.get("partial_score"),
                    ),
                )
            )

    def rows(self) -> list[ReportRow]:
        """Every row added, in (case, repetition) order (``include_cases`` only)."""
        return [item for _key, item in sorted(self.cases, key=lambda kv: kv[0])]

    def report(
        self,
        *,
        harness_mode: str | None = None,
        harness_assistance: Mapping[str, Any] | None = None,
        top_n: int = 5,
    ) -> ReportSummary:
        """The summary of every row added so far."""

        def grouped(key: str) -> dict[str, VerdictSummary]:
            by_name = self.groups[key]
            return {name: by_name[name].summary() for name in sorted(by_name)}

        totals = self.total.summary()
        fails = totals.verdict_counts.FAIL
        top = sorted(self.primary.items(), key=lambda kv: (-kv[1], kv[0]))[:top_n]
        worst = sorted(self.tools.items(), key=lambda kv: (-kv[1], kv[0]))[:top_n]
        # exactly rounded, so the average does not depend on the order the rows arrive in
        total_score = math.fsum(v for v, c in self.scores.items() for _ in range(c))
        max_n = max((n for n, _ in self.outcomes.values()), default=0)
        pass_at_k = None
        if max_n > 1:
            tuples = {case: (n, c) for case, (n, c) in self.outcomes.items()}
            pass_at_k = pass_hat_k_all(tuples, max_n)
        return ReportSummary(
            totals=totals,
            dimensions=grouped("dimension"),
            categories=grouped("category"),
            suites=grouped("suite"),
            taxonomy_counts={code: self.taxonomy[code] for code in order_codes(self.taxonomy)},
            top_failures=[
                TopFailure(code, count, _round(count / fails) if fails else None)
                for code, count in top
            ],
            worst_tools=[WorstTool(tool, count) for tool, count in worst],
            average_partial_score=_round(total_score / self.score_n) if self.score_n else None,
            pass_at_k=pass_at_k,
            anomalies=[item for _key, item in sorted(self.anomalies, key=lambda kv: kv[0])],
            harness_mode=harness_mode,
            harness_assistance=(
                dict(harness_assistance) if harness_assistance is not None else None
            ),
        )
