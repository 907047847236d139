"""The live recording path, end to end, against the real local model (issue 4, item 8).

Starts ``rejudge serve-local`` (the real CLI, as a subprocess on a free port), records three
retail cases through ``rejudge record`` (a subprocess too), stops the server, then replays the
run with ``rejudge replay`` while every socket connection is refused, and checks that each
re-derived trace hash equals the stored one. A tampered cassette must then make replay fail, so
the check is not vacuous.

Needs the local model (tests/recorder/local_model.py: skips without it unless
``REJUDGE_REQUIRE_LOCAL_MODEL=1``, as CI sets).
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from click.testing import CliRunner
from rejudge.recorder import MODEL_NAME, free_port

from tests.recorder.local_model import clean_env, rejudge_argv, require_local_extra, serve_local

pytestmark = [pytest.mark.local_model, pytest.mark.slow]

# Three retail cases; with llama-server each ends in one to a few requests of a few seconds (the
# model sees its tool results and answers in text). The server caps every completion
# (serve-local's max tokens), so no request runs away; the timeouts below are only a backstop.
CASES = ("fc-d1-004", "fc-d1-009", "fc-d1-015")
RUN = "live-smollm2-retail"
SYSTEM = (
    "You are a helpful assistant with access to tools. Use them to complete the user's request."
)
SECRET_HEADER = re.compile(
    r"^\s*-?\s*(authorization|x-api-key|api-key|openai-organization|openai-project|cookie):",
    re.IGNORECASE | re.MULTILINE,
)


def _port_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def test_record_live_then_replay_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_local_extra()
    db = f"sqlite:///{tmp_path / 'live.db'}"
    cassettes = tmp_path / "cassettes"
    env = clean_env()

    # 1. the real server, through the real command
    port = free_port()
    with serve_local(port, tmp_path / "srv.log", env) as (server, info):
        assert info["port"] == port and info["model"] == MODEL_NAME
        base_url = info["base_url"]
        assert base_url == f"http://127.0.0.1:{port}/v1"
        models = httpx.get(base_url + "/models", trust_env=False, timeout=10).json()
        assert [m["id"] for m in models["data"]] == [MODEL_NAME]

        # 2. record three retail cases live, with the settings of the shipped cassettes
        case_args = [a for case in CASES for a in ("--case", case)]
        argv = rejudge_argv("--db", db, "--cassettes", str(cassettes), "--json", "record")
        argv += ["--suite", "retail", "--model", MODEL_NAME, "--provider", "local"]
        argv += ["--base-url", base_url, "--name", RUN, "--system-prompt", SYSTEM]
        # a request takes 1-15 s here; a timeout would end as an AGENT_ERROR, which the test
        # accepts and replays like any other outcome
        argv += ["--timeout", "120", "--max-retries", "0", "--concurrency", "1", *case_args]
        recorded = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            env=env,
            # a backstop: the three cases take well under a minute on an idle machine
            timeout=1200,
        )
    code = server.returncode
    assert code == 0, (
        f"serve-local exited with {code}: {server.stderr.read() if server.stderr else ''}"
    )
    assert not _port_answers(port), "the model server still answers after serve-local stopped"
    assert recorded.returncode == 0, recorded.stderr
    summary = json.loads(recorded.stdout)
    assert summary["run"] == RUN and summary["traces"] == 3 and summary["recorded"] == 3
    assert summary["completed"] + summary["agent_errors"] == 3

    # the cassettes hold real exchanges with that server, scrubbed
    files = sorted(cassettes.joinpath(RUN).glob("*.yaml"))
    assert [f.name for f in files] == [f"{case}__r0.yaml" for case in sorted(CASES)]
    requests = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert not SECRET_HEADER.search(text), f"secret header in {path}"
        data = yaml.safe_load(text)
        assert data["rejudge"]["run"] == RUN
        assert data["rejudge"]["config"]["system_prompt"] == SYSTEM
        for interaction in data["interactions"]:
            requests += 1
            assert interaction["request"]["uri"] == f"{base_url}/chat/completions"
            body = json.loads(interaction["request"]["body"])
            assert body["model"] == MODEL_NAME and body["tool_choice"] == "auto"
            assert len(body["tools"]) == 13  # the retail registry
            response = interaction["response"]
            if response["status"]["code"] == 200:
                answer = json.loads(response["body"]["string"])
                assert answer["model"] == MODEL_NAME and answer["id"].startswith("chatcmpl-")
    assert requests >= 3

    # 3. offline: the network is blocked in this process and the server is gone
    attempts: list[Any] = []

    def refuse(self: socket.socket, address: Any) -> None:
        attempts.append(address)
        raise ConnectionRefusedError(f"network blocked in this test (tried {address!r})")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    for name in ("REJUDGE_DB", "REJUDGE_CASSETTES", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    from rejudge.cli import cli

    runner = CliRunner()
    base = ["--db", db, "--cassettes", str(cassettes)]
    stored = json.loads(runner.invoke(cli, [*base, "traces", RUN, "--json"]).output)
    assert sorted(t["case"] for t in stored) == sorted(CASES)

    replayed = runner.invoke(cli, [*base, "replay", RUN, "--json"])
    assert replayed.exit_code == 0, replayed.output
    report = json.loads(replayed.output)
    assert report["ok"] is True and report["traces"] == 3 and report["matched"] == 3
    assert report["divergences"] == []
    assert attempts == [], f"replay tried the network: {attempts}"

    # the stored hashes are exactly what the cassettes re-derive to
    renorm = runner.invoke(cli, [*base, "--json", "renormalize", RUN, "--dry-run"])
    assert renorm.exit_code == 0, renorm.output
    assert json.loads(renorm.output)["unchanged"] == 3

    # 4. the check can fail: change one recorded answer and replay must diverge on that case
    victim = files[0]
    data = yaml.safe_load(victim.read_text(encoding="utf-8"))
    first = data["interactions"][0]["response"]
    answer = json.loads(first["body"]["string"])
    message = answer["choices"][0]["message"]
    if message.get("tool_calls"):
        message["tool_calls"][0]["function"]["arguments"] = '{"tampered": true}'
    else:
        message["content"] = "a tampered final answer"
    first["body"]["string"] = json.dumps(answer)
    victim.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    diverged = runner.invoke(cli, [*base, "replay", RUN, "--json"])
    assert diverged.exit_code == 1, diverged.output
    bad = json.loads(diverged.output)
    assert bad["ok"] is False and bad["matched"] == 2
    assert [d["case"] for d in bad["divergences"]] == [victim.name.split("__r")[0]]
    assert attempts == []
