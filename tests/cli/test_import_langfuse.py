"""``rejudge import EXPORT.json``: a Langfuse export is detected, stored as one run (a trace per
Langfuse trace), imported again as a lookup, replayed from the file; ``import list`` names it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

from tests.cli.conftest import import_as_one_run

REPO = Path(__file__).resolve().parents[2]
TRACES = REPO / "tests" / "data" / "langfuse" / "framework-traces"
KOOG = TRACES / "koog-2025-08-26.trace.json"


def test_a_langfuse_export_imports_as_one_run_and_replays(run_cli: Callable[..., Result]) -> None:
    data = import_as_one_run(run_cli, KOOG, "langfuse", "koog")
    assert data["reason"] == "a Langfuse trace with its observations"
    result = data["result"]
    # koog greets with HelloTool and says goodbye with ByeTool: two calls, one trace
    assert (result["run"], result["traces"], result["inserted"], result["calls"]) == (
        "koog",
        1,
        1,
        2,
    )
    assert result["anomalies"] == {} and result["observations"] == 11


def test_import_list_names_langfuse(run_cli: Callable[..., Result]) -> None:
    out = run_cli("--json", "import", "list")
    assert out.exit_code == 0, out.output
    rows = {r["name"]: r for r in json.loads(out.output)}
    assert rows["langfuse"]["sources"] == ["langfuse"]
    assert "Langfuse" in rows["langfuse"]["summary"]


def test_an_export_of_no_trace_is_one_error_line(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    empty = tmp_path / "observations.json"
    empty.write_text(json.dumps({"data": [{"id": "o1", "type": "GENERATION"}], "meta": {}}))
    out = run_cli("import", str(empty))
    assert out.exit_code == 1
    [line] = out.output.strip().splitlines()
    assert line.startswith("Error: ") and "no Langfuse trace with observations" in line
