"""MCP servers as tool worlds, end to end on real servers: `suite from-mcp` snapshots a FastMCP
server's tools/list into a suite; `record --mcp` runs a loopback model's calls on the server
(stdio: a fresh process per trace; streamable HTTP on loopback) and keeps the JSON-RPC
exchanges in the cassette; `replay` re-derives every trace with neither the model nor the
server; the server's failures (isError, a hang, an exit) become results or AGENT_ERROR."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from recorder_fakes import FakeModelServer, Reply, instruction_of, openai_reply, round_of
from rejudge.store import Store

from rejudge.cli import cli
from rejudge.cli.record import record, replay, traces

pytest.importorskip("mcp", reason="the MCP SDK (the mcp extra) runs the test server")

for command in (record, replay, traces):
    if command.name not in cli.commands:
        cli.add_command(command)

SERVER = Path(__file__).parents[1] / "mcp" / "notes_server.py"
STDIO = f"{sys.executable} {SERVER}"

#: the cases a person writes into the skeleton: instruction -> golden calls (tool, params)
CASES = {
    "read-n1": ("What does note n1 say?", [("get_note", {"note_id": "n1"})]),
    "add": ("Add a note saying water the plants.", [("add_note", {"text": "water the plants"})]),
    "add-again": ("Note down: pay rent.", [("add_note", {"text": "pay rent"})]),
    "tag-read": (
        "Tag n2 as urgent, then show it.",
        [("tag_note", {"note_id": "n2", "tag": "urgent"}), ("get_note", {"note_id": "n2"})],
    ),
    "missing": ("Show note n9.", [("get_note", {"note_id": "n9"})]),
    "crash": ("Crash the notebook.", [("crash", {}), ("list_notes", {})]),
    "slow": ("Wait five seconds.", [("slow", {"seconds": 5})]),
}
BY_INSTRUCTION = {text: calls for text, calls in CASES.values()}


def oracle(path: str, body: dict[str, Any], headers: dict[str, str]) -> Reply:
    """A loopback OpenAI-compatible model that makes each case's golden calls, one a round."""
    calls = BY_INSTRUCTION.get(instruction_of(body))
    if calls is None:
        return Reply(status=400, body={"error": {"message": "unknown instruction"}})
    rnd = round_of(body)
    if rnd < len(calls):
        tool, params = calls[rnd]
        return Reply(body=openai_reply([(tool, json.dumps(params))]))
    return Reply(body=openai_reply(text="Done."))


def fill_suite(folder: Path) -> None:
    """Write the cases over the skeleton, the way a person fills it in."""
    lines = []
    for case_id, (instruction, calls) in CASES.items():
        lines.append(
            {
                "id": case_id,
                "dimension": "D1",
                "category": "notes",
                "instruction": instruction,
                "context": {},
                "golden": {
                    "calls": [{"tool": t, "params": p} for t, p in calls],
                    "order_sensitive": True,
                    "allowed_extra": None,
                },
                "negative": False,
                "skip": False,
                "skip_reason": None,
            }
        )
    (folder / "cases.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def _cli(root: Path, *args: str) -> Any:
    return CliRunner().invoke(
        cli,
        ["--db", f"sqlite:///{root / 'r.db'}", "--cassettes", str(root / "cassettes"), *args],
        catch_exceptions=False,
    )


@pytest.fixture(scope="module")
def stdio_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("mcp")
    folder = root / "notes"
    snap = _cli(root, "--json", "suite", "from-mcp", "--stdio", STDIO, "--name", "notes",
                "--out", str(folder))  # fmt: skip
    assert snap.exit_code == 0, snap.output
    skeleton = (folder / "cases.jsonl").read_text()
    fill_suite(folder)
    assert _cli(root, "suite", "validate", str(folder)).exit_code == 0
    with FakeModelServer(oracle) as model:
        result = _cli(root, "--json", "record", "--suite", str(folder), "--model", "oracle",
                      "--provider", "local", "--base-url", model.base_url, "--mcp",
                      "--mcp-timeout", "2", "--concurrency", "3", "--name", "notes-run")  # fmt: skip
    assert result.exit_code == 0, result.output
    return {
        "root": root,
        "folder": folder,
        "snapshot": json.loads(snap.output),
        "skeleton": skeleton,
        "summary": json.loads(result.output),
    }


def _traces(root: Path, run: str) -> dict[str, Any]:
    out = _cli(root, "--json", "traces", run)
    assert out.exit_code == 0, out.output
    return {t["case"]: t for t in json.loads(out.output)}


def test_snapshot_maps_schemas_and_annotations(stdio_run: dict[str, Any]) -> None:
    snap = stdio_run["snapshot"]
    kinds = {t["name"]: (t["read_only"], t["kind"]) for t in snap["tools"]}
    assert kinds["list_notes"] == (True, "read") and kinds["get_note"] == (True, "read")
    assert kinds["add_note"] == (False, "additive")
    assert kinds["tag_note"] == (False, "idempotent")
    assert kinds["delete_note"] == (False, "destructive")
    assert kinds["echo"] == (False, "unannotated")  # no annotations: state-changing
    registry = json.loads((stdio_run["folder"] / "registry.json").read_text())
    get_note = next(t for t in registry["tools"] if t["name"] == "get_note")
    assert get_note["parameters"]["required"] == ["note_id"]  # the inputSchema as is
    manifest = json.loads((stdio_run["folder"] / "suite.json").read_text())
    assert manifest["domain"] == "mcp" and manifest["metadata"]["mcp"]["transport"] == "stdio"
    assert manifest["metadata"]["mcp"]["protocol_version"] == snap["protocol_version"]
    # the skeleton: one skipped case per tool, valid as written
    lines = [json.loads(line) for line in stdio_run["skeleton"].splitlines()]
    assert len(lines) == len(kinds) and all(x["skip"] for x in lines)
    assert snap["problems"] == []


def test_results_are_what_the_server_answered(stdio_run: dict[str, Any]) -> None:
    summary = stdio_run["summary"]
    assert summary["traces"] == len(CASES) and summary["recorded"] == len(CASES)
    got = _traces(stdio_run["root"], "notes-run")
    first = got["read-n1"]["rounds"][0]["calls"][0]
    assert first["ok"] is True and first["result"] == {"id": "n1", "text": "buy milk", "tags": []}
    # a fresh server process per trace: both cases' new note is the notebook's third
    assert got["add"]["rounds"][0]["calls"][0]["result"] == {"id": "n3"}
    assert got["add-again"]["rounds"][0]["calls"][0]["result"] == {"id": "n3"}
    # state carries within a trace: the tag is there when the note is read back
    tagged = got["tag-read"]["rounds"][1]["calls"][0]["result"]
    assert tagged["tags"] == ["work", "urgent"] and got["tag-read"]["status"] == "completed"
    # isError: an error result the model saw, in the server's words; the trace completes
    missing = got["missing"]["rounds"][0]["calls"][0]
    assert missing["ok"] is False and got["missing"]["status"] == "completed"
    stored = Store.open(f"sqlite:///{stdio_run['root'] / 'r.db'}")
    run = stored.runs.get_run("notes-run")
    trace = next(t.trace for t in stored.traces.iter_traces(run.id, case_key="missing"))
    assert "no note n9" in trace.rounds[0].calls[0].error
    stored.close()


def test_server_failures_are_agent_errors(stdio_run: dict[str, Any]) -> None:
    got = _traces(stdio_run["root"], "notes-run")
    crash = got["crash"]
    assert crash["status"] == "agent_error" and crash["error"]["kind"] == "mcp_server_exited"
    assert len(crash["rounds"]) == 1  # the loop stopped: no second round against a dead server
    slow = got["slow"]
    assert slow["status"] == "agent_error" and slow["error"]["kind"] == "mcp_timeout"
    assert "did not answer tools/call slow within 2s" in slow["error"]["message"]
    assert stdio_run["summary"]["agent_errors"] == 2


def test_cassette_holds_the_json_rpc_exchanges(stdio_run: dict[str, Any]) -> None:
    path = stdio_run["root"] / "cassettes" / "notes-run" / "tag-read__r0.yaml"
    data = yaml.safe_load(path.read_text())
    kinds = []
    for interaction in data["interactions"]:
        body = json.loads(interaction["request"]["body"])
        kinds.append(body.get("method") if body.get("jsonrpc") == "2.0" else "model")
    # model, handshake, call, model, call, model (final answer)
    assert kinds == ["model", "initialize", "tools/call", "model", "tools/call", "model"]
    answer = json.loads(data["interactions"][2]["response"]["body"]["string"])
    assert answer["jsonrpc"] == "2.0" and answer["result"]["isError"] is False


def test_replay_needs_neither_model_nor_server(stdio_run: dict[str, Any]) -> None:
    root = stdio_run["root"]
    # the server cannot be started any more, and no model answers: replay still matches
    manifest = stdio_run["folder"] / "suite.json"
    data = json.loads(manifest.read_text())
    data["metadata"]["mcp"]["command"] = ["/nonexistent/mcp-server"]
    manifest.write_text(json.dumps(data))
    ok = _cli(root, "--json", "replay", "notes-run")
    report = json.loads(ok.output)
    assert ok.exit_code == 0 and report["matched"] == len(CASES), ok.output

    # a recorded server answer that changed is a divergence (results come from the cassette)
    path = root / "cassettes" / "notes-run" / "read-n1__r0.yaml"
    original = path.read_text()
    try:
        cassette = yaml.safe_load(original)
        answer = cassette["interactions"][2]["response"]["body"]
        message = json.loads(answer["string"])
        message["result"]["content"][0]["text"] = json.dumps({"id": "n1", "text": "sell milk"})
        answer["string"] = json.dumps(message)
        path.write_text(yaml.safe_dump(cassette))
        bad = _cli(root, "--json", "replay", "notes-run", "--case", "read-n1")
        assert bad.exit_code == 1
        (div,) = json.loads(bad.output)["divergences"]
        assert div["case"] == "read-n1"
    finally:
        path.write_text(original)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def http_server() -> Any:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, str(SERVER), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        else:
            pytest.fail("the FastMCP HTTP server did not start")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_streamable_http_record_and_replay(http_server: str, tmp_path: Path) -> None:
    folder = tmp_path / "notes-http"
    snap = _cli(tmp_path, "--json", "suite", "from-mcp", "--url", http_server, "--name",
                "notes-http", "--out", str(folder))  # fmt: skip
    assert snap.exit_code == 0, snap.output
    assert json.loads(snap.output)["server"]["transport"] == "streamable-http"
    fill_suite(folder)
    with FakeModelServer(oracle) as model:
        result = _cli(tmp_path, "--json", "record", "--suite", str(folder), "--model", "oracle",
                      "--provider", "local", "--base-url", model.base_url, "--mcp",
                      "--case", "read-n1", "--case", "missing", "--name", "http-run")  # fmt: skip
    assert result.exit_code == 0, result.output
    got = _traces(tmp_path, "http-run")
    call = got["read-n1"]["rounds"][0]["calls"][0]
    assert call["result"] == {"id": "n1", "text": "buy milk", "tags": []}
    assert got["missing"]["rounds"][0]["calls"][0]["ok"] is False
    cassette = yaml.safe_load(
        (tmp_path / "cassettes" / "http-run" / "read-n1__r0.yaml").read_text()
    )
    assert cassette["interactions"][1]["request"]["uri"] == http_server
    ok = _cli(tmp_path, "--json", "replay", "http-run")
    assert ok.exit_code == 0 and json.loads(ok.output)["matched"] == 2, ok.output
