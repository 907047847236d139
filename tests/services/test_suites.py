"""Suite snapshots in the store: immutable, keyed by hash; an edit makes a new snapshot."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from rejudge.store import Store
from rejudge.suites import SuiteError, builtin_suites, load_suite

from rejudge.services import snapshot_suite, stored_suite_summaries, suite_summaries


def test_summaries_report_broken_builtins_without_failing(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = suite_summaries(["retail", "missing-suite"])
    assert rows[0].cases == 72 and rows[0].error is None
    assert rows[1].name == "missing-suite" and rows[1].cases is None and rows[1].error
    # the JSON form: as the suite source's own summary, "error" only where loading failed
    assert rows[0].to_json() == load_suite("retail").summary()
    assert list(rows[1].to_json()) == ["name", "cases", "hash", "dimensions", "negative", "error"]


def test_stored_summaries_add_the_snapshot_id_domain_and_runs(store: Store) -> None:
    record = snapshot_suite(store, "retail")
    (entry,) = stored_suite_summaries(store)
    assert entry.id == record.id and entry.runs == 0 and entry.cases == 72
    assert entry.to_json() == {
        **load_suite("retail").summary(),
        "id": record.id,
        "domain": record.domain,
        "runs": 0,
    }


def test_snapshot_and_edit(store: Store, tmp_path: Path) -> None:
    record = snapshot_suite(store, "retail")
    assert record.case_count == 72 and record.hash == load_suite("retail").hash
    assert snapshot_suite(store, "retail").id == record.id
    cases = store.suites.get_cases(record.id)
    assert list(cases)[:2] == ["fc-d1-001", "fc-d1-002"]
    assert cases["fc-d4-001"][1] == load_suite("retail").case("fc-d4-001")
    # edit one instruction in a copy: a new snapshot; the old one is still there
    copy = tmp_path / "retail"
    shutil.copytree(builtin_suites()["retail"], copy)
    lines = (copy / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    case = json.loads(lines[0])
    case["instruction"] = "Is product P206 in stock at the moment?"
    lines[0] = json.dumps(case, ensure_ascii=False)
    (copy / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    edited = snapshot_suite(store, copy)
    assert edited.id != record.id and edited.hash != record.hash
    assert store.suites.get_suite("retail", record.hash).id == record.id
    assert store.suites.get_suite("retail").id == edited.id


def test_invalid_suite_is_refused(store: Store, tmp_path: Path) -> None:
    copy = tmp_path / "retail"
    shutil.copytree(builtin_suites()["retail"], copy)
    text = (copy / "cases.jsonl").read_text(encoding="utf-8")
    (copy / "cases.jsonl").write_text(text.replace('"W442"', '"W942"'), encoding="utf-8")
    with pytest.raises(SuiteError, match="problem"):
        snapshot_suite(store, copy)
