"""The demo's τ²-bench side: model against model on the same tasks.

The six τ²-bench leaderboard runs that ship as package data (suites/importers/data/tau2-bench),
imported through `rejudge import tau-bench` (one suite per domain: the five airline runs share
`tau2-airline`'s 50 cases), judged under the golden tier, and under the state tier where the
suite's registry names a world (both do: `tau2-airline`, `tau2-retail`), and no
other (the demo's time stays in bounds), then: per run, τ²'s own pass rate and rejudge's, each
with a 95% Wilson interval, the state tier's agreement with τ²'s reward (`report --against
external`), and one pair of models compared case by case through the compare service
(`rejudge compare --json`: flips, exact McNemar p), on τ²'s rewards too.
"""

from __future__ import annotations

from collections.abc import Callable

from rejudge.importers._tau_bench import import_tau_bench
from rejudge.judge import load_rule_set
from rejudge.services._agreement import run_agreement
from rejudge.services._compare import compare_evaluations
from rejudge.services._demo_result import (
    ModelVsModel,
    PassRate,
    Tau2Pair,
    Tau2PairedRewards,
    Tau2Run,
)
from rejudge.services._judging import (
    applicable_tiers,
    evaluation_report,
    find_current_evaluation,
    judge_run,
)
from rejudge.store import Store

__all__ = ["DEMO_TAU_RULES", "DEMO_TAU2_FILES", "tau2_model_vs_model"]

#: runs that τ-bench (or τ²-bench) rewarded are judged under τ-bench's reading of a
#: conversation too (after the demo's rule sets), so the demo shows what changes from one to
#: the other
DEMO_TAU_RULES = "tau-bench@2"
#: the shipped τ² files (airline four models, Opus twice; retail one)
DEMO_TAU2_FILES = (
    "claude-sonnet-4-5_airline",
    "button_airline_claude-opus-4-6",
    "ironshell_airline_claude-opus-4-6",
    "ironshell_airline_gpt-5.4",
    "toolorchestra_airline",
    "toolorchestra_retail",
)
#: the pair compared: the best and the weakest τ² airline reward among runs of all 50 tasks
DEMO_TAU2_PAIR = ("tau2-airline/button/claude-opus-4-6", "tau2-airline/ironshell/gpt-5.4")


def tau2_model_vs_model(store: Store, say: Callable[[str], None]) -> ModelVsModel:
    """Import the shipped τ² runs, judge each once, and compare models on the same cases."""
    from rejudge.importers import SHIPPED_TAU2_BENCH
    from rejudge.judge import mcnemar_exact
    from rejudge.services._external import run_external_verdicts

    # judged under τ-bench's reading of a conversation, as the τ-bench run is
    rule_set = load_rule_set(DEMO_TAU_RULES)
    runs: list[Tau2Run] = []
    evaluations: dict[str, int] = {}
    rewards: dict[str, dict[tuple[str, int], float]] = {}
    for stem in DEMO_TAU2_FILES:
        say(f"importing τ²-bench's {stem}")
        imported = import_tau_bench(SHIPPED_TAU2_BENCH / f"{stem}.json", store)
        name = imported.run.name
        tiers = applicable_tiers(store, imported.run.id, ["golden", "state"])
        ids: dict[str, int] = {}
        for tier in tiers:
            ev_id = find_current_evaluation(store, imported.run.id, tier, rule_set)
            if ev_id is None:
                say(f"judging {name} under {tier} / {rule_set.ref}")
                ev_id = judge_run(store, imported.run.id, tier, rule_set).evaluation_id
            ids[tier] = ev_id
        external = {
            (v.case_key, v.repetition): v.verdict.value
            for v in run_external_verdicts(store, name, "tau2-bench")
        }
        evaluations[name], rewards[name] = ids["golden"], external
        rates = {}
        for tier, ev_id in ids.items():
            counts = evaluation_report(store, ev_id).summary.verdict_counts
            rates[tier] = PassRate(counts.PASS, counts.scored)
        state = None
        if "state" in ids:
            agreement = run_agreement(store, imported.run.id, prefer={"state": ids["state"]})
            state = agreement.tier("state")
        runs.append(
            Tau2Run(
                run=name,
                model=imported.run.model,
                suite=imported.suite.name,
                evaluation=ids["golden"],
                traces=imported.inserted + imported.skipped,
                relabelled=imported.relabelled,
                tau2_reward=PassRate(sum(1 for r in external.values() if r == 1.0), len(external)),
                rejudge_golden=rates["golden"],
                rejudge_state=rates.get("state"),
                state_evaluation=ids.get("state"),
                state_agreement=state.table if state is not None else None,
            )
        )
    a, b = DEMO_TAU2_PAIR
    cmp = compare_evaluations(store, evaluations[a], evaluations[b])
    shared = sorted(set(rewards[a]) & set(rewards[b]))
    lost = sum(1 for k in shared if rewards[a][k] == 1.0 and rewards[b][k] != 1.0)
    won = sum(1 for k in shared if rewards[a][k] != 1.0 and rewards[b][k] == 1.0)
    return ModelVsModel(
        rules=rule_set.ref,
        tier="golden",
        runs=runs,
        pair=Tau2Pair(
            a=a,
            b=b,
            compare=cmp,
            # the same paired test on τ²'s own rewards (1.0 = pass)
            tau2_reward=Tau2PairedRewards(
                cases=len(shared),
                pass_to_fail=lost,
                fail_to_pass=won,
                mcnemar_p=mcnemar_exact(lost, won),
            ),
        ),
    )
