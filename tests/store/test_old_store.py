"""A store written by the code before the one-namespace change opens and reports byte-identically.

The store and the outputs of its read commands were made at commit 3a11da4
(tests/data/stores/pre-namespace/README.md); stored hashes, judgment keys and the schema must not
have moved since, and neither may any report, comparison, baseline check or export.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from rejudge.cli import cli

DATA = Path(__file__).resolve().parents[1] / "data" / "stores" / "pre-namespace"
COMMANDS: list[list[str]] = json.loads((DATA / "commands.json").read_text(encoding="utf-8"))
EXPECTED: dict[str, dict] = json.loads((DATA / "expected.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def old_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("old-store") / "store.db"
    with gzip.open(DATA / "store.db.gz", "rb") as src, open(path, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return path


def test_every_command_has_its_recorded_output() -> None:
    assert sorted(" ".join(c) for c in COMMANDS) == sorted(EXPECTED)


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_the_old_store_reports_byte_identically(
    command: list[str], old_store: Path, tmp_path: Path
) -> None:
    db = tmp_path / "store.db"
    shutil.copy(old_store, db)  # one copy per command, as the outputs were recorded
    result = CliRunner().invoke(
        cli,
        ["--db", f"sqlite:///{db}", *command],
        env={"REJUDGE_DB": None, "REJUDGE_CASSETTES": None},
    )
    expected = EXPECTED[" ".join(command)]
    assert result.exit_code == expected["exit"], result.output[-500:]
    if expected["exit"]:
        assert result.stderr.startswith("Error: ")
        return
    out = result.stdout_bytes
    assert len(out) == expected["bytes"]
    assert hashlib.sha256(out).hexdigest() == expected["sha256"]
