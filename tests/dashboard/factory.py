"""Builds dashboard test stores through the Store API only (also used by bench/dashboard_pages.py).

One suite; run ``run-a`` (model ``model-a``) with ``repeat`` repetitions of every case, judged
twice — under rules ``t@1`` and ``t@2`` (same tier) — and run ``run-b`` (model ``model-b``) on
the same suite judged under ``t@1``. Verdicts, taxonomies and partial scores come from a seeded
RNG, so every number the pages show is reproducible; the second rule version flips about a
tenth of the first's PASS/FAIL verdicts.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from rejudge.judge import build_report
from rejudge.store import Store

from rejudge.model import (
    Case,
    Golden,
    GoldenCall,
    Judgment,
    ReportSummary,
    Round,
    RuleSet,
    RunConfig,
    ToolCall,
    ToolRegistry,
    ToolSpec,
    Trace,
    content_hash,
)
from rejudge.services import iter_evaluation_rows

TIER = "golden"
ENGINE = "test-1"


def _summary(store: Store, evaluation_id: int) -> ReportSummary:
    """The summary of what is linked so far, as the judge stores it when it finishes."""
    rows = iter_evaluation_rows(store, evaluation_id)
    return build_report(rows, include_cases=False).summary


CODES = ["TOOL_MISSING", "TOOL_WRONG", "PARAM_WRONG_VALUE", "PARAM_MISSING", "ORDER_WRONG"]


@dataclass
class Built:
    url: str
    runs: dict[str, int] = field(default_factory=dict)
    # "a1": run-a under t@1, "a2": run-a under t@2, "b1": run-b under t@1
    evaluations: dict[str, int] = field(default_factory=dict)
    rule_sets: dict[str, RuleSet] = field(default_factory=dict)
    cassettes_dir: Path | None = None
    traces: int = 0
    judgments: int = 0


def registry() -> ToolRegistry:
    obj = {"type": "object", "properties": {"order_id": {"type": "string"}}}
    return ToolRegistry(
        domain="retail",
        tools=[
            ToolSpec(name="get_order", parameters=obj, read_only=True, kind="read"),
            ToolSpec(name="cancel_order", parameters=obj, kind="request"),
            ToolSpec(name="refund", parameters=obj, kind="request"),
        ],
    )


def make_case(i: int) -> Case:
    order = f"#W{1000 + i}"
    return Case(
        id=f"c{i:05d}",
        dimension=f"D{i % 4 + 1}",
        category=("lookup", "cancel", "refund")[i % 3],
        instruction=f"Cancel order {order}.",
        golden=Golden(
            calls=[
                GoldenCall(tool="get_order", params={"order_id": order}),
                GoldenCall(tool="cancel_order", params={"order_id": order}),
            ],
            order_sensitive=True,
        ),
    )


def make_trace(case: Case, rep: int, rng: random.Random, model: str) -> Trace:
    order = case.golden.calls[0].params["order_id"]
    rounds = []
    n_rounds = rng.randint(1, 3)
    for r in range(n_rounds):
        calls = []
        if r < n_rounds - 1 or rng.random() < 0.3:
            name = rng.choice(["get_order", "cancel_order", "refund"])
            ok = rng.random() < 0.85
            calls.append(
                ToolCall(
                    id=f"call_{r}",
                    name=name,
                    arguments={"order_id": order},
                    arguments_raw=json.dumps({"order_id": order}),
                    result={"ok": ok},
                    ok=ok,
                    error=None if ok else "order not found",
                )
            )
        rounds.append(Round(index=r, calls=calls, text=None if calls else "Done."))
    return Trace(
        case_id=case.id,
        repetition=rep,
        rounds=rounds,
        final_text=f"Done ({model}).",
        usage={"input_tokens": 100, "output_tokens": 10},  # as the recorder stores it
        normalizer_version="1",
        timings={"elapsed_s": round(rng.uniform(0.5, 3.0), 3), "model": model},
    )


def _judgment(
    trace: Trace, case: Case, reg: ToolRegistry, rules: RuleSet, verdict: str, rng: random.Random
) -> Judgment:
    taxonomy = sorted(rng.sample(CODES, rng.randint(1, 2))) if verdict == "FAIL" else []
    partial = 1.0 if verdict == "PASS" else round(rng.uniform(0.0, 0.95), 3)
    if verdict in ("SKIP", "AGENT_ERROR"):
        partial = None
    # the call-matching tiers' diff shape: one entry per expected slot, one per extra call
    diff: list[dict[str, Any]] = []
    for slot, g in enumerate(case.golden.calls):
        good = verdict == "PASS" or slot == 0
        diff.append(
            {
                "kind": "expected",
                "slot": slot,
                "tool": g.tool,
                "actual_tool": g.tool,
                "actual_index": slot,
                "round": slot,
                "ok": True,
                "status": "match" if good else "mismatch",
                "codes": [] if good else ["PARAM_WRONG_VALUE"],
                "params": [
                    {
                        "name": name,
                        "rule": "exact",
                        "golden": value,
                        "actual": value if good else "#W0",
                        "status": "match" if good else "mismatch",
                        **({} if good else {"code": "PARAM_WRONG_VALUE"}),
                    }
                    for name, value in g.params.items()
                ],
            }
        )
    return Judgment(
        verdict=verdict,  # type: ignore[arg-type]
        taxonomy=taxonomy,
        partial_score=partial,
        diff=diff,
        reasons=[] if verdict == "PASS" else ["test verdict"],
        tier=TIER,
        trace_hash=trace.hash,
        case_hash=case.hash,
        registry_hash=reg.hash,
        rule_set_hash=rules.hash,
        engine_version=ENGINE,
    )


def _draw(rng: random.Random, p_pass: float) -> str:
    x = rng.random()
    if x < 0.03:
        return "SKIP"
    if x < 0.05:
        return "AGENT_ERROR"
    return "PASS" if rng.random() < p_pass else "FAIL"


def _write_cassette(root: Path, run: str, trace: Trace) -> str:
    rel = f"{run}/{trace.case_id}__r{trace.repetition}.yaml"
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    interactions = [
        {
            "request": {
                "method": "POST",
                "uri": "http://127.0.0.1:8080/v1/chat/completions",
                "headers": {"content-type": ["application/json"]},
                "body": json.dumps({"model": "model-a", "messages": [{"role": "user"}]}),
            },
            "response": {
                "status": {"code": 200, "message": "OK"},
                "headers": {"content-type": ["application/json"]},
                "body": {"string": json.dumps({"choices": [{"message": {"content": "Done."}}]})},
            },
        }
    ]
    path.write_text(yaml.safe_dump({"version": 1, "interactions": interactions}))
    return rel


def build_store(
    url: str,
    *,
    cases: int = 12,
    repeat: int = 3,
    seed: int = 7,
    cassettes_dir: Path | None = None,
    with_run_b: bool = True,
    with_run_c: bool = False,
    running_run: bool = False,
    models: tuple[str, str, str] = ("model-a", "model-b", "model-c"),
) -> Built:
    """Build the store; ``cassettes_dir`` writes a cassette for run-a's traces; ``models``
    names the models of run-a, run-b and run-c (evidence text, as a model name is)."""
    rng = random.Random(seed)
    store = Store.open(url)
    try:
        built = Built(url=url, cassettes_dir=cassettes_dir)
        reg = registry()
        case_list = [make_case(i) for i in range(cases)]
        suite = store.suites.save_suite(
            name="retail-test",
            domain="retail",
            suite_hash=content_hash([c.hash for c in case_list] + [reg.hash]),
            registry=reg,
            cases=case_list,
        )
        pks = store.suites.get_case_pks(suite.id)
        rules = {
            "1": RuleSet(name="t", version="1", settings={"free_text_rule": None}),
            "2": RuleSet(name="t", version="2", settings={"free_text_rule": "free_text"}),
        }
        rule_ids = {v: store.rule_sets.save_rule_set(r) for v, r in rules.items()}
        built.rule_sets = {f"t@{v}": r for v, r in rules.items()}
        # (run, model, pass rate, rule versions, harness mode, how many cases)
        plans = [("run-a", models[0], 0.7, ["1", "2"], "production-parity", cases)]
        if with_run_b:
            plans.append(("run-b", models[1], 0.6, ["1"], "production-parity", cases))
        if with_run_c:  # not comparable with the others: another harness mode, half the cases
            plans.append(("run-c", models[2], 0.8, ["1"], "oracle-assisted", max(1, cases // 2)))
        for run_name, model, p_pass, versions, harness, n_cases in plans:
            config = RunConfig(
                model=model,
                base_url="http://127.0.0.1:8080/v1",
                repeat=repeat,
                harness_mode=harness,  # type: ignore[arg-type]
            )
            run = store.runs.create_run(name=run_name, suite=suite, config=config)
            built.runs[run_name] = run.id
            traces: list[tuple[int, int, Trace, str | None, str | None]] = []
            for case in case_list[:n_cases]:
                for rep in range(repeat):
                    trace = make_trace(case, rep, rng, model)
                    cassette = None
                    if cassettes_dir is not None and run_name == "run-a":
                        cassette = _write_cassette(cassettes_dir, run_name, trace)
                    traces.append((run.id, pks[case.id], trace, cassette, None))
            store.traces.save_traces(traces)
            built.traces += len(traces)
            trace_ids = {
                (row.case_key, row.repetition): row.id
                for row in store.traces.iter_trace_rows(run.id)
            }
            first: dict[tuple[str, int], str] = {}
            for version in versions:
                ev = store.evaluations.create_evaluation(
                    run_id=run.id, tier=TIER, rule_set_id=rule_ids[version], engine_version=ENGINE
                )
                built.evaluations[f"{run_name[-1]}{version}"] = ev
                judgments: list[Judgment] = []
                meta: list[tuple[Trace, Case]] = []
                for _run_id, _pk, trace, _c, _h in traces:
                    case = case_list[int(trace.case_id[1:])]
                    key = (trace.case_id, trace.repetition)
                    if key in first:
                        verdict = first[key]
                        if verdict in ("PASS", "FAIL") and rng.random() < 0.1:
                            verdict = "FAIL" if verdict == "PASS" else "PASS"
                    else:
                        verdict = _draw(rng, p_pass)
                        first[key] = verdict
                    judgments.append(_judgment(trace, case, reg, rules[version], verdict, rng))
                    meta.append((trace, case))
                ids = store.judgments.save_judgments(judgments)
                links: list[dict[str, Any]] = []
                for judgment, (trace, case) in zip(judgments, meta, strict=True):
                    links.append(
                        {
                            "judgment_id": ids[judgment.key],
                            "trace_id": trace_ids[(trace.case_id, trace.repetition)],
                            "case_key": case.id,
                            "repetition": trace.repetition,
                            "dimension": case.dimension,
                            "category": case.category,
                            "verdict": judgment.verdict,
                            "partial_score": judgment.partial_score,
                        }
                    )
                store.judgments.link_judgments(ev, links)
                store.evaluations.finish_evaluation(
                    ev, summary=_summary(store, ev), inputs_hash=content_hash([ev])
                )
                built.judgments += len(links)
            if not (running_run and run_name == "run-a"):
                store.runs.finish_run(run.id)
        return built
    finally:
        store.close()


# evidence that tries to be markup: an image that would fetch an external URL, LaTeX, HTML
HOSTILE = "![pixel](http://203.0.113.9/pixel.png) $x^2$ <img src=http://203.0.113.9/a.png> **bold**"
# real cassettes other projects recorded (see /work/shared/real-cassettes/README.md)
REAL_CASSETTES = Path("/work/shared/real-cassettes")
PYDANTIC_AI = "pydantic-ai/test_tool_choice_matrix_auto-anthropic.yaml"
GZIP = "simonw-llm/test_tool_use_chain_of_two_calls.yaml"
SSE = "simonw-llm/test_tool_use_basic.yaml"


def build_imported(url: str, cassettes_dir: Path) -> Built:
    """An ad-hoc import as real traffic gives it: cases without golden calls, hostile evidence
    text, string and numeric-string tool results, a conversation's second user turn, a
    provider-side tool, an ``n > 1`` alternative, and traces whose cassettes are real files
    (pydantic-ai ``parsed_body``, gzip ``!!binary``, an SSE stream) copied into
    ``cassettes_dir``. Judged by the judge itself (not scorable: SKIP)."""
    import shutil

    from rejudge.judge import judge

    from rejudge.model import Alternative, ServerToolUse, UserTurn

    store = Store.open(url)
    try:
        built = Built(url=url, cassettes_dir=cassettes_dir)
        reg = registry()
        case_list = [
            Case(
                id=f"imported-{i}",
                dimension="imported",
                category="imported",
                instruction=f"{HOSTILE} (conversation {i})",
                golden=Golden(calls=[]),
            )
            for i in range(3)
        ]
        suite = store.suites.save_suite(
            name="imported-test",
            domain="retail",
            suite_hash=content_hash([c.hash for c in case_list] + [reg.hash]),
            registry=reg,
            cases=case_list,
        )
        pks = store.suites.get_case_pks(suite.id)
        rules = RuleSet(name="t", version="1", settings={"free_text_rule": None})
        rule_id = store.rule_sets.save_rule_set(rules)
        built.rule_sets = {"t@1": rules}
        run = store.runs.create_run(
            name="run-imported",
            suite=suite,
            config=RunConfig(model="imported", base_url="http://127.0.0.1:8080/v1", repeat=1),
        )
        built.runs["run-imported"] = run.id
        rows = []
        for i, (case, real) in enumerate(zip(case_list, (PYDANTIC_AI, GZIP, SSE), strict=True)):
            target = cassettes_dir / real
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(REAL_CASSETTES / real, target)
            calls = [
                ToolCall(
                    id="c1",
                    name="get_order",
                    arguments={"order_id": HOSTILE},
                    result=f"plain text result {HOSTILE}",
                    ok=True,
                ),
                ToolCall(
                    id="c2", name="get_order", arguments={"order_id": "42"}, result="12345", ok=True
                ),
            ]
            trace = Trace(
                case_id=case.id,
                rounds=[
                    Round(
                        index=0,
                        calls=calls,
                        server_tools=[
                            ServerToolUse(
                                name="web_search", input={"query": HOSTILE}, kind="server_tool_use"
                            )
                        ]
                        if i == 0
                        else [],
                        alternatives=[Alternative(choice=1, text=f"another choice {HOSTILE}")]
                        if i == 0
                        else [],
                    ),
                    Round(index=1, text=f"The answer. {HOSTILE}"),
                ],
                user_turns=[UserTurn(before_round=1, position=1, text=f"And now? {HOSTILE}")]
                if i == 0
                else [],
                final_text=f"The answer. {HOSTILE}",
            )
            rows.append((run.id, pks[case.id], trace, real, None))
        store.traces.save_traces(rows)
        built.traces = len(rows)
        trace_ids = {r.case_key: r.id for r in store.traces.iter_trace_rows(run.id)}
        ev = store.evaluations.create_evaluation(
            run_id=run.id, tier=TIER, rule_set_id=rule_id, engine_version=ENGINE
        )
        built.evaluations["imported"] = ev
        judgments, links = [], []
        for (_r, _pk, trace, _c, _h), case in zip(rows, case_list, strict=True):
            judgments.append(judge(trace, case, reg, TIER, rules))
        ids = store.judgments.save_judgments(judgments)
        for judgment, case in zip(judgments, case_list, strict=True):
            links.append(
                {
                    "judgment_id": ids[judgment.key],
                    "trace_id": trace_ids[case.id],
                    "case_key": case.id,
                    "repetition": 0,
                    "dimension": case.dimension,
                    "category": case.category,
                    "verdict": judgment.verdict,
                    "partial_score": judgment.partial_score,
                }
            )
        store.judgments.link_judgments(ev, links)
        store.evaluations.finish_evaluation(
            ev, summary=_summary(store, ev), inputs_hash=content_hash([ev])
        )
        store.runs.finish_run(run.id)
        built.judgments = len(links)
        return built
    finally:
        store.close()
