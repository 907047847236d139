"""`rejudge demo` end to end on a tmp SQLite store, offline.

The cassettes here are recorded in the test by the real recorder against a scripted model behind
an in-process transport (no socket), then the demo is run with the network blocked. The shipped
local-model cassettes are exercised by ``test_demo_on_shipped_cassettes`` when they exist.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import httpx
import pytest
from rejudge.judge import DEFAULT_RUBRIC
from rejudge.store import Store
from rejudge.suites import load_suite

from rejudge.model import Case, RunConfig
from rejudge.services import DemoError, find_demo_cassettes, record_suite, run_demo

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _registered(monkeypatch):
    import rejudge.cli as cli_module

    monkeypatch.setitem(cli_module._COMMANDS, "demo", "rejudge.cli.demo:demo")
    for name in ("judge", "report", "compare"):
        target = "judge_cmd" if name == "judge" else name
        monkeypatch.setitem(cli_module._COMMANDS, name, f"rejudge.cli.judge:{target}")


def _scripted_model(cases: list[Case], read_only: set[str]) -> httpx.MockTransport:
    """An OpenAI-compatible model: the golden calls (odd cases repeat their read-only calls, as
    weak models do), or no call at all (every fourth case)."""
    by_instruction = {c.instruction: (i, c) for i, c in enumerate(cases)}

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        index, case = by_instruction[user]
        rounds = sum(1 for m in body["messages"] if m["role"] == "assistant")
        message: dict[str, Any] = {"role": "assistant", "content": None}
        calls = [g for g in case.golden.calls for _ in range(g.count)]
        if index % 2:
            calls += [g for g in case.golden.calls if g.tool in read_only]
        if rounds == 0 and calls and index % 4 != 3:
            message["tool_calls"] = [
                {
                    "id": f"call_{index}_{k}",
                    "type": "function",
                    "function": {
                        "name": g.tool,
                        "arguments": json.dumps(g.params),
                    },
                }
                for k, g in enumerate(calls)
            ]
            finish = "tool_calls"
        else:
            message["content"] = "Done." if rounds else "I cannot do that."
            finish = "stop"
        return httpx.Response(
            200,
            json={
                "id": f"cmpl-{index}-{rounds}",
                "object": "chat.completion",
                "model": "scripted-1",
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            },
        )

    return httpx.MockTransport(handler)


def record_cassettes(
    root: Path,
    suite_name: str,
    count: int,
    run_name: str,
    transport: httpx.AsyncBaseTransport | None = None,
) -> None:
    """Record ``count`` cases of a built-in suite into ``root/<run_name>/`` with the recorder,
    against the scripted model unless ``transport`` answers instead."""
    source = load_suite(suite_name)
    cases = list(source.cases)[:count]
    scratch = Store.open(f"sqlite:///{root.parent / f'scratch-{run_name}.db'}")
    try:
        record_suite(
            scratch,
            source,
            RunConfig(model="scripted-1", base_url="http://scripted.invalid/v1", max_retries=0),
            root,
            case_ids=[c.id for c in cases],
            run_name=run_name,
            transport=transport
            or _scripted_model(cases, {t.name for t in source.registry.tools if t.read_only}),
        )
    finally:
        scratch.close()


@pytest.fixture(scope="module")
def cassettes(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("demo") / "cassettes"
    record_cassettes(root, "retail", 12, "retail-scripted")
    record_cassettes(root, "genome-simple", 6, "genome-simple-scripted")
    return root


@pytest.fixture()
def offline(monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("the demo opened a network connection")

    monkeypatch.setattr(socket.socket, "connect", no_network)


def test_demo_end_to_end_twice(run_cli, cassettes, offline, tmp_path) -> None:
    first = run_cli("--cassettes", str(cassettes), "--json", "demo")
    assert first.exit_code == 0, first.output
    data = json.loads(first.output)
    assert [s["name"] for s in data["suites"]] == ["retail", "genome-simple", "genome-complex"]
    assert {r["run"]: r["inserted"] for r in data["runs"]} == {
        "genome-simple-scripted": 6,
        "retail-scripted": 12,
        # the evidence of strong models that ships with the package
        "tau-bench-gpt-4o-airline": 200,
        "real-world-simonw-llm": 4,
        "real-world-pydantic-ai": 7,
    }
    tiers = {"contract", "execution", "completion", "completion-contract", "golden"}
    # retail and genome are worlds with state: the state tier applies to their runs too
    tiers.add("state")
    for run in ("retail-scripted", "genome-simple-scripted"):
        judged = {(e["tier"], e["rules"]) for e in data["evaluations"] if e["run"] == run}
        assert judged == {(t, r) for t in tiers for r in ("standard@1", "standard@2")}
    assert not any(e["reused"] for e in data["evaluations"])
    assert all(
        len(r["cases"]) in (6, 12) for r in data["reports"] if r["run"].endswith("-scripted")
    )
    # a repeated read-only call (odd cases) fails the golden tier under standard@1 and is
    # tolerated under standard@2: the comparison names the rule change as the cause
    golden = next(
        c for c in data["comparisons"] if c["run"] == "retail-scripted" and c["tier"] == "golden"
    )
    assert golden["comparable"] is True
    assert golden["flips"], golden
    assert {f["cause"] for f in golden["flips"]} == {"rules changed"}
    assert all((f["from"], f["to"]) == ("FAIL", "PASS") for f in golden["flips"])
    assert golden["accuracy_b"] > golden["accuracy_a"]

    second = run_cli("--cassettes", str(cassettes), "--json", "demo")
    again = json.loads(second.output)
    assert all(r["inserted"] == 0 for r in again["runs"])
    assert all(e["reused"] for e in again["evaluations"])
    assert [e["evaluation"] for e in again["evaluations"]] == [
        e["evaluation"] for e in data["evaluations"]
    ]
    # τ²-bench's six leaderboard runs: model against model, one golden evaluation each
    mvm = data["model_vs_model"]
    assert {r["run"]: r["tau2_reward"]["passed"] for r in mvm["runs"]} == {
        "tau2-airline/claude-sonnet-4-5": 36,
        "tau2-airline/button/claude-opus-4-6": 38,
        "tau2-airline/ironshell/claude-opus-4-6": 31,
        "tau2-airline/ironshell/gpt-5.4": 28,
        "tau2-airline/toolorchestra/gpt-4.1-mini-2025-04-14": 28,
        "tau2-retail/toolorchestra/gpt-4.1-mini-2025-04-14": 96,
    }
    assert {r["suite"] for r in mvm["runs"]} == {"tau2-airline", "tau2-retail"}
    # both suites have a world: the state tier reproduces τ²'s reward on all 114 retail and
    # all 244 airline simulations
    assert all(r["state_agreement"]["agreement"] == 1.0 for r in mvm["runs"])
    assert (
        sum(r["state_agreement"]["pass_1"] + r["state_agreement"]["fail_0"] for r in mvm["runs"])
        == 358
    )
    assert all(r["tau2_reward"]["ci95"][0] < r["tau2_reward"]["rate"] for r in mvm["runs"])
    pair = mvm["pair"]
    assert pair["compare"]["comparable"] is True and pair["tau2_reward"]["cases"] == 50
    # the same paired test `rejudge compare` runs, on τ²'s own rewards: 12 vs 2 discordant
    assert (pair["tau2_reward"]["pass_to_fail"], pair["tau2_reward"]["fail_to_pass"]) == (12, 2)
    assert [r["evaluation"] for r in again["model_vs_model"]["runs"]] == [
        r["evaluation"] for r in mvm["runs"]
    ]
    store = Store.open(f"sqlite:///{tmp_path / 'cli.db'}")
    try:
        assert store.traces.count_traces() == 18 + 211 + 358
        # a golden and a state evaluation per τ² run, and the model judge's, once: the
        # second demo replayed nothing again
        judged = [j["evaluation"] for j in data["model_graded"]["judged"]]
        assert [j["evaluation"] for j in again["model_graded"]["judged"]] == judged
        assert len(store.evaluations.list_evaluations()) == (
            len(data["evaluations"]) + 2 * len(mvm["runs"]) + len(judged)
        )
    finally:
        store.close()


def test_demo_human_output(run_cli, cassettes, offline) -> None:
    """``--verbose`` prints every table the demo has (the default view, what to look at
    first, is tests/cli/test_terminal_output.py's)."""
    result = run_cli("--cassettes", str(cassettes), "demo", "--verbose")
    assert result.exit_code == 0, result.output
    for text in (
        "Accuracy",
        "Flips of",
        "from standard@1 to standard@2",
        "rules changed",
        "headlines",
        "tiers compared with golden",
        "τ-bench's reward against rejudge's tiers",
        "τ²-bench: model against model",
        "where to look next",
        "dashboard",
        "A model judge, replayed from its cassettes",
        "judge against judge on the same",
    ):
        assert text in " ".join(result.output.split()), text
    # the judge's calibration line, weak or not, with its numbers
    flat = " ".join(result.output.split())
    assert "vs τ-bench reward on 200 traces" in flat
    assert "assertions" in flat and "vs τ²-bench's judge on" in flat


def test_demo_library_result_and_no_cassettes(tmp_path, cassettes, offline) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'lib.db'}")
    try:
        result = run_demo(store, cassettes, tiers=["golden"], shipped_evidence=False)
        assert {e.tier for e in result.evaluations} == {"golden"}
        assert len(result.comparisons) == 2
        assert result.agreement is None and result.tier_comparisons == []
        assert result.elapsed_s > 0  # reported; its speed is measured in bench/, not asserted
    finally:
        store.close()
    assert find_demo_cassettes(cassettes) == cassettes


def test_demo_without_cassettes_says_so_and_shows_the_shipped_evidence(
    run_cli, tmp_path, monkeypatch, offline
) -> None:
    import rejudge.services._demo as demo_module

    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setattr(demo_module, "cassette_roots", lambda preferred: [empty])
    result = run_cli("--cassettes", str(empty), "--json", "demo")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [r["run"] for r in data["runs"]] == [
        "tau-bench-gpt-4o-airline",
        "real-world-simonw-llm",
        "real-world-pydantic-ai",
    ]
    assert data["skipped"][0]["reason"].startswith("no local-model cassettes found")
    # without the shipped evidence, no cassette is an error naming where it looked
    store = Store.open(f"sqlite:///{tmp_path / 'none.db'}")
    try:
        with pytest.raises(DemoError, match="no shipped cassettes found") as info:
            run_demo(store, empty, shipped_evidence=False)
        assert info.value.field == "cassettes"
    finally:
        store.close()


@pytest.mark.skipif(
    not any((REPO / "cassettes").glob("*/*__r*.yaml")), reason="no shipped cassettes yet"
)
def test_demo_on_shipped_cassettes(run_cli, offline) -> None:
    result = run_cli("--cassettes", str(REPO / "cassettes"), "--json", "demo")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["runs"] and data["comparisons"]
    assert data["elapsed_s"] > 0  # reported; its speed is measured in bench/, not asserted
    # every shipped folder is a run, the FuncBenchGen sweep's too (its suite generated again
    # from the knobs its cassettes name), judged under the tier its domain applies
    folders = [
        p for p in (REPO / "cassettes").iterdir() if p.is_dir() and any(p.glob("*__r*.yaml"))
    ]
    assert data["skipped"] == []
    assert len([r for r in data["runs"] if r["harness_mode"] != "imported"]) == len(folders)
    sweep = {r["run"] for r in data["runs"] if r["run"].startswith("sweep-")}
    assert sweep and all(
        any(e["run"] == run and e["tier"] == "outcome" for e in data["evaluations"])
        for run in sweep
    )
    _shows_the_model_judge(data)


def _shows_the_model_judge(data: dict[str, Any]) -> None:
    """The model judge replayed from the shipped judge cassettes with the network blocked:
    τ-bench's 200 trajectories under the default rubric, at least 190 of them PASS or FAIL,
    beside the state and golden tiers and calibrated against τ-bench's reward; τ²'s 50
    simulations per NL assertion against τ²'s own judge; one judge-vs-judge comparison."""
    graded = data["model_graded"]
    assert graded["skipped"] == []
    by_run = {j["run"]: j for j in graded["judged"]}
    tau = by_run["tau-bench-gpt-4o-airline"]
    counts = tau["summary"]["verdict_counts"]
    assert counts["PASS"] + counts["FAIL"] >= 190
    assert tau["rubric"] == DEFAULT_RUBRIC
    assert {"state", "golden"} <= set(tau["beside"])
    against = {a["name"]: a for a in tau["calibration"]["against"]}
    reward = against["τ-bench reward"]
    assert reward["table"]["total"] == counts["PASS"] + counts["FAIL"]
    assert {"state", "golden"} <= set(against)
    if reward["weak"]:  # a weak judge says so, with its numbers
        assert reward["phrase"] in tau["calibration"]["warning"]
    tau2 = by_run["tau2-airline/toolorchestra/gpt-4.1-mini-2025-04-14"]
    per_assertion = next(a for a in tau2["calibration"]["against"] if a["kind"] == "assertions")
    assert per_assertion["name"] == "τ²-bench's judge"
    table = per_assertion["table"]
    assert table["total"] + per_assertion["judge_unscored"] == 122
    pair = graded["judge_vs_judge"]
    assert pair["a"] == "state" and pair["comparison"]["paired"] > 0
    # two judges of the same traces: agreement and who is stricter, no "better"
    assert pair["comparison"]["kind"] == "judge" and pair["comparison"]["verdict"] is None
    assert pair["comparison"]["judges"]["table"]["total"] > 0


def test_demo_says_why_a_run_has_nothing_to_score(run_cli, tmp_path, offline) -> None:
    """A run whose every trace is AGENT_ERROR gets one line naming how its traces ended, not a
    table of n/a rows; the JSON gives the same counts."""
    root = tmp_path / "cassettes"
    record_cassettes(root, "retail", 3, "retail-scripted")
    server_error = httpx.MockTransport(
        lambda request: httpx.Response(500, json={"error": {"message": "boom"}})
    )
    record_cassettes(root, "retail", 2, "retail-server-down", transport=server_error)

    human = run_cli("--db", f"sqlite:///{tmp_path / 'h.db'}", "--cassettes", str(root), "demo")
    assert human.exit_code == 0, human.output
    flat = " ".join(human.output.split())
    assert "retail-server-down: nothing to score" in flat
    assert "retail-scripted: nothing to score" not in flat
    assert "never counted as FAIL" in flat

    data = json.loads(
        run_cli(
            "--db", f"sqlite:///{tmp_path / 'j.db'}", "--cassettes", str(root), "--json", "demo"
        ).output
    )
    outcomes = {r["run"]: r["outcomes"] for r in data["runs"]}
    assert sum(outcomes["retail-server-down"].values()) == 2
    assert "completed" not in outcomes["retail-server-down"]
    assert outcomes["retail-scripted"] == {"completed": 3}
