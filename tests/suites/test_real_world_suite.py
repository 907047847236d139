"""The real-world suite: valid, one case (or repetition) for every shipped cassette of other
projects, and every recording imported under it is judged (scored, not only stored)."""

from __future__ import annotations

from pathlib import Path

import rejudge.suites
from rejudge.judge import load_rule_set
from rejudge.store import Store
from rejudge.suites import load_suite, validate_suite

from rejudge.services import evaluation_rows, import_cassettes, judge_run

FOLDERS = ("simonw-llm", "pydantic-ai")
ROOT = Path(rejudge.suites.__file__).parent / "data" / "real-world"


def test_the_suite_is_valid_and_covers_every_cassette() -> None:
    assert validate_suite("real-world") == []
    suite = load_suite("real-world")
    root = ROOT
    cassettes = sorted(p.name for f in FOLDERS for p in (root / f).glob("*.yaml"))
    assert len(cassettes) == 11
    assert all(case.golden.calls for case in suite.cases)
    # every tool the registry holds is one some case expects, and no case names another
    assert {s.name for s in suite.registry.tools} == {
        call.tool for case in suite.cases for call in case.golden.calls
    }


def test_every_recording_is_judged(store: Store) -> None:
    root = ROOT
    rules = load_rule_set("standard@2")
    traces = 0
    for folder in FOLDERS:
        result = import_cassettes(root / folder, store, "real-world", run_name=f"rw-{folder}")
        assert result.skipped_files == []
        traces += result.inserted
        ev = judge_run(store, f"rw-{folder}", "golden", rules).evaluation_id
        rows = evaluation_rows(store, ev)
        assert rows and {r["verdict"] for r in rows} <= {"PASS", "FAIL"}
    assert traces == 11
