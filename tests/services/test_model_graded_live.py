"""The model-graded recording path against the real local judge (``rejudge serve-local``'s
SmolLM2 in llama-server): judge exchanges recorded live with the reply constrained to the
rubric's schema, then the server stopped and the evaluation judged again with the network
blocked, to the same judgment hashes, and ``replay`` checking every judgment.

Needs the local model (tests/recorder/local_model.py: skips without it unless
``REJUDGE_REQUIRE_LOCAL_MODEL=1``)."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from rejudge.judge import load_rubric
from rejudge.recorder import MODEL_NAME, free_port
from rejudge.store import Store

from rejudge.cli import cli
from tests.recorder.local_model import clean_env, require_local_extra, serve_local
from tests.services.test_model_graded import _store

# the full task-success rubric: the brief default the demo ships sees only the request and the
# last reply, which render one prompt for all three of these traces
RUBRIC = "task-success@1"

pytestmark = [pytest.mark.local_model, pytest.mark.slow]


def _hashes(db: Path, evaluation: int) -> dict[tuple[str, int], str]:
    st = Store.open(f"sqlite:///{db}")
    try:
        return {
            (r.case_key, r.repetition): r.judgment_hash
            for r in st.judgments.iter_evaluation_rows(evaluation)
        }
    finally:
        st.close()


def test_judge_live_then_replay_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_local_extra()
    db = tmp_path / "live.db"
    _store(db).close()
    cassettes = tmp_path / "cassettes"
    base = ["--db", f"sqlite:///{db}", "--cassettes", str(cassettes)]
    with serve_local(free_port(), tmp_path / "s.log", clean_env()) as (_server, info):
        url = info["base_url"]
        argv = [*base, "--json", "judge", "r1", "--tier", "model-graded", "--rubric", RUBRIC]
        argv += ["--judge-samples", "2"]
        live = CliRunner().invoke(
            cli,
            [*argv, "--judge-record", "new_episodes", "--judge-base-url", url],
            env={"REJUDGE_DB": None, "REJUDGE_CASSETTES": None},
        )
    assert live.exit_code == 0, live.output
    recorded = json.loads(live.output)
    counts = recorded["summary"]["verdict_counts"]
    # three judged traces, two samples each; the skipped case never reaches the judge. The
    # schema-constrained replies parse: none is JUDGE_OUTPUT_INVALID
    assert counts["PASS"] + counts["FAIL"] == 3 and counts["SKIP"] == 1
    files = sorted((cassettes / "r1" / "judge").rglob("*__s*.json"))
    assert len(files) == 6
    rubric = load_rubric(RUBRIC)
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        request = json.loads(data["interactions"][-1]["request"]["body"])
        assert request["model"] == MODEL_NAME
        assert request["response_format"]["json_schema"]["schema"] == rubric.reply_schema
        reply = json.loads(data["interactions"][-1]["response"]["body"]["string"])
        assert isinstance(json.loads(reply["choices"][0]["message"]["content"])["success"], bool)

    # offline: the server is gone and the network blocked
    def refuse(self: socket.socket, address: Any) -> None:
        raise ConnectionRefusedError(f"network blocked in this test (tried {address!r})")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    again = CliRunner().invoke(cli, argv, env={"REJUDGE_DB": None, "REJUDGE_CASSETTES": None})
    assert again.exit_code == 0, again.output
    replayed = json.loads(again.output)
    assert _hashes(db, replayed["evaluation"]) == _hashes(db, recorded["evaluation"])
    check = CliRunner().invoke(
        cli, [*base, "--json", "replay", "r1"], env={"REJUDGE_DB": None, "REJUDGE_CASSETTES": None}
    )
    judgments = json.loads(check.output)["judgments"]
    assert judgments["checked"] == 4 and judgments["matched"] == 4, check.output
