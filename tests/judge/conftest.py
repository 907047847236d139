"""A small hand-made tool world for judge tests (independent of the shipped domains)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from rejudge.model import (
    Case,
    Golden,
    GoldenCall,
    Round,
    RunConfig,
    ToolCall,
    ToolRegistry,
    ToolSpec,
    Trace,
)

if TYPE_CHECKING:
    from rejudge.store import RunRecord, Store


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


S = {"type": "string"}

TOOLS = [
    ToolSpec(name="get_user", parameters=_obj({"user_id": S}, ["user_id"]), read_only=True),
    ToolSpec(name="get_order", parameters=_obj({"order_id": S}, ["order_id"]), read_only=True),
    ToolSpec(name="list_orders", parameters=_obj({"user_id": S}, ["user_id"]), read_only=True),
    ToolSpec(name="get_return_policy", parameters=_obj({}, []), read_only=True),
    ToolSpec(
        name="check_stock",
        parameters=_obj(
            {"product_id": S, "quantity": {"type": "integer", "minimum": 1, "default": 1}},
            ["product_id"],
        ),
        read_only=True,
    ),
    ToolSpec(
        name="search_products",
        parameters=_obj(
            {
                "query": S,
                "keywords": {"type": "array", "items": S},
                "limit": {"type": "integer", "default": 10},
            },
            [],
        ),
        read_only=True,
    ),
    ToolSpec(name="find_products", parameters=_obj({"query": S}, ["query"]), read_only=True),
    ToolSpec(
        name="request_cancel",
        parameters=_obj({"order_id": S, "reason": S}, ["order_id", "reason"]),
    ),
    ToolSpec(
        name="request_return",
        parameters=_obj(
            {"order_id": S, "item_ids": {"type": "array", "items": S}, "reason": S},
            ["order_id", "item_ids"],
        ),
    ),
    ToolSpec(
        name="schedule_delivery",
        parameters=_obj(
            {
                "order_id": S,
                "date": S,
                "window": {"type": "string", "enum": ["am", "pm"], "default": "am"},
            },
            ["order_id", "date"],
        ),
    ),
    ToolSpec(name="confirm_action", parameters=_obj({"action_id": S}, ["action_id"])),
    ToolSpec(name="abort_action", parameters=_obj({"action_id": S}, ["action_id"])),
    ToolSpec(name="queue_note", parameters=_obj({"order_id": S, "note": S}, ["order_id", "note"])),
    ToolSpec(name="apply_queued", parameters=_obj({}, [])),
]

REGISTRY = ToolRegistry(
    domain="retail",
    version="test-1",
    tools=TOOLS,
    equivalences=[["search_products", "find_products"]],
    alternative_keys={"search_products": {"query": ["keywords"]}},
    follow_ups={"queue_note": ["apply_queued"]},
    fixture_ids={
        "user_id": ["U101", "U102", "U103"],
        "order_id": [f"W44{i}" for i in range(1, 9)],
        "product_id": ["P201", "P202", "P203"],
        "item_ids": ["P201", "P202", "P203"],
    },
)


def call(name: str, ok: bool | None = True, **arguments: Any) -> ToolCall:
    return ToolCall(
        name=name, arguments=arguments, arguments_raw="", ok=ok, result={} if ok else None
    )


def raw_call(name: str, raw: str) -> ToolCall:
    return ToolCall(
        name=name, arguments=None, arguments_raw=raw, parse_error="Expecting value", ok=False
    )


def trace(*calls: ToolCall, case_id: str = "c1", per_round: bool = True, **kw: Any) -> Trace:
    if per_round:
        rounds = [Round(index=i, calls=[c]) for i, c in enumerate(calls)]
    else:
        rounds = [Round(index=0, calls=list(calls))]
    rounds.append(Round(index=len(rounds), text="done"))
    return Trace(case_id=case_id, rounds=rounds, final_text="done", **kw)


def gcall(
    tool: str, rules: dict[str, str] | None = None, count: int = 1, **params: Any
) -> GoldenCall:
    return GoldenCall(tool=tool, params=params, param_rules=rules or {}, count=count)


def case(
    *calls: GoldenCall,
    id: str = "c1",
    order_sensitive: bool = False,
    allowed_extra: list[str] | None = None,
    dimension: str = "D1",
    category: str = "cat",
    **kw: Any,
) -> Case:
    return Case(
        id=id,
        dimension=dimension,
        category=category,
        instruction="do it",
        golden=Golden(
            calls=list(calls), order_sensitive=order_sensitive, allowed_extra=allowed_extra
        ),
        **kw,
    )


def replay(c: Case) -> Trace:
    """The golden sequence of a case as if a model had produced it (all calls succeed)."""
    calls = []
    for g in c.golden.calls:
        for _ in range(g.count):
            calls.append(call(g.tool, **g.params))
    return trace(*calls, case_id=c.id)


def saved_run(st: Store, cases: list[Case], traces: list[Trace], *, run: str = "r1") -> RunRecord:
    """A suite of ``cases`` on this world's registry and a run of ``traces``, saved in ``st``
    (what the store-backed judging tests and bench/model_graded.py start from)."""
    suite = st.suites.save_suite(
        name="t", domain="retail", suite_hash="sha256:t", registry=REGISTRY, cases=cases
    )
    record = st.runs.create_run(name=run, suite=suite, config=RunConfig(model="m"))
    pks = st.suites.get_case_pks(suite.id)
    st.traces.save_traces([(record.id, pks[t.case_id], t, None, None) for t in traces])
    return record


def tau_store(url: str) -> Store:
    """The store at ``url``, opened, with τ-bench's GPT-4o airline run imported as ``tau`` (200
    traces with τ-bench's rewards; what the τ-bench pages' tests and bench/html_report.py judge)."""
    from rejudge.store import Store

    from rejudge.importers import SHIPPED_TAU_BENCH
    from rejudge.services import import_tau_bench

    store = Store.open(url)
    import_tau_bench(
        SHIPPED_TAU_BENCH / "gpt-4o-airline.json",
        store,
        tools=SHIPPED_TAU_BENCH / "tools.json",
        run_name="tau",
    )
    return store


@pytest.fixture()
def registry() -> ToolRegistry:
    return REGISTRY


@pytest.fixture(scope="session")
def tau():
    """τ-bench's GPT-4o airline run parsed as the import parses it: (parse, cases by id,
    τ-bench's reward by (case, repetition))."""
    from rejudge.importers import SHIPPED_TAU_BENCH, parse_tau_bench

    data = json.loads((SHIPPED_TAU_BENCH / "gpt-4o-airline.json").read_text(encoding="utf-8"))
    tools = json.loads((SHIPPED_TAU_BENCH / "tools.json").read_text(encoding="utf-8"))
    parsed = parse_tau_bench(data, tools=tools)
    cases = {c.id: c for c in parsed.cases}
    rewards = {(v.case_id, v.repetition): v.value for v in parsed.verdicts}
    return parsed, cases, rewards
