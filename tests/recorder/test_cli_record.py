"""The recording commands end to end: record the retail suite against a loopback "oracle" model
(it answers each case's golden calls, one per round), then traces, replay and renormalize."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from recorder_fakes import FakeModelServer, Reply, instruction_of, openai_reply, round_of

from rejudge import suites
from rejudge.cli import cli
from rejudge.cli.record import record, renormalize, replay, traces

for command in (record, replay, renormalize, traces):
    if command.name not in cli.commands:
        cli.add_command(command)

RETAIL = suites.load_suite("retail")
GOLDEN = {case.instruction: case for case in RETAIL.cases}


def oracle(path: str, body: dict[str, Any], headers: dict[str, str]) -> Reply:
    case = GOLDEN.get(instruction_of(body))
    if case is None:
        return Reply(status=400, body={"error": {"message": "unknown instruction"}})
    calls = [c for c in case.golden.calls for _ in range(c.count)]
    rnd = round_of(body)
    if rnd < len(calls):
        golden = calls[rnd]
        return Reply(body=openai_reply([(golden.tool, json.dumps(golden.params))]))
    return Reply(body=openai_reply(text="Done."))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("cli")
    db = f"sqlite:///{root / 'rejudge.db'}"
    cassettes = root / "cassettes"
    runner = CliRunner()
    with FakeModelServer(oracle) as server:
        result = runner.invoke(
            cli,
            [
                "--db",
                db,
                "--cassettes",
                str(cassettes),
                "--json",
                "record",
                "--suite",
                "retail",
                "--model",
                "oracle",
                "--provider",
                "local",
                "--base-url",
                server.base_url,
                "--concurrency",
                "8",
                "--name",
                "retail-oracle",
            ],
            catch_exceptions=False,
        )
    assert result.exit_code == 0, result.output
    return {
        "db": db,
        "cassettes": cassettes,
        "summary": json.loads(result.output),
        "runner": runner,
    }


def _invoke(rec: dict[str, Any], *args: str) -> Any:
    return rec["runner"].invoke(
        cli,
        ["--db", rec["db"], "--cassettes", str(rec["cassettes"]), *args],
        catch_exceptions=False,
    )


def test_record_summary(recorded: dict[str, Any]) -> None:
    summary = recorded["summary"]
    assert summary["traces"] == 72 and summary["recorded"] == 72
    assert summary["agent_errors"] == 0 and summary["status"] == "finished"
    assert len(list((recorded["cassettes"] / "retail-oracle").glob("*.yaml"))) == 72


def test_traces_json_keys(recorded: dict[str, Any]) -> None:
    result = _invoke(recorded, "traces", "retail-oracle", "--case", "fc-d1-001", "--json")
    assert result.exit_code == 0, result.output
    (item,) = json.loads(result.output)
    assert {"case", "repetition", "status", "rounds"} <= set(item)
    assert item["case"] == "fc-d1-001" and item["status"] == "completed"
    first = item["rounds"][0]
    assert set(first) >= {"calls", "text"}
    assert set(first["calls"][0]) >= {
        "name",
        "arguments",
        "arguments_raw",
        "parse_error",
        "result",
        "ok",
    }
    assert first["calls"][0]["name"] == "check_stock" and first["calls"][0]["ok"] is True


def test_traces_table_and_unknown_case(recorded: dict[str, Any]) -> None:
    result = _invoke(recorded, "traces", "retail-oracle", "--case", "fc-d4-001")
    assert result.exit_code == 0 and "fc-d4-001" in result.output
    missing = _invoke(recorded, "traces", "retail-oracle", "--case", "nope")
    assert missing.exit_code == 1 and missing.output.startswith("Error: ")


def test_replay_matches_then_diverges(recorded: dict[str, Any], tmp_path: Path) -> None:
    ok = _invoke(recorded, "replay", "retail-oracle")
    assert ok.exit_code == 0, ok.output
    said = " ".join(ok.output.split())  # as words: where a line wraps is the terminal's width
    assert "72 of 72" in said and "all traces match" in said

    path = recorded["cassettes"] / "retail-oracle" / "fc-d1-001__r0.yaml"
    original = path.read_text()
    try:
        data = yaml.safe_load(original)
        body = json.loads(data["interactions"][0]["request"]["body"])
        body["messages"][0]["content"] = "a different instruction"
        data["interactions"][0]["request"]["body"] = json.dumps(body)
        path.write_text(yaml.safe_dump(data))
        bad = _invoke(recorded, "replay", "retail-oracle", "--json")
        assert bad.exit_code == 1
        report = json.loads(bad.output)
        (div,) = report["divergences"]
        assert div["case"] == "fc-d1-001" and div["round"] == 0
        assert div["field"] == "body.messages[0].content"
    finally:
        path.write_text(original)


def test_renormalize_changes_nothing(recorded: dict[str, Any]) -> None:
    result = _invoke(recorded, "--json", "renormalize", "retail-oracle")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["traces"] == 72 and data["changed"] == 0


def test_record_without_key_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = CliRunner().invoke(
        cli,
        ["--db", f"sqlite:///{tmp_path / 'x.db'}", "record", "--suite", "retail", "--model", "gpt"],
    )
    assert result.exit_code == 1
    assert result.output.startswith("Error: no API key: set OPENAI_API_KEY")


def test_the_key_variable_comes_from_the_provider(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a provider registered from outside (as a plugin would) names its own key variable, and
    # the CLI asks for that one; a provider without one (a local server) needs none
    from rejudge.recorder.providers import OpenAIChatProvider, register_provider

    from rejudge.registry import REGISTRY

    monkeypatch.delenv("ACME_API_KEY", raising=False)
    register_provider("acme", lambda: OpenAIChatProvider(name="acme", api_key_env="ACME_API_KEY"))
    try:
        db = f"sqlite:///{tmp_path / 'x.db'}"
        args = ["--db", db, "record", "--suite", "retail", "--model", "m", "--provider", "acme"]
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 1
        assert result.output.startswith("Error: no API key: set ACME_API_KEY (or --api-key-env")
    finally:
        REGISTRY.unregister("provider", "acme")
    from rejudge.recorder.providers import get_provider

    assert get_provider("local").api_key_env is None
    assert get_provider("anthropic").api_key_env == "ANTHROPIC_API_KEY"
