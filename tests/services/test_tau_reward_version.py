"""`rejudge import tau-bench --reward-version`: the version of τ-bench's reward that scored a
file is recorded with its verdicts, by default what the file shows, and a file that shows
nothing is refused with one line asking for it (rejudge/importers/_tau_version.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from rejudge.store import Store, downgrade, upgrade
from rejudge.store._tables import RunRow

from rejudge.errors import InvalidInputError
from rejudge.importers import KNOWN_FILES, SHIPPED_TAU_BENCH, git_blob_id, shown_reward_version
from rejudge.importers._tau2_read import SHIPPED_TAU2_BENCH
from rejudge.services import import_tau_bench, run_external_verdicts
from tests.store.store_factories import count_rows

FILE = SHIPPED_TAU_BENCH / "gpt-4o-airline.json"
TOOLS = SHIPPED_TAU_BENCH / "tools.json"


def _entries() -> list[dict]:
    return json.loads(FILE.read_text(encoding="utf-8"))


def _write(tmp_path: Path, entries: list[dict], name: str = "part.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(entries), encoding="utf-8")
    return path


def test_the_shipped_file_is_known_by_its_git_blob_and_recorded_as_7362a17(store: Store) -> None:
    # the blob id of the file τ-bench published at 7362a17 (and unchanged at 59a200c)
    assert git_blob_id(FILE.read_bytes()) in KNOWN_FILES
    result = import_tau_bench(FILE, store, tools=TOOLS, run_name="tau")
    assert result.reward_version == "7362a17"
    assert "historical_trajectories/gpt-4o-airline.json" in (result.reward_version_how or "")
    assert result.summary()["reward_version"] == "7362a17"
    stored = run_external_verdicts(store, "tau")
    assert len(stored) == 200 and {v.verdict.version for v in stored} == {"7362a17"}


def test_a_file_that_shows_nothing_is_refused_and_given_it_is_recorded(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    part = _write(tmp_path, _entries()[:8])
    assert shown_reward_version(part.read_bytes(), _entries()[:8]) is None
    result = run_cli("import", "tau-bench", str(part), "--tools", str(TOOLS))
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and result.output.startswith("Error: ")
    assert "--reward-version" in result.output and "7362a17, 59a200c" in result.output
    db = Store.open(f"sqlite:///{tmp_path / 'cli.db'}")
    assert count_rows(db, RunRow) == 0
    given = run_cli(
        "import",
        "tau-bench",
        str(part),
        "--tools",
        str(TOOLS),
        "--reward-version",
        "59a200c",
        "--name",
        "part",
    )
    assert given.exit_code == 0, given.output
    assert "τ-bench reward version 59a200c: given explicitly" in " ".join(given.output.split())
    verdicts = run_external_verdicts(db, "part")
    assert len(verdicts) == 8 and {v.verdict.version for v in verdicts} == {"59a200c"}


def test_a_reward_only_59a200c_gives_shows_the_version(tmp_path: Path, store: Store) -> None:
    entries = _entries()[:8]
    # task 44 told its output ("4"); a database the later reward found wrong makes it 0
    told = next(e for e in _entries() if e["task_id"] == 44 and e["reward"] == 1.0)
    told["reward"] = 0.0
    told["info"]["reward_info"]["reward"] = 0.0
    entries.append(told)
    path = _write(tmp_path, entries)
    shown = shown_reward_version(path.read_bytes(), entries)
    assert shown is not None and shown.version == "59a200c"
    assert "r_outputs 1" in shown.how
    result = import_tau_bench(path, store, tools=TOOLS)
    assert result.reward_version == "59a200c"
    # a version given against what the file shows is refused, naming both
    with pytest.raises(InvalidInputError, match="reward version 7362a17 contradicts the file"):
        import_tau_bench(path, store, tools=TOOLS, reward_version="7362a17", run_name="again")


def test_the_shipped_file_under_the_other_version_is_refused(
    run_cli: Callable[..., Result],
) -> None:
    result = run_cli(
        "import", "tau-bench", str(FILE), "--tools", str(TOOLS), "--reward-version", "59a200c"
    )
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert "contradicts the file" in result.output and "7362a17" in result.output
    bogus = run_cli("import", "tau-bench", str(FILE), "--reward-version", "HEAD")
    assert bogus.exit_code == 1 and bogus.output.count("\n") == 1
    assert "--reward-version: 'HEAD' is not a τ-bench reward version" in bogus.output


def test_a_tau2_document_records_its_code_commit_and_takes_no_reward_version(
    store: Store,
) -> None:
    doc = SHIPPED_TAU2_BENCH / "claude-sonnet-4-5_airline.json"
    with pytest.raises(InvalidInputError, match="τ² declares each task's reward basis"):
        import_tau_bench(doc, store, reward_version="7362a17")
    result = import_tau_bench(doc, store)
    # the full commit the document names (info.git_commit)
    assert result.reward_version == "8d005b0e5b9e4af0bc055886fa7f95fc86d1710e"
    versions = {v.verdict.version for v in run_external_verdicts(store, result.run.name)}
    assert versions == {result.reward_version}


def test_verdicts_stored_before_versions_read_none_and_gain_theirs(db_url: str) -> None:
    """A store at revision 0102 (no version column) opens; its τ-bench verdicts read version
    None until the same file is imported again, which fills the version in."""
    store = Store.open(db_url)
    try:
        downgrade(store.engine, "0102_run_planned_cases")
        upgrade(store.engine)
        import_tau_bench(FILE, store, tools=TOOLS, run_name="tau")
        with store.engine.begin() as c:
            c.exec_driver_sql("UPDATE external_verdicts SET version = NULL")
        downgrade(store.engine, "0102_run_planned_cases")
        upgrade(store.engine)  # an old store's rows, as 0103 finds them
        assert {v.verdict.version for v in run_external_verdicts(store, "tau")} == {None}
        again = import_tau_bench(FILE, store, tools=TOOLS, run_name="tau")
        assert again.inserted == 0 and again.verdicts == 200
        assert {v.verdict.version for v in run_external_verdicts(store, "tau")} == {"7362a17"}
    finally:
        store.close()


# --------------------------------------------------------------------------- report --against


def test_every_reward_version_has_the_rule_set_that_follows_it() -> None:
    from rejudge.judge import EXTERNAL_RULE_SETS, load_rule_set

    from rejudge.importers import TAU_REWARD_VERSIONS

    rewards = {"7362a17": "outputs-else-db", "59a200c": "db-and-outputs"}
    for version in TAU_REWARD_VERSIONS:
        rules = load_rule_set(EXTERNAL_RULE_SETS[("tau-bench", version)])
        assert rules.settings.get("reward", "db-and-outputs") == rewards[version]
        # τ-bench rewards read-only tasks by their database too
        assert rules.settings["state_applies"] == "always"


def test_matching_says_why_when_there_is_no_match() -> None:
    from rejudge.judge import matching_rule_set

    assert matching_rule_set("tau-bench", {"7362a17"})[0] == "tau-bench-7362a17@1"
    assert matching_rule_set("tau-bench", {"59a200c"})[0] == "tau-bench-59a200c@1"
    assert matching_rule_set("tau2-bench", {"8d005b0"})[0] == "tau-bench@2"
    ref, why = matching_rule_set("tau-bench", {None})
    assert ref is None and "not recorded" in why
    ref, why = matching_rule_set("tau-bench", {"7362a17", "59a200c"})
    assert ref is None and "several versions" in why
    assert matching_rule_set("inspect", {None}) == (
        None,
        "no built-in rule set follows inspect's reward",
    )


@pytest.mark.slow
def test_report_against_external_uses_the_matching_rule_set_and_says_which(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    def cli(*args: str) -> Result:
        result = run_cli(*args)
        assert result.exit_code == 0, result.output
        return result

    cli("import", "tau-bench", str(FILE), "--tools", str(TOOLS), "--name", "tau")
    cli("judge", "tau", "--tier", "state", "--rules", "tau-bench@2")  # evaluation 1
    # not judged under the matching rule set yet: EVAL's, and the view says what to do
    first = json.loads(cli("report", "1", "--against", "external", "--json").output)
    assert first["rules"] == "tau-bench@2" and first["external_versions"] == ["7362a17"]
    assert "judge it under rule set tau-bench-7362a17@1" in first["rules_reason"]
    cli("judge", "tau", "--tier", "state", "--rules", "tau-bench-7362a17@1")  # evaluation 2
    data = json.loads(cli("report", "1", "--against", "external", "--json").output)
    assert data["rules"] == "tau-bench-7362a17@1"
    assert "7362a17, the version that gave its verdicts" in data["rules_reason"]
    (state,) = data["tiers"]
    assert state["evaluation"] == 2 and state["rules"] == "tau-bench-7362a17@1"
    table = state["table"]
    assert (table["pass_1"], table["fail_0"], table["total"]) == (84, 116, 200)
    text = cli("report", "1", "--against", "external").output
    assert "tau-bench reward version: 7362a17; rules tau-bench-7362a17@1:" in text
    # --rules overrides, and a rule set the run was not judged under is one line naming it
    given = json.loads(
        cli("report", "2", "--against", "external", "--rules", "tau-bench@2", "--json").output
    )
    assert given["rules"] == "tau-bench@2" and given["rules_reason"] == "given explicitly"
    missing = run_cli("report", "1", "--against", "external", "--rules", "tau-bench-59a200c@1")
    assert missing.exit_code == 1 and missing.output.count("\n") == 1
    assert "no finished evaluation under tau-bench-59a200c@1" in missing.output


# --------------------------------------------------------------------------- τ²'s reward basis


def _tau2_with_basis(tmp_path: Path, basis: list[str]) -> tuple[Path, dict]:
    doc = json.loads((SHIPPED_TAU2_BENCH / "claude-sonnet-4-5_airline.json").read_text())
    for task in doc["tasks"]:
        task["evaluation_criteria"]["reward_basis"] = basis
    path = tmp_path / "airline.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path, doc


def test_tau2s_action_basis_is_kept_and_checked_as_tau2_checked_it(tmp_path: Path) -> None:
    """Every task's basis set to ACTION: the import keeps it (and each action's compare_args) on
    the case, and the state tier then passes a simulation exactly when τ²'s own recorded action
    checks all matched, on all 50 simulations."""
    from rejudge.judge import judge, load_rule_set

    from rejudge.importers import tau2_registry
    from rejudge.services import read_tau_file

    path, doc = _tau2_with_basis(tmp_path, ["ACTION"])
    plan, parsed = read_tau_file(path, None)
    assert plan is not None
    registry = tau2_registry(parsed.registry, plan.domain)
    cases = {c.id: c for c in parsed.cases}
    assert all(c.metadata["reward_basis"] == ["ACTION"] for c in cases.values())
    assert all(len(c.metadata["compare_args"]) == len(c.golden.calls) for c in cases.values())
    matched = {
        f"task-{s['task_id']}": all(
            a["action_match"] for a in (s["reward_info"].get("action_checks") or [])
        )
        for s in doc["simulations"]
    }
    rules = load_rule_set("tau-bench@2")
    got = {
        t.case_id: judge(t, cases[t.case_id], registry, "state", rules).verdict
        for t in parsed.traces
        if t.status != "step_limit"
    }
    assert len(got) >= 45
    assert {k: v == "PASS" for k, v in got.items()} == {k: matched[k] for k in got}
    assert sum(matched[k] for k in got) not in (0, len(got))  # both outcomes occur


def test_a_default_basis_keeps_every_case_as_it_was_and_a_bad_one_is_refused(
    tmp_path: Path,
) -> None:
    from rejudge.services import read_tau_file

    default, _ = _tau2_with_basis(tmp_path, ["COMMUNICATE", "DB"])
    _plan, parsed = read_tau_file(default, None)
    _plan, shipped = read_tau_file(SHIPPED_TAU2_BENCH / "claude-sonnet-4-5_airline.json", None)
    assert [c.hash for c in parsed.cases] == [c.hash for c in shipped.cases]
    assert all("reward_basis" not in c.metadata for c in parsed.cases)
    bad, _ = _tau2_with_basis(tmp_path, ["DB", "VIBES"])
    with pytest.raises(InvalidInputError, match="names a part τ² does not have"):
        read_tau_file(bad, None)


def test_the_importer_and_the_state_tier_know_the_same_reward_parts() -> None:
    """Each part the state tier knows is kept as a task's basis (the default one, as either
    order of it, is not kept); a part it does not know is refused."""
    from rejudge.judge.tiers import DEFAULT_REWARD_BASIS, REWARD_PARTS

    from rejudge.importers._tau2_read import tau2_tasks

    doc = json.loads((SHIPPED_TAU2_BENCH / "claude-sonnet-4-5_airline.json").read_text())
    task = doc["tasks"][0]

    def read(basis: list[str]) -> tuple[dict, list[str]]:
        task["evaluation_criteria"]["reward_basis"] = basis
        problems: list[str] = []
        return tau2_tasks({"tasks": [task]}, "doc", problems), problems

    for part in REWARD_PARTS:
        tasks, problems = read([part])
        assert problems == [] and tasks[str(task["id"])]["reward_basis"] == [part], part
    for basis in (list(DEFAULT_REWARD_BASIS), list(reversed(DEFAULT_REWARD_BASIS))):
        tasks, problems = read(basis)
        assert problems == [] and "reward_basis" not in tasks[str(task["id"])]
    tasks, problems = read(["USER_VIBES"])
    assert tasks == {} and len(problems) == 1
