"""`rejudge suite from-mcp` on servers that are not quite MCP servers: each is one clear
`Error:` line, exit 1, and no suite folder is left behind (nothing half-stored)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from recorder_fakes import FakeModelServer, Reply

from rejudge.cli import cli

pytest.importorskip("mcp", reason="the MCP SDK (the mcp extra) is the client under test")

ODD = Path(__file__).parents[1] / "mcp" / "odd_server.py"
NOTES = Path(__file__).parents[1] / "mcp" / "notes_server.py"


def _snapshot(tmp_path: Path, *server: str, timeout: str = "3") -> tuple[str, Path]:
    out = tmp_path / "suite"
    result = CliRunner().invoke(
        cli,
        ["--db", f"sqlite:///{tmp_path / 'r.db'}", "suite", "from-mcp", *server,
         "--name", "odd", "--out", str(out), "--timeout", timeout],
    )  # fmt: skip
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 1, result.output
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    assert not out.exists() and list(tmp_path.glob(".suite.*")) == []  # nothing half-stored
    return lines[0], out


@pytest.mark.parametrize(
    ("mode", "fragment"),
    [
        ("not-mcp", "is not an MCP server: it wrote 'hello, I am a web server log line'"),
        ("version", "speaks MCP protocol version '1999-01-01', which this client does not"),
        ("duplicate", "lists the tool 'get_note' twice"),
        ("bad-schema", "tool 'get_note': its inputSchema is not a valid JSON Schema"),
        ("silent", "did not complete the MCP handshake within 3s"),
    ],
)
def test_odd_stdio_servers(tmp_path: Path, mode: str, fragment: str) -> None:
    line, _ = _snapshot(tmp_path, "--stdio", f"{sys.executable} {ODD} {mode}")
    assert fragment in line, line


def test_a_command_that_does_not_exist(tmp_path: Path) -> None:
    line, _ = _snapshot(tmp_path, "--stdio", "/nonexistent/mcp-server --flag")
    assert "cannot start the MCP server `/nonexistent/mcp-server --flag`" in line


def test_an_http_server_that_is_not_mcp(tmp_path: Path) -> None:
    def not_mcp(path: str, body: object, headers: dict[str, str]) -> Reply:
        return Reply(status=404, body="<html>no such page</html>")

    with FakeModelServer(not_mcp) as web:
        line, _ = _snapshot(tmp_path, "--url", f"{web.root_url}/mcp")
    assert f"the MCP server at {web.root_url}/mcp did not complete the MCP handshake" in line


def test_an_existing_folder_is_never_overwritten(tmp_path: Path) -> None:
    out = tmp_path / "suite"
    out.mkdir()
    (out / "mine.txt").write_text("keep me")
    result = CliRunner().invoke(
        cli,
        ["suite", "from-mcp", "--stdio", f"{sys.executable} {NOTES}", "--name", "n", "--out",
         str(out)],
    )  # fmt: skip
    assert result.exit_code == 1 and "already exists" in result.output
    assert (out / "mine.txt").read_text() == "keep me"


def test_a_bad_suite_name_is_refused_before_connecting(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["suite", "from-mcp", "--stdio", "/nonexistent/x", "--name", "Bad Name"]
    )
    assert result.exit_code == 1 and "suite name 'Bad Name' is not usable" in result.output


def test_record_refuses_a_server_that_is_down_or_changed(tmp_path: Path) -> None:
    """Before any trace: a dead server or one missing a suite's tool is one line, no run."""
    out = tmp_path / "suite"
    db = f"sqlite:///{tmp_path / 'r.db'}"
    runner = CliRunner()
    made = runner.invoke(cli, ["--db", db, "suite", "from-mcp", "--stdio",
                               f"{sys.executable} {NOTES}", "--name", "n", "--out", str(out)])  # fmt: skip
    assert made.exit_code == 0, made.output
    from rejudge.cli.record import record

    if record.name not in cli.commands:
        cli.add_command(record)
    base = ["--db", db, "record", "--suite", str(out), "--model", "m", "--provider", "local",
            "--base-url", "http://127.0.0.1:9/v1"]  # fmt: skip
    dead = runner.invoke(cli, [*base, "--mcp-stdio", "/nonexistent/server"])
    assert dead.exit_code == 1 and "cannot start the MCP server" in dead.output, dead.output
    changed = runner.invoke(cli, [*base, "--mcp-stdio", f"{sys.executable} {ODD} plain"])
    assert changed.exit_code == 1 and "no longer offers 'list_notes'" in changed.output
    runs = runner.invoke(cli, ["--db", db, "--json", "runs"])
    assert runs.output.strip() == "[]"
    plain = runner.invoke(cli, [*base])
    assert plain.exit_code == 2 and "is an MCP suite" in plain.output
