"""Suite commands take the name a suite was stored under (`generate funcbench --name NAME`,
`suite import-bfcl`), not only built-in names and folders: NAME resolves to the store's newest
snapshot of that name when it is neither a built-in suite nor a folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ARGS = ["--core", "3", "--depth", "2", "--cases", "2", "--seed", "1"]


@pytest.fixture()
def generated(run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    # the folder goes elsewhere and the commands run from a third folder: only the store
    # knows the name
    monkeypatch.chdir(tmp_path)
    out = run_cli(
        "--json", "generate", "funcbench", *ARGS, "--name", "my-fb", "--out", str(tmp_path / "f")
    )
    assert out.exit_code == 0, out.output
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    return json.loads(out.output)


def test_selftest_validate_and_load_take_a_stored_name(run_cli, generated) -> None:
    selftest = run_cli("suite", "selftest", "my-fb", "--json")
    assert selftest.exit_code == 0, selftest.output
    report = json.loads(selftest.output)
    assert report["cases"] == 2 and report["passed"] == 2

    validate = run_cli("suite", "validate", "my-fb", "--json")
    assert validate.exit_code == 0, validate.output
    assert json.loads(validate.output) == {"suite": "my-fb", "valid": True, "problems": []}

    loaded = run_cli("--json", "suite", "load", "my-fb")
    assert loaded.exit_code == 0, loaded.output
    data = json.loads(loaded.output)
    # the store's snapshot loads back to the very suite it was stored from: a lookup
    assert data["hash"] == generated["hash"] and data["cases"] == 2


def test_the_stored_snapshot_is_the_generated_suite(run_cli, generated, tmp_path: Path) -> None:
    from rejudge.store import Store
    from rejudge.suites import load_suite

    from rejudge.services import open_suite

    store = Store.open(f"sqlite:///{tmp_path / 'cli.db'}")
    try:
        stored = open_suite("my-fb", lambda: store)
    finally:
        store.close()
    folder = load_suite(tmp_path / "f")
    assert stored.hash == folder.hash == generated["hash"]
    assert [c.id for c in stored.cases] == [c.id for c in folder.cases]


def test_an_unknown_name_is_still_a_clean_error(run_cli, generated) -> None:
    for argv in (("suite", "selftest", "nope"), ("suite", "validate", "nope")):
        out = run_cli(*argv)
        assert out.exit_code == 1, out.output
        assert out.output.startswith("Error: no suite named or at 'nope'"), out.output


def test_a_built_in_name_never_opens_the_store(run_cli, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = run_cli("suite", "validate", "retail", db="sqlite:///" + str(tmp_path / "none.db"))
    assert out.exit_code == 0, out.output
    assert not (tmp_path / "none.db").exists()
