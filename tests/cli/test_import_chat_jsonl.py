"""``rejudge import CHAT.jsonl``: an OpenAI chat-messages file is detected, stored as one run
(a trace per line), imported again as a lookup, and replayed from the file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from click.testing import Result

from tests.cli.conftest import import_as_one_run
from tests.importers.conftest import PLAIN_LINE, TOOL_LINE, write_lines


def test_a_chat_file_imports_as_one_run_and_replays(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    path = write_lines(tmp_path / "train.jsonl", TOOL_LINE, PLAIN_LINE)
    data = import_as_one_run(run_cli, path, "chat-jsonl", "chats")
    assert data["reason"].startswith("chat JSONL")
    result = data["result"]
    assert (result["run"], result["traces"], result["inserted"], result["calls"]) == (
        "chats",
        2,
        2,
        1,
    )


def test_a_chat_file_of_no_conversation_is_one_error_line(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    path = write_lines(tmp_path / "bad.jsonl", {"messages": []}, "{cut")
    out = run_cli("import", "with", "chat-jsonl", str(path))
    assert out.exit_code == 1
    [line] = out.output.strip().splitlines()
    assert line.startswith("Error: ") and "no conversation in the file" in line
