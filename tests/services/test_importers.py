"""Importers are registry entries: the four built-ins are declared (their modules imported only
when looked up), each is found by its name, replay finds each results-file source's reader
through them, and a plugin's importer is listed, runs, and replays the same way."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from rejudge.store import Store

from rejudge.errors import NotFoundError
from rejudge.registry import REGISTRY
from rejudge.services import (
    Importer,
    get_importer,
    importer_names,
    importer_rows,
    replay_source,
    run_external_verdicts,
    verify_run,
)

BUILT_INS = [
    "bfcl-results",
    "cassettes",
    "chat-jsonl",
    "inspect",
    "langfuse",
    "otel",
    "tau-bench",
]


def test_the_registry_lists_the_four_built_in_importers() -> None:
    assert set(BUILT_INS) <= set(REGISTRY.names("importer", load=False))
    assert set(BUILT_INS) <= set(importer_names())
    rows = {r["name"]: r for r in importer_rows()}
    assert all(rows[name]["summary"] and rows[name]["accepts"] for name in BUILT_INS)


@pytest.mark.parametrize("name", BUILT_INS)
def test_each_built_in_is_found_by_its_name(name: str) -> None:
    importer = get_importer(name)
    assert isinstance(importer, Importer) and importer.name == name
    assert callable(importer.run)


def test_no_importer_module_is_imported_until_looked_up() -> None:
    code = (
        "import sys; from rejudge.registry import REGISTRY; import rejudge.services;"
        "print(sorted(REGISTRY.names('importer', load=False)));"
        "print([m for m in sys.modules if m.startswith(('rejudge.services._', 'rejudge.importers._'))])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out == [repr(BUILT_INS), "[]"]


@pytest.mark.parametrize(
    ("source", "kind"),
    [
        ("tau-bench", "τ-bench trajectory file"),
        ("tau2-bench", "τ²-bench results file"),
        ("inspect", "Inspect log"),
        ("bfcl-results", "BFCL results"),
        ("otel", "OpenTelemetry span file"),
        ("chat-jsonl", "chat JSONL file"),
        ("langfuse", "Langfuse export"),
    ],
)
def test_replay_finds_each_source_through_its_importer(source: str, kind: str) -> None:
    found = replay_source(source)
    assert found is not None and found.kind == kind


def test_a_source_no_importer_wrote_has_no_reader() -> None:
    assert replay_source("nobody") is None and replay_source(None) is None


def test_an_unknown_importer_names_the_known_ones() -> None:
    with pytest.raises(NotFoundError, match=r"unknown importer 'nope' \(known: bfcl-results, "):
        get_importer("nope")


def test_a_registered_value_must_be_an_importer_of_that_name() -> None:
    with pytest.raises(ValueError, match="is not an Importer"):
        REGISTRY.register("importer", "odd", object())
    with pytest.raises(ValueError, match="is named 'inspect'"):
        REGISTRY.register("importer", "odd", get_importer("inspect"))


def test_a_plugin_importer_is_listed_runs_and_replays(store: Store, toy_importer: Path) -> None:
    assert "toy" in importer_names()
    importer = get_importer("toy")
    result = importer(store, toy_importer, run_name="toy-1")
    assert importer.to_json(result) == {
        "run": "toy-1",
        "suite": "toy",
        "inserted": 2,
        "skipped": 0,
        "external_verdicts": 2,
    }
    assert len(run_external_verdicts(store, "toy-1")) == 2
    again = importer(store, toy_importer, run_name="toy-1")
    assert (again.inserted, again.skipped) == (0, 2)  # the same import is a lookup
    # replay found the plugin's reader by the source its run's config names
    checked = verify_run(store, "toy-1", toy_importer.parent)
    assert (checked.origin, checked.ok, checked.matched) == ("results-file", True, 2)


def test_an_unregistered_plugin_importer_is_gone(toy_importer: Path) -> None:
    REGISTRY.unregister("importer", "toy")
    assert "toy" not in importer_names()
    assert replay_source("toy-log") is None
