"""The Models page: N runs x cases for one suite, each run's pass rate with its counts and its
Wilson interval, checked against the judge's own reports; a suite in the URL that the store
does not hold is said and the default view shown."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rejudge.dashboard.grid import GridColumn, build_grid, cell_text

from rejudge.model import ReportRow, wilson_interval
from tests.dashboard.conftest import app_on, html_tables, judge_report
from tests.dashboard.factory import Built

SQLITE_ONLY = pytest.mark.parametrize("built", ["sqlite"], indirect=True)
verdicts = st.sampled_from(["PASS", "FAIL", "SKIP", "AGENT_ERROR", None])


# nested lists: slow to generate on a loaded two-core machine, not a slow test
@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    st.lists(
        st.lists(st.tuples(st.integers(0, 5), st.integers(0, 2), verdicts), max_size=20), max_size=4
    )
)
def test_the_grid_counts_every_scored_repetition_once(
    runs: list[list[tuple[int, int, str | None]]],
) -> None:
    columns = [
        GridColumn(i, f"run-{i}", [ReportRow(f"c{c}", r, v, [], None) for c, r, v in rows])
        for i, rows in enumerate(runs)
    ]
    grid = build_grid(columns)
    for i, (rate, rows) in enumerate(zip(grid.rates, runs, strict=True)):
        scored = [v for _c, _r, v in rows if v in ("PASS", "FAIL")]
        assert (rate.passed, rate.scored) == (scored.count("PASS"), len(scored))
        assert sum(cell[i][0] for cell in grid.cells) == rate.passed
        assert sum(cell[i][1] for cell in grid.cells) == rate.scored
        if rate.scored:
            assert (rate.low, rate.high) == wilson_interval(rate.passed, rate.scored)
            assert f"({rate.passed} of {rate.scored})" in rate.shown()
        else:
            assert rate.shown() == "— (0 scored)"
    assert set(grid.cases) == {f"c{c}" for rows in runs for c, _r, _v in rows}


def test_a_cell_reads_as_verdicts_not_a_fraction_of_runs() -> None:
    assert [cell_text(0, 0), cell_text(1, 1), cell_text(0, 1), cell_text(2, 3)] == [
        "—",
        "PASS",
        "FAIL",
        "2/3 PASS",
    ]


@SQLITE_ONLY
def test_the_page_shows_each_runs_rate_as_the_report_has_it(built: Built) -> None:
    at = app_on(built, "grid")
    (rates,) = [t for t in html_tables(at) if "run · model" in t[0]]
    assert len(rates) >= 2  # run-a and run-b share the suite and the tier
    for row in rates:
        summary = judge_report(built.url, int(row["evaluation"].lstrip("#")))
        counts = summary["verdict_counts"]
        shown = row["pass rate [95% interval] (PASS of scored)"]
        assert shown.endswith(f"({counts['PASS']} of {counts['PASS'] + counts['FAIL']})")
        assert shown.startswith(f"{100 * summary['accuracy']:.1f}% [")
    grid = next(d.value for d in at.dataframe if "case" in d.value.columns)
    assert len(grid.columns) == 1 + len(rates)
    assert at.query_params["suite"] and at.query_params["tier"]
    assert not at.warning


@SQLITE_ONLY
def test_an_unknown_suite_in_the_url_is_said_and_the_default_shown(built: Built) -> None:
    default = app_on(built, "grid")
    # opened as a link would be: the Models page with the suite in its URL
    at = app_on(built, "grid")
    at.query_params["suite"] = "no-such-suite"
    at.run()
    # the warning is escaped Markdown: read it as a person does, without the escapes
    assert any("No suite 'no-such-suite'" in w.value.replace("\\", "") for w in at.warning)
    assert at.selectbox(key="grid_suite").value == default.selectbox(key="grid_suite").value
    assert html_tables(at) == html_tables(default)


@SQLITE_ONLY
def test_overview_filters_are_a_link_and_an_unknown_value_is_said(built: Built) -> None:
    at = app_on(built)
    suite = at.multiselect(key="filter_suite").options[0]
    at.query_params["suite"] = suite
    at.query_params["rules"] = "no-such-rules@9"
    at.run()
    assert at.multiselect(key="filter_suite").value == [suite]
    assert at.multiselect(key="filter_rule_set").value == []
    assert any("no-such-rules@9" in w.value.replace("\\", "") for w in at.warning)
    # the filters chosen are written back: the address is the view
    assert at.query_params["suite"] == [suite] or at.query_params["suite"] == suite
    assert "rules" not in at.query_params
