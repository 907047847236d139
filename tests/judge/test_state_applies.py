"""The state tier judges only where the evidence decides (rule-set setting ``state_applies``).

Under ``observable`` (every rejudge rule set) a case whose golden calls change nothing, that
requires no output and is not negative is SKIP "tier does not apply: ...": comparing two
unchanged states would pass an agent that did nothing. Under ``always`` (``tau-bench@2``, as
τ-bench rewards a read-only task by its unchanged database) every case of a world is judged.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rejudge.judge import judge, load_rule_set, rule_set_from_dict
from rejudge.judge.tiers import NOTHING_TO_OBSERVE, get_tier
from rejudge.recorder import read_cassette, trace_of
from rejudge.suites import load_suite

from rejudge.errors import InvalidInputError
from rejudge.model import Case, Round, Trace
from tests.conftest import CASSETTES, SHIPPED_WORLD_RUNS


@cache
def _suite(name: str) -> Any:
    return load_suite(name)


def _no_call_traces(version: str = "") -> list[tuple[str, Trace, Case, Any]]:
    """Every shipped trace that made no tool call, on a case whose golden has calls (of the
    suite's ``version``, e.g. ``"@2"``: the same cases, read-only ones with answers)."""
    out = []
    for run, suite_name in SHIPPED_WORLD_RUNS.items():
        suite = _suite(suite_name + version)
        cases = {c.id: c for c in suite.cases}
        for path in sorted((CASSETTES / run).glob("*.yaml")):
            cassette = read_cassette(path)
            case = cases[str(cassette.meta["case"])]
            trace = trace_of(cassette, case_id=case.id, repetition=0)
            if not trace.calls and case.golden.calls and trace.status != "agent_error":
                out.append((f"{run}/{path.name}", trace, case, suite.registry))
    return out


@pytest.mark.parametrize("rules", ["standard@1", "standard@2", "tau-bench@1"])
def test_no_shipped_trace_without_a_call_passes_where_the_golden_has_calls(rules: str) -> None:
    rule_set = load_rule_set(rules)
    traces = _no_call_traces()
    assert len(traces) > 100  # the three main runs alone hold 134 such traces
    verdicts: Counter[str] = Counter()
    for where, trace, case, registry in traces:
        j = judge(trace, case, registry, "state", rule_set)
        assert j.verdict != "PASS", (where, j.reasons)
        if j.verdict == "SKIP":
            assert j.reasons == [NOTHING_TO_OBSERVE], (where, j.reasons)
        verdicts[j.verdict] += 1
    # both outcomes occur: a case whose golden writes FAILs, a read-only one SKIPs
    assert verdicts["FAIL"] and verdicts["SKIP"]


def test_judging_every_case_passes_those_same_traces_on_read_only_cases() -> None:
    """The guard above is the setting's doing: with ``always`` (τ-bench's reading) the traces
    that SKIP under ``observable`` PASS, since nothing changed on either side."""
    observable, always = load_rule_set("standard@2"), load_rule_set("tau-bench@2")
    passed_under_always = 0
    for where, trace, case, registry in _no_call_traces():
        skipped = judge(trace, case, registry, "state", observable).verdict == "SKIP"
        verdict = judge(trace, case, registry, "state", always).verdict
        assert (verdict == "PASS") == skipped, where
        passed_under_always += verdict == "PASS"
    assert passed_under_always > 0


def _pool() -> list[tuple[Case, Any, list[Any]]]:
    """Per suite with a world: its positive cases without required outputs, and the golden
    calls of every case of the suite (to build cases from)."""
    out = []
    for name in ("retail", "genome-simple", "genome-complex"):
        suite = _suite(name)
        calls = [g for c in suite.cases for g in c.golden.calls]
        for case in suite.cases:
            if not case.negative and not case.required_outputs and not case.skip:
                out.append((case, suite.registry, calls))
    return out


_POOL = _pool()


@st.composite
def _read_only_or_not(draw: st.DrawFn) -> tuple[Case, Any]:
    base, registry, calls = draw(st.sampled_from(_POOL))
    golden = draw(st.lists(st.sampled_from(calls), min_size=1, max_size=4))
    case = base.model_copy(update={"golden": base.golden.model_copy(update={"calls": golden})})
    return case, registry


@settings(max_examples=150, deadline=None)
@given(_read_only_or_not(), st.text(max_size=40))
def test_a_trace_without_a_call_skips_exactly_where_judging_anyway_would_pass_it(
    drawn: tuple[Case, Any], reply: str
) -> None:
    case, registry = drawn
    trace = Trace(
        case_id=case.id,
        rounds=[Round(index=0, text=reply or None, finish_reason="stop")],
        final_text=reply or None,
    )
    observable = judge(trace, case, registry, "state", load_rule_set("standard@2"))
    always = judge(trace, case, registry, "state", load_rule_set("tau-bench@2"))
    # two paths agree: "the golden calls change nothing" (applicability) is "the final states
    # are equal" (the verdict under always) for an agent that changed nothing
    assert observable.verdict in ("FAIL", "SKIP")
    assert (observable.verdict == "SKIP") == (always.verdict == "PASS")
    if observable.verdict == "SKIP":
        assert observable.reasons == [NOTHING_TO_OBSERVE]
        assert not get_tier("state").applies(case, registry)
    else:
        assert observable.verdict == always.verdict == "FAIL"
        assert "STATE_WRONG" in observable.taxonomy


def test_required_outputs_or_a_negative_case_make_a_read_only_case_judged() -> None:
    suite = _suite("retail")
    read_only = next(c for c in suite.cases if c.id == "fc-d1-001")  # check_stock P206
    tier = get_tier("state")
    assert not tier.applies(read_only, suite.registry)
    told = Trace(
        case_id=read_only.id,
        rounds=[Round(index=0, text="P206 is out of stock.", finish_reason="stop")],
        final_text="P206 is out of stock.",
    )
    with_output = read_only.model_copy(update={"required_outputs": ["out of stock"]})
    assert tier.applies(with_output, suite.registry)
    assert judge(told, with_output, suite.registry, "state").verdict == "PASS"
    silent = told.model_copy(
        update={"rounds": [Round(index=0, text="Hi!", finish_reason="stop")], "final_text": "Hi!"}
    )
    j = judge(silent, with_output, suite.registry, "state")
    assert j.verdict == "FAIL" and j.taxonomy == ["OUTPUT_MISSING"]
    negative = read_only.model_copy(
        update={"negative": True, "golden": read_only.golden.model_copy(update={"calls": []})}
    )
    assert tier.applies(negative, suite.registry)
    assert judge(silent, negative, suite.registry, "state").verdict == "PASS"


def test_the_setting_is_stored_only_where_set_and_an_unknown_value_names_it() -> None:
    for ref in ("standard@1", "standard@2", "tau-bench@1", "bfcl@1", "bfcl@2"):
        assert "state_applies" not in load_rule_set(ref).settings
    assert load_rule_set("tau-bench@2").settings["state_applies"] == "always"
    explicit = rule_set_from_dict(
        {"name": "mine", "version": "1", "settings": {"state_applies": "observable"}}
    )
    plain = rule_set_from_dict({"name": "mine", "version": "1", "settings": {}})
    assert explicit.hash == plain.hash  # the default is not stored: the same meaning
    with pytest.raises(InvalidInputError, match="state_applies") as err:
        rule_set_from_dict({"name": "mine", "version": "1", "settings": {"state_applies": "x"}})
    assert "\n" not in str(err.value) and "'observable' or 'always'" in str(err.value)


def test_on_version_2_no_shipped_trace_without_a_call_passes_either() -> None:
    """Version 2 asks the read-only cases for their answer (values of the world's data that no
    phrasing holds): an agent that looked nothing up does not pass them by its words."""
    rule_set = load_rule_set("standard@2")
    verdicts: Counter[str] = Counter()
    for where, trace, case, registry in _no_call_traces("@2"):
        j = judge(trace, case, registry, "state", rule_set)
        assert j.verdict != "PASS", (where, j.reasons)
        verdicts[j.verdict] += 1
    # most read-only cases are judged now: their answer is missing
    assert verdicts["FAIL"] > 4 * verdicts["SKIP"]
