"""Stored evidence paths name the root they are relative to (services/_evidence_paths.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rejudge.errors import InvalidInputError
from rejudge.importers import SHIPPED_TAU_BENCH
from rejudge.services import evidence_path, resolve_evidence_path

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "cassettes" / "smollm2-retail" / "fc-d1-001__r0.yaml"


def test_each_root_is_named_and_resolves_from_anywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = tmp_path / "cassettes" / "run" / "a__r0.yaml"
    mine.parent.mkdir(parents=True)
    mine.write_text("version: 1\ninteractions: []\n")
    outside = tmp_path / "found" / "b.yaml"
    outside.parent.mkdir()
    outside.write_text("version: 1\ninteractions: []\n")
    tau = SHIPPED_TAU_BENCH / "tools.json"
    stored = {
        "cassettes folder": evidence_path(mine, tmp_path / "cassettes"),
        "shipped": evidence_path(SHIPPED),
        "package data": evidence_path(tau),
        "elsewhere": evidence_path(outside),
    }
    assert stored == {
        "cassettes folder": f"cassettes:{(tmp_path / 'cassettes').resolve().as_posix()}//run/a__r0.yaml",
        "shipped": "shipped:smollm2-retail/fc-d1-001__r0.yaml",
        "package data": "suites:importers/data/tau-bench-airline/tools.json",
        "elsewhere": outside.resolve().as_posix(),
    }
    monkeypatch.chdir(outside.parent)  # not where anything was stored from
    # the folder it was written into, whatever folder the reader names (the default ./cassettes)
    assert resolve_evidence_path(stored["cassettes folder"], Path("cassettes")) == mine.resolve()
    assert resolve_evidence_path(stored["shipped"], Path("cassettes")) == SHIPPED.resolve()
    assert resolve_evidence_path(stored["package data"]) == tau.resolve()
    assert resolve_evidence_path(stored["elsewhere"]) == outside.resolve()


def test_a_format_1_path_of_the_demo_is_found_in_the_shipped_cassettes(tmp_path: Path) -> None:
    # stores written before format 2 named the shipped cassettes relative to their folder
    assert resolve_evidence_path("smollm2-retail/fc-d1-001__r0.yaml", tmp_path) == (
        SHIPPED.resolve()
    )
    # a path found nowhere comes back where it was looked for first, to be reported missing
    assert resolve_evidence_path("run/x__r0.yaml", tmp_path) == (tmp_path / "run/x__r0.yaml")


@pytest.mark.parametrize("stored", ["../secrets.yaml", "shipped:../../etc/passwd"])
def test_a_path_that_climbs_out_of_its_root_is_refused(stored: str, tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="leaves its folder"):
        resolve_evidence_path(stored, tmp_path)


def test_a_moved_cassettes_folder_is_read_where_the_reader_names_it(tmp_path: Path) -> None:
    written = tmp_path / "was" / "run" / "a__r0.yaml"
    written.parent.mkdir(parents=True)
    written.write_text("version: 1\ninteractions: []\n")
    stored = evidence_path(written, tmp_path / "was")
    moved = tmp_path / "now"
    (tmp_path / "was").rename(moved)
    assert resolve_evidence_path(stored, moved) == (moved / "run" / "a__r0.yaml").resolve()
    # the format-1 form of the same file: under the folder the reader names
    assert resolve_evidence_path("run/a__r0.yaml", moved) == (moved / "run" / "a__r0.yaml")
