"""One cassette, one trace, by every path (issue 15, item 4).

Every shipped cassette folder is loaded the way the demo loads it, derived the way recording
derives it (the tape's interactions and the ``rejudge`` block), and imported with
``import cassettes --suite``; the trace hashes must agree for every file. The sweep folders
record generated FuncBenchGen suites, shipped in suites/data/funcbench-sweep/.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import rejudge.suites.domains.funcbench  # noqa: F401  registers the funcbench domain
from rejudge.recorder import read_cassette, trace_from_cassette, trace_of
from rejudge.store import Store
from rejudge.suites import builtin_suites, load_suite

from rejudge import suites  # noqa: F401  registers the built-in domains
from rejudge.services import import_cassettes, load_cassette_runs

REPO = Path(__file__).resolve().parents[2]
CASSETTES = REPO / "cassettes"
SWEEP_SUITES = REPO / "suites" / "data" / "funcbench-sweep"
BUILTIN = {
    "smollm2-retail": "retail",
    "smollm2-retail-oracle": "retail",
    "smollm2-retail-required": "retail",
    "smollm2-genome-simple": "genome-simple",
    "smollm2-genome-complex": "genome-complex",
}


def _suite_of(folder: Path) -> str:
    if folder.name in BUILTIN:
        return BUILTIN[folder.name]
    # sweep-SmolLM2-135M-Instruct-c3-d2-s1-plain -> funcbench-c3-d2-cin1-din1-n0-nost-k3-s1
    core, depth, seed = folder.name.split("Instruct-", 1)[1].split("-")[:3]
    return str(SWEEP_SUITES / f"funcbench-{core}-{depth}-cin1-din1-n0-nost-k3-{seed}")


# run folders (an agent's cassettes); a folder holding only a judge's (<run>/judge/, imported
# runs the demo's model judge replays) is the model-graded tier's: tests/cli/test_demo.py
FOLDERS = sorted(
    p
    for p in CASSETTES.iterdir()
    if p.is_dir() and not p.name.startswith(".") and any(p.glob("*__r*.yaml"))
)


def test_every_shipped_folder_is_covered() -> None:
    assert {f.name for f in FOLDERS} >= set(BUILTIN)
    for folder in FOLDERS:
        suite = _suite_of(folder)
        assert suite in BUILTIN.values() or Path(suite).is_dir(), (folder, suite)


@pytest.fixture(scope="module")
def demo_hashes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[tuple[str, int], str]]:
    """run name -> (case, repetition) -> trace hash, as `rejudge demo` stores them."""
    store = Store.open(f"sqlite:///{tmp_path_factory.mktemp('demo') / 'demo.db'}")
    try:
        sources = {name: load_suite(name) for name in builtin_suites()}
        runs, _skipped = load_cassette_runs(store, CASSETTES, sources, {})
        return {
            r.run: {(t.case_key, t.repetition): t.hash for t in store.traces.iter_traces(r.run_id)}
            for r in runs
        }
    finally:
        store.close()


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_import_gives_the_recorded_and_demo_hashes(
    folder: Path, demo_hashes: dict[str, dict[tuple[str, int], str]], tmp_path: Path
) -> None:
    files = sorted(folder.glob("*__r*.yaml"))
    recorded: dict[tuple[str, int], str] = {}
    run_name = None
    for path in files:
        cassette = read_cassette(path)
        key = (str(cassette.meta["case"]), int(cassette.meta["repetition"]))
        run_name = str(cassette.meta["run"])
        # the recorder's own derivation: the tape's interactions and the block it writes
        tape = trace_from_cassette(cassette.interactions, cassette.meta, *key)
        assert trace_of(cassette).hash == tape.hash, path.name
        recorded[key] = tape.hash
    assert recorded and run_name is not None

    store = Store.open(f"sqlite:///{tmp_path / 'import.db'}")
    try:
        result = import_cassettes(folder, store, _suite_of(folder))
        imported = {
            (t.case_key, t.repetition): t.hash for t in store.traces.iter_traces(result.run.id)
        }
        assert result.inserted == len(files)
        # the run config the cassettes recorded, not harness mode "imported"
        first = read_cassette(files[0]).meta["config"]
        assert result.run.harness_mode == first["harness_mode"]
        assert (
            result.run.config.harness_assistance.round_budget
            == (first["harness_assistance"]["round_budget"])
        )
    finally:
        store.close()
    assert imported == recorded
    if folder.name in BUILTIN:  # the demo loads the built-in suites' folders
        assert demo_hashes[run_name] == recorded


def test_retail_import_equals_the_demo_all_72(
    demo_hashes: dict[str, dict[tuple[str, int], str]], tmp_path: Path
) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'retail.db'}")
    try:
        result = import_cassettes(CASSETTES / "smollm2-retail", store, "retail")
        imported = {
            (t.case_key, t.repetition): t.hash for t in store.traces.iter_traces(result.run.id)
        }
        statuses = result.summary()["statuses"]
    finally:
        store.close()
    assert len(imported) == 72 and imported == demo_hashes["smollm2-retail"]
    # the recorded outcome is honoured: 71 traces end with the model's text answer; one
    # (fc-d4-001) is an AGENT_ERROR, the server's 500 to call arguments its own 512-token cap cut
    assert statuses == {"agent_error": 1, "completed": 71}


def test_a_case_recorded_on_another_suite_version_is_refused(tmp_path: Path) -> None:
    import shutil

    from rejudge.recorder import CassetteImportError

    src = tmp_path / "src"
    src.mkdir()
    original = CASSETTES / "smollm2-retail" / "fc-d1-001__r0.yaml"
    text = original.read_text(encoding="utf-8").replace(
        "case_hash: sha256:", "case_hash: sha256:0000", 1
    )
    (src / "fc-d1-001__r0.yaml").write_text(text, encoding="utf-8")
    shutil.copy(CASSETTES / "smollm2-retail" / "fc-d1-002__r0.yaml", src)
    store = Store.open(f"sqlite:///{tmp_path / 'x.db'}")
    try:
        with pytest.raises(CassetteImportError, match="another version of their case.*fc-d1-001"):
            import_cassettes(src, store, "retail")
        assert store.runs.list_runs() == []
    finally:
        store.close()
