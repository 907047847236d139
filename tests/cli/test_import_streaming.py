"""``rejudge import`` of a file that streams (issue 38 item 7): a progress bar on stderr when it
is a terminal (quiet under --json), and a document too big to stream refused in one line."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from rejudge.importers import _otel as otel_module
from tests.importers.conftest import ANY_AGENT, otlp_export, spans_of

REPO = Path(__file__).resolve().parents[2]


def _on_a_terminal(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    """Run the CLI with stderr on a pseudo-terminal (stdout a pipe); exit code, stdout and
    what the terminal showed."""
    master, slave = pty.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "rejudge", "--db", f"sqlite:///{tmp_path / 'cli.db'}", *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=slave,
        env={**os.environ, "COLUMNS": "120", "TERM": "xterm"},
    )
    os.close(slave)
    shown = b""
    while True:
        ready, _w, _x = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed its side
                break
            if not chunk:
                break
            shown += chunk
        elif child.poll() is not None:
            break
    out = child.stdout.read().decode() if child.stdout else ""
    child.wait()
    os.close(master)
    return child.returncode, out, shown.decode(errors="replace")


def test_a_streamed_import_draws_a_progress_bar_on_a_terminal_and_none_under_json(
    tmp_path: Path,
) -> None:
    spans = tmp_path / "spans.jsonl"
    spans.write_text(
        "\n".join(json.dumps(otlp_export(spans_of(p))) for p in ANY_AGENT) + "\n",
        encoding="utf-8",
    )
    code, out, shown = _on_a_terminal(tmp_path, "import", str(spans), "--name", "bar")
    assert code == 0, shown
    assert "importing spans.jsonl (bytes read, then stored)" in shown
    assert "100%" in shown  # the bar reached its end: read, then stored
    assert "run" in out
    code, out, shown = _on_a_terminal(
        tmp_path, "--json", "import", "with", "otel", str(spans), "--name", "quiet"
    )
    assert code == 0, shown
    assert json.loads(out)["traces"] == len(ANY_AGENT)
    assert "importing" not in shown


def test_the_bar_shows_a_file_name_holding_markup_as_written(tmp_path: Path) -> None:
    # the bar's description column reads Rich markup: the label is escaped, not read
    spans = tmp_path / "[bold]spans.jsonl"
    spans.write_text(json.dumps(otlp_export(spans_of(ANY_AGENT[0]))) + "\n", encoding="utf-8")
    code, _out, shown = _on_a_terminal(tmp_path, "import", str(spans), "--name", "odd")
    assert code == 0, shown
    assert "importing [bold]spans.jsonl (bytes read, then stored)" in shown, shown


def test_a_value_too_big_to_stream_is_one_error_line(
    run_cli: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pretty = tmp_path / "export.json"
    pretty.write_text(json.dumps(otlp_export(spans_of(ANY_AGENT[0])), indent=2))
    monkeypatch.setattr(otel_module, "DOCUMENT_LIMIT", 4096)
    out = run_cli("import", str(pretty))
    assert out.exit_code == 1
    lines = out.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {pretty}: the value at character")
    assert "JSON Lines" in lines[0]
    listed = run_cli("--json", "runs")
    assert listed.exit_code == 0 and json.loads(listed.output) == []  # nothing left behind
