"""The Report page (AppTest, SQLite): what `rejudge report EVAL --json` prints, its cases
filtered by verdict, cause and text, each opening its trace, and downloads of what is shown."""

from __future__ import annotations

import json

import pytest

from tests.dashboard.conftest import app_on, evidence, html_tables, judge_report, metrics
from tests.dashboard.factory import Built

SQLITE_ONLY = pytest.mark.parametrize("built", ["sqlite"], indirect=True)


@SQLITE_ONLY
def test_report_shows_the_cli_report_and_filters_its_cases(built: Built) -> None:
    ev = built.evaluations["a1"]
    expected = judge_report(built.url, ev)
    at = app_on(built, "report", ev=str(ev))
    shown = metrics(at)
    assert shown["Accuracy"] == f"{100 * expected['accuracy']:.1f}%"
    counts = expected["verdict_counts"]
    assert shown["PASS / FAIL"] == f"{counts['PASS']} / {counts['FAIL']}"
    cases = next(d.value for d in at.dataframe if "trace" in d.value.columns)
    assert len(cases) == sum(counts.values())  # every judged case and repetition
    assert all(
        u.startswith("trace?run=") and "tv_case=" in u and "rep=" in u for u in cases["trace"]
    )
    at.multiselect(key="rp_verdict").set_value(["FAIL"]).run()
    fails = next(d.value for d in at.dataframe if "trace" in d.value.columns)
    assert len(fails) == counts["FAIL"] and set(fails["verdict"]) == {"FAIL"}
    at.text_input(key="rp_text").set_value("c00001").run()
    narrowed = next((d.value for d in at.dataframe if "trace" in d.value.columns), None)
    assert narrowed is None or set(narrowed["case"]) == {"c00001"}
    downloads = at.get("download_button")
    assert len(downloads) == 2  # CSV and JSONL of the rows shown


@SQLITE_ONLY
def test_report_tables_and_its_json_when_opened(built: Built) -> None:
    ev = built.evaluations["a1"]
    expected = judge_report(built.url, ev)
    at = app_on(built, "report", ev=str(ev))
    tables = html_tables(at)
    assert expected["top_failures"]  # the factory's evaluation has FAILs with causes
    top = next(t for t in tables if t and "FAILs" in t[0])
    assert [(r["code"], int(r["FAILs"])) for r in top] == [
        (t["code"], t["count"]) for t in expected["top_failures"]
    ]
    assert not evidence(at, "json")  # the JSON is drawn when its expander is opened
    at.session_state["rp_json_open"] = True
    at.run()
    shown = json.loads(evidence(at, "json")[-1])
    assert shown["summary"] == expected


def test_a_model_judges_report_shows_its_calibration_beside_its_verdicts(tmp_path) -> None:
    """A model-graded evaluation's Report page says how far the judge agrees, in the words
    and numbers `rejudge report` prints, and its table per reference."""
    from rejudge.dashboard.common import num

    from rejudge.services import evaluation_judge_calibration
    from tests.dashboard.factory import Built
    from tests.services.test_judge_calibration import model_judged_store

    db, st, evaluation = model_judged_store(tmp_path)
    calibration = evaluation_judge_calibration(st, evaluation)
    st.close()
    at = app_on(Built(url=f"sqlite:///{db}"), "report", ev=str(evaluation))
    assert calibration.warning is not None
    # drawn as escaped Markdown (source and tier names are data): read back without escapes
    assert [str(w.value).replace("\\", "") for w in at.warning] == [calibration.warning]
    rows = next(t for t in html_tables(at) if t and "against" in t[0])
    assert [r["against"] for r in rows] == [a.name for a in calibration.against]
    assert [r["kappa"] for r in rows] == [num(a.kappa) for a in calibration.against]


def test_a_large_report_lists_the_first_rows_and_says_so(tmp_path) -> None:
    from tests.dashboard.factory import build_store

    built = build_store(f"sqlite:///{tmp_path / 'big.db'}", cases=120, repeat=10, with_run_b=False)
    ev = built.evaluations["a1"]
    summary = judge_report(built.url, ev)
    cases = sum(summary["verdict_counts"].values())
    assert cases == 1200
    at = app_on(built, "report", ev=str(ev))
    grid = at.dataframe[0].value
    assert len(grid) == 1000
    # FAILs first: the grid's first rows are the report's failing cases
    assert grid["verdict"].iloc[0] == "FAIL"
    assert any(
        c.value.startswith(f"{cases} of {cases} case(s) match; the grid lists the first 1,000")
        for c in at.caption
    )
