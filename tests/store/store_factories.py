"""Small builders of realistic store objects for the store tests."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from rejudge.store import Store, StreamedTrace
from sqlalchemy import func, select

from rejudge.model import (
    Case,
    Golden,
    GoldenCall,
    Judgment,
    PreparedJudgment,
    Round,
    RuleSet,
    RunConfig,
    ToolCall,
    ToolRegistry,
    ToolSpec,
    Trace,
    content_hash,
)


def count_rows(store: Store, table: type) -> int:
    """How many rows ``table`` (an ORM class of store.tables) holds."""
    with store.engine.connect() as c:
        return int(c.execute(select(func.count()).select_from(table)).scalar_one())


def race(writers: int, call: Callable[[], Any]) -> list[Any]:
    """Run ``call`` in ``writers`` threads released together by a barrier; their results (in
    finishing order). Any exception in a thread fails the caller's test."""
    barrier = threading.Barrier(writers)
    results: list[Any] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            barrier.wait(timeout=10)
            results.append(call())
        except BaseException as exc:  # collected and raised below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == [], errors
    assert len(results) == writers, "a writer did not finish within 60 s"
    return results


def make_registry(domain: str = "retail", version: str = "1") -> ToolRegistry:
    return ToolRegistry(
        domain=domain,
        version=version,
        tools=[
            ToolSpec(
                name="get_order",
                description="Look up an order by id.",
                parameters={
                    "type": "object",
                    "properties": {"order_id": {"type": "string"}},
                    "required": ["order_id"],
                },
                read_only=True,
                kind="read",
            ),
            ToolSpec(
                name="cancel_order",
                description="Cancel an order.",
                parameters={
                    "type": "object",
                    "properties": {
                        "order_id": {"type": "string"},
                        "reason": {"type": "string"},
                    },
                    "required": ["order_id", "reason"],
                },
                kind="request",
            ),
        ],
        equivalences=[["get_order", "find_order"]],
        fixture_ids={"order_id": ["#W100", "#W101"]},
    )


def make_case(index: int, instruction: str | None = None) -> Case:
    return Case(
        id=f"case-{index:03d}",
        dimension=f"D{index % 4 + 1}",
        category="cancel" if index % 2 else "lookup",
        instruction=instruction or f"Cancel order #W{100 + index}, it arrived broken.",
        context={"user_id": f"u{index}"},
        golden=Golden(
            calls=[
                GoldenCall(tool="get_order", params={"order_id": f"#W{100 + index}"}),
                GoldenCall(
                    tool="cancel_order",
                    params={"order_id": f"#W{100 + index}", "reason": "damaged"},
                    param_rules={"reason": "normalized_str"},
                ),
            ],
            order_sensitive=True,
        ),
        negative=index % 5 == 0,
    )


def suite_hash(cases: list[Case], registry: ToolRegistry) -> str:
    return content_hash({"cases": [c.hash for c in cases], "registry": registry.hash})


def make_trace(case_id: str, repetition: int = 0, *, rounds: int = 3, seed: int = 0) -> Trace:
    """A trace with ``rounds`` rounds: tool calls in all but the last, a final answer in it."""
    out: list[Round] = []
    for r in range(rounds - 1):
        calls = [
            ToolCall(
                id=f"call_{seed}_{r}_{k}",
                name="get_order" if k == 0 else "cancel_order",
                arguments={"order_id": f"#W{100 + seed % 50}", "reason": "damaged"},
                arguments_raw=f'{{"order_id": "#W{100 + seed % 50}", "reason": "damaged"}}',
                result={"status": "ok", "order": {"id": f"#W{100 + seed % 50}", "items": [1, 2]}},
                ok=True,
            )
            for k in range(1 + (seed + r) % 3)
        ]
        if r == 0 and seed % 7 == 3:
            calls.append(
                ToolCall(
                    name="cancel_order",
                    arguments=None,
                    arguments_raw='{"order_id": "#W1',
                    parse_error="Unterminated string",
                    ok=None,
                )
            )
        out.append(Round(index=r, calls=calls, finish_reason="tool_calls"))
    out.append(
        Round(index=rounds - 1, text="Your order is cancelled.", finish_reason="stop"),
    )
    return Trace(
        case_id=case_id,
        repetition=repetition,
        rounds=out,
        final_text="Your order is cancelled.",
        usage={"prompt_tokens": 900 + seed % 100, "completion_tokens": 40},
        normalizer_version="1",
        timings={"wall_s": 1.25 + seed % 10},
    )


def make_config(model: str = "smollm2", **changes: object) -> RunConfig:
    return RunConfig(model=model, base_url="http://127.0.0.1:8080/v1", **changes)  # type: ignore[arg-type]


def make_rule_set(version: str = "1", strict: bool = True) -> RuleSet:
    return RuleSet(name="default", version=version, settings={"strict_types": strict})


def make_judgment(
    trace: Trace, case: Case, registry: ToolRegistry, rules: RuleSet, *, verdict: str = "PASS"
) -> Judgment:
    return Judgment(
        verdict=verdict,  # type: ignore[arg-type]
        taxonomy=[] if verdict == "PASS" else ["wrong_tool"],
        partial_score=1.0 if verdict == "PASS" else 0.5,
        tier="ast",
        trace_hash=trace.hash,
        case_hash=case.hash,
        registry_hash=registry.hash,
        rule_set_hash=rules.hash,
        engine_version="0.1.0",
    )


def make_judged(store: Store) -> dict[str, Any]:
    """A run of three traces judged into one evaluation (verdicts PASS, FAIL, FAIL)."""
    registry = make_registry()
    cases = [make_case(i) for i in range(3)]
    suite = store.suites.save_suite(
        name="retail",
        domain="retail",
        suite_hash=suite_hash(cases, registry),
        registry=registry,
        cases=cases,
    )
    run = store.runs.create_run(name="r", suite=suite, config=make_config())
    pks = store.suites.get_case_pks(suite.id)
    traces = [make_trace(c.id, seed=i) for i, c in enumerate(cases)]
    store.traces.save_traces([(run.id, pks[t.case_id], t, None, None) for t in traces])
    rules = make_rule_set()
    rule_set_id = store.rule_sets.save_rule_set(rules)
    evaluation = store.evaluations.create_evaluation(
        run_id=run.id, tier="ast", rule_set_id=rule_set_id, engine_version="0.1.0"
    )
    verdicts = ["PASS", "FAIL", "FAIL"]
    judgments = [
        make_judgment(t, c, registry, rules, verdict=v)
        for t, c, v in zip(traces, cases, verdicts, strict=True)
    ]
    ids = store.judgments.save_judgments(judgments)
    trace_ids = {r.case_key: r.id for r in store.traces.iter_trace_rows(run.id)}
    store.judgments.link_judgments(
        evaluation,
        [
            {
                "judgment_id": ids[j.key],
                "trace_id": trace_ids[c.id],
                "case_key": c.id,
                "repetition": 0,
                "dimension": c.dimension,
                "category": c.category,
                "verdict": j.verdict,
                "partial_score": j.partial_score,
            }
            for j, c in zip(judgments, cases, strict=True)
        ],
    )
    return {
        "evaluation": evaluation,
        "ids": [ids[j.key] for j in judgments],
        "traces": [t.hash for t in traces],
        "cases": [c.id for c in cases],
        "run_id": run.id,
        "rule_set_id": rule_set_id,
        "trace_ids": [trace_ids[c.id] for c in cases],
        "judgments": judgments,
        "case_pks": pks,
    }


def link_rows(
    prepared: list[PreparedJudgment], rows: list[StreamedTrace], cases: dict[str, Case]
) -> list[dict[str, Any]]:
    """The evaluation links of ``prepared`` judgments, one per stored trace row in order."""
    return [
        {
            "judgment_key": p.key,
            "trace_id": r.id,
            "case_key": r.case_key,
            "repetition": r.repetition,
            "dimension": cases[r.case_key].dimension,
            "category": cases[r.case_key].category,
            "verdict": p.verdict,
            "partial_score": p.partial_score,
        }
        for p, r in zip(prepared, rows, strict=True)
    ]
