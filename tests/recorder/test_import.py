"""Importing foreign cassettes as the traces of an imported run (DESIGN §5, Import)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from rejudge.recorder import (
    CassetteError,
    CassetteImportError,
    name_cassettes,
    plan_import,
    scrubbed_cassette_bytes,
)
from rejudge.store import Store

from rejudge.model import hash_bytes
from rejudge.services import import_cassettes, resolve_evidence_path

REAL = Path("/work/shared/real-cassettes")
WEATHER = REAL / "pydantic-ai/test_tool_choice_matrix_auto-openai.yaml"
CHAIN = REAL / "simonw-llm/test_tool_use_chain_of_two_calls.yaml"


def test_plan_is_pure_and_names_cases_from_files(tmp_path: Path) -> None:
    shutil.copy(WEATHER, tmp_path / "fc-d1-001.yaml")
    shutil.copy(CHAIN, tmp_path / "fc-d1-001__r3.yaml")
    shutil.copy(WEATHER, tmp_path / "other.yml")
    (tmp_path / "notes.txt").write_text("not a cassette")
    planned = plan_import(tmp_path)
    assert [(p.case_id, p.repetition, len(p.trace.calls)) for p in planned] == [
        ("fc-d1-001", 0, 1),
        ("fc-d1-001", 3, 2),
        ("other", 0, 1),
    ]
    assert planned[1].trace.calls[1].name == "can_have_dragons"
    assert planned[0].models == ("gpt-5-mini",) and planned[0].hosts == ("https://api.openai.com",)
    assert planned[0].instruction == "What's the weather in Paris?"
    assert planned == plan_import(tmp_path)  # pure: same files, same plan


def test_cases_are_named_by_their_path_so_same_named_files_stay_apart(tmp_path: Path) -> None:
    # two projects' sync.yaml are two tests; only __r<k> makes repetitions of one
    for folder, source, name in [
        ("anthropic", WEATHER, "sync.yaml"),
        ("gemini", CHAIN, "sync.yaml"),
        ("gemini", CHAIN, "sync__r1.yaml"),
    ]:
        (tmp_path / folder).mkdir(exist_ok=True)
        shutil.copy(source, tmp_path / folder / name)
    planned = plan_import(tmp_path)
    assert [(p.case_id, p.repetition, len(p.trace.calls)) for p in planned] == [
        ("anthropic/sync", 0, 1),
        ("gemini/sync", 0, 2),
        ("gemini/sync", 1, 2),
    ]
    # a single file is named by its own name
    assert [p.case_id for p in plan_import(tmp_path / "gemini" / "sync__r1.yaml")] == ["sync"]


def test_with_a_suite_a_run_folder_file_resolves_to_the_suites_case(tmp_path: Path) -> None:
    # rejudge's own layout, <run>/<case>__r<k>.yaml: the suite's ids are plain case names
    (tmp_path / "my-run").mkdir()
    shutil.copy(WEATHER, tmp_path / "my-run" / "fc-d1-001__r2.yaml")
    shutil.copy(CHAIN, tmp_path / "fc-d1-002.yaml")
    named = name_cassettes(tmp_path, case_ids={"fc-d1-001", "fc-d1-002"})
    assert [(f.rel, f.case_id, f.repetition) for f in named] == [
        ("fc-d1-002.yaml", "fc-d1-002", None),
        ("my-run/fc-d1-001__r2.yaml", "fc-d1-001", 2),
    ]
    with pytest.raises(CassetteImportError, match="name no case of the suite: my-run/fc"):
        name_cassettes(tmp_path, case_ids={"fc-d1-002"})


def test_adhoc_import_of_every_real_cassette(store: Store) -> None:
    result = import_cassettes(REAL, store)
    assert result.inserted == 11 and result.skipped == 0
    assert result.run.harness_mode == "imported"
    assert result.run.config.extra["wire_formats"] == [
        "anthropic-messages",
        "gemini-generate-content",
        "openai-chat",
        "openai-responses",
    ]
    cases = store.suites.get_cases(result.suite.id)
    assert len(cases) == 11
    _, case = cases["simonw-llm/test_responses_tool_use"]
    assert (
        case.golden.calls == []
        and case.instruction == "What is 1231 * 2331? Use the multiply tool."
    )
    registry = store.suites.get_registry(result.suite.registry_id)
    assert {"get_weather", "multiply", "get_capital", "llm_version", "retrieve_entity_info"} <= set(
        registry.tool_names()
    )
    traces = {t.case_key: t for t in store.traces.iter_traces(result.run.id)}
    chain = traces["simonw-llm/test_tool_use_chain_of_two_calls"]
    assert [(c.name, c.arguments, c.result) for c in chain.trace.calls] == [
        ("lookup_population", {"country": "Crumpet"}, "123124"),
        ("can_have_dragons", {"population": 123124}, "true"),
    ]
    assert (
        chain.cassette_path == str(CHAIN) and chain.cassette_hash and chain.hash == chain.trace.hash
    )
    # importing again is a lookup: same run, nothing duplicated
    again = import_cassettes(REAL, store)
    assert again.run.id == result.run.id and again.inserted == 0 and again.skipped == 11
    assert store.traces.count_traces(result.run.id) == 11


def test_import_with_suite_names_cases_and_repetitions(store: Store, tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(WEATHER, src / "fc-d1-001.yaml")
    shutil.copy(WEATHER, src / "fc-d1-002__r1.yaml")
    shutil.copy(CHAIN, src / "weird name.yaml")
    (src / "rejudge-import.json").write_text(
        json.dumps({"weird name.yaml": {"case": "fc-d1-003", "repetition": 2}})
    )
    copies = tmp_path / "copies"
    result = import_cassettes(src, store, suite="retail", run_name="imp", copy_to=copies)
    assert result.inserted == 3 and result.run.name == "imp" and result.suite.name == "retail"
    keys = sorted((t.case_key, t.repetition) for t in store.traces.iter_traces(result.run.id))
    assert keys == [("fc-d1-001", 0), ("fc-d1-002", 1), ("fc-d1-003", 2)]
    stored = {t.case_key: t for t in store.traces.iter_traces(result.run.id)}
    # under --cassettes, which the stored path names so it resolves from anywhere
    folder = copies.resolve().as_posix()
    assert stored["fc-d1-003"].cassette_path == f"cassettes:{folder}//imp/weird name.yaml"
    # the copy is the scrubbed file (issue 16, item 9): CHAIN carries openai-organization headers,
    # which a recording never keeps; the stored hash is the copy's, the source is untouched
    copy = (copies / "imp" / "weird name.yaml").read_bytes()
    assert copy == scrubbed_cassette_bytes(CHAIN.read_bytes()) != CHAIN.read_bytes()
    assert b"openai-organization" not in copy.lower()
    assert stored["fc-d1-003"].cassette_hash == hash_bytes(copy)
    for key, trace in stored.items():
        assert trace.cassette_hash == hash_bytes(
            resolve_evidence_path(trace.cassette_path, copies).read_bytes()
        ), key


def test_unknown_case_stops_the_import_with_nothing_stored(store: Store, tmp_path: Path) -> None:
    shutil.copy(WEATHER, tmp_path / "fc-d1-001.yaml")
    shutil.copy(WEATHER, tmp_path / "no-such-case.yaml")
    with pytest.raises(
        CassetteImportError, match="1 cassette\\(s\\) name no case of the suite: no-such-case.yaml"
    ):
        import_cassettes(tmp_path, store, suite="retail")
    assert store.traces.count_traces() == 0


def test_corrupt_cassette_names_the_file(store: Store, tmp_path: Path) -> None:
    shutil.copy(WEATHER, tmp_path / "a.yaml")
    (tmp_path / "b.yaml").write_text("interactions:\n  - request: [unclosed\n")
    with pytest.raises(CassetteError, match="b.yaml: invalid YAML at line"):
        import_cassettes(tmp_path, store)
    assert store.traces.count_traces() == 0


def test_empty_folder_and_bad_mapping(tmp_path: Path) -> None:
    with pytest.raises(CassetteImportError, match="no cassette files"):
        plan_import(tmp_path)
    with pytest.raises(CassetteImportError, match="no such folder"):
        plan_import(tmp_path / "missing")
    shutil.copy(WEATHER, tmp_path / "a.yaml")
    (tmp_path / "models.json").write_text(
        '{"interactions": [{"request": {"method": "GET", "uri": "https://api.openai.com/v1/models"}, "response": {"status": {"code": 200}, "body": {"string": "{}"}}}]}'
    )
    with pytest.raises(CassetteImportError, match="models.json: no model exchange"):
        plan_import(tmp_path)


def test_bad_mapping_file(store: Store, tmp_path: Path) -> None:
    shutil.copy(WEATHER, tmp_path / "a.yaml")
    (tmp_path / "rejudge-import.json").write_text('{"a.yaml": {"case": "x", "repetition": -1}}')
    with pytest.raises(CassetteImportError, match="repetition must be a whole number"):
        import_cassettes(tmp_path, store)


def test_renormalize_reproduces_imported_traces(store: Store, tmp_path: Path) -> None:
    from rejudge.services import renormalize_run

    src = tmp_path / "src"
    src.mkdir()
    for i, f in enumerate(sorted(REAL.glob("*/*.yaml"))[:4]):
        shutil.copy(f, src / f"fc-d1-00{i + 1}.yaml")
    copies = tmp_path / "copies"
    result = import_cassettes(src, store, suite="retail", run_name="imp", copy_to=copies)
    report = renormalize_run(store, result.run, copies)
    assert report.traces == 4 and report.unchanged == 4 and report.changed == 0
