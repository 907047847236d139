"""A stored evaluation's calibration: against the run's other tiers, its external verdicts and
its reviews, with the same tables the agreement service computes from the same rows."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rejudge.judge import load_rubric, load_rule_set
from rejudge.store import Store

from rejudge.importers import SHIPPED_TAU2_BENCH
from rejudge.services import (
    evaluation_judge_calibration,
    import_tau_bench,
    judge_run,
    label_judgment,
)
from rejudge.services._agreement import run_agreement
from rejudge.services._reviews import review_rows


def test_an_evaluation_is_set_against_the_other_tier_the_reward_and_the_reviews(
    store: Store,
) -> None:
    imported = import_tau_bench(SHIPPED_TAU2_BENCH / "toolorchestra_retail.json", store)
    rules = load_rule_set("standard@2")
    golden = judge_run(store, imported.run.id, "golden", rules).evaluation_id
    state = judge_run(store, imported.run.id, "state", rules).evaluation_id
    calibration = evaluation_judge_calibration(store, golden)
    assert [(a.kind, a.name) for a in calibration.against] == [
        ("tier", "state"),
        ("external", "τ²-bench reward"),
    ]
    # against the reward: the agreement service's golden table, from the same rows
    [golden_vs_reward] = [
        t for t in run_agreement(store, imported.run.id).tiers if t.tier == "golden"
    ]
    assert calibration.against[1].table == golden_vs_reward.table
    assert calibration.against[0].evaluation == state
    # the golden tier's rows against the state tier's, trace by trace
    state_rows = {r.case_key: r.verdict for r in store.judgments.iter_evaluation_rows(state)}
    golden_rows = {r.case_key: r.verdict for r in store.judgments.iter_evaluation_rows(golden)}
    both = [k for k in golden_rows if {golden_rows[k], state_rows.get(k)} <= {"PASS", "FAIL"}]
    assert calibration.against[0].items == len(both)
    assert calibration.against[0].table.agreement == round(
        sum(golden_rows[k] == state_rows[k] for k in both) / len(both), 6
    )
    # a person says the first judgment was wrong, another confirms the second
    rows = review_rows(store, golden)
    scored = [r for r in rows if r["verdict"] in ("PASS", "FAIL")]
    label_judgment(store, golden, scored[0]["judgment_id"], "judge_wrong", "ann")
    label_judgment(store, golden, scored[1]["judgment_id"], "confirmed", "ann")
    reviewed = evaluation_judge_calibration(store, golden).get("review")
    assert reviewed is not None
    assert reviewed.items == 2
    assert reviewed.table.agreement == 0.5


def model_judged_store(tmp_path: Path) -> tuple[Path, Store, int]:
    """A store whose run was judged under nl-assertions-brief@1 by a loopback judge (each
    trace: first assertion met, second not), with τ²-style per-assertion external verdicts
    (t0, t1 both met; t2, t3 neither): (database file, store, evaluation id)."""
    import json

    from rejudge.recorder import JudgeEndpoint

    from rejudge.model import JudgeModel
    from rejudge.services import (
        ModelGradedOptions,
        judge_run_model_graded,
        record_external_verdicts,
    )
    from tests.judge.conftest import call, case, saved_run, trace
    from tests.services.judge_server import JudgeServer, serve

    cases = [
        case(id=f"t{i}", nl_assertions=["Agent refuses.", "Agent apologises."]) for i in range(4)
    ]
    db = tmp_path / "j.db"
    st = Store.open(f"sqlite:///{db}")
    saved_run(st, cases, [trace(call("get_user", user_id="U101"), case_id=c.id) for c in cases])
    # the outside judge: t0, t1 both met; t2, t3 neither
    outside = {f"t{i}": i < 2 for i in range(4)}
    record_external_verdicts(
        st,
        "r1",
        "tau2-bench",
        [
            (
                key,
                0,
                1.0 if met else 0.0,
                {
                    "reward_info": {
                        "nl_assertions": [
                            {"nl_assertion": a, "met": met, "justification": "seen"}
                            for a in ("Agent refuses.", "Agent apologises.")
                        ]
                    }
                },
            )
            for key, met in outside.items()
        ],
    )

    def reply(_body: dict[str, Any], _n: int) -> tuple[int, dict[str, str], str | None]:
        # a judge that meets the first assertion and not the second, always
        items = [
            {"index": 1, "justification": "yes", "met": True},
            {"index": 2, "justification": "no", "met": False},
        ]
        return 200, {}, json.dumps({"assertions": items})

    options = ModelGradedOptions(
        rubric=load_rubric("nl-assertions-brief@1"),
        judge=JudgeModel(),
        cassettes=tmp_path / "cassettes",
        record="new_episodes",
    )
    with serve(JudgeServer(reply)) as url:
        options = replace(options, endpoint=JudgeEndpoint(base_url=url))
        evaluation = judge_run_model_graded(st, "r1", options).evaluation
    return db, st, evaluation


def test_a_model_judge_is_calibrated_per_assertion_and_its_report_says_it_is_weak(
    tmp_path: Path,
) -> None:
    """The nl-assertions rubric through the real tier and service (a loopback judge over
    HTTP): each assertion's met is set against τ²-style ``met`` values stored with the reward,
    and the report, text and JSON, carries the calibration with its warning."""
    import json

    from click.testing import CliRunner

    from rejudge.cli import cli

    db, st, evaluation = model_judged_store(tmp_path)
    calibration = evaluation_judge_calibration(st, evaluation)
    per_assertion = calibration.get("assertions")
    assert per_assertion is not None and per_assertion.name == "τ²-bench's judge"
    # judge met [T, F] on each trace; the outside judge [T, T] on two, [F, F] on two
    table = per_assertion.table
    assert (table.pass_1, table.pass_0, table.fail_1, table.fail_0) == (2, 2, 2, 2)
    assert per_assertion.kappa == 0.0 and per_assertion.weak
    reward = calibration.get("external", "τ²-bench reward")
    assert reward is not None and reward.items == 4  # the judge FAILs all four
    assert calibration.warning is not None
    assert "kappa 0.00 vs τ²-bench's judge on 8 assertions" in calibration.warning
    st.close()

    runner = CliRunner()
    text = runner.invoke(cli, ["--db", f"sqlite:///{db}", "report", str(evaluation)])
    assert text.exit_code == 0, text.output
    assert calibration.warning in " ".join(text.output.split())
    as_json = runner.invoke(cli, ["--db", f"sqlite:///{db}", "report", str(evaluation), "--json"])
    assert json.loads(as_json.output)["judge_calibration"] == calibration.to_json()


def judged_twice(tmp_path: Path) -> tuple[Path, int, int, str]:
    """:func:`model_judged_store` with its run then judged under the golden tier and again
    under the model judge (replayed from its cassettes, the newest evaluation): (database
    file, golden evaluation, newest model-graded evaluation, the judge's warning)."""
    db, st, _ = model_judged_store(tmp_path)
    golden = judge_run(st, "r1", "golden", load_rule_set("standard@2")).evaluation_id
    from rejudge.services import ModelGradedOptions, judge_run_model_graded

    options = ModelGradedOptions(
        rubric=load_rubric("nl-assertions-brief@1"), cassettes=tmp_path / "cassettes"
    )
    graded = judge_run_model_graded(st, "r1", options).evaluation
    warning = evaluation_judge_calibration(st, graded).warning
    st.close()
    assert warning is not None and warning.startswith("weak judge: kappa ")
    return db, golden, graded, warning


@pytest.fixture(scope="module")
def twice(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, int, str]:
    return judged_twice(tmp_path_factory.mktemp("twice"))


def _cli(db: Path, *argv: str) -> tuple[int, str]:
    from click.testing import CliRunner

    from rejudge.cli import cli

    base = ["--db", f"sqlite:///{db}", "--cassettes", str(db.parent / "cassettes")]
    env = {"REJUDGE_DB": None, "REJUDGE_CASSETTES": None}
    result = CliRunner().invoke(cli, [*base, *argv], env=env)
    return result.exit_code, result.output


def test_judge_model_graded_says_a_weak_judge_is_weak_text_and_json(
    twice: tuple[Path, int, int, str],
) -> None:
    """`rejudge judge --tier model-graded` prints the warning before its summary, and its
    --json carries the calibration."""
    import json

    db, _, _, warning = twice
    judge = ["judge", "r1", "--tier", "model-graded", "--rubric", "nl-assertions-brief@1"]
    code, output = _cli(db, *judge)
    assert code == 0, output
    shown = " ".join(output.split())
    assert warning in shown and shown.index(warning) < shown.index("accuracy")
    code, output = _cli(db, "--json", *judge)
    data = json.loads(output)
    assert data["judge_calibration"]["warning"] == warning
    assert data["judge_calibration"]["weak"] is True


def test_compare_says_a_model_graded_sides_judge_is_weak_text_and_json(
    twice: tuple[Path, int, int, str],
) -> None:
    """`rejudge compare` says it of the model-graded side, and only of it, the same line in
    text and JSON; two rule-tier sides have no such key at all (their JSON is as before)."""
    import json

    db, golden, graded, warning = twice
    code, output = _cli(db, "compare", str(golden), str(graded))
    assert code == 0, output
    shown = " ".join(output.split())
    assert f"B's judge: {warning}" in shown and "A's judge" not in shown
    data = json.loads(_cli(db, "--json", "compare", str(golden), str(graded))[1])
    assert "judge_calibration_a" not in data  # the golden tier has no model judge
    assert data["judge_calibration_b"]["warning"] == warning
    swapped = json.loads(_cli(db, "--json", "compare", str(graded), str(golden))[1])
    assert swapped["judge_calibration_a"]["warning"] == warning
    plain = json.loads(_cli(db, "--json", "compare", str(golden), str(golden))[1])
    assert not {"judge_calibration_a", "judge_calibration_b"} & set(plain)
