"""The agreement page on the imported τ-bench run: the numbers it shows are those of
`rejudge report EVAL --against external --json`; an evaluation without external verdicts says so."""

from __future__ import annotations

import json
from pathlib import Path

from rejudge.judge import load_rule_set

from rejudge.services import evaluation_agreement, judge_run
from tests.dashboard.conftest import app_on, evidence, html_bars, metrics
from tests.dashboard.factory import Built, build_store
from tests.judge.conftest import tau_store


def test_the_page_shows_the_report_numbers(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'agree.db'}"
    store = tau_store(url)
    rules = load_rule_set("standard@2")
    ev = judge_run(store, "tau", "golden", rules).evaluation_id
    judge_run(store, "tau", "completion", rules)
    expected = evaluation_agreement(store, ev).to_json()
    store.close()
    at = app_on(Built(url=url), "agreement", ev=str(ev))
    shown = metrics(at)
    assert shown["Traces with a verdict"] == "200"
    # the source's rate with its count (of the traces it gave a verdict)
    passed, traces = expected["external_passed"], expected["traces"]
    assert passed == round(expected["external_pass_rate"] * traces)
    assert shown["tau-bench success"] == f"{100 * passed / traces:.1f}% ({passed} of {traces})"
    frames = [d.value for d in at.dataframe]
    golden_table = next(t for t in expected["tiers"] if t["tier"] == "golden")["table"]
    agreed = golden_table["pass_1"] + golden_table["fail_0"]
    assert (
        shown["golden agrees"] == f"{100 * agreed / golden_table['total']:.1f}% ({agreed} of 200)"
    )
    # every trace against the reward, the disagreements first; each row opens its trace
    traces = next(f for f in frames if "agree" in f.columns)
    assert len(traces) == golden_table["total"]
    flags = list(traces["agree"])
    assert (
        flags == sorted(flags)
        and flags.count("NO") == golden_table["pass_0"] + golden_table["fail_1"]
    )
    table = next(f for f in frames if "tier" in f.columns)
    for tier in expected["tiers"]:
        row = table[table["tier"] == tier["tier"]].iloc[0]
        assert row["FAIL / 1"] == tier["table"]["fail_1"]
        assert row["PASS / 0"] == tier["table"]["pass_0"]
    golden = next(t for t in expected["tiers"] if t["tier"] == "golden")
    assert shown["rejudge FAIL, external 1"] == str(golden["table"]["fail_1"])
    # the causes as bars: full names, every count printed, most frequent first
    (causes,) = html_bars(at)
    assert {label: int(text.split()[0]) for label, _s, _w, text in causes} == golden["causes"]
    counts = [int(text.split()[0]) for *_, text in causes]
    assert counts == sorted(counts, reverse=True) and causes[0][2] == 100
    disagreements = next(f for f in frames if "side by side" in f.columns)
    assert len(disagreements) == len(golden["disagreements"])
    # every row opens side by side; what τ-bench checked (its reward_info) is beside rejudge's
    assert all(u.startswith("side_by_side?a=") for u in disagreements["side by side"])
    assert all("reward" in c for c in disagreements["what tau-bench checked"])
    assert json.loads(evidence(at, "json")[-1]) == expected


def test_the_page_opens_on_an_evaluation_with_external_verdicts(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'agree.db'}"
    store = tau_store(url)
    ev = judge_run(store, "tau", "golden", load_rule_set("standard@2")).evaluation_id
    store.close()
    newer = build_store(url, cases=3, repeat=1, with_run_b=False)  # no external verdict
    assert min(newer.evaluations.values()) > ev
    at = app_on(Built(url=url), "agreement")
    assert at.selectbox(key="pick_ev").value == ev
    assert metrics(at)["Traces with a verdict"] == "200"
    (causes,) = html_bars(at)
    assert causes  # the bars are checked against the report in the test above
