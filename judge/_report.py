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

    def add(self, verdict: Any, n: int = 1) -> None:
        self.n += n
        if verdict in self.counts:
            self.counts[verdict] += n

    def summary(self) -> VerdictSummary:
        # accuracy exact, by VerdictCounts.accuracy (the one formula)
        return VerdictSummary.of(self.n, VerdictCounts(**self.counts))


def _order(row: Mapping[str, Any]) -> tuple[str, int]:
    return str(row.get("case")), int(row.get("repetition") or 0)


def _row_order(row: ReportRow) -> tuple[str, int]:
    return str(row.case), int(row.repetition or 0)


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


#: what one row adds (see ``ReportBuilder.add_values``): the group counts it counts in, its
#: codes' set and first code, its implicated tools' set
_Adds = tuple[tuple[_Counts, ...], set[str], str | None, set[str]]
#: distinct (verdict, groups, codes, tools) kept by one builder: a few hundred in practice
_SIGNATURES_MAX = 4096


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
        # the rows in the order they came (``include_cases``), and whether that order is
        # already theirs (case, repetition): a store streams them so, and then rows() needs no
        # sort key kept per row (at 1,000,000 rows the keys were ~140 MB of the report's peak)
        self.cases: list[ReportRow] = []
        self._in_order = True
        self._last: tuple[str, int] | None = None
        # one object per distinct case id and verdict among the rows kept: a store hands out
        # a new string per row and value (bounded like the signatures)
        self._names: dict[str, str] = {}
        self.score_n = 0
        self._signatures: dict[tuple[Any, ...], _Adds] = {}

    def add(self, row: Mapping[str, Any]) -> None:
        verdict = row.get("verdict")
        self.add_values(
            row.get("case"),  # the store's rows always name it; a test's may not
            row.get("repetition", 0),
            verdict,
            row.get("taxonomy"),
            row.get("partial_score"),
            row.get("dimension"),
            row.get("category"),
            row.get("suite"),
            row_tools(row) if verdict == "FAIL" else None,
            row.get("anomalies"),
        )

    def add_values(
        self,
        case: Any,
        repetition: Any,
        verdict: Any,
        taxonomy: list[str] | None,
        partial_score: float | None,
        dimension: Any,
        category: Any,
        suite: Any,
        tools: list[str] | None,
        anomalies: list[str] | None,
    ) -> None:
        """:meth:`add` of a row given as its values (what the judging service has at hand,
        without building a dict per judged trace); ``tools`` is the row's implicated tools."""
        codes = taxonomy or ()
        # what a row adds besides its case, repetition and score is the same for every row
        # of the same verdict, groups, codes and tools: worked out once (the group counts,
        # the codes' set and first code, the tools' set), then only counted
        sig = (verdict, dimension, category, suite, tuple(codes), tuple(tools or ()))
        adds = self._signatures.get(sig)
        if adds is None:
            adds = self._signature(sig)
        counts, code_set, primary, tool_set = adds
        self.total.add(verdict)
        for c in counts:
            c.add(verdict)
        if verdict == "FAIL":
            self.taxonomy.update(code_set)
            if primary is not None:
                self.primary[primary] += 1
            self.tools.update(tool_set)
        if verdict in ("PASS", "FAIL"):
            if partial_score is not None:
                self.scores[float(partial_score)] += 1
                self.score_n += 1
            entry = self.outcomes[str(case)]
            entry[0] += 1
            entry[1] += verdict == "PASS"
        order = (str(case), int(repetition or 0))
        if anomalies:
            self.anomalies.append((order, Anomaly(case, repetition, list(anomalies))))
        if self.include_cases:
            if self._in_order and self._last is not None and order < self._last:
                self._in_order = False
            self._last = order
            case, verdict = self._name(case), self._name(verdict)
            self.cases.append(ReportRow(case, repetition, verdict, list(codes), partial_score))

    def _name(self, value: Any) -> Any:
        """The one string kept for ``value`` (strings only: 1 and 1.0 are equal keys)."""
        if type(value) is not str:
            return value
        kept = self._names.get(value)
        if kept is None:
            kept = value
            if len(self._names) < _SIGNATURES_MAX:
                self._names[value] = value
        return kept

    def add_counted(
        self,
        groups: Iterable[tuple[Any, list[str] | None, Any, Any, list[str] | None, int]],
        scores: Iterable[tuple[float, int]],
        outcomes: Iterable[tuple[str, int, int]],
        anomalies: Iterable[tuple[Any, Any, list[str]]],
    ) -> None:
        """What :meth:`add_values` adds for many rows, already counted (a store groups them):
        ``n`` rows per (verdict, taxonomy, dimension, category, implicated tools); PASS/FAIL
        rows per partial score; per case, in the order the rows would arrive, its scored and
        passed rows; the flagged rows (case, repetition, flags). The summary is the same; no
        row is kept (``include_cases`` must be off)."""
        assert not self.include_cases, "counted rows carry no cases"
        for verdict, taxonomy, dimension, category, tools, n in groups:
            sig = (verdict, dimension, category, None, tuple(taxonomy or ()), tuple(tools or ()))
            counts, code_set, primary, tool_set = self._signatures.get(sig) or self._signature(sig)
            self.total.add(verdict, n)
            for c in counts:
                c.add(verdict, n)
            if verdict == "FAIL":
                for code in code_set:
                    self.taxonomy[code] += n
                if primary is not None:
                    self.primary[primary] += n
                for tool in tool_set:
                    self.tools[tool] += n
        for score, n in scores:
            self.scores[float(score)] += n
            self.score_n += n
        for case, scored, passed in outcomes:
            entry = self.outcomes[str(case)]
            entry[0] += scored
            entry[1] += passed
        for case, repetition, flags in anomalies:
            order = (str(case), int(repetition or 0))
            self.anomalies.append((order, Anomaly(case, repetition, list(flags))))

    def _signature(self, sig: tuple[Any, ...]) -> _Adds:
        verdict, dimension, category, suite, codes, tools = sig
        counts = []
        for key, value in (("dimension", dimension), ("category", category), ("suite", suite)):
            if value is not None:
                by_name = self.groups[key]
                name = str(value)
                c = by_name.get(name)
                if c is None:
                    c = by_name[name] = _Counts()
                counts.append(c)
        primary = order_codes(codes)[0] if codes else None
        adds: _Adds = (tuple(counts), set(codes), primary, set(tools))
        if len(self._signatures) < _SIGNATURES_MAX:
            self._signatures[sig] = adds
        return adds

    def rows(self) -> list[ReportRow]:
        """Every row added, in (case, repetition) order (``include_cases`` only)."""
        if self._in_order:  # a stable sort of rows already in order leaves them as they are
            return list(self.cases)
        return sorted(self.cases, key=_row_order)

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
