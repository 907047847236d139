"""The judge context computes its derived facts (registry index, analysed calls, golden slots)
only when a tier reads them: a tier that reads only the raw inputs (bfcl-ast) never pays for
per-call JSON Schema checks or schema compilation."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import rejudge.judge._context as context_mod
from rejudge.judge import JudgeContext, build_context, judge, load_rule_set
from rejudge.judge.tiers import TierResult

from rejudge.model import Case, ToolRegistry

from .conftest import REGISTRY, call, case, gcall, trace

GET = case(gcall("get_order", order_id="W441"))
TRACE = trace(call("get_order", order_id="W441"), call("teleport", to="moon"))


@dataclass(frozen=True)
class _RawInputsTier:
    """Reads what bfcl-ast reads: case, rule set, trace, registry (and settings)."""

    name: str = "test-raw-inputs"
    description: str = "reads only the raw inputs"
    partial_family: str = "contract"

    def applies(self, case: Case, registry: ToolRegistry) -> bool:
        return True

    def evaluate(self, ctx: JudgeContext) -> TierResult:
        assert ctx.case.id == GET.id and ctx.trace is TRACE and ctx.registry is REGISTRY
        assert ctx.rule_set.ref and ctx.settings is not None
        return TierResult(partial={"tools": 1.0, "arguments": 1.0, "schema": 1.0})


def _boom(*_args: object, **_kw: object) -> None:
    raise AssertionError("derived context computed although the tier never read it")


def test_a_tier_reading_only_raw_inputs_computes_nothing_derived(monkeypatch):
    monkeypatch.setattr(context_mod, "analyse_calls", _boom)
    monkeypatch.setattr(context_mod, "registry_index", _boom)
    monkeypatch.setattr(context_mod, "expand_slots", _boom)
    j = judge(TRACE, GET, REGISTRY, _RawInputsTier(), load_rule_set("standard@2"))
    # an AssertionError inside evaluate would be recorded as JUDGE_ERROR, not raised
    assert (j.verdict, j.taxonomy, j.anomalies) == ("PASS", [], [])


def test_derived_facts_are_computed_once_on_first_access(monkeypatch):
    seen: list[str] = []
    real = context_mod.analyse_calls

    def counting(*args, **kw):
        seen.append("calls")
        return real(*args, **kw)

    monkeypatch.setattr(context_mod, "analyse_calls", counting)
    ctx = build_context(TRACE, GET, REGISTRY, load_rule_set("standard@2"))
    assert seen == []
    first = ctx.calls
    assert ctx.calls is first and seen == ["calls"]
    assert [c.name for c in first] == ["get_order", "teleport"]
    assert [c.known for c in first] == [True, False]
    assert ctx.index is context_mod.registry_index(REGISTRY)
    assert [s.tool for s in ctx.slots] == ["get_order"]


@pytest.mark.parametrize("tier", ["contract", "golden", "completion"])
def test_call_tiers_still_see_every_derived_fact(tier):
    j = judge(TRACE, GET, REGISTRY, tier, load_rule_set("standard@2"))
    assert j.verdict == "FAIL"
    assert "FUNCTION_NOT_FOUND" in j.taxonomy
