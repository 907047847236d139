"""FuncBenchGen's sweep: generate, record and judge a grid of suites (``rejudge sweep funcbench``).

For each core-node count it generates a suite (the other knobs fixed, one seed), records it
against the model (once without restatement, and once with it under ``--restate``: separate runs,
never pooled), judges every trace under the ``outcome`` tier and prints the paper's table shape:
success rate by core nodes for each arm, then the failure-type shares.

Accounting (documented, the paper counts timeouts as failures):

- ``success`` = PASS / (PASS + FAIL + timeouts), where a *timeout* is a trace the harness cut off
  at its round budget (``AGENT_ERROR`` with reason ``round_budget``; the budget is
  ``2 × n_core + 2`` rounds, so only a model that keeps calling past the call cap reaches it).
  Traces the outcome tier fails for exceeding the cap are FAILs already.
- other agent errors (provider failures) are shown and left out of every rate;
- failure-type shares attribute each failed trace — FAIL or timeout — to the type of its first
  failing call (``details.first_failure``); failures with no failing call count as
  ``no failing call``. The engine judges a timeout ``AGENT_ERROR`` before any tier runs, so for
  the table the sweep asks the outcome tier about the calls a timed-out trace made, as if it had
  ended there (calls past the cap are not classified). A model that never stops calling (the
  usual failure of small models) would otherwise leave every share at "timeout"; the number of
  timeouts among the failures is shown next to the shares.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rejudge.errors import InvalidInputError
from rejudge.model import HarnessAssistance, RunConfig
from rejudge.store import Store

from ._judging import judge_run
from ._sweep_result import CellSummary, SweepCell, SweepResult, sweep_table

__all__ = [
    "FAILURE_COLUMNS",
    "SweepOptions",
    "run_sweep",
    "summarize_cell",
    "timeout_failures",
]

FAILURE_COLUMNS = (
    "FUNCTION_NOT_FOUND",
    "WRONG_ARGUMENT_COUNT",
    "UNKNOWN_VALUE",
    "INCORRECT_VALUE",
    "ARGUMENTS_UNPARSABLE",
    "no failing call",
)


@dataclass(frozen=True)
class SweepOptions:
    model: str
    cores: tuple[int, ...]
    depth: int | None = None  # None: min(3, n_core - 1)
    cin: int = 0
    din: int = 0
    noise: int = 0
    subtypes: bool = False
    cases: int = 5
    seed: int = 0
    restate: bool = False
    provider: str = "openai"
    base_url: str | None = None
    temperature: float | None = 0.0
    tool_choice: str | None = "auto"
    concurrency: int = 1
    timeout_s: float = 60.0
    max_tokens: int | None = None
    system_prompt: str | None = None
    prefix: str = "sweep"

    def depth_for(self, n_core: int) -> int:
        return self.depth if self.depth is not None else min(3, n_core - 1)


def timeout_failures(
    store: Store, run_id: int, source: Any, rules: Any
) -> dict[tuple[str, int], str]:
    """(case, repetition) -> type of the first failing call, for traces cut off at the budget.

    The outcome tier judges a copy of the trace that ends where the harness stopped it.
    """
    from rejudge.judge import judge

    cases = {case.id: case for case in source.cases}
    out: dict[tuple[str, int], str] = {}
    for stored in store.traces.iter_traces(run_id):
        trace = stored.trace
        if trace.status != "agent_error" or trace.error is None:
            continue
        if trace.error.kind != "round_budget" or stored.case_key not in cases:
            continue
        ended = trace.model_copy(update={"status": "completed", "error": None})
        judged = judge(ended, cases[stored.case_key], source.registry, "outcome", rules)
        first = judged.details.get("first_failure") if judged.verdict == "FAIL" else None
        out[(stored.case_key, stored.repetition)] = first or "no failing call"
    return out


def summarize_cell(
    store: Store, evaluation_id: int, timeouts: dict[tuple[str, int], str] | None = None
) -> CellSummary:
    """One cell of the grid: verdict counts (timeouts apart), success rate, first-failure types,
    efficiency and redundant calls on success; ``timeouts`` from :func:`timeout_failures`."""
    counts = {"PASS": 0, "FAIL": 0, "timeout": 0, "AGENT_ERROR": 0, "SKIP": 0}
    first: dict[str, int] = {}
    efficiencies: list[float] = []
    redundant: list[int] = []
    for row in store.judgments.iter_evaluation_rows(evaluation_id, with_body=True):
        body = row.body or {}
        details = body.get("details") or {}
        verdict = row.verdict
        if verdict == "AGENT_ERROR":
            reasons = body.get("reasons") or []
            kind = "timeout" if any(r.startswith("round_budget") for r in reasons) else verdict
            counts[kind] += 1
            if kind == "timeout":
                key = (timeouts or {}).get((row.case_key, row.repetition), "timeout")
                first[key] = first.get(key, 0) + 1
            continue
        counts[verdict] = counts.get(verdict, 0) + 1
        if verdict == "PASS":
            if details.get("efficiency") is not None:
                efficiencies.append(float(details["efficiency"]))
            redundant.append(int(details.get("redundant_calls", 0)))
        elif verdict == "FAIL":
            key = details.get("first_failure") or "no failing call"
            first[key] = first.get(key, 0) + 1
    scored = counts["PASS"] + counts["FAIL"] + counts["timeout"]
    return CellSummary(
        counts=counts,
        success=round(counts["PASS"] / scored, 4) if scored else None,
        first_failure=dict(sorted(first.items())),
        efficiency=round(sum(efficiencies) / len(efficiencies), 4) if efficiencies else None,
        redundant_calls_on_success=(
            round(sum(redundant) / len(redundant), 4) if redundant else None
        ),
    )


def run_sweep(
    store: Store,
    cassettes_dir: Path | str,
    options: SweepOptions,
    *,
    api_key: str | None = None,
    transport: Any = None,
    folder: Path | str | None = None,
    on_cell: Callable[[SweepCell], None] | None = None,
) -> SweepResult:
    """Generate, record and judge the grid: every cell, in the order judged, and the tables.

    Re-running with the same options resumes: suites are lookups, runs keep their names, traces
    already recorded are skipped, judgments are lookups.
    """
    import rejudge.suites.domains.funcbench  # noqa: F401
    from rejudge import suites  # noqa: F401  registers the built-in domains
    from rejudge.judge import DEFAULT_RULE_SET, load_rule_set
    from rejudge.services._record import record_suite
    from rejudge.suites.generators import Knobs, generate_suite, write_generated_suite

    if not options.cores:
        raise InvalidInputError(
            "the sweep needs at least one core-node count, e.g. 5,10,20", field="cores"
        )
    rules = load_rule_set(DEFAULT_RULE_SET)
    arms = [False, True] if options.restate else [False]
    cells: list[SweepCell] = []
    for n_core in options.cores:
        knobs = Knobs(
            n_core=n_core,
            depth=options.depth_for(n_core),
            cin=options.cin,
            din=options.din,
            noise=options.noise,
            subtypes=options.subtypes,
            cases=options.cases,
            seed=options.seed,
        )
        knobs.check()
        generated = generate_suite(knobs)
        if folder is not None:
            write_generated_suite(Path(folder) / generated.name, generated)
        for restate in arms:
            config = RunConfig(
                model=options.model,
                provider=options.provider,
                base_url=options.base_url,
                harness_assistance=HarnessAssistance(round_budget=2 * n_core + 2),
                temperature=options.temperature,
                max_tokens=options.max_tokens,
                timeout_s=options.timeout_s,
                restate_known_values=restate,
                concurrency=options.concurrency,
                tool_choice=options.tool_choice,
                system_prompt=options.system_prompt,
                extra={"sweep": "funcbench", "knobs": knobs.as_dict()},
            )
            run_name = (
                f"{options.prefix}-{options.model.replace('/', '_')}-c{n_core}-d{knobs.depth}"
                f"-s{options.seed}-{'restate' if restate else 'plain'}"
            )
            recorded = record_suite(
                store,
                generated.source,
                config,
                cassettes_dir,
                api_key=api_key,
                run_name=run_name,
                transport=transport,
            )
            judged = judge_run(store, recorded.run.id, "outcome", rules)
            cell = SweepCell(
                core=n_core,
                depth=knobs.depth,
                restate=restate,
                suite=generated.name,
                suite_hash=generated.hash,
                run=recorded.run.name,
                evaluation=judged.evaluation_id,
                summary=summarize_cell(
                    store,
                    judged.evaluation_id,
                    timeout_failures(store, recorded.run.id, generated.source, rules),
                ),
            )
            cells.append(cell)
            if on_cell is not None:
                on_cell(cell)
    return SweepResult(options.model, cells, sweep_table(cells))
