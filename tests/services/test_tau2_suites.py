"""τ²-bench runs import as one suite per domain: every airline file into ``tau2-airline``, keyed
by task id, so models compare on the same cases; the retail suite's registry carries the
``tau2-retail`` world and the airline suite's the ``tau2-airline`` world; a file whose tasks differ under the same ids is refused, storing nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rejudge.store import Store
from rejudge.store._tables import RunRow, TraceRow

from rejudge.errors import InvalidInputError
from rejudge.importers import SHIPPED_TAU2_BENCH
from rejudge.registry import REGISTRY
from rejudge.services import import_tau_bench, run_external_verdicts
from tests.store.store_factories import count_rows


def _file(name: str) -> Path:
    return SHIPPED_TAU2_BENCH / f"{name}.json"


def _cut(name: str, tmp_path: Path, keep: int, edit: Any = None) -> Path:
    """The first ``keep`` tasks of a shipped file and their simulations (``edit`` may change
    the document), written under ``tmp_path`` with the same file name."""
    data = json.loads(_file(name).read_text(encoding="utf-8"))
    data["tasks"] = data["tasks"][:keep]
    ids = {t["id"] for t in data["tasks"]}
    data["simulations"] = [s for s in data["simulations"] if s["task_id"] in ids]
    if edit is not None:
        edit(data)
    out = tmp_path / f"{name}.json"
    out.write_text(json.dumps(data), encoding="utf-8")
    return out


def test_two_models_airline_files_share_one_suite(store: Store) -> None:
    sonnet = import_tau_bench(_file("claude-sonnet-4-5_airline"), store)
    opus = import_tau_bench(_file("ironshell_airline_claude-opus-4-6"), store)
    assert sonnet.suite.id == opus.suite.id and sonnet.suite.name == "tau2-airline"
    # every task of the document is a case, the 6 that Opus's run skipped too
    assert (sonnet.cases, opus.cases, sonnet.inserted, opus.inserted) == (50, 50, 50, 44)
    assert sonnet.run.name == "tau2-airline/claude-sonnet-4-5"
    assert opus.run.name == "tau2-airline/ironshell/claude-opus-4-6"
    assert opus.run.model == "claude-opus-4-6"
    rewards = [v.verdict.value for v in run_external_verdicts(store, opus.run.name, "tau2-bench")]
    assert (len(rewards), sum(rewards)) == (44, 31)
    registry = store.suites.get_registry(sonnet.suite.registry_id)
    assert registry.world == REGISTRY.get("world", "tau2-airline").ref
    assert registry.terminal_tools == ["transfer_to_human_agents"]
    assert "get_flight_status" in registry.tool_names() and "think" not in registry.tool_names()


def test_the_retail_suite_carries_the_world_and_re_keys_relabelled_simulations(
    store: Store,
) -> None:
    result = import_tau_bench(_file("toolorchestra_retail"), store)
    assert (result.suite.name, result.cases, result.inserted, result.relabelled) == (
        "tau2-retail",
        114,
        114,
        113,
    )
    registry = store.suites.get_registry(result.suite.registry_id)
    assert registry.world == REGISTRY.get("world", "tau2-retail").ref
    assert registry.terminal_tools == ["transfer_to_human_agents"]
    run = store.runs.get_run(result.run.id)
    assert run.name == "tau2-retail/toolorchestra/gpt-4.1-mini-2025-04-14"
    first = run.config.extra["relabelled"][0]
    assert (first["index"], first["recorded"], first["ran"]) == (0, "0", "89")
    # simulation 0 (Raj Santos's keyboard return, reward 1) is a trace of task 89
    verdicts = {v.case_key: v.verdict.value for v in run_external_verdicts(store, run.name)}
    assert verdicts["task-89"] == 1.0 and sum(verdicts.values()) == 96


def test_a_file_whose_tasks_differ_under_the_same_ids_is_refused(
    store: Store, tmp_path: Path
) -> None:
    import_tau_bench(_cut("claude-sonnet-4-5_airline", tmp_path, 3), store)
    runs, traces = count_rows(store, RunRow), count_rows(store, TraceRow)

    def reword(data: dict[str, Any]) -> None:
        data["tasks"][1]["user_scenario"]["instructions"]["reason_for_call"] += " Twice."

    other = tmp_path / "other"
    other.mkdir()
    changed = _cut("ironshell_airline_gpt-5.4", other, 3, reword)
    with pytest.raises(InvalidInputError, match=r"1 task\(s\) differ from suite 'tau2-airline'"):
        import_tau_bench(changed, store)
    assert (count_rows(store, RunRow), count_rows(store, TraceRow)) == (runs, traces)
    # under a suite of its own it imports
    own = import_tau_bench(changed, store, suite_name="tau2-airline-revised")
    assert own.suite.name == "tau2-airline-revised" and own.inserted > 0


def _retail_state_agreement(store: Store, rules: str) -> Any:
    from rejudge.judge import load_rule_set

    from rejudge.services import judge_run
    from rejudge.services._agreement import run_agreement

    result = import_tau_bench(_file("toolorchestra_retail"), store)
    ev = judge_run(store, result.run.id, "state", load_rule_set(rules)).evaluation_id
    [state] = [
        t
        for t in run_agreement(store, result.run.id, prefer={"state": ev}).tiers
        if t.tier == "state"
    ]
    return state


def test_the_state_tier_reproduces_taus_reward_on_the_retail_run(store: Store) -> None:
    # tau-bench@2 judges the read-only tasks too (state_applies: always), as τ² checks their DB
    state = _retail_state_agreement(store, "tau-bench@2")
    table = state.table
    assert (table.pass_1, table.pass_0, table.fail_1, table.fail_0) == (96, 0, 0, 18)
    assert not state.disagreements


def test_under_rejudge_s_own_rules_the_read_only_tasks_skip_and_the_rest_agree(
    store: Store,
) -> None:
    state = _retail_state_agreement(store, "standard@2")
    table = state.table
    # 6 simulations of tasks whose ground truth changes nothing: nothing to observe, SKIP (7
    # under the world's first version, which refused task 18's exchange for the same variant:
    # τ² accepts it, so the task has a write to observe, and the agent's return fails it)
    assert (table.pass_1, table.pass_0, table.fail_1, table.fail_0) == (90, 0, 0, 18)
    assert not state.disagreements


def test_the_import_line_names_the_benchmark_whose_rewards_it_kept(
    run_cli: Any, tmp_path: Path
) -> None:
    out = run_cli("import", "tau-bench", str(_cut("claude-sonnet-4-5_airline", tmp_path, 2)))
    assert out.exit_code == 0, out.output
    said = " ".join(out.output.split())  # as words: where a line wraps is the terminal's width
    assert "τ²-bench verdict(s) written" in said and "τ-bench verdict" not in said


def test_nl_assertions_import_into_the_case_and_taus_judge_per_assertion(store: Store) -> None:
    """τ²'s ``nl_assertions`` become the case's; each simulation's ``met`` and justification
    read back as typed per-assertion verdicts of τ²'s model judge, in the case's order."""
    result = import_tau_bench(_file("toolorchestra_airline"), store)
    cases = {k: c for k, (_pk, c) in store.suites.get_cases(result.suite.id).items()}
    raw = json.loads(_file("toolorchestra_airline").read_text(encoding="utf-8"))
    assert {f"task-{t['id']}": t["evaluation_criteria"]["nl_assertions"] for t in raw["tasks"]} == {
        k: c.nl_assertions for k, c in cases.items()
    }
    assert sum(len(c.nl_assertions) for c in cases.values()) == 122
    verdicts = run_external_verdicts(store, result.run.name, "tau2-bench")
    assertions = [(v, a) for v in verdicts for a in v.verdict.assertions]
    assert len(verdicts) == 50 and len(assertions) == 122
    assert sum(a.met for _v, a in assertions) == 93
    for v in verdicts:
        # a relabelled simulation's verdicts are its run task's assertions, in order
        assert [a.assertion for a in v.verdict.assertions] == cases[v.case_key].nl_assertions
        assert [a.index for a in v.verdict.assertions] == list(range(len(v.verdict.assertions)))
    assert all(a.justification for _v, a in assertions)


def test_the_retail_run_keeps_taus_assertion_verdicts_on_its_eight_simulations(
    store: Store,
) -> None:
    result = import_tau_bench(_file("toolorchestra_retail"), store)
    with_assertions = [
        v
        for v in run_external_verdicts(store, result.run.name, "tau2-bench")
        if v.verdict.assertions
    ]
    assert len(with_assertions) == 8
    assert sum(len(v.verdict.assertions) for v in with_assertions) == 12


AIRLINE_FILES = {
    # file: τ²'s reward 1 / 0 (simulations)
    "claude-sonnet-4-5_airline": (36, 14),
    "button_airline_claude-opus-4-6": (38, 12),
    "ironshell_airline_claude-opus-4-6": (31, 13),
    "ironshell_airline_gpt-5.4": (28, 22),
    "toolorchestra_airline": (28, 22),
}


def _airline_state_tables(store: Store, rules: str) -> dict[str, tuple[int, int, int, int]]:
    """Per airline file: the state tier's agreement with τ²'s reward under ``rules``, as
    (PASS/1, FAIL/0, PASS/0, FAIL/1), through import, judging and the agreement report."""
    from rejudge.judge import load_rule_set

    from rejudge.services import judge_run
    from rejudge.services._agreement import run_agreement

    tables = {}
    for name in AIRLINE_FILES:
        result = import_tau_bench(_file(name), store)
        judge_run(store, result.run.id, "state", load_rule_set(rules))
        [state] = [t for t in run_agreement(store, result.run.id).tiers if t.tier == "state"]
        assert not state.disagreements, (name, state.disagreements[:3])
        t = state.table
        tables[name] = (t.pass_1, t.fail_0, t.pass_0, t.fail_1)
    return tables


def test_the_state_tier_reproduces_taus_reward_on_every_airline_run(store: Store) -> None:
    """All 244 airline simulations of the five files: under tau-bench@2 (read-only tasks
    judged by their unchanged state, as τ² checks their DB) the state tier's verdict is τ²'s
    reward (DB and COMMUNICATE) on every one."""
    tables = _airline_state_tables(store, "tau-bench@2")
    assert tables == {name: (ones, zeros, 0, 0) for name, (ones, zeros) in AIRLINE_FILES.items()}
    assert sum(sum(t) for t in tables.values()) == 244


def test_under_rejudge_s_own_rules_read_only_airline_tasks_skip_and_the_rest_agree(
    store: Store,
) -> None:
    tables = _airline_state_tables(store, "standard@2")
    # the 56 simulations of tasks whose ground truth only reads and that require no output:
    # nothing to observe, SKIP; each of the other 188 agrees with τ²'s reward
    assert list(tables.values()) == [
        (24, 14, 0, 0),
        (26, 12, 0, 0),
        (23, 13, 0, 0),
        (17, 21, 0, 0),
        (20, 18, 0, 0),
    ]


def test_judging_a_run_made_with_airline_data_of_another_version_is_a_one_line_error(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store whose airline registry names the world at a version this rejudge does not ship
    (τ²'s database of another commit): judging by state says so in one line, storing nothing."""
    import rejudge.importers._tau2_suite as tau2_suite

    made = tau2_suite.tau2_registry

    def other_version(registry: Any, domain: str) -> Any:
        ref = made(registry, domain)
        return ref.model_copy(update={"world": ref.world.model_copy(update={"version": "0000000"})})

    monkeypatch.setattr(tau2_suite, "tau2_registry", other_version)
    out = run_cli("import", "tau-bench", str(_cut("claude-sonnet-4-5_airline", tmp_path, 2)))
    assert out.exit_code == 0, out.output
    monkeypatch.undo()
    out = run_cli(
        "judge", "tau2-airline/claude-sonnet-4-5", "--tier", "state", "--rules", "tau-bench@2"
    )
    assert out.exit_code == 1
    [line] = out.output.strip().splitlines()
    assert line.startswith("Error: world 'tau2-airline'") and "Traceback" not in out.output
    assert "0000000" in line and "8d005b0" in line, line
