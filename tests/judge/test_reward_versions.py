"""τ-bench's reward by version, and τ²'s reward basis per task, decide what the state tier
requires (judge/tiers/_reward.py).

At 7362a17 a task with required outputs was rewarded by its outputs alone; from 59a200c on by
its database and its outputs. No real GPT-4o trajectory tells the two apart
(test_state_tier.py: 200/200 under each), so these make ones that do, from real ones: the
recorded result of every added call is what the world gives back, so nothing is flagged as
evidence from another world.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rejudge.judge import judge, load_rule_set
from rejudge.judge.tiers import action_matches, state_checks, world_of

from rejudge.cli import cli
from rejudge.model import Case, Round, ToolCall, Trace

OLD, NEW = "tau-bench-7362a17@1", "tau-bench-59a200c@1"


def _with_call(trace: Trace, name: str, arguments: dict, registry, case) -> Trace:
    """``trace`` with one more call after its last one, its recorded result what the world
    gives back there (the calls before it re-executed first)."""
    r_index = max(i for i, r in enumerate(trace.rounds) if r.calls)
    world = world_of(registry)
    state = world.case_state(case.metadata)
    for rnd in trace.rounds[: r_index + 1]:
        for c in rnd.calls:
            if c.arguments is not None and c.name not in world.terminal_tools:
                world.execute(state, c.name, dict(c.arguments))
    result = world.execute(state, name, dict(arguments))
    assert result.ok, result.content
    call = ToolCall(id="added", name=name, arguments=arguments, result=result.content, ok=True)
    rounds = list(trace.rounds)
    rounds[r_index] = rounds[r_index].model_copy(update={"calls": [*rounds[r_index].calls, call]})
    return trace.model_copy(update={"rounds": rounds})


def _verdicts(trace: Trace, case: Case, registry) -> dict[str, str]:
    return {
        ref: judge(trace, case, registry, "state", load_rule_set(ref)).verdict for ref in (OLD, NEW)
    }


def _passing(tau, case_id: str) -> Trace:
    parsed, _cases, rewards = tau
    return next(
        t for t in parsed.traces if t.case_id == case_id and rewards[(t.case_id, t.repetition)]
    )


def test_outputs_right_and_database_wrong_passes_7362a17_and_fails_59a200c(tau) -> None:
    parsed, cases, _ = tau
    # task 44 asks how many of the user's reservations...: output "4", golden calls read only
    case = cases["task-044"]
    assert case.required_outputs == ["4"]
    trace = _with_call(
        _passing(tau, "task-044"),
        "cancel_reservation",
        {"reservation_id": "JMO1MG"},
        parsed.registry,
        case,
    )
    assert _verdicts(trace, case, parsed.registry) == {OLD: "PASS", NEW: "FAIL"}
    old = judge(trace, case, parsed.registry, "state", load_rule_set(OLD))
    # the differing database is said, as evidence, not as a cause
    assert any("not a cause under reward outputs-else-db" in w for w in old.warnings)
    assert old.details["reward_checks"] == "reward outputs-else-db"
    new = judge(trace, case, parsed.registry, "state", load_rule_set(NEW))
    assert new.taxonomy == ["STATE_WRONG"]
    assert any("reservations/JMO1MG" in r for r in new.reasons)


def test_an_output_missing_fails_both_and_a_task_without_outputs_is_judged_alike(tau) -> None:
    parsed, cases, rewards = tau
    case = cases["task-044"]
    silent = _passing(tau, "task-044")
    rounds = [r.model_copy(update={"text": None}) if not r.calls else r for r in silent.rounds]
    silent = silent.model_copy(update={"rounds": rounds, "final_text": None})
    assert _verdicts(silent, case, parsed.registry) == {OLD: "FAIL", NEW: "FAIL"}
    # a task without outputs: the database decides under both versions
    trace = next(
        t
        for t in parsed.traces
        if rewards[(t.case_id, t.repetition)] and not cases[t.case_id].required_outputs
    )
    no_outputs = cases[trace.case_id]
    assert _verdicts(trace, no_outputs, parsed.registry) == {OLD: "PASS", NEW: "PASS"}
    empty = trace.model_copy(update={"rounds": [Round(index=0, text="done")]})
    assert _verdicts(empty, no_outputs, parsed.registry) == {OLD: "FAIL", NEW: "FAIL"}


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_59a200c_is_never_laxer_and_agrees_where_no_output_is_required(tau, data) -> None:
    """Over real trajectories with calls dropped at random: a PASS under 59a200c is a PASS
    under 7362a17, and on a task without required outputs the two agree."""
    parsed, cases, _ = tau
    trace = data.draw(st.sampled_from(parsed.traces))
    rounds = []
    for rnd in trace.rounds:
        keep = data.draw(st.lists(st.booleans(), min_size=len(rnd.calls), max_size=len(rnd.calls)))
        rounds.append(
            rnd.model_copy(update={"calls": [c for c, k in zip(rnd.calls, keep, strict=True) if k]})
        )
    dropped = trace.model_copy(update={"rounds": rounds})
    case = cases[trace.case_id]
    v = _verdicts(dropped, case, parsed.registry)
    if v[NEW] == "PASS":
        assert v[OLD] == "PASS"
    if not case.required_outputs:
        assert v[OLD] == v[NEW]


# --------------------------------------------------------------------------- τ²'s reward basis


def _based(case: Case, basis: list[str], **metadata) -> Case:
    return case.model_copy(
        update={"metadata": {**case.metadata, "reward_basis": basis, **metadata}}
    )


def test_a_case_s_reward_basis_decides_what_is_checked(tau) -> None:
    parsed, cases, _ = tau
    case = cases["task-044"]
    wrong_db = _with_call(
        _passing(tau, "task-044"),
        "cancel_reservation",
        {"reservation_id": "JMO1MG"},
        parsed.registry,
        case,
    )
    new = load_rule_set(NEW)
    # COMMUNICATE alone: the database is not read, whatever the rule set says
    only_said = _based(case, ["COMMUNICATE"])
    assert judge(wrong_db, only_said, parsed.registry, "state", new).verdict == "PASS"
    # DB alone: the outputs are not read
    only_db = _based(case, ["DB"])
    assert judge(wrong_db, only_db, parsed.registry, "state", new).verdict == "FAIL"
    assert state_checks(only_db, "outputs-else-db").db
    # ACTION: every golden call made with its compared arguments, in any order
    acted = _based(case, ["ACTION"], compare_args=[["reservation_id"], None])
    assert judge(wrong_db, acted, parsed.registry, "state", new).verdict == "PASS"
    trace = _passing(tau, "task-044")
    # the read of the reservation left out (its round keeps no call)
    rounds = [r.model_copy(update={"calls": []}) if r.index == 1 else r for r in trace.rounds]
    assert [c.name for c in trace.rounds[1].calls] == ["get_reservation_details"]
    missing = trace.model_copy(update={"rounds": rounds})
    j = judge(missing, acted, parsed.registry, "state", new)
    assert j.verdict == "FAIL" and j.taxonomy == ["TOOL_MISSING"]
    assert "golden action 1 'get_reservation_details'" in j.reasons[0]


def test_a_part_the_tier_cannot_check_is_a_skip_never_a_pass(tau) -> None:
    parsed, cases, _ = tau
    case = _based(cases["task-044"], ["DB", "COMMUNICATE", "NL_ASSERTION"])
    right = _passing(tau, "task-044")
    j = judge(right, case, parsed.registry, "state", load_rule_set(NEW))
    assert j.verdict == "SKIP"
    assert j.reasons[0].startswith("tier does not decide: the reward of this case also needs")
    assert "model-graded" in j.reasons[0]
    # a part it does check and that fails is still a FAIL: the reward is 0 whatever the rest
    wrong = _with_call(
        right, "cancel_reservation", {"reservation_id": "JMO1MG"}, parsed.registry, case
    )
    assert judge(wrong, case, parsed.registry, "state", load_rule_set(NEW)).verdict == "FAIL"


def test_a_bad_reward_basis_is_a_recorded_judge_error(tau) -> None:
    parsed, cases, _ = tau
    case = _based(cases["task-044"], ["DB", "VIBES"])
    j = judge(_passing(tau, "task-044"), case, parsed.registry, "state")
    assert (
        j.taxonomy == ["JUDGE_ERROR"] and "unknown reward basis part(s) ['VIBES']" in j.reasons[0]
    )


def test_action_matching_follows_tau2s_compare_args() -> None:
    golden = {"order_id": "#W1", "reason": "no longer needed"}
    assert action_matches("cancel", golden, ["order_id"], "cancel", {"order_id": "#W1", "x": 1})
    assert not action_matches("cancel", golden, ["order_id"], "cancel", {"order_id": "#W2"})
    assert not action_matches("cancel", golden, ["order_id"], "refund", {"order_id": "#W1"})
    # no compare_args: the call's own arguments are compared, each must equal the golden's
    assert action_matches("cancel", golden, None, "cancel", {"order_id": "#W1"})
    assert not action_matches("cancel", golden, None, "cancel", {"order_id": "#W1", "x": 1})
    assert action_matches("cancel", golden, [], "cancel", {"anything": 2})


def test_the_rule_sets_are_listed_and_an_unknown_reward_is_one_line(tmp_path: Path) -> None:
    runner = CliRunner()
    listed = runner.invoke(cli, ["--db", f"sqlite:///{tmp_path / 'r.db'}", "rules", "list"])
    assert listed.exit_code == 0
    assert OLD in listed.output and NEW in listed.output and "tau-bench@1" in listed.output
    # tau-bench@1 and @2 stay as they were, and 59a200c's differs from tau-bench@2 in name only
    same = runner.invoke(cli, ["rules", "diff", "tau-bench@2", NEW])
    assert "settings" not in same.output.replace("have the same settings", "")
    diff = runner.invoke(cli, ["rules", "diff", NEW, OLD, "--json"])
    assert '"settings.reward"' in diff.output
    bad = tmp_path / "mine.yaml"
    bad.write_text("name: mine\nversion: 1\nextends: tau-bench@1\nsettings:\n  reward: vibes\n")
    result = runner.invoke(
        cli, ["--db", f"sqlite:///{tmp_path / 'r.db'}", "rules", "show", str(bad)]
    )
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ")
    assert "reward" in lines[0] and "outputs-else-db" in lines[0]


@pytest.mark.parametrize("ref", ["standard@2", "tau-bench@1", "tau-bench@2", NEW])
def test_the_default_reward_keeps_released_rule_sets_as_they_were(ref: str) -> None:
    # the setting is stored only when it is not its default: no released hash moved
    assert "reward" not in load_rule_set(ref).settings
    assert load_rule_set(OLD).settings["reward"] == "outputs-else-db"
