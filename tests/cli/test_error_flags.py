"""The CLI names the flag a library error is about: the library says what is wrong in its own
terms and passes the field (``tier``, ``name``, ``db``, ...); the one ``Error:`` line starts with
the option of the invoked command that set it, so the user still sees what to type."""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from rejudge.judge import REVIEW_CSV_COLUMNS
from rejudge.store import Store

from tests.judge.conftest import call, case, gcall, saved_run, trace

ROOT = Path(__file__).resolve().parents[2]
CASES = [case(gcall("get_order", order_id="W441"), id="a"), case(id="n", negative=True)]
TRACES = [trace(call("get_order", order_id="W442"), case_id="a"), trace(case_id="n")]


def error_line(result: Result, *, listed: bool = False) -> str:
    """The one line the CLI printed for a library error, exit 1 (``listed``: the command printed
    every problem first, one a line, as ``review import`` does)."""
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 1 and (listed or len(lines) == 1), result.output
    assert lines[-1].startswith("Error: "), result.output
    return lines[-1]


@pytest.fixture
def seeded(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    store = Store.open(url)
    try:
        saved_run(store, CASES, TRACES)
    finally:
        store.close()
    return url


def _evaluation(run_cli: Callable[..., Result], db: str, rules: str) -> str:
    result = run_cli("--json", "judge", "r1", "--tier", "golden", "--rules", rules, db=db)
    assert result.exit_code == 0, result.output
    return str(json.loads(result.output)["evaluation"])


def test_unknown_tier_names_the_tier_flag(run_cli: Callable[..., Result], seeded: str) -> None:
    line = error_line(run_cli("judge", "r1", "--tier", "nope", db=seeded))
    assert line.startswith("Error: --tier: unknown tier 'nope' (known: ")
    line = error_line(run_cli("rejudge", "--all", "--tier", "x.y", "--rules", "standard@2"))
    assert line.startswith("Error: --tier: unknown tier 'x.y' (known: ")


def test_a_run_name_taken_by_another_configuration_names_the_name_flag(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    folder = tmp_path / "cassettes"
    folder.mkdir()
    for name in ("fc-d1-001__r0.yaml", "fc-d1-002__r0.yaml"):
        shutil.copy(ROOT / "cassettes" / "smollm2-retail" / name, folder / name)
    first = run_cli(
        "import", "cassettes", str(folder), "--suite", "retail", "--name", "r1", "--no-copy"
    )
    assert first.exit_code == 0, first.output
    # the same name without the suite: another suite snapshot, so not a resume
    line = error_line(run_cli("import", "cassettes", str(folder), "--name", "r1", "--no-copy"))
    assert line.startswith("Error: --name: run 'r1' exists with a different suite or configuration")
    assert line.endswith("run it with the same options to resume it, or choose another run name "
                         "to record a new run")  # fmt: skip


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc")
def test_an_unwritable_database_names_the_db_flag_and_its_variable(
    run_cli: Callable[..., Result],
) -> None:
    line = error_line(run_cli("runs", db="sqlite:////proc/rejudge-test.db"))
    assert line.startswith("Error: --db / REJUDGE_DB: cannot ")
    assert "/proc/rejudge-test.db" in line and "(choose a writable" in line
    # set by the variable alone, the line is the same
    env_line = error_line(run_cli("runs", db=None, env={"REJUDGE_DB": "sqlite:////proc/x.db"}))
    assert env_line.startswith("Error: --db / REJUDGE_DB: cannot ")
    unreachable = error_line(run_cli("runs", db="postgresql+psycopg://u@127.0.0.1:1/x"))
    assert unreachable.startswith("Error: --db / REJUDGE_DB: cannot connect to ")
    assert unreachable.endswith("(check the database URL and that the server is running)")


def test_baseline_inputs_that_differ_name_the_allow_mismatch_flag(
    run_cli: Callable[..., Result], seeded: str
) -> None:
    locked = _evaluation(run_cli, seeded, "standard@2")
    lock = run_cli("baseline", "lock", locked, "--name", "main", db=seeded)
    assert lock.exit_code == 0, lock.output
    other = _evaluation(run_cli, seeded, "standard@1")
    line = error_line(run_cli("baseline", "check", other, "--against", "main", db=seeded))
    # another rule set is another judge: said as such, never read as a better or worse model
    assert line == (
        "Error: --allow-mismatch: judge changed from baseline 'main' (rules changed; inputs "
        "rule_set_hash): another judge's verdicts say nothing of a better or worse model (a "
        "laxer judge is not a better model); judge the evaluation as the baseline was, lock a "
        "new baseline, or allow the mismatch"
    )
    forced = run_cli("baseline", "check", other, "--against", "main", "--allow-mismatch", db=seeded)
    assert "Error" not in forced.output
    # a missing baseline: the command that makes one
    line = error_line(run_cli("baseline", "check", other, "--against", "nope", db=seeded))
    assert line == (
        "Error: no baseline named 'nope' (lock one with `rejudge baseline lock EVAL --name NAME`)"
    )
    line = error_line(run_cli("baseline", "check", other, "--against", "main", "--max-drop",
                              "-1", db=seeded))  # fmt: skip
    assert line.startswith("Error: --max-drop: the allowed accuracy drop must be >= 0")


def test_a_review_without_reviewer_names_the_reviewer_flag(
    run_cli: Callable[..., Result], seeded: str, tmp_path: Path
) -> None:
    ev = _evaluation(run_cli, seeded, "standard@2")
    rows = list(csv.DictReader(io.StringIO(run_cli("review", "export", ev, db=seeded).output)))
    assert rows
    path = tmp_path / "filled.csv"

    def write(filled: list[dict[str, str]]) -> None:
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(REVIEW_CSV_COLUMNS))
            writer.writeheader()
            writer.writerows(filled)

    write([dict(rows[0], label="confirmed", reviewer="")])
    line = error_line(run_cli("review", "import", str(path), db=seeded), listed=True)
    assert line == (
        f"Error: --reviewer: 1 problem(s) in {path}, nothing imported: row 2: no reviewer "
        "(fill the reviewer column or give a default reviewer)"
    )
    imported = run_cli("review", "import", str(path), "--reviewer", "ana", db=seeded)
    assert imported.exit_code == 0, imported.output
    # another problem too: the default reviewer would not fix the file, so no flag is named
    write([dict(rows[0], label="maybe", reviewer="ana"), dict(rows[0], label="confirmed")])
    line = error_line(run_cli("review", "import", str(path), db=seeded), listed=True)
    assert line.startswith("Error: 2 problem(s) in ") and "row 3: no reviewer" in line


def test_missing_runs_and_evaluations_point_at_the_listing(
    run_cli: Callable[..., Result], seeded: str
) -> None:
    line = error_line(run_cli("judge", "nope", "--tier", "golden", db=seeded))
    assert line == "Error: no run 'nope' in the store (see `rejudge runs`)"
    assert error_line(run_cli("report", "99", db=seeded)) == (
        "Error: no evaluation 99 in the store (see `rejudge runs`)"
    )


def test_a_rule_set_naming_an_unknown_state_applicability_names_the_setting(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(
        'name: mine\nversion: "1"\nextends: standard@2\nsettings:\n  state_applies: sometimes\n',
        encoding="utf-8",
    )
    line = error_line(run_cli("rules", "show", str(path)))
    assert "state_applies" in line and "'observable' or 'always'" in line
