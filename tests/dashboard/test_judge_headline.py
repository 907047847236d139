"""A weak model judge says so on every dashboard page that shows its verdicts: the Overview's
headline and evaluation list, Compare, and the trace viewer's judgment (the Report page's is
tested in test_report_page), in the calibration service's words."""

from __future__ import annotations

import pytest
from rejudge.store import Store

from tests.dashboard.conftest import app_on
from tests.dashboard.factory import Built
from tests.services.test_judge_calibration import judged_twice


@pytest.fixture(scope="module")
def twice(tmp_path_factory: pytest.TempPathFactory) -> tuple[Built, int, int, str]:
    db, golden, graded, warning = judged_twice(tmp_path_factory.mktemp("twice"))
    return Built(url=f"sqlite:///{db}"), golden, graded, warning


def _warnings(at: object) -> list[str]:
    # drawn as escaped Markdown (source and tier names are data): read back without escapes
    return [str(w.value).replace("\\", "") for w in at.warning]  # type: ignore[attr-defined]


def test_overview_headline_and_evaluation_list(twice: tuple[Built, int, int, str]) -> None:
    built, golden, graded, warning = twice
    overview = app_on(built, "overview")
    assert _warnings(overview) == [warning]  # the newest evaluation is the model judge's
    evaluations = next(d.value for d in overview.dataframe if "judge" in d.value.columns)
    by_id = dict(zip(evaluations["id"], evaluations["judge"], strict=True))
    assert by_id[graded] == warning and by_id[golden] == ""


def test_compare_names_the_weak_sides_judge(twice: tuple[Built, int, int, str]) -> None:
    built, golden, graded, warning = twice
    compare = app_on(built, "compare", a=str(golden), b=str(graded))
    assert f"B's judge: {warning}" in _warnings(compare)
    assert not any(w.startswith("A's judge") for w in _warnings(compare))


def test_trace_viewer_judgment(twice: tuple[Built, int, int, str]) -> None:
    built, golden, graded, warning = twice
    st = Store.open(built.url)
    run = st.runs.get_run("r1").id
    st.close()
    viewer = app_on(built, "trace_viewer", run=str(run), ev=str(graded))
    assert warning in _warnings(viewer)
    # under the golden tier the same trace has no model judge to warn about
    plain = app_on(built, "trace_viewer", run=str(run), ev=str(golden))
    assert warning not in _warnings(plain)
