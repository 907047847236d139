"""``ReportBuilder`` works out what a row adds once per distinct (verdict, groups, codes, tools)
and then only counts: its summary must equal a row-by-row aggregation of the same rows (the
reference below is the builder's algorithm before that cache, written plainly), whether the
rows come as dicts (``add``) or as values (``add_values``, the judging service's way)."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter, defaultdict
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from rejudge.judge import ReportBuilder
from rejudge.judge._taxonomy import order_codes

CODES = ["D1.wrong_value", "D1.missing_call", "D2.extra_call", "X.unknown", "A.a"]
TOOLS = ["search", "cancel", "update", "teleport"]

rows = st.lists(
    st.fixed_dictionaries(
        {
            "case": st.sampled_from(["c1", "c2", "c3"]),
            "repetition": st.one_of(st.none(), st.integers(0, 5)),
            "verdict": st.sampled_from(["PASS", "FAIL", "SKIP", "AGENT_ERROR"]),
            "taxonomy": st.one_of(st.none(), st.lists(st.sampled_from(CODES), max_size=3)),
            "partial_score": st.one_of(st.none(), st.sampled_from([0.0, 0.25, 0.5, 1.0])),
            "dimension": st.one_of(st.none(), st.sampled_from(["D1", "D2"])),
            "category": st.sampled_from(["x", "y"]),
            "implicated_tools": st.lists(st.sampled_from(TOOLS), max_size=3),
            "anomalies": st.one_of(st.none(), st.lists(st.sampled_from(["flag"]), max_size=1)),
        },
        optional={"suite": st.sampled_from(["retail", "airline"])},
    ),
    max_size=60,
)


def reference(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Every aggregate of the summary, computed row by row with nothing kept across rows."""
    total: Counter[Any] = Counter()
    groups: dict[str, dict[str, Counter[Any]]] = {"dimension": {}, "category": {}, "suite": {}}
    taxonomy: Counter[str] = Counter()
    primary: Counter[str] = Counter()
    tools: Counter[str] = Counter()
    scores: list[float] = []
    outcomes: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    anomalies = []
    for row in rows:
        verdict = row["verdict"]
        total[verdict] += 1
        for key, by_name in groups.items():
            if row.get(key) is not None:
                by_name.setdefault(str(row[key]), Counter())[verdict] += 1
        codes = list(row.get("taxonomy") or [])
        if verdict == "FAIL":
            taxonomy.update(set(codes))
            if codes:
                primary[order_codes(codes)[0]] += 1
            tools.update(set(row["implicated_tools"]))
        if verdict in ("PASS", "FAIL"):
            if row["partial_score"] is not None:
                scores.append(row["partial_score"])
            outcomes[row["case"]][0] += 1
            outcomes[row["case"]][1] += verdict == "PASS"
        if row.get("anomalies"):
            anomalies.append(((row["case"], row["repetition"] or 0), row["anomalies"]))
    return {
        "total": dict(total),
        "groups": {k: {n: dict(c) for n, c in v.items()} for k, v in groups.items()},
        "taxonomy": dict(taxonomy),
        "primary": dict(primary),
        "tools": dict(tools),
        "score": math.fsum(scores) / len(scores) if scores else None,
        "outcomes": {k: tuple(v) for k, v in outcomes.items()},
        "anomalies": [flags for _key, flags in sorted(anomalies, key=lambda kv: kv[0])],
    }


def aggregates(builder: ReportBuilder) -> dict[str, Any]:
    s = builder.report()
    return {
        "total": {v: n for v, n in dataclasses.asdict(s.totals.verdict_counts).items() if n},
        "groups": {
            key: {
                name: {v: n for v, n in dataclasses.asdict(summary.verdict_counts).items() if n}
                for name, summary in by_name.items()
            }
            for key, by_name in (
                ("dimension", s.dimensions),
                ("category", s.categories),
                ("suite", s.suites),
            )
        },
        "taxonomy": dict(s.taxonomy_counts),
        "primary": dict(builder.primary),
        "tools": dict(builder.tools),
        "score": s.average_partial_score,
        "outcomes": {k: tuple(v) for k, v in builder.outcomes.items()},
        "anomalies": [a.flags for a in s.anomalies],
    }


@settings(max_examples=200, deadline=None)
@given(rows)
def test_summary_equals_a_row_by_row_aggregation(rows: list[dict[str, Any]]) -> None:
    want = reference(rows)
    if want["score"] is not None:
        want["score"] = round(want["score"], 6)
    by_dict = ReportBuilder()
    for row in rows:
        by_dict.add(row)
    by_values = ReportBuilder()
    for row in rows:
        by_values.add_values(
            row["case"],
            row["repetition"],
            row["verdict"],
            row["taxonomy"],
            row["partial_score"],
            row["dimension"],
            row["category"],
            row.get("suite"),
            row["implicated_tools"],
            row["anomalies"],
        )
    assert aggregates(by_dict) == want
    assert aggregates(by_values) == want
    assert by_values.report() == by_dict.report()
    assert by_values.rows() == by_dict.rows()
