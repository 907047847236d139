"""Hand-built traces per tier and per taxonomy code: each row names the verdict, the exact causes
and why."""

from __future__ import annotations

import pytest
from rejudge.judge import judge, load_rule_set

from rejudge.model import TraceError

from .conftest import REGISTRY, call, case, gcall, raw_call, replay, trace

S1 = "standard@1"
S2 = "standard@2"

CANCEL = case(
    gcall("get_order", order_id="W441"),
    gcall("request_cancel", order_id="W441", reason="Changed my mind"),
    order_sensitive=True,
)
GET = case(gcall("get_order", order_id="W441"))
NEG_STRICT = case(allowed_extra=[], negative=True)
NEG_DEFAULT = case(negative=True)
DELIVERY_PM = case(gcall("schedule_delivery", order_id="W441", date="2024-05-01", window="pm"))
DELIVERY_AM = case(gcall("schedule_delivery", order_id="W441", date="2024-05-01", window="am"))
DELIVERY_DATE = case(
    gcall("schedule_delivery", {"date": "normalized_date"}, order_id="W441", date="2024-05-01")
)
STOCK2 = case(gcall("check_stock", count=2, product_id="P201"))
SEARCH = case(gcall("search_products", query="lamp"))
NOTE = case(gcall("queue_note", order_id="W441", note="leave at door"))
CONFIRM = case(
    gcall("request_cancel", {"reason": "contains"}, order_id="W441", reason="mind"),
    gcall("confirm_action", {"action_id": "any"}, action_id="act-1"),
    order_sensitive=True,
)
STOCK_QTY = case(gcall("check_stock", product_id="P201", quantity=2))
RETURN = case(gcall("request_return", order_id="W442", item_ids=["P201", "P202"]))

ok_cancel = [
    call("get_order", order_id="W441"),
    call("request_cancel", order_id="W441", reason="Changed my mind"),
]

ROWS = [
    # ---------------------------------------------------------------- golden tier
    (
        "golden replay",
        CANCEL,
        trace(*ok_cancel),
        "golden",
        S1,
        "PASS",
        [],
        "the golden sequence itself",
    ),
    (
        "default whitelist read",
        CANCEL,
        trace(ok_cancel[0], call("get_user", user_id="U101"), ok_cancel[1]),
        "golden",
        S1,
        "PASS",
        [],
        "get_user is in the default retail whitelist",
    ),
    (
        "strict mode",
        case(gcall("get_order", order_id="W441"), allowed_extra=[]),
        trace(call("get_user", user_id="U101"), call("get_order", order_id="W441")),
        "golden",
        S1,
        "FAIL",
        ["TOOL_UNEXPECTED"],
        "allowed_extra=[] is strict: nothing extra",
    ),
    (
        "allowed_extra replaces default",
        case(gcall("request_cancel", order_id="W441", reason="x"), allowed_extra=["get_order"]),
        trace(
            call("get_user", user_id="U101"), call("request_cancel", order_id="W441", reason="x")
        ),
        "golden",
        S1,
        "FAIL",
        ["TOOL_UNEXPECTED"],
        "case list replaces (does not merge with) the default",
    ),
    (
        "allowed_extra admits its read",
        case(gcall("request_cancel", order_id="W441", reason="x"), allowed_extra=["get_order"]),
        trace(
            call("get_order", order_id="W442"), call("request_cancel", order_id="W441", reason="x")
        ),
        "golden",
        S1,
        "PASS",
        [],
        "get_order whitelisted by the case",
    ),
    (
        "mutation never whitelisted",
        case(gcall("get_order", order_id="W441"), allowed_extra=["request_cancel"]),
        trace(
            call("get_order", order_id="W441"), call("request_cancel", order_id="W441", reason="x")
        ),
        "golden",
        S1,
        "FAIL",
        ["TOOL_UNEXPECTED"],
        "a state-changing tool cannot be whitelisted",
    ),
    (
        "whitelisted read, unknown id",
        GET,
        trace(call("get_user", user_id="U999"), call("get_order", order_id="W441")),
        "golden",
        S1,
        "FAIL",
        ["TOOL_UNEXPECTED", "PARAM_HALLUCINATED_ID"],
        "unknown fixture id: never whitelisted",
    ),
    (
        "whitelisted read, schema invalid",
        GET,
        trace(call("get_user", user_id=101), call("get_order", order_id="W441")),
        "golden",
        S1,
        "FAIL",
        ["TOOL_UNEXPECTED", "SCHEMA_INVALID"],
        "schema-invalid: never whitelisted",
    ),
    (
        "whitelisted read that failed",
        GET,
        trace(call("get_user", ok=False, user_id="U101"), call("get_order", order_id="W441")),
        "golden",
        S1,
        "FAIL",
        ["TOOL_UNEXPECTED"],
        "only successful reads may be ignored",
    ),
    (
        "unknown tool",
        GET,
        trace(call("get_order", order_id="W441"), call("delete_all")),
        "golden",
        S1,
        "FAIL",
        ["FUNCTION_NOT_FOUND"],
        "the registry has no such tool",
    ),
    (
        "negative strict, a read",
        NEG_STRICT,
        trace(call("get_order", order_id="W441")),
        "golden",
        S1,
        "FAIL",
        ["CALL_WHEN_NONE_EXPECTED"],
        "no call was expected and nothing is whitelisted",
    ),
    (
        "negative, no call",
        NEG_STRICT,
        trace(),
        "golden",
        S1,
        "PASS",
        [],
        "answered without calling",
    ),
    (
        "negative default whitelist",
        NEG_DEFAULT,
        trace(call("get_user", user_id="U102")),
        "golden",
        S1,
        "PASS",
        [],
        "a whitelisted read is filtered before the negative check",
    ),
    (
        "negative, mutation",
        NEG_DEFAULT,
        trace(call("request_cancel", order_id="W441", reason="x")),
        "golden",
        S1,
        "FAIL",
        ["CALL_WHEN_NONE_EXPECTED"],
        "a mutation in a negative case",
    ),
    (
        "order wrong",
        CANCEL,
        trace(ok_cancel[1], ok_cancel[0]),
        "golden",
        S1,
        "FAIL",
        ["ORDER_WRONG"],
        "order_sensitive and reversed",
    ),
    (
        "order free",
        case(*CANCEL.golden.calls, order_sensitive=False),
        trace(ok_cancel[1], ok_cancel[0]),
        "golden",
        S1,
        "PASS",
        [],
        "order_sensitive false: any order",
    ),
    (
        "param missing",
        DELIVERY_PM,
        trace(call("schedule_delivery", order_id="W441", date="2024-05-01")),
        "golden",
        S1,
        "FAIL",
        ["PARAM_MISSING"],
        "window omitted",
    ),
    (
        "default not honoured by golden",
        DELIVERY_AM,
        trace(call("schedule_delivery", order_id="W441", date="2024-05-01")),
        "golden",
        S1,
        "FAIL",
        ["PARAM_MISSING"],
        "golden tier compares golden keys; defaults are completion's",
    ),
    (
        "date format",
        DELIVERY_DATE,
        trace(call("schedule_delivery", order_id="W441", date="next Friday")),
        "golden",
        S1,
        "FAIL",
        ["PARAM_WRONG_FORMAT"],
        "natural language is not parsed",
    ),
    (
        "date naive vs aware",
        case(
            gcall(
                "schedule_delivery",
                {"date": "normalized_date"},
                order_id="W441",
                date="2024-05-01T10:00:00Z",
            )
        ),
        trace(call("schedule_delivery", order_id="W441", date="2024-05-01T10:00:00")),
        "golden",
        S1,
        "FAIL",
        ["PARAM_WRONG_FORMAT"],
        "naive vs aware",
    ),
    (
        "date aware equal",
        case(
            gcall(
                "schedule_delivery",
                {"date": "normalized_date"},
                order_id="W441",
                date="2024-05-01T10:00:00Z",
            )
        ),
        trace(call("schedule_delivery", order_id="W441", date="2024-05-01T12:00:00+02:00")),
        "golden",
        S1,
        "PASS",
        [],
        "aware datetimes compare in UTC",
    ),
    (
        "schema-invalid value",
        STOCK_QTY,
        trace(call("check_stock", product_id="P201", quantity="2")),
        "golden",
        S1,
        "FAIL",
        ["PARAM_WRONG_FORMAT", "SCHEMA_INVALID"],
        "a string where the schema says integer",
    ),
    (
        "numeric equality",
        STOCK_QTY,
        trace(call("check_stock", product_id="P201", quantity=2.0)),
        "golden",
        S1,
        "PASS",
        [],
        "1 == 1.0, and JSON Schema's integer accepts 2.0",
    ),
    (
        "hallucinated id",
        GET,
        trace(call("get_order", order_id="W999")),
        "golden",
        S1,
        "FAIL",
        ["PARAM_HALLUCINATED_ID"],
        "W999 is no fixture",
    ),
    (
        "wrong value",
        GET,
        trace(call("get_order", order_id="W442")),
        "golden",
        S1,
        "FAIL",
        ["PARAM_WRONG_VALUE"],
        "a real but wrong order",
    ),
    (
        "tool wrong",
        case(gcall("request_cancel", order_id="W442", reason="x")),
        trace(call("request_return", order_id="W442", item_ids=["P201"])),
        "golden",
        S1,
        "FAIL",
        ["TOOL_WRONG"],
        "return requested instead of cancel",
    ),
    (
        "tool missing",
        CANCEL,
        trace(ok_cancel[0]),
        "golden",
        S1,
        "FAIL",
        ["TOOL_MISSING"],
        "cancel never requested",
    ),
    (
        "unparsable arguments",
        GET,
        trace(raw_call("get_order", "{order_id: W441")),
        "golden",
        S1,
        "FAIL",
        ["ARGUMENTS_UNPARSABLE"],
        "argument text is not JSON",
    ),
    (
        "list as set",
        RETURN,
        trace(call("request_return", order_id="W442", item_ids=["P202", "P201", "P201"])),
        "golden",
        S1,
        "PASS",
        [],
        "order- and duplicate-insensitive lists",
    ),
    (
        "contains and any",
        CONFIRM,
        trace(
            call("request_cancel", order_id="W441", reason="I changed my mind"),
            call("confirm_action", action_id="a-77"),
        ),
        "golden",
        S1,
        "PASS",
        [],
        "contains substring, any action id",
    ),
    (
        "any rejects empty",
        CONFIRM,
        trace(
            call("request_cancel", order_id="W441", reason="mind"),
            call("confirm_action", action_id=""),
        ),
        "golden",
        S1,
        "FAIL",
        ["PARAM_WRONG_VALUE"],
        "an empty action id",
    ),
    (
        "count short",
        STOCK2,
        trace(call("check_stock", product_id="P201")),
        "golden",
        S1,
        "FAIL",
        ["TOOL_MISSING"],
        "two instances expected, one made",
    ),
    (
        "count met",
        STOCK2,
        trace(call("check_stock", product_id="P201"), call("check_stock", product_id="P201")),
        "golden",
        S1,
        "PASS",
        [],
        "two instances",
    ),
    (
        "count exceeded s1",
        STOCK2,
        trace(*[call("check_stock", product_id="P201")] * 3),
        "golden",
        S1,
        "FAIL",
        ["TOOL_UNEXPECTED"],
        "a third, non-whitelisted repeat",
    ),
    (
        "count exceeded s2",
        STOCK2,
        trace(*[call("check_stock", product_id="P201")] * 3),
        "golden",
        S2,
        "PASS",
        [],
        "standard@2 tolerates exact repeats of matched reads",
    ),
    (
        "every cause listed",
        CANCEL,
        trace(
            call("get_order", order_id="W999"),
            call("request_return", order_id="W441", item_ids=["P201"]),
            call("nuke"),
        ),
        "golden",
        S1,
        "FAIL",
        ["FUNCTION_NOT_FOUND", "TOOL_WRONG", "PARAM_HALLUCINATED_ID"],
        "all causes, in precedence order",
    ),
    (
        "rule error",
        case(gcall("schedule_delivery", {"date": "normalized_date"}, order_id="W441", date="soon")),
        trace(call("schedule_delivery", order_id="W441", date="2024-05-01")),
        "golden",
        S1,
        "FAIL",
        ["RULE_ERROR"],
        "golden value is not ISO: recorded, not raised",
    ),
    (
        "free text s1",
        CANCEL,
        trace(ok_cancel[0], call("request_cancel", order_id="W441", reason=" changed  my MIND")),
        "golden",
        S1,
        "FAIL",
        ["PARAM_WRONG_VALUE"],
        "standard@1 compares free text exactly",
    ),
    (
        "free text s2",
        CANCEL,
        trace(ok_cancel[0], call("request_cancel", order_id="W441", reason=" changed  my MIND")),
        "golden",
        S2,
        "PASS",
        [],
        "standard@2 normalizes free-text parameters",
    ),
    (
        "ids stay exact in s2",
        GET,
        trace(call("get_order", order_id="w441")),
        "golden",
        S2,
        "FAIL",
        ["PARAM_HALLUCINATED_ID"],
        "fixture-backed ids are not free text",
    ),
    # ---------------------------------------------------------------- contract / execution
    ("contract replay", CANCEL, trace(*ok_cancel), "contract", S1, "PASS", [], "exact sequence"),
    (
        "contract no extras",
        CANCEL,
        trace(ok_cancel[0], call("get_user", user_id="U101"), ok_cancel[1]),
        "contract",
        S1,
        "FAIL",
        ["TOOL_UNEXPECTED"],
        "the contract tier tolerates nothing extra",
    ),
    (
        "contract order always",
        case(*CANCEL.golden.calls, order_sensitive=False),
        trace(ok_cancel[1], ok_cancel[0]),
        "contract",
        S1,
        "FAIL",
        ["ORDER_WRONG"],
        "exact tool sequence",
    ),
    (
        "contract exact keys",
        SEARCH,
        trace(call("search_products", query="lamp", limit=10)),
        "contract",
        S1,
        "FAIL",
        ["PARAM_UNEXPECTED"],
        "an argument key the golden call lacks",
    ),
    (
        "golden extra key ok",
        SEARCH,
        trace(call("search_products", query="lamp", limit=10)),
        "golden",
        S1,
        "PASS",
        [],
        "the golden tier compares golden keys",
    ),
    (
        "contract omitted default",
        DELIVERY_AM,
        trace(call("schedule_delivery", order_id="W441", date="2024-05-01")),
        "contract",
        S1,
        "FAIL",
        ["PARAM_MISSING"],
        "contract keys are exact",
    ),
    (
        "contract ignores execution",
        GET,
        trace(call("get_order", ok=False, order_id="W441")),
        "contract",
        S1,
        "PASS",
        [],
        "contract does not require execution",
    ),
    (
        "execution failed",
        GET,
        trace(call("get_order", ok=False, order_id="W441")),
        "execution",
        S1,
        "FAIL",
        ["EXECUTION_FAILED"],
        "the expected call failed",
    ),
    (
        "execution not run",
        GET,
        trace(call("get_order", ok=None, order_id="W441")),
        "execution",
        S1,
        "FAIL",
        ["EXECUTION_FAILED"],
        "never executed is not success",
    ),
    (
        "execution call-only",
        case(gcall("get_order", order_id="W441"), call_only=True),
        trace(call("get_order", ok=False, order_id="W441")),
        "execution",
        S1,
        "PASS",
        [],
        "call-only: making the call is enough",
    ),
    (
        "execution retry",
        GET,
        trace(call("get_order", ok=False, order_id="W441"), call("get_order", order_id="W441")),
        "execution",
        S1,
        "FAIL",
        ["TOOL_UNEXPECTED", "EXECUTION_FAILED"],
        "strict sequence: first failed, second extra",
    ),
    (
        "contract negative",
        NEG_DEFAULT,
        trace(call("get_user", user_id="U101")),
        "contract",
        S1,
        "FAIL",
        ["CALL_WHEN_NONE_EXPECTED"],
        "contract has no whitelist",
    ),
    # ---------------------------------------------------------------- completion
    (
        "completion replay",
        CANCEL,
        trace(*ok_cancel),
        "completion",
        S1,
        "PASS",
        [],
        "golden sequence",
    ),
    (
        "completion any order",
        CANCEL,
        trace(ok_cancel[1], ok_cancel[0]),
        "completion",
        S1,
        "PASS",
        [],
        "step order is free",
    ),
    (
        "completion read-only extra",
        CANCEL,
        trace(call("check_stock", product_id="P202"), *ok_cancel),
        "completion",
        S1,
        "PASS",
        [],
        "read-only extras are tolerated",
    ),
    (
        "completion mutation extra",
        GET,
        trace(
            call("get_order", order_id="W441"), call("request_cancel", order_id="W441", reason="x")
        ),
        "completion",
        S1,
        "FAIL",
        ["TOOL_UNEXPECTED"],
        "an unexpected state-changing call",
    ),
    (
        "completion equivalent tool",
        SEARCH,
        trace(call("find_products", query="lamp")),
        "completion",
        S1,
        "PASS",
        [],
        "a declared equivalent covers the capability",
    ),
    (
        "golden no equivalents",
        SEARCH,
        trace(call("find_products", query="lamp")),
        "golden",
        S1,
        "FAIL",
        ["TOOL_WRONG"],
        "the golden tier has no equivalences",
    ),
    (
        "case-level equivalence",
        case(gcall("get_order", order_id="W441"), equivalent_tools={"get_order": ["list_orders"]}),
        trace(call("list_orders", user_id="U101")),
        "completion",
        S1,
        "PASS",
        [],
        "case declares list_orders equivalent; order_id not applicable to it",
    ),
    (
        "completion alternative key",
        SEARCH,
        trace(call("search_products", keywords=["lamp"])),
        "completion",
        S1,
        "PASS",
        [],
        "keywords is a declared alternative of query",
    ),
    (
        "contract no alternative key",
        SEARCH,
        trace(call("search_products", keywords=["lamp"])),
        "contract",
        S1,
        "FAIL",
        ["PARAM_MISSING", "PARAM_UNEXPECTED"],
        "contract keys are exact",
    ),
    (
        "case-level alternative key",
        case(
            gcall("get_order", order_id="W441"),
            alternative_keys={"get_order": {"order_id": ["user_id"]}},
        ),
        trace(call("get_order", user_id="U101")),
        "completion",
        S1,
        "FAIL",
        ["SCHEMA_INVALID"],
        "alternative key accepted, but the schema forbids it",
    ),
    (
        "completion default",
        DELIVERY_AM,
        trace(call("schedule_delivery", order_id="W441", date="2024-05-01")),
        "completion",
        S1,
        "PASS",
        [],
        "omitted schema default equals the golden value",
    ),
    (
        "completion default differs",
        DELIVERY_PM,
        trace(call("schedule_delivery", order_id="W441", date="2024-05-01")),
        "completion",
        S1,
        "FAIL",
        ["PARAM_MISSING"],
        "the default is am, golden wants pm",
    ),
    (
        "completion follow-up",
        NOTE,
        trace(call("queue_note", order_id="W441", note="leave at door"), call("apply_queued")),
        "completion",
        S1,
        "PASS",
        [],
        "apply_queued is the declared follow-up of queue_note",
    ),
    (
        "follow-up before step",
        NOTE,
        trace(call("apply_queued"), call("queue_note", order_id="W441", note="leave at door")),
        "completion",
        S1,
        "FAIL",
        ["TOOL_UNEXPECTED"],
        "a follow-up must follow its step",
    ),
    (
        "golden no follow-ups",
        NOTE,
        trace(call("queue_note", order_id="W441", note="leave at door"), call("apply_queued")),
        "golden",
        S1,
        "FAIL",
        ["TOOL_UNEXPECTED"],
        "follow-ups are a completion-tier tolerance",
    ),
    (
        "case-level follow-up",
        case(
            gcall("request_cancel", order_id="W441", reason="x"),
            follow_ups={"request_cancel": ["confirm_action"]},
        ),
        trace(
            call("request_cancel", order_id="W441", reason="x"),
            call("confirm_action", action_id="a1"),
        ),
        "completion",
        S1,
        "PASS",
        [],
        "the case declares confirm_action a follow-up",
    ),
    (
        "completion repeat instance",
        GET,
        trace(call("get_order", order_id="W441"), call("get_order", order_id="W441")),
        "completion",
        S1,
        "PASS",
        [],
        "another instance of a required capability",
    ),
    (
        "completion retry",
        GET,
        trace(call("get_order", ok=False, order_id="W441"), call("get_order", order_id="W441")),
        "completion",
        S1,
        "PASS",
        [],
        "the successful instance covers the step",
    ),
    (
        "completion failed",
        GET,
        trace(call("get_order", ok=False, order_id="W441")),
        "completion",
        S1,
        "FAIL",
        ["EXECUTION_FAILED"],
        "expected call must succeed",
    ),
    (
        "completion-contract failed",
        GET,
        trace(call("get_order", ok=False, order_id="W441")),
        "completion-contract",
        S1,
        "PASS",
        [],
        "no execution requirement",
    ),
    (
        "completion schema-invalid extra",
        GET,
        trace(call("get_order", order_id="W441"), call("get_user", user_id=1)),
        "completion",
        S1,
        "FAIL",
        ["SCHEMA_INVALID"],
        "every call must be schema-valid",
    ),
    (
        "completion negative strict",
        NEG_STRICT,
        trace(call("get_user", user_id="U101")),
        "completion",
        S1,
        "FAIL",
        ["CALL_WHEN_NONE_EXPECTED"],
        "strict negative: no call at all",
    ),
    (
        "completion negative read",
        NEG_DEFAULT,
        trace(call("get_user", user_id="U101")),
        "completion",
        S1,
        "PASS",
        [],
        "read-only call in a non-strict negative case",
    ),
    (
        "completion negative mutation",
        NEG_DEFAULT,
        trace(call("request_cancel", order_id="W441", reason="x")),
        "completion",
        S1,
        "FAIL",
        ["CALL_WHEN_NONE_EXPECTED"],
        "a mutation when no call was expected",
    ),
    (
        "completion unknown tool",
        GET,
        trace(call("get_order", order_id="W441"), call("teleport")),
        "completion",
        S1,
        "FAIL",
        ["FUNCTION_NOT_FOUND"],
        "unknown tool is never tolerated",
    ),
]


@pytest.mark.parametrize(
    ("name", "the_case", "the_trace", "tier", "rules", "verdict", "taxonomy", "why"),
    ROWS,
    ids=[r[0] for r in ROWS],
)
def test_table(name, the_case, the_trace, tier, rules, verdict, taxonomy, why):
    j = judge(the_trace, the_case, REGISTRY, tier, load_rule_set(rules))
    assert (j.verdict, j.taxonomy) == (verdict, taxonomy), f"{why}\nreasons: {j.reasons}"
    if verdict == "FAIL":
        assert j.reasons, "a FAIL explains itself"
        assert j.details["primary_cause"] == taxonomy[0]


ALL_TIERS = ["contract", "execution", "completion", "completion-contract", "golden"]


@pytest.mark.parametrize("tier", ALL_TIERS)
def test_skip_and_agent_error(tier):
    skipped = case(gcall("get_order", order_id="W441"), skip=True, skip_reason="fixture broken")
    j = judge(trace(), skipped, REGISTRY, tier, load_rule_set(S1))
    assert j.verdict == "SKIP" and j.taxonomy == [] and "fixture broken" in j.reasons[0]
    errored = trace(
        call("get_order", order_id="W441"),
        status="agent_error",
        error=TraceError(kind="timeout", message="no answer in 60 s"),
    )
    j = judge(errored, GET, REGISTRY, tier, load_rule_set(S1))
    assert j.verdict == "AGENT_ERROR" and j.taxonomy == [] and "timeout" in j.reasons[0]


@pytest.mark.parametrize("tier", ALL_TIERS)
def test_replay_passes_every_tier(tier):
    for c in (CANCEL, GET, STOCK2, SEARCH, NOTE, CONFIRM, DELIVERY_AM, RETURN, NEG_STRICT):
        j = judge(replay(c), c, REGISTRY, tier, load_rule_set(S1))
        assert j.verdict == "PASS", (c.golden, j.reasons)
        assert j.partial_score == 1.0


def test_diff_is_call_by_call_and_argument_by_argument():
    t = trace(
        call("get_order", order_id="W441"),
        call("get_user", user_id="U101"),
        call("request_cancel", order_id="W441", reason="nope"),
    )
    j = judge(t, CANCEL, REGISTRY, "golden", load_rule_set(S1))
    kinds = [(d["kind"], d["status"]) for d in j.diff]
    assert kinds == [("expected", "match"), ("expected", "mismatch"), ("extra", "tolerated")]
    cancel = j.diff[1]
    assert cancel["actual_index"] == 2
    reason = [p for p in cancel["params"] if p["name"] == "reason"][0]
    assert reason == {
        "name": "reason",
        "rule": "exact",
        "golden": "Changed my mind",
        "actual": "nope",
        "status": "mismatch",
        "code": "PARAM_WRONG_VALUE",
        "detail": "expected 'Changed my mind', got 'nope'",
    }
    assert j.diff[2]["tolerated_as"] == "whitelist"
    assert j.details["implicated_tools"] == ["request_cancel"]


def test_partial_weights_follow_the_seed():
    # one of two expected calls, right arguments, schema-valid, executed ok
    t = trace(call("get_order", order_id="W441"))
    contract = judge(t, CANCEL, REGISTRY, "golden", load_rule_set(S1))
    assert contract.partial_breakdown == {"arguments": 0.5, "schema": 0.5, "tools": 0.5}
    assert contract.partial_score == pytest.approx(0.45 * 0.5 + 0.35 * 0.5 + 0.20 * 0.5)
    execution = judge(t, CANCEL, REGISTRY, "completion", load_rule_set(S1))
    assert set(execution.partial_breakdown) == {
        "tools",
        "arguments",
        "schema",
        "observed",
        "success",
    }
    assert execution.partial_score == pytest.approx(0.5)
    # a perfect argument set does not rescue the verdict
    assert contract.verdict == execution.verdict == "FAIL"


def test_anomaly_zero_score_while_every_call_executed():
    t = trace(call("get_user", user_id="U101"))  # executed fine, nothing expected was done
    strict = case(gcall("request_cancel", order_id="W441", reason="x"), allowed_extra=[])
    j = judge(t, strict, REGISTRY, "contract", load_rule_set(S1))
    assert j.partial_score == 0.0
    assert "zero_partial_score_all_calls_executed" in j.anomalies


def test_unknown_tier_is_a_clear_error():
    from rejudge.errors import NotFoundError

    with pytest.raises(NotFoundError, match="unknown tier"):
        judge(trace(), GET, REGISTRY, "nope", load_rule_set(S1))


def test_wire_names_map_to_registry_names():
    reg = REGISTRY.model_copy(update={"name_map": {"orders_get": "get_order"}})
    j = judge(trace(call("orders_get", order_id="W441")), GET, reg, "contract", load_rule_set(S1))
    assert j.verdict == "PASS"
