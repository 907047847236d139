"""The ``server_tools`` rule-set setting, freeform tool calls, and conversations over turns."""

from __future__ import annotations

from rejudge.judge import builtin_rule_sets, judge, load_rule_set, rule_set_from_dict

from rejudge.model import Round, ServerToolUse, ToolCall, ToolRegistry, ToolSpec, Trace, UserTurn

from .conftest import REGISTRY, call, case, gcall

WEB = ToolSpec(
    name="web_search",
    parameters={"type": "object", "properties": {"query": {"type": "string"}}},
    read_only=True,
)
WORLD = REGISTRY.model_copy(update={"tools": [*REGISTRY.tools, WEB]})


def _as_calls() -> object:
    return rule_set_from_dict(
        {
            "name": "srv",
            "version": "1",
            "extends": "standard@2",
            "settings": {"server_tools": "as_calls"},
        }
    )


def _searching_trace() -> Trace:
    return Trace(
        case_id="c1",
        rounds=[
            Round(
                index=0,
                text="It rains.",
                server_tools=[
                    ServerToolUse(
                        id="s1",
                        name="web_search",
                        input={"query": "oslo weather"},
                        result=[{"url": "u"}],
                        kind="server_tool_use",
                    )
                ],
            )
        ],
        final_text="It rains.",
    )


def test_the_setting_defaults_off_and_released_rule_sets_keep_their_hashes() -> None:
    for rule_set in builtin_rule_sets():
        assert "server_tools" not in rule_set.settings
    explicit = rule_set_from_dict(
        {
            "name": "standard",
            "version": "2",
            "extends": "standard@2",
            "settings": {"server_tools": "ignore"},
        }
    )
    standard = load_rule_set("standard@2")
    assert explicit.settings == standard.settings
    assert _as_calls().settings["server_tools"] == "as_calls"  # type: ignore[attr-defined]


def test_server_tool_use_counts_only_when_the_rule_set_asks() -> None:
    golden_case = case(gcall("web_search", query="oslo weather"))
    trace = _searching_trace()
    off = judge(trace, golden_case, WORLD, "golden")
    on = judge(trace, golden_case, WORLD, "golden", _as_calls())  # type: ignore[arg-type]
    assert off.verdict == "FAIL" and on.verdict == "PASS"
    assert off.trace_hash == on.trace_hash == trace.hash  # the stored trace, whatever the view
    # a case that expects no call: server-tool use is no client call by default
    negative = case(negative=True)
    assert judge(trace, negative, WORLD, "golden").verdict == "PASS"


def test_freeform_calls_are_judged_on_their_raw_input() -> None:
    sql = ToolSpec(
        name="run_sql",
        parameters={
            "type": "object",
            "properties": {"input": {"type": "string"}},
            "required": ["input"],
            "x-rejudge-freeform": True,
        },
    )
    registry = ToolRegistry(domain="db", tools=[sql])
    freeform = ToolCall(id="c", name="run_sql", arguments=None, arguments_raw="SELECT 1", ok=True)
    trace = Trace(
        case_id="c1", rounds=[Round(index=0, calls=[freeform]), Round(index=1, text="ok")]
    )
    assert (
        judge(trace, case(gcall("run_sql", input="SELECT 1")), registry, "golden").verdict == "PASS"
    )
    wrong = case(gcall("run_sql", input="SELECT 2"))
    assert judge(trace, wrong, registry, "golden").verdict == "FAIL"


def test_golden_calls_spread_over_user_turns_match() -> None:
    trace = Trace(
        case_id="c1",
        rounds=[
            Round(index=0, calls=[call("get_user", user_id="U101")]),
            Round(index=1, text="Which order?"),
            Round(index=2, calls=[call("get_order", order_id="W441")]),
            Round(index=3, text="Shipped."),
        ],
        final_text="Shipped.",
        user_turns=[
            UserTurn(before_round=0, position=0, text="who am I"),
            UserTurn(before_round=2, position=1, text="order W441 please"),
        ],
    )
    both = case(gcall("get_user", user_id="U101"), gcall("get_order", order_id="W441"))
    assert judge(trace, both, REGISTRY, "golden").verdict == "PASS"
    assert judge(trace, both, REGISTRY, "completion").verdict == "PASS"
