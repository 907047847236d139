"""``rejudge import SPANS.json``: an OpenTelemetry export is detected, stored as one run (a
trace per trace id), imported again as a lookup, and replayed from the file."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

from tests.cli.conftest import import_as_one_run

REPO = Path(__file__).resolve().parents[2]
SPANS = REPO / "tests" / "data" / "otel" / "any-agent" / "OPENAI_trace.json"


def test_a_span_file_imports_as_one_run_and_replays(run_cli: Callable[..., Result]) -> None:
    data = import_as_one_run(run_cli, SPANS, "otel", "spans")
    assert data["reason"].startswith("a span dump")
    result = data["result"]
    assert (result["run"], result["traces"], result["inserted"], result["calls"]) == (
        "spans",
        1,
        1,
        2,
    )
    assert result["anomalies"] == {} and result["spans"] == 6


def test_a_span_file_with_no_spans_is_one_error_line(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    empty = tmp_path / "spans.json"
    empty.write_text(json.dumps({"resourceSpans": []}))
    out = run_cli("import", str(empty))
    assert out.exit_code == 1
    assert out.output.strip().splitlines() == [f"Error: {empty}: no spans in the file"]


def test_anomalies_are_printed_one_line_each_for_people(run_cli: Callable[..., Result]) -> None:
    spans = REPO / "tests" / "data" / "otel" / "any-agent" / "LLAMA_INDEX_trace.json"
    out = run_cli("import", str(spans))
    assert out.exit_code == 0, out.output
    lines = [line for line in out.output.splitlines() if line.startswith("anomaly in ")]
    assert len(lines) == 3  # its model spans recorded "{}" for each of the three calls
    assert all("arguments of" in line and "empty; read from span" in line for line in lines)
