"""What the judge context keeps across the traces of a batch (a golden call's parameter plan,
a case's whitelist) is what it computed per trace before: equal on arbitrary cases under every
built-in rule set, and the same on every later use."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rejudge.judge import build_context, builtin_refs, load_rule_set
from rejudge.judge._context import clear_case_caches

from .conftest import REGISTRY
from .test_properties import arbitrary_cases, traces

RULES = [load_rule_set(ref) for ref in builtin_refs()]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(traces(), arbitrary_cases(), st.sampled_from(RULES))
def test_param_plan_is_each_parameter_rule_and_matcher(trace, the_case, rules):
    ctx = build_context(trace, the_case, REGISTRY, rules)
    for golden in ctx.case.golden.calls:
        expected = []
        for param in sorted(golden.params):
            gval = golden.params[param]
            rule = ctx.rule_for(golden, golden.tool, param, gval)
            expected.append((param, gval, rule, *ctx.settings.alias(rule)))
        plan = ctx.param_plan(golden)
        assert list(plan) == expected
        # a later trace's context gets the very plan kept for this golden call
        assert build_context(trace, the_case, REGISTRY, rules).param_plan(golden) is plan


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(traces(), arbitrary_cases(), st.sampled_from(RULES))
def test_kept_whitelist_is_the_computed_one(trace, the_case, rules):
    ctx = build_context(trace, the_case, REGISTRY, rules)
    computed = ctx._compute_whitelist()
    first = ctx.effective_whitelist()
    assert first == computed and ctx.whitelist_set() == frozenset(computed)
    first.append("changed by a caller")  # callers get a copy: the kept list stays as it was
    again = build_context(trace, the_case, REGISTRY, rules)
    assert again.effective_whitelist() == computed
    clear_case_caches()
    assert build_context(trace, the_case, REGISTRY, rules).effective_whitelist() == computed
