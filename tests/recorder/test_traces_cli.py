"""`rejudge traces` shows a conversation's user turns and provider-side tools."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from rejudge._settings import resolve_settings
from rejudge.cli._context import AppContext
from rejudge.cli.import_ import import_group
from rejudge.cli.record import traces

REAL = Path("/work/shared/real-cassettes")
DATA = Path(__file__).parent / "data" / "wire"


def _invoke(command, args: list[str], db: str, cassettes: Path, json_output: bool):  # noqa: ANN001
    app = AppContext(resolve_settings(db=db, cassettes=str(cassettes), json_output=json_output))
    try:
        return CliRunner().invoke(command, args, obj=app, catch_exceptions=False)
    finally:
        app.close()


def test_traces_shows_user_turns_and_server_tools(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(REAL / "pydantic-ai/test_multiple_agent_tool_calls.yaml", src / "agents.yaml")
    shutil.copy(DATA / "test_anthropic_web_search_tool_stream.yaml", src / "search.yaml")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    imported = _invoke(
        import_group, ["cassettes", str(src), "--name", "conv"], db, tmp_path / "c", True
    )
    assert imported.exit_code == 0, imported.output

    out = _invoke(traces, ["conv"], db, tmp_path / "c", True)
    items = {item["case"]: item for item in json.loads(out.output)}
    assert [(t["before_round"], t["text"]) for t in items["agents"]["user_turns"]] == [
        (0, "What is the capital of France?"),
        (2, "What is the capital of England?"),
    ]
    assert "user_turns" not in items["search"]  # a single instruction: the entry is as ever
    [server] = items["search"]["rounds"][0]["server_tools"][:1]
    assert server["name"] == "web_search" and server["kind"] == "server_tool_use"

    table = _invoke(traces, ["conv", "--case", "agents"], db, tmp_path / "c", False)
    assert table.exit_code == 0, table.output
    lines = [line for line in table.output.splitlines() if "agents" in line]
    kinds = [line.split("│")[3].strip() for line in lines]
    assert kinds == ["user", "0", "1", "user", "2", "3"], table.output
    assert "England" in table.output
    search = _invoke(traces, ["conv", "--case", "search"], db, tmp_path / "c", False)
    assert "[server]" in search.output and "web_search" in search.output
