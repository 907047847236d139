"""An evaluation's report from the store's few report values is the judge's report of its rows.

``stored_report`` (``rejudge report``, the dashboard's Report page, a shard's finished summary)
feeds :class:`rejudge.judge.ReportBuilder` the values ``store.evaluations.report_values``
streams, not a dict of every column per row (:func:`rejudge.services.iter_evaluation_rows`);
its summary alone, those values counted in the database (``report_counts``).
On generated evaluations (every verdict, codes, implicated tools, anomaly flags, partial
scores, groups, repeated cases) the two reports are equal, summary and rows, on each backend.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rejudge.judge import build_report
from rejudge.store import Store

from rejudge.model import RuleSet
from rejudge.services import evaluation_report, iter_evaluation_rows
from rejudge.services._judge_steps import stored_report
from tests.dashboard.factory import build_store
from tests.services.test_compare_pairing import PLAIN, _evaluation

CODES = ["TOOL_MISSING", "TOOL_WRONG", "PARAM_WRONG_VALUE"]


@st.composite
def judged(draw: Any) -> dict[str, Any]:
    return PLAIN | {
        "verdict": draw(st.sampled_from(["PASS", "FAIL", "SKIP", "AGENT_ERROR"])),
        "taxonomy": draw(st.lists(st.sampled_from(CODES), max_size=2, unique=True)),
        "tools": draw(st.lists(st.sampled_from(["search", "book"]), max_size=2, unique=True)),
        "anomalies": draw(st.lists(st.sampled_from(["SLOW", "EMPTY"]), max_size=1)),
        "dimension": draw(st.sampled_from(["", "D1", "D2"])),
        "category": draw(st.sampled_from(["", "lookup"])),
        "partial": draw(st.none() | st.floats(0, 1, allow_nan=False)),
    }


@pytest.fixture
def seeded(db_url: str) -> Any:
    built = build_store(db_url, cases=6, repeat=3, with_run_b=False)
    store = Store.open(db_url, migrate=False)
    rules = {"1": store.rule_sets.save_rule_set(RuleSet(name="r", version="1", settings={}))}
    try:
        yield store, built.runs["run-a"], rules
    finally:
        store.close()


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(sides=st.lists(st.none() | judged(), min_size=1, max_size=18))
def test_the_stored_report_is_the_judges_report_of_the_rows(seeded: Any, sides: list[Any]) -> None:
    store, run_id, rules = seeded
    ev = _evaluation(store, run_id, rules, sides)
    oracle = build_report(iter_evaluation_rows(store, ev), harness_mode="plain")
    assert stored_report(store, ev, harness_mode="plain") == oracle
    summary_only = stored_report(store, ev, harness_mode="plain", include_cases=False)
    assert summary_only.summary == oracle.summary and summary_only.cases is None
    # what `rejudge report --json` prints is built the same way; its summary alone the same
    full = evaluation_report(store, ev)
    assert full.cases == oracle.cases
    assert evaluation_report(store, ev, with_cases=False).summary == full.summary
    # the Report page's first screen: the filters' choices and each verdict's rows, in order
    counts = store.evaluations.report_counts(ev)
    assert evaluation_report(store, ev, with_cases=False, counts=counts).summary == full.summary
    assert counts.choices() == (
        sorted({c.verdict for c in oracle.cases if c.verdict}),
        sorted({code for c in oracle.cases for code in c.taxonomy}),
    )
    for verdict in ("PASS", "FAIL", "SKIP", "AGENT_ERROR"):
        of_verdict = [c for c in oracle.cases if c.verdict == verdict]
        assert store.evaluations.verdict_rows(ev, verdict) == of_verdict
        assert store.evaluations.verdict_rows(ev, verdict, 2) == of_verdict[:2]
