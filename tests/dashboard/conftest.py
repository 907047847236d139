"""Fixtures of the dashboard tests: a store built through the Store API, and the judge's own
report/compare numbers for its evaluations (what the pages must show)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import queries
from judge.compare import compare_rows
from judge.report import build_report
from store import Store
from tests.dashboard.factory import Built, build_store

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"


@pytest.fixture
def built(db_url: str, tmp_path: Path) -> Built:
    """Cases x 3 repetitions: run-a under t@1 and t@2, run-b under t@1, run-c (oracle-assisted,
    half the cases) under t@1; cassettes for run-a; run-a left "running"."""
    return build_store(
        db_url,
        cases=12,
        repeat=3,
        cassettes_dir=tmp_path / "cassettes",
        with_run_c=True,
        running_run=True,
    )


def judge_rows(url: str, evaluation_id: int) -> list[dict[str, Any]]:
    """An evaluation's rows in the shape judge.report / judge.compare take."""
    store = Store.open(url)
    try:
        return [
            {
                "case": r["case_key"],
                "repetition": r["repetition"],
                "verdict": r["verdict"],
                "taxonomy": list(r["taxonomy"] or []),
                "partial_score": r["partial_score"],
                "dimension": r["dimension"],
                "category": r["category"],
                "trace_hash": r["trace_hash"],
                "case_hash": r["case_hash"],
                "registry_hash": r["registry_hash"],
                "rule_set_hash": r["rule_set_hash"],
                "tier": r["tier"],
                "engine_version": r["engine_version"],
            }
            for r in store.iter_evaluation_rows(evaluation_id)
        ]
    finally:
        store.close()


def judge_report(url: str, evaluation_id: int) -> dict[str, Any]:
    return build_report(judge_rows(url, evaluation_id))


def judge_compare(url: str, a: int, b: int) -> dict[str, Any]:
    store = Store.open(url)
    try:
        infos = {r["id"]: r for r in queries.list_evaluations(store.engine, ids=[a, b])}
    finally:
        store.close()

    def meta(info: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": info["id"],
            "registry_hash": info["registry_hash"],
            "harness_mode": info["harness_mode"],
            "tier": info["tier"],
            "rules": info["rule_set"],
            "model": info["model"],
            "run": info["run"],
        }

    return compare_rows(
        judge_rows(url, a), judge_rows(url, b), meta_a=meta(infos[a]), meta_b=meta(infos[b])
    )


def app_on(built: Built, page: str | None = None, **query: str) -> AppTest:
    """The app on ``built``'s store, switched to ``page`` (views/<page>.py) and run."""
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.session_state["db_url"] = built.url
    at.session_state["cassettes_dir"] = str(built.cassettes_dir or "")
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    if page is not None:
        at.switch_page(f"views/{page}.py")
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}
