"""``replay RUN`` verifies every run by where its evidence came from (services/_verify.py).

The demo's store holds all three origins: rejudge's own recordings of the local model (the loop
re-run against the shipped cassettes), other projects' cassettes (re-derived, nothing re-run)
and τ-bench's results file (hash-checked and re-derived). Every run of it must verify offline,
from another working folder than the one the demo ran in.
"""

from __future__ import annotations

import gzip
import json
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from rejudge.store import Store

from rejudge.importers import SHIPPED_TAU_BENCH
from rejudge.model import RunConfig
from rejudge.services import (
    CHECKS,
    import_cassettes,
    import_inspect,
    import_tau_bench,
    run_origin,
    verify_run,
)

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "cassettes"
REAL_WORLD = REPO / "suites" / "data" / "real-world"
INSPECT_LOG = REPO / "tests" / "data" / "inspect" / "notes.json"
OLD_STORE = REPO / "tests" / "data" / "stores" / "pre-namespace" / "store.db.gz"


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("replay opened a network connection")

    monkeypatch.setattr(socket.socket, "connect", no_network)


@pytest.fixture
def demo(
    demo_store: tuple[str, Path], monkeypatch: pytest.MonkeyPatch, offline: None
) -> Iterator[Store]:
    url, elsewhere = demo_store
    monkeypatch.chdir(elsewhere)
    opened = Store.open(url)
    yield opened
    opened.close()


def test_the_origin_picks_the_check() -> None:
    recorded = RunConfig(model="m", provider="local")
    imported = RunConfig(model="m", provider="mixed", harness_mode="imported")
    tau = RunConfig(
        model="gpt-4o", provider="tau-bench", harness_mode="imported", extra={"source": "tau-bench"}
    )
    assert [run_origin(c) for c in (recorded, imported, tau)] == [
        "recorded",
        "cassettes",
        "results-file",
    ]
    assert set(CHECKS) == {"recorded", "cassettes", "results-file"}


def test_every_demo_run_verifies_offline_from_another_folder(demo: Store) -> None:
    checks = {}
    for run in demo.runs.list_runs():
        report = verify_run(demo, run.name, Path("cassettes"))
        assert report.ok and report.traces > 0, report.as_dict()["divergences"][:2]
        checks[run.name] = report.check
    assert checks["tau-bench-gpt-4o-airline"] == "results-rederive"
    assert (
        checks["real-world-simonw-llm"] == checks["real-world-pydantic-ai"] == ("cassette-rederive")
    )
    # every run folder under cassettes/ is a run of the demo, re-run through the loop (a
    # folder holding only judge cassettes is an imported run's model judge)
    folders = sorted(p.name for p in SHIPPED.iterdir() if p.is_dir() and any(p.glob("*__r*.yaml")))
    assert folders and all(checks.get(name) == "loop-replay" for name in folders)


def test_the_c5_sweep_runs_sit_on_the_suite_they_were_recorded_with(demo: Store) -> None:
    # every FuncBenchGen suite names its cases fb-001...: ids alone put c5 on the c3 suite
    for run in demo.runs.list_runs():
        if run.name.startswith("sweep-"):
            core = run.name.split("-c", 1)[1].split("-", 1)[0]
            assert run.suite.startswith(f"funcbench-c{core}-"), run


def test_replay_cli_names_its_check_and_no_internal_name(
    demo_store: tuple[str, Path], demo: Store, run_cli: Any
) -> None:
    url, _elsewhere = demo_store
    for run in ("real-world-pydantic-ai", "tau-bench-gpt-4o-airline", "real-world-simonw-llm"):
        shown = run_cli("replay", run, db=url)
        assert shown.exit_code == 0, shown.output
        assert "mixed" not in shown.output and "unknown" not in shown.output
        assert "nothing is re-run" in shown.output
    shown = run_cli("replay", "real-world-simonw-llm", db=url)
    assert "re-derived from cassettes: 4 of 4 with the same hash" in " ".join(shown.output.split())
    misplaced = run_cli("replay", "smollm2-retail-oracle", "--source", "x.json", db=url)
    assert misplaced.exit_code == 1 and misplaced.output.startswith("Error: --source: ")
    data = json.loads(run_cli("--json", "replay", "smollm2-retail-oracle", db=url).output)
    assert data["check"] == "loop-replay" and data["ok"] is True
    assert [r["outcome"] for r in data["results"]] == ["same hash"] * 3


def test_an_edited_imported_cassette_diverges(tmp_path: Path, offline: None, run_cli: Any) -> None:
    folder = tmp_path / "simonw-llm"
    shutil.copytree(REAL_WORLD / "simonw-llm", folder)
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = Store.open(url)
    try:
        import_cassettes(folder, store, "real-world", run_name="rw")
    finally:
        store.close()
    # the model's last answer cut off: the trace it derives loses its last round
    edited = next(
        p
        for p in sorted(folder.glob("*.yaml"))
        if len(yaml.safe_load(p.read_text())["interactions"]) > 1
    )
    data = yaml.safe_load(edited.read_text())
    data["interactions"].pop()
    edited.write_text(yaml.safe_dump(data))

    shown = run_cli("--json", "replay", "rw", db=url)
    assert shown.exit_code == 1
    report = json.loads(shown.output)
    assert report["check"] == "cassette-rederive" and report["matched"] == report["traces"] - 1
    (diverged,) = report["divergences"]
    assert diverged["outcome"] == "diverged" and diverged["case"] == edited.stem


def test_a_results_file_not_at_hand_is_said_plainly(
    tmp_path: Path, offline: None, run_cli: Any
) -> None:
    copy = tmp_path / "gpt-4o-airline.json"
    shutil.copy(SHIPPED_TAU_BENCH / "gpt-4o-airline.json", copy)
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = Store.open(url)
    try:
        tools = SHIPPED_TAU_BENCH / "tools.json"
        import_tau_bench(copy, store, tools=tools, run_name="tau", model="gpt-4o")
        assert verify_run(store, "tau", tmp_path).ok
    finally:
        store.close()
    copy.unlink()
    gone = run_cli("--json", "replay", "tau", db=url)
    assert gone.exit_code == 1
    report = json.loads(gone.output)
    assert report["source"]["at_hand"] is False and "not at hand" in report["source"]["problem"]
    assert {r["outcome"] for r in report["results"]} == {"not checked"}
    # words, not line breaks: the terminal's width decides where a line wraps
    assert "not verified" in " ".join(run_cli("replay", "tau", db=url).output.split())

    # the same file named by hand verifies; another file is refused by its hash
    named = run_cli(
        "replay", "tau", "--source", str(SHIPPED_TAU_BENCH / "gpt-4o-airline.json"), db=url
    )
    assert named.exit_code == 0, named.output
    other = tmp_path / "other.json"
    other.write_text(
        json.dumps(json.loads((SHIPPED_TAU_BENCH / "gpt-4o-airline.json").read_text())[:3])
    )
    refused = run_cli("replay", "tau", "--source", str(other), db=url)
    assert refused.exit_code == 1
    assert "not the file the run was imported from" in " ".join(refused.output.split())


def test_an_inspect_log_re_derives(tmp_path: Path, offline: None) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'store.db'}")
    try:
        imported = import_inspect(INSPECT_LOG, store, run_name="notes")
        report = verify_run(store, imported.run.name, tmp_path)
        assert report.check == "results-rederive" and report.ok and report.traces > 0
        assert report.source is not None and report.source.hash == report.source.recorded_hash
    finally:
        store.close()


def test_an_old_store_still_finds_the_demo_cassettes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, offline: None
) -> None:
    # written before paths named their root: plain relative paths of the shipped cassettes
    db = tmp_path / "old.db"
    with gzip.open(OLD_STORE, "rb") as src, open(db, "wb") as dst:
        shutil.copyfileobj(src, dst)
    monkeypatch.chdir(tmp_path)
    store = Store.open(f"sqlite:///{db}")
    try:
        run = store.runs.list_runs()[0].name
        report = verify_run(store, run, Path("cassettes"))
        # found and re-run (the shipped cassettes were re-recorded since, so hashes may differ)
        assert report.traces and all(r.outcome != "not checked" for r in report.results)
    finally:
        store.close()


def test_bfcl_results_re_derive_and_an_edited_file_is_refused(
    tmp_path: Path, offline: None, run_cli: Any
) -> None:
    pytest.importorskip("bfcl_eval", reason="needs bfcl-eval (pip install --no-deps bfcl-eval)")
    from rejudge.importers import build_suite

    suite = build_suite("simple_python")
    results = tmp_path / "BFCL_v4_simple_python_result.json"
    lines = [
        json.dumps({"id": c.id, "result": [{c.golden.calls[0].tool: {}}]}) for c in suite.cases[:5]
    ]
    results.write_text("\n".join(lines), encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'store.db'}"
    imported = run_cli("--json", "import", "bfcl-results", str(results), "--model", "m", db=url)
    assert imported.exit_code == 0, imported.output
    (run,) = [r["run"] for r in json.loads(imported.output)]
    report = json.loads(run_cli("--json", "replay", run, db=url).output)
    assert report["check"] == "results-rederive" and report["ok"] and report["traces"] == 5

    results.write_text("\n".join(lines[:4]), encoding="utf-8")
    edited = run_cli("replay", run, db=url)
    assert edited.exit_code == 1
    assert "not the file the run was imported from" in " ".join(edited.output.split())
