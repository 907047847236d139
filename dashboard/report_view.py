"""What the Report page shows of an evaluation's report, without the report's every row (no
Streamlit here).

A report of a 50,000-trace evaluation holds 50,000 rows; the page shows its summary, the
choices of its filters and at most :data:`LISTED` rows of what the filters leave. Kept as these
two small results (:mod:`rejudge.dashboard.data`), a new server opens the page without reading
the whole report back from disk (about a second at 100,000 traces on the 2-core machine, most
of the page's own time); the downloads and the JSON read the whole report when asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rejudge.model import ReportRow, ReportSummary

__all__ = [
    "LISTED",
    "ReportOptions",
    "ReportRows",
    "first_rows",
    "report_options",
    "report_rows",
    "shown_rows",
]

#: rows the cases grid lists at most: at 50,000 cases the grid's data alone took seconds to
#: build, send and mount (bench/README.md, "100k-trace store"); the downloads hold every row
LISTED = 1000
# what failed first: the rows people open a report for (the case order within each verdict)
_ORDER = {"FAIL": 0, "AGENT_ERROR": 1, "SKIP": 2, "PASS": 3}


@dataclass(frozen=True)
class ReportOptions:
    """The report's summary, its number of rows, and the values its filters offer."""

    summary: ReportSummary
    cases: int
    verdicts: list[str]
    codes: list[str]


@dataclass(frozen=True)
class ReportRows:
    """How many rows the filters leave, and the first :data:`LISTED` of them."""

    matching: int
    listed: list[ReportRow]


def report_options(summary: ReportSummary, cases: Sequence[ReportRow]) -> ReportOptions:
    return ReportOptions(
        summary=summary,
        cases=len(cases),
        verdicts=sorted({c.verdict for c in cases if c.verdict}),
        codes=sorted({code for c in cases for code in c.taxonomy}),
    )


def shown_rows(
    cases: Sequence[ReportRow], verdicts: Sequence[str], causes: Sequence[str], text: str
) -> list[ReportRow]:
    """The rows with a verdict in ``verdicts``, a cause in ``causes`` and ``text`` in the case
    id (an empty filter keeps all), FAILs first, then AGENT_ERROR, SKIP and PASS, each in the
    report's order."""
    needle = text.lower()
    wanted = set(causes)
    kept = [
        c
        for c in cases
        if (not verdicts or c.verdict in verdicts)
        and (not wanted or wanted.intersection(c.taxonomy))
        and (not needle or needle in str(c.case).lower())
    ]
    return sorted(kept, key=lambda c: _ORDER.get(c.verdict or "", 4))


def report_rows(
    cases: Sequence[ReportRow], verdicts: Sequence[str], causes: Sequence[str], text: str
) -> ReportRows:
    shown = shown_rows(cases, verdicts, causes, text)
    return ReportRows(matching=len(shown), listed=shown[:LISTED])


def first_rows(
    total: int, of_verdict: Callable[[str, int], Sequence[ReportRow]]
) -> ReportRows | None:
    """:func:`report_rows` with no filter, from ``total`` rows of which ``of_verdict(verdict,
    n)`` reads one verdict's first ``n`` in the report's order: FAILs first, and only as many
    rows as fill :data:`LISTED` (the report's every row is not read for its first screen).
    None when rows of no listed verdict would be listed too (then the whole report answers)."""
    listed: list[ReportRow] = []
    for verdict in _ORDER:
        if len(listed) >= LISTED:
            break
        listed.extend(of_verdict(verdict, LISTED - len(listed))[: LISTED - len(listed)])
    if len(listed) < min(total, LISTED):
        return None
    return ReportRows(matching=total, listed=listed)
