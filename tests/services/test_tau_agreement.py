"""The imported τ-bench GPT-4o run: its pass^k as rejudge computes it equals τ-bench's own
estimator on the file's rewards, and the agreement view's 2x2 tables are the evaluation's
verdicts crossed with those rewards (the report's --json carries the same numbers)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from math import comb
from pathlib import Path

import pytest
from click.testing import Result
from rejudge.judge import load_rule_set
from rejudge.store import Store

from rejudge.importers import SHIPPED_TAU_BENCH
from rejudge.services import (
    evaluation_agreement,
    evaluation_rows,
    import_tau_bench,
    judge_run,
)

FILE = SHIPPED_TAU_BENCH / "gpt-4o-airline.json"
TOOLS = SHIPPED_TAU_BENCH / "tools.json"


def tau_bench_pass_hat_k(entries: list[dict]) -> dict[str, float]:
    """τ-bench's estimator as its run script computes it: per task the number of trials whose
    reward is 1 (within 1e-6), then the mean over tasks of C(c, k) / C(num_trials, k)."""
    num_trials = len({e["trial"] for e in entries})
    successes: Counter = Counter()
    for e in entries:
        successes[e["task_id"]] += int(1 - 1e-6 <= e["reward"] <= 1 + 1e-6)
    tasks = {e["task_id"] for e in entries}
    return {
        str(k): sum(comb(successes[t], k) / comb(num_trials, k) for t in tasks) / len(tasks)
        for k in range(1, num_trials + 1)
    }


@pytest.fixture(scope="module")
def entries() -> list[dict]:
    return json.loads(FILE.read_text())


def test_pass_hat_k_equals_tau_bench_and_the_tables_add_up(
    store: Store, entries: list[dict]
) -> None:
    import_tau_bench(FILE, store, tools=TOOLS, run_name="tau")
    rules = load_rule_set("standard@2")
    ids = {
        tier: judge_run(store, "tau", tier, rules).evaluation_id
        for tier in ("golden", "completion")
    }
    agreement = evaluation_agreement(store, ids["golden"])
    expected = tau_bench_pass_hat_k(entries)
    got = agreement.external_pass_hat_k
    assert {str(k) for k in got.values} == set(expected)
    for k, value in expected.items():
        assert got[int(k)] == pytest.approx(value, abs=1e-6)
    assert got[1] == pytest.approx(84 / 200)

    rewards = {(f"task-{e['task_id']:03d}", e["trial"]): e["reward"] == 1.0 for e in entries}
    assert [t.tier for t in agreement.tiers] == ["completion", "golden"]
    for t in agreement.tiers:
        cells: Counter = Counter()
        for row in evaluation_rows(store, ids[t.tier]):
            if row["verdict"] in ("PASS", "FAIL"):
                cells[(row["verdict"], rewards[(row["case"], row["repetition"])])] += 1
        table = t.table
        assert (table.pass_1, table.pass_0, table.fail_1, table.fail_0) == (
            cells[("PASS", True)],
            cells[("PASS", False)],
            cells[("FAIL", True)],
            cells[("FAIL", False)],
        )
        assert len(t.disagreements) == table.pass_0 + table.fail_1
        assert all(d.causes for d in t.disagreements if d.verdict == "FAIL")


def test_report_against_external_prints_the_same_json(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    assert (
        run_cli("import", "tau-bench", str(FILE), "--tools", str(TOOLS), "--name", "tau").exit_code
        == 0
    )
    assert run_cli("judge", "tau", "--tier", "golden").exit_code == 0
    result = run_cli("report", "1", "--against", "external", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    store = Store.open(f"sqlite:///{tmp_path / 'cli.db'}")
    assert data == json.loads(json.dumps(evaluation_agreement(store, 1).to_json()))
    text = run_cli("report", "1", "--against", "external")
    assert "rejudge vs tau-bench" in text.output and "kappa" in text.output
    # an evaluation of a run with no external verdict says so in one line
    assert run_cli("report", "99", "--against", "external").exit_code == 1
