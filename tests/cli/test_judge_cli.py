"""`rejudge judge | rejudge | report | compare | baseline` through click's runner on SQLite."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from rejudge.store import Store

from rejudge.model import RunConfig
from tests.judge.conftest import REGISTRY, call, case, gcall, trace

JUDGE_COMMANDS = {
    "judge": "rejudge.cli.judge:judge_cmd",
    "rejudge": "rejudge.cli.judge:rejudge_cmd",
    "report": "rejudge.cli.judge:report",
    "compare": "rejudge.cli.judge:compare",
    "baseline": "rejudge.cli.judge:baseline",
}

CASES = [
    case(gcall("get_order", order_id="W441"), id="a", dimension="D1"),
    case(
        gcall("request_cancel", order_id="W441", reason="Changed my mind"), id="b", dimension="D2"
    ),
    case(id="n", negative=True, allowed_extra=[], dimension="D3"),
]
# b's reason differs only in case and internal whitespace: FAIL under standard@1 (exact), PASS
# under standard@2 (free-text parameters compare normalized)
TRACES = [
    trace(call("get_order", order_id="W441"), case_id="a"),
    trace(call("request_cancel", order_id="W441", reason="changed  my mind"), case_id="b"),
    trace(case_id="n"),
    trace(call("get_order", order_id="W999"), case_id="a", repetition=1),
]


@pytest.fixture(autouse=True)
def _registered(monkeypatch):
    import rejudge.cli as cli_module

    for name, target in JUDGE_COMMANDS.items():
        monkeypatch.setitem(cli_module._COMMANDS, name, target)


def _seed(db: Path | str, run_name: str = "r1", traces=TRACES) -> None:
    st = Store.open(db if isinstance(db, str) else f"sqlite:///{db}")
    suite = st.suites.save_suite(
        name="t", domain="retail", suite_hash="sha256:t", registry=REGISTRY, cases=CASES
    )
    run = st.runs.create_run(name=run_name, suite=suite, config=RunConfig(model=f"m-{run_name}"))
    pks = st.suites.get_case_pks(suite.id)
    st.traces.save_traces([(run.id, pks[t.case_id], t, None, None) for t in traces])
    st.close()


@pytest.fixture()
def seeded(tmp_path: Path, monkeypatch) -> Path:
    _seed(tmp_path / "cli.db")

    def no_network(*args, **kwargs):
        raise AssertionError("a judge command opened a network connection")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    return tmp_path / "cli.db"


def _json(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def _one_line_error(result, fragment: str) -> None:
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    assert fragment in lines[0]


def test_judge_json_contract(run_cli, seeded) -> None:
    data = _json(run_cli("--json", "judge", "r1", "--tier", "golden", "--rules", "standard@1"))
    assert {"evaluation", "run", "tier", "rules", "summary"} <= set(data)
    assert (data["run"], data["tier"], data["rules"]) == ("r1", "golden", "standard@1")
    summary = data["summary"]
    for key in (
        "verdict_counts",
        "scored_count",
        "accuracy",
        "dimensions",
        "taxonomy_counts",
        "pass_at_k",
        "average_partial_score",
    ):
        assert key in summary, key
    assert summary["verdict_counts"] == {"PASS": 2, "FAIL": 2, "SKIP": 0, "AGENT_ERROR": 0}
    assert summary["accuracy"] == 0.5 and summary["scored_count"] == 4
    assert summary["taxonomy_counts"] == {"PARAM_HALLUCINATED_ID": 1, "PARAM_WRONG_VALUE": 1}
    assert set(summary["dimensions"]) == {"D1", "D2", "D3"}
    # the local flag works after the command too
    again = _json(run_cli("judge", "r1", "--tier", "golden", "--rules", "standard@1", "--json"))
    assert again["written"] == 0 and again["judged"] == 4  # same inputs: lookups


def test_judge_human_output_is_a_table(run_cli, seeded) -> None:
    result = run_cli("judge", "r1", "--tier", "contract")
    assert result.exit_code == 0, result.output
    assert "accuracy" in result.output and "By dimension" in result.output
    assert "rejudge report" in result.output


def test_report_json_has_cases(run_cli, seeded) -> None:
    ev = _json(run_cli("--json", "judge", "r1", "--tier", "golden", "--rules", "standard@1"))
    data = _json(run_cli("--json", "report", str(ev["evaluation"])))
    assert {"evaluation", "run", "tier", "rules", "summary", "cases"} <= set(data)
    assert [(c["case"], c["repetition"], c["verdict"]) for c in data["cases"]] == [
        ("a", 0, "PASS"),
        ("a", 1, "FAIL"),
        ("b", 0, "FAIL"),
        ("n", 0, "PASS"),
    ]
    assert set(data["cases"][0]) == {"case", "repetition", "verdict", "taxonomy", "partial_score"}
    for key in ("top_failures", "worst_tools", "harness_mode", "anomalies", "pass_at_k"):
        assert key in data["summary"], key
    assert data["summary"]["harness_mode"] == "production-parity"
    human = run_cli("report", str(ev["evaluation"]))
    assert human.exit_code == 0 and "Cases" in human.output and "Top failures" in human.output


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["judge", "nope", "--tier", "golden"], "no run 'nope'"),
        (["judge", "r1", "--tier", "nope"], "unknown tier 'nope'"),
        (
            ["judge", "r1", "--tier", "golden", "--rules", "standard@99"],
            "unknown rule set 'standard@99'",
        ),
        (["report", "999"], "no evaluation 999"),
        (["report", "abc"], "evaluation ids are numbers"),
        (["compare", "1", "999"], "no evaluation"),
        (["rejudge", "nope", "--rules", "standard@2", "--tier", "golden"], "no run 'nope'"),
        (["rejudge", "r1", "--rules", "standard@2", "--tier", "x", "--shard", "1/2"], "tier 'x'"),
        (["rejudge", "r1", "--rules", "standard@2", "--tier", "golden", "--shard", "3/2"], "I < N"),
        (["baseline", "check", "1", "--against", "nope"], "no baseline named 'nope'"),
        (
            ["judge", "r1", "--tier", "state", "--world", "retail"],
            "--world: a world is named NAME@VERSION",
        ),
        (
            ["judge", "r1", "--tier", "state", "--world", "retail@9"],
            "--world: world retail@9: run 'r1' is judged against a registry that names no world",
        ),
    ],
)
def test_errors_are_one_line(run_cli, seeded, argv, fragment) -> None:
    run_cli("judge", "r1", "--tier", "golden")  # evaluation 1 exists
    _one_line_error(run_cli(*argv), fragment)


def test_rejudge_of_a_never_judged_run_needs_a_tier(run_cli, seeded) -> None:
    _one_line_error(run_cli("rejudge", "r1", "--rules", "standard@2"), "never judged")
    _one_line_error(
        run_cli("rejudge", "--all", "--rules", "standard@2"),
        "Error: --tier: no run to re-judge: r1 never judged before; name a tier to judge under",
    )


def test_rejudge_usage_errors_exit_2(run_cli, seeded) -> None:
    assert run_cli("rejudge", "--rules", "standard@2").exit_code == 2
    assert run_cli("rejudge", "r1", "--all", "--rules", "standard@2").exit_code == 2
    assert run_cli("rejudge", "r1").exit_code == 2  # --rules is required


def test_rejudge_defaults_to_previous_tiers_and_compare_shows_rule_flips(run_cli, seeded) -> None:
    first = _json(run_cli("--json", "judge", "r1", "--tier", "golden", "--rules", "standard@1"))
    _json(run_cli("--json", "judge", "r1", "--tier", "contract", "--rules", "standard@1"))
    data = _json(run_cli("--json", "rejudge", "--all", "--rules", "standard@2", "--workers", "2"))
    assert sorted(e["tier"] for e in data["evaluations"]) == ["contract", "golden"]
    assert data["judged"] == 8 and data["written"] == 8 and data["skipped"] == []
    golden = next(e for e in data["evaluations"] if e["tier"] == "golden")
    assert golden["run"] == "r1" and golden["rules"] == "standard@2"
    assert golden["summary"]["verdict_counts"]["PASS"] == 3

    cmp = _json(run_cli("--json", "compare", str(first["evaluation"]), str(golden["evaluation"])))
    assert {"a", "b", "accuracy_a", "accuracy_b", "mcnemar_p", "comparable", "flips"} <= set(cmp)
    assert (cmp["a"], cmp["b"]) == (first["evaluation"], golden["evaluation"])
    assert (cmp["accuracy_a"], cmp["accuracy_b"]) == (0.5, 0.75)
    assert cmp["comparable"] is True
    assert cmp["flips"] == [
        {
            "case": "b",
            "repetition": 0,
            "from": "FAIL",
            "to": "PASS",
            "cause": "rules changed",
            "causes": ["rules changed"],
            "taxonomy_from": ["PARAM_WRONG_VALUE"],
            "taxonomy_to": [],
        }
    ]
    # one run under two rule sets: two judges of the same traces, never a race
    assert cmp["format_version"] == 2 and cmp["kind"] == "judge"
    assert cmp["differs"] == {"evidence": [], "judge": ["rules changed"]}
    assert cmp["mcnemar_p"] is None and cmp["verdict"] is None
    assert (cmp["judges"]["a_stricter"], cmp["judges"]["b_stricter"]) == (1, 0)
    assert cmp["flips_by_cause"] == {"rules changed": 1}
    assert "D2" in cmp["dimensions"]
    human = run_cli("compare", str(first["evaluation"]), str(golden["evaluation"]))
    assert human.exit_code == 0 and "rules changed" in human.output
    assert "A is stricter on 1 case(s), B on 0" in " ".join(human.output.split())
    assert "McNemar" not in human.output and "better" not in human.output


def test_rejudge_shards_converge_on_one_evaluation(run_cli, seeded) -> None:
    a = _json(
        run_cli(
            "--json", "rejudge", "r1", "--rules", "standard@2", "--tier", "golden", "--shard", "0/2"
        )
    )
    b = _json(
        run_cli(
            "--json", "rejudge", "r1", "--rules", "standard@2", "--tier", "golden", "--shard", "1/2"
        )
    )
    ea, eb = a["evaluations"][0], b["evaluations"][0]
    assert ea["evaluation"] == eb["evaluation"]
    assert ea["judged"] + eb["judged"] == 4
    assert sum(eb["summary"]["verdict_counts"].values()) == 4


def test_compare_across_models_flags_trace_changes(run_cli, seeded, tmp_path) -> None:
    worse = [
        trace(call("get_order", order_id="W441"), case_id="a"),
        trace(call("get_order", order_id="W441"), case_id="b"),
        trace(case_id="n"),
    ]
    _seed(tmp_path / "cli.db", "r2", worse)
    a = _json(run_cli("--json", "judge", "r1", "--tier", "golden"))
    b = _json(run_cli("--json", "judge", "r2", "--tier", "golden"))
    cmp = _json(run_cli("--json", "compare", str(a["evaluation"]), str(b["evaluation"])))
    assert cmp["comparable"] is False  # case sets differ (r2 has no a r1)
    assert any("case sets differ" in r for r in cmp["reasons"])
    assert [(f["case"], f["cause"]) for f in cmp["flips"]] == [("b", "trace changed")]
    human = run_cli("compare", str(a["evaluation"]), str(b["evaluation"]))
    assert "NOT COMPARABLE" in human.output


def test_baseline_lock_and_check(run_cli, seeded, tmp_path) -> None:
    good = _json(run_cli("--json", "judge", "r1", "--tier", "golden", "--rules", "standard@2"))
    locked = _json(run_cli("--json", "baseline", "lock", str(good["evaluation"]), "--name", "main"))
    assert locked["baseline"] == "main" and locked["report_sha256"].startswith("sha256:")
    assert locked["inputs"]["tier"] == "golden"
    # a baseline name is immutable
    _one_line_error(
        run_cli("baseline", "lock", str(good["evaluation"]), "--name", "main"), "already exists"
    )
    # the same evaluation passes its own baseline
    ok = run_cli("--json", "baseline", "check", str(good["evaluation"]), "--against", "main")
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.output)["regression"] is False

    # a second model regresses on case b (PASS -> FAIL)
    worse = [
        trace(call("get_order", order_id="W441"), case_id="a"),
        trace(call("request_cancel", order_id="W442", reason="changed my mind"), case_id="b"),
        trace(case_id="n"),
        trace(call("get_order", order_id="W999"), case_id="a", repetition=1),
    ]
    _seed(tmp_path / "cli.db", "r2", worse)
    bad = _json(run_cli("--json", "judge", "r2", "--tier", "golden", "--rules", "standard@2"))
    result = run_cli("--json", "baseline", "check", str(bad["evaluation"]), "--against", "main")
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert data["regression"] is True
    assert [(f["case"], f["from"], f["to"]) for f in data["flips"]] == [("b", "PASS", "FAIL")]
    # accuracy-only mode: a drop of 0.25 within --max-drop 0.3 passes, 0.1 does not
    lenient = run_cli(
        "baseline", "check", str(bad["evaluation"]), "--against", "main",
        "--allow-flips", "--max-drop", "0.3",
    )  # fmt: skip
    assert lenient.exit_code == 0, lenient.output
    strict = run_cli(
        "baseline", "check", str(bad["evaluation"]), "--against", "main",
        "--allow-flips", "--max-drop", "0.1",
    )  # fmt: skip
    assert strict.exit_code == 1 and "REGRESSION" in strict.output

    # different rules: inputs do not line up -> refused unless --allow-mismatch
    other = _json(run_cli("--json", "judge", "r1", "--tier", "golden", "--rules", "standard@1"))
    _one_line_error(
        run_cli("baseline", "check", str(other["evaluation"]), "--against", "main"),
        "rule_set_hash",
    )
    forced = run_cli(
        "--json", "baseline", "check", str(other["evaluation"]), "--against", "main",
        "--allow-mismatch",
    )  # fmt: skip
    assert forced.exit_code == 1  # b flips PASS -> FAIL under the stricter rules
    assert json.loads(forced.output)["input_mismatches"][0]["input"] == "rule_set_hash"
    assert json.loads(forced.output)["judge_changed"] == ["rules changed"]
    human = run_cli(
        "baseline", "check", str(other["evaluation"]), "--against", "main", "--allow-mismatch"
    )  # fmt: skip
    assert "judge changed (rules changed)" in " ".join(human.output.split())


def test_judge_rejudge_compare_on_both_backends(run_cli, db_url) -> None:
    _seed(db_url)
    a = _json(
        run_cli("--json", "judge", "r1", "--tier", "golden", "--rules", "standard@1", db=db_url)
    )
    data = _json(
        run_cli("--json", "rejudge", "r1", "--rules", "standard@2", "--workers", "2", db=db_url)
    )
    b = data["evaluations"][0]
    assert b["summary"]["verdict_counts"]["PASS"] == 3
    cmp = _json(run_cli("--json", "compare", str(a["evaluation"]), str(b["evaluation"]), db=db_url))
    assert [(f["case"], f["cause"]) for f in cmp["flips"]] == [("b", "rules changed")]
    report = _json(run_cli("--json", "report", str(b["evaluation"]), db=db_url))
    assert len(report["cases"]) == 4
