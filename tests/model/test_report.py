"""A report's typed aggregate dumps to the mapping evaluations store and baselines hash, and reads
any stored one back."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from rejudge.judge import build_report

from rejudge.model import (
    PassHatK,
    Report,
    ReportRow,
    ReportSummary,
    VerdictCounts,
    VerdictSummary,
    content_hash,
)

VERDICTS = ["PASS", "FAIL", "SKIP", "AGENT_ERROR"]
CODES = ["TOOL_MISSING", "PARAM_WRONG_VALUE", "ORDER_WRONG"]

rows_strategy = st.lists(
    st.fixed_dictionaries(
        {
            "case": st.sampled_from(["a", "b", "c", "d"]),
            "repetition": st.integers(0, 3),
            "verdict": st.sampled_from(VERDICTS),
            "taxonomy": st.lists(st.sampled_from(CODES), max_size=2, unique=True),
            "partial_score": st.none() | st.floats(0, 1, allow_nan=False),
            "dimension": st.none() | st.sampled_from(["D1", "D2"]),
            "category": st.none() | st.sampled_from(["x", "y"]),
            "suite": st.none() | st.sampled_from(["s1"]),
            "implicated_tools": st.lists(st.sampled_from(["t1", "t2"]), max_size=2),
            "anomalies": st.lists(st.sampled_from(["flag"]), max_size=1),
        }
    ),
    max_size=30,
)


@settings(max_examples=80, deadline=None)
@given(rows_strategy)
def test_a_summary_reads_back_from_its_json_unchanged(rows: list[dict[str, Any]]) -> None:
    report = build_report(rows, harness_mode="production-parity")
    summary = report.summary
    stored = json.loads(json.dumps(summary.to_json()))  # as a JSON column gives it back
    again = ReportSummary.from_json(stored)
    assert again == summary
    assert again.to_json() == summary.to_json()
    assert list(again.to_json()) == list(summary.to_json())  # key order too


@settings(max_examples=50, deadline=None)
@given(rows_strategy)
def test_the_typed_figures_are_the_json_figures(rows: list[dict[str, Any]]) -> None:
    summary = build_report(rows, include_cases=False).summary
    data = summary.to_json()
    counts = VerdictCounts.from_verdicts(r["verdict"] for r in rows)
    assert summary.verdict_counts == counts and data["verdict_counts"] == counts.to_json()
    assert summary.cases == data["cases"] == len(rows)
    assert summary.accuracy == data["accuracy"] == counts.accuracy
    assert ("suites" in data) == any(r["suite"] for r in rows)
    repeated = any(
        sum(1 for r in rows if r["case"] == c and r["verdict"] in ("PASS", "FAIL")) > 1
        for c in "abcd"
    )
    assert (summary.pass_at_k is not None) == repeated == ("pass_at_k" in data)
    if summary.pass_at_k is not None:
        rates = []
        for case in "abcd":
            scored = [r["verdict"] for r in rows if r["case"] == case]
            scored = [v for v in scored if v in ("PASS", "FAIL")]
            if scored:
                rates.append(scored.count("PASS") / len(scored))
        expected = round(sum(rates) / len(rates), 6)  # pass^1: the mean of per-case pass rates
        assert summary.pass_at_k[1] == data["pass_at_k"]["1"] == expected


def test_the_flat_report_puts_rows_where_a_baseline_keeps_them() -> None:
    rows = [
        {"case": "b", "verdict": "FAIL", "taxonomy": ["TOOL_MISSING"], "repetition": 0},
        {"case": "a", "verdict": "PASS", "repetition": 0, "partial_score": 1.0},
    ]
    report = build_report(rows)
    flat = report.to_json()
    assert list(flat)[-1] == "cases" and "scored_count" in flat
    assert [c["case"] for c in flat["cases"]] == ["a", "b"]
    assert report.cases == [
        ReportRow("a", 0, "PASS", [], 1.0),
        ReportRow("b", 0, "FAIL", ["TOOL_MISSING"], None),
    ]
    # the hash a baseline locks is the hash of this mapping, whatever order it is built in
    assert content_hash(flat) == content_hash(dict(reversed(list(flat.items()))))
    assert Report(report.summary).to_json()["cases"] == 2  # without rows: the row count


def test_an_older_summary_with_fewer_keys_still_reads() -> None:
    old = {"verdict_counts": {"PASS": 3, "FAIL": 1}, "accuracy": 0.75}
    summary = ReportSummary.from_json(old)
    assert summary.totals == VerdictSummary(4, VerdictCounts(PASS=3, FAIL=1), 4, 0.75)
    assert summary.dimensions == {} and summary.anomalies == [] and summary.pass_at_k is None
    assert summary.top_failures == [] and summary.harness_mode is None


def test_pass_hat_k_keys_are_ints_and_its_json_keys_strings() -> None:
    p = PassHatK.from_json({"2": 0.5, "1": 0.75})
    assert p[1] == 0.75 and p.max_k == 2
    assert list(p.to_json()) == ["1", "2"]


@settings(max_examples=50, deadline=None)
@given(rows_strategy)
def test_a_reports_rows_pickle_back_equal(rows: list[dict[str, Any]]) -> None:
    """The dashboard keeps a report on disk as a pickle (dashboard/kept.py); its rows pickle
    as their constructor's arguments (``ReportRow.__reduce__``) and must read back equal."""
    import pickle

    cases = build_report(rows, include_cases=True).cases
    again = pickle.loads(pickle.dumps(cases, protocol=pickle.HIGHEST_PROTOCOL))
    assert again == cases
    assert all(type(row) is ReportRow for row in again)
