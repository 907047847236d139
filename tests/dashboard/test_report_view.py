"""What the Report page keeps of a report (dashboard/report_view.py): the filters' choices and
the listed rows, FAILs first, at most LISTED of them, the count of every match beside them."""

from __future__ import annotations

from rejudge.dashboard.report_view import (
    LISTED,
    first_rows,
    report_options,
    report_rows,
    shown_rows,
)
from rejudge.judge import build_report


def _report(n: int):
    rows = [
        {
            "case": f"c{i:05}",
            "repetition": 0,
            "verdict": ("PASS", "FAIL", "SKIP")[i % 3],
            "dimension": "D1",
            "category": "x",
            "taxonomy": ["TOOL_MISSING"] if i % 3 == 1 else [],
            "partial_score": None,
            "implicated_tools": [],
        }
        for i in range(n)
    ]
    return build_report(rows)


def test_the_options_are_the_reports_verdicts_and_causes() -> None:
    report = _report(9)
    options = report_options(report.summary, report.cases)
    assert (options.cases, options.verdicts, options.codes) == (
        9,
        ["FAIL", "PASS", "SKIP"],
        ["TOOL_MISSING"],
    )
    assert options.summary == report.summary


def test_rows_list_fails_first_and_at_most_listed_with_every_match_counted() -> None:
    report = _report(LISTED * 3 + 30)
    rows = report_rows(report.cases, [], [], "")
    assert rows.matching == LISTED * 3 + 30 and len(rows.listed) == LISTED
    assert {r.verdict for r in rows.listed} == {"FAIL"}  # 1,010 FAILs: they fill the list
    assert [r.case for r in rows.listed] == sorted(r.case for r in rows.listed)
    everything = shown_rows(report.cases, [], [], "")
    order = [r.verdict for r in everything]
    assert order == sorted(order, key=["FAIL", "SKIP", "PASS"].index)
    # filters: a verdict, a cause, a piece of the case id (any case)
    assert report_rows(report.cases, ["PASS"], [], "").matching == LISTED + 10
    assert report_rows(report.cases, [], ["TOOL_MISSING"], "").matching == LISTED + 10
    found = report_rows(report.cases, [], [], "C0000")  # case-insensitive: c00000-c00009
    assert found.matching == 10
    assert [r.verdict for r in found.listed][:3] == ["FAIL", "FAIL", "FAIL"]


def _reading(cases: list, read: list[str]):
    def of_verdict(verdict: str, n: int) -> list:
        read.append(verdict)
        return [c for c in cases if c.verdict == verdict][:n]

    return of_verdict


def test_the_first_rows_read_a_verdict_at_a_time_are_the_unfiltered_rows() -> None:
    """Unfiltered, the listed rows are read a verdict at a time (FAILs first) until the list is
    full: the same rows, and no verdict read past the one that fills it."""
    # FAILs fill the list; FAILs and SKIPs do; every verdict is read and the list stays short
    for n, reads in ((LISTED * 3 + 30, ["FAIL"]), (LISTED * 2, ["FAIL", "AGENT_ERROR", "SKIP"])):
        report = _report(n)
        read: list[str] = []
        assert first_rows(n, _reading(report.cases, read)) == report_rows(report.cases, [], [], "")
        assert read == reads
    report = _report(7)
    read = []
    assert first_rows(7, _reading(report.cases, read)) == report_rows(report.cases, [], [], "")
    assert read == ["FAIL", "AGENT_ERROR", "SKIP", "PASS"]


def test_rows_of_no_listed_verdict_leave_the_answer_to_the_whole_report() -> None:
    report = _report(4)
    assert first_rows(5, _reading(report.cases, [])) is None
