"""The BFCL commands (before the lead attaches them): import-bfcl, bfcl-results, export bfcl."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rejudge._settings import resolve_settings
from rejudge.cli._context import AppContext
from rejudge.cli.bfcl import bfcl_results, export, import_bfcl

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("bfcl_eval") is None,
    reason="bfcl-eval is not installed (pip install --no-deps bfcl-eval)",
)


def app(tmp_path: Path) -> AppContext:
    url = f"sqlite:///{tmp_path / 'rejudge.db'}"
    return AppContext(resolve_settings(db=url, json_output=True, environ={}))


def test_commands_import_judge_and_export(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    out = runner.invoke(
        import_bfcl,
        ["--category", "live_relevance", "--out", str(tmp_path / "s")],
        obj=app(tmp_path),
    )
    assert out.exit_code == 0, out.output
    [row] = json.loads(out.output)
    assert row["name"] == "bfcl-live_relevance" and row["cases"] == 16
    assert (tmp_path / "s" / "bfcl-live_relevance" / "cases.jsonl").is_file()

    results = tmp_path / "BFCL_v4_live_relevance_result.json"
    results.write_text(
        json.dumps({"id": "live_relevance_0-0-0", "result": "[search_engine_query(prompt='x')]"})
        + "\n"
        + json.dumps({"id": "live_relevance_1-1-0", "result": "no call"})
        + "\n",
        encoding="utf-8",
    )
    out = runner.invoke(bfcl_results, [str(results), "--model", "m"], obj=app(tmp_path))
    assert out.exit_code == 0, out.output
    [summary] = json.loads(out.output)
    assert summary["traces"] == 2 and summary["run"] == "bfcl-m-live_relevance"

    import rejudge.judge._batch as judge_batch
    from rejudge.judge import load_rule_set
    from rejudge.store import Store

    from rejudge.services import judge_run

    built: list[str] = []
    real_index = judge_batch.registry_index

    def spy(registry, registry_hash=None):  # type: ignore[no-untyped-def]
        built.append(registry.name if hasattr(registry, "name") else "?")
        return real_index(registry, registry_hash)

    monkeypatch.setattr(judge_batch, "registry_index", spy)
    store = Store.open(f"sqlite:///{tmp_path / 'rejudge.db'}")
    try:
        result = judge_run(store, summary["run"], "bfcl-ast", load_rule_set("standard@2"))
        # bfcl-ast never reads the compiled registry: batch judging must not build it
        assert built == []
        judge_run(store, summary["run"], "contract", load_rule_set("standard@2"))
        assert len(built) == 1
    finally:
        store.close()
    out = runner.invoke(
        export,
        ["bfcl", str(result.evaluation_id), "--out", str(tmp_path / "score")],
        obj=app(tmp_path),
    )
    assert out.exit_code == 0, out.output
    [written] = json.loads(out.output)
    assert written["correct_count"] == 1 and written["total_count"] == 2


def test_unknown_category_is_a_usage_error(tmp_path: Path) -> None:
    out = CliRunner().invoke(import_bfcl, ["--category", "nope"], obj=app(tmp_path))
    assert out.exit_code == 2
