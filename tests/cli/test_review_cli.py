"""`rejudge review export|import|summary|resolve` and `rejudge export`: the CSV round trip
(including malformed rows), exports in every format, and the require-review refusal."""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from rejudge.judge import EVALUATION_EXPORT_COLUMNS, REVIEW_CSV_COLUMNS
from rejudge.store import Store

from rejudge.cli import cli
from rejudge.cli.export import export
from rejudge.cli.judge import baseline, judge_cmd, report
from rejudge.cli.review import review
from tests.cli.conftest import CASES
from tests.judge.conftest import REGISTRY, case, gcall

for command in (review, export, report, baseline, judge_cmd):
    if command.name not in cli.list_commands(None):  # type: ignore[arg-type]
        cli.add_command(command)


def reviews_in(url: str) -> int:
    store = Store.open(url)
    try:
        return len(store.reviews.list_reviews())
    finally:
        store.close()


def read_csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def write_csv(path: Path, rows: list[dict[str, str]], columns: list[str] | None = None) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns or list(REVIEW_CSV_COLUMNS))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_csv_round_trip(world: dict[str, Any], run_cli: Callable[..., Result]) -> None:
    ev = str(world["ev"])
    out = run_cli("review", "export", ev, "--format", "csv")
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[0] == ",".join(REVIEW_CSV_COLUMNS)
    rows = read_csv(out.output)
    assert [(r["case"], r["verdict"], r["reason"]) for r in rows] == [
        ("k1", "FAIL", "FAIL"),
        ("k2", "FAIL", "FAIL"),
    ]
    assert rows[0]["taxonomy"] and rows[0]["evaluation"] == ev and rows[0]["label"] == ""

    rows[0].update(label="confirmed", reviewer="ana", note="wrong order id, right FAIL")
    rows[1].update(label="Judge wrong", note="W448 is fine here")  # reviewer from --reviewer
    path = write_csv(world["tmp"] / "filled.csv", rows)
    done = run_cli("--json", "review", "import", str(path), "--reviewer", "ben")
    assert done.exit_code == 0, done.output
    result = json.loads(done.output)
    assert result["imported"] == 2 and result["unchanged"] == 0
    assert result["reviewers"] == ["ana", "ben"]
    assert result["labels"] == {"confirmed": 1, "judge_wrong": 1}
    assert list(result) == ["rows", "imported", "unchanged", "reviewers", "labels", "file"]
    assert result["rows"] == 2 and result["file"] == str(path)

    # the same file again, under a name holding markup: nothing new, and the name as written
    odd = path.rename(world["tmp"] / "[bold]filled.csv")
    again = run_cli("review", "import", str(odd), "--reviewer", "ben")
    assert again.exit_code == 0, again.output
    words = " ".join(again.output.split())
    assert f"0 label(s) imported from {odd} (2 unchanged, 2 labeled row(s))" in words
    assert reviews_in(world["url"]) == 2

    summary = json.loads(run_cli("--json", "review", "summary", ev).output)
    assert summary["fails"] == {"total": 2, "reviewed": 2, "coverage": 1.0, "judge_wrong": 1}
    assert summary["misjudgment_rate"] == 0.5 and summary["gaps"] == 1

    remaining = run_cli("review", "export", ev, "--unreviewed")
    assert read_csv(remaining.output) == []


def test_malformed_rows_are_all_listed_and_nothing_is_written(
    world: dict[str, Any], run_cli: Callable[..., Result]
) -> None:
    rows = read_csv(run_cli("review", "export", str(world["ev"])).output)
    good = dict(rows[0], label="confirmed", reviewer="ana")
    bad = [
        good,  # row 2: fine
        dict(rows[1], label="maybe", reviewer="ana"),  # row 3: unknown label
        dict(rows[1], judgment_key="sha256:nope", label="confirmed", reviewer="ana"),  # row 4
        dict(rows[1], label="unclear", reviewer=""),  # row 5: no reviewer
        dict(rows[1], label="", note="looks odd"),  # row 6: note without label
        dict(rows[1], case="k9", label="confirmed", reviewer="cy"),  # row 7: case mismatch
        dict(rows[0], label="unclear", reviewer="ana"),  # row 8: ana twice on one judgment
        dict(rows[1], evaluation="999", label="confirmed", reviewer="dee"),  # row 9
        dict(rows[1], label="", reviewer=""),  # row 10: not reviewed yet, skipped
    ]
    path = write_csv(world["tmp"] / "bad.csv", bad)
    result = run_cli("review", "import", str(path))
    assert result.exit_code == 1
    text = result.output
    for expected in (
        "row 3: unknown label 'maybe'",
        "row 4: unknown judgment 'sha256:nope'",
        "row 5: no reviewer",
        "row 6: a note without a label",
        "row 7: case 'k9' does not match",
        "row 8: ana already labeled this judgment in row 2",
        "row 9: no evaluation 999",
    ):
        assert expected in text, (expected, text)
    assert "row 2:" not in text and "row 10:" not in text
    assert text.strip().splitlines()[-1].startswith("Error: 7 problem(s)")
    assert reviews_in(world["url"]) == 0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "row 1: the file is empty"),
        ("case,label\nk1,confirmed\n", "row 1: missing column(s) judgment_key, reviewer"),
        (
            "judgment_key,label,reviewer\nsha256:x,confirmed,ana,extra\n",
            "row 2: 4 fields but the header has 3",
        ),
    ],
)
def test_malformed_files(
    world: dict[str, Any], run_cli: Callable[..., Result], content: str, message: str
) -> None:
    path = world["tmp"] / "f.csv"
    path.write_text(content)
    result = run_cli("review", "import", str(path))
    assert result.exit_code == 1 and message in result.output, result.output
    (world["tmp"] / "latin.csv").write_bytes("judgment_key,label,reviewer\n\xe9".encode("latin-1"))
    latin = run_cli("review", "import", str(world["tmp"] / "latin.csv"))
    assert latin.exit_code == 1 and "not UTF-8" in latin.output


def test_sampled_passes_are_seeded(world: dict[str, Any], run_cli: Callable[..., Result]) -> None:
    ev = str(world["ev"])
    first = read_csv(run_cli("review", "export", ev, "--sample-passes", "2", "--seed", "7").output)
    again = read_csv(run_cli("review", "export", ev, "--sample-passes", "2", "--seed", "7").output)
    assert first == again
    sampled = [r for r in first if r["reason"] == "sampled PASS"]
    assert len(sampled) == 2 and all(r["verdict"] == "PASS" for r in sampled)
    out = world["tmp"] / "queue.csv"
    written = run_cli("review", "export", ev, "--sample-passes", "10", "--out", str(out))
    assert written.exit_code == 0 and "wrote 6 row(s)" in written.output
    assert len(read_csv(out.read_text())) == 6


def test_exports(world: dict[str, Any], run_cli: Callable[..., Result]) -> None:
    ev = str(world["ev"])
    columns = [c for c, _, _ in EVALUATION_EXPORT_COLUMNS]
    jsonl = run_cli("export", ev, "--format", "jsonl")
    assert jsonl.exit_code == 0, jsonl.output
    rows = [json.loads(line) for line in jsonl.output.splitlines()]
    assert len(rows) == 6 and list(rows[0]) == columns
    first = rows[0]
    assert (first["case"], first["verdict"], first["tier"], first["rules"]) == (
        "k1",
        "FAIL",
        "golden",
        "standard@2",
    )
    assert first["model"] == "m" and first["suite"] == "t" and isinstance(first["taxonomy"], list)
    assert all(first[h].startswith("sha256:") for h in ("trace_hash", "case_hash", "rule_set_hash"))

    as_csv = run_cli("export", ev, "--format", "csv")
    table = read_csv(as_csv.output)
    assert list(table[0]) == columns and table[0]["taxonomy"] == " ".join(first["taxonomy"])
    assert float(table[3]["partial_score"]) == rows[3]["partial_score"]

    pq_path = world["tmp"] / "e.parquet"
    parquet = run_cli("export", ev, "--format", "parquet", "--out", str(pq_path))
    assert parquet.exit_code == 0, parquet.output
    import pyarrow.parquet as pq

    loaded = pq.read_table(pq_path)
    assert loaded.column_names == columns and loaded.num_rows == 6
    assert str(loaded.schema.field("repetition").type) == "int64"
    assert str(loaded.schema.field("taxonomy").type) == "list<element: string>"

    traces = run_cli("export", "run", "r1", "--format", "jsonl")
    assert traces.exit_code == 0, traces.output
    lines = [json.loads(line) for line in traces.output.splitlines()]
    assert [t["case"] for t in lines] == [f"k{i}" for i in range(1, 7)]
    assert lines[0]["trace"]["rounds"][0]["calls"][0]["name"] == "get_order"
    assert lines[0]["calls"] == 1 and lines[0]["trace_hash"] == rows[0]["trace_hash"]

    wrong = run_cli("export", "run", "r1", "--format", "csv")
    assert wrong.exit_code == 2 and "jsonl only" in wrong.output
    missing = run_cli("export", "42")
    assert missing.exit_code == 1 and "no evaluation 42" in missing.output


def test_parquet_without_pyarrow_names_it(
    world: dict[str, Any], run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    result = run_cli("export", str(world["ev"]), "--format", "parquet", "--out", "x.parquet")
    assert result.exit_code == 1
    assert "parquet export needs pyarrow" in result.output and "\n" not in result.output.strip()


def test_resolve_once(world: dict[str, Any], run_cli: Callable[..., Result]) -> None:
    rows = read_csv(run_cli("review", "export", str(world["ev"])).output)
    path = write_csv(world["tmp"] / "one.csv", [dict(rows[0], label="judge_wrong", reviewer="a")])
    assert run_cli("review", "import", str(path)).exit_code == 0
    store = Store.open(world["url"])
    try:
        (only,) = store.reviews.list_reviews()
    finally:
        store.close()
    first = run_cli("review", "resolve", str(only.id), "--resolution", "rule fixed")
    assert first.exit_code == 0 and "resolved: rule fixed" in first.output
    second = run_cli("review", "resolve", str(only.id), "--resolution", "again")
    assert second.exit_code == 1 and "already resolved" in second.output


def test_require_review_refusal_then_lock(
    world: dict[str, Any], run_cli: Callable[..., Result]
) -> None:
    ev = str(world["ev"])
    refused = run_cli("baseline", "lock", ev, "--name", "main", "--require-review")
    assert refused.exit_code == 1
    assert "not fully reviewed (2 gap(s))" in refused.output
    assert "k1 r0: FAIL not reviewed" in refused.output
    assert "k2 r0: FAIL not reviewed" in refused.output

    rows = read_csv(run_cli("review", "export", ev).output)
    rows[0].update(label="confirmed", reviewer="ana")
    rows[1].update(label="judge_wrong", reviewer="ana", note="W448 is acceptable")
    assert run_cli("review", "import", str(write_csv(world["tmp"] / "r.csv", rows))).exit_code == 0
    still = run_cli("baseline", "lock", ev, "--name", "main", "--require-review")
    assert still.exit_code == 1 and "k2 r0: judge_wrong (ana) not resolved" in still.output
    assert "k1" not in still.output

    # the reviewer takes it back: latest label per reviewer counts, history stays
    rows[1].update(label="confirmed", note="on second look the FAIL is right")
    assert run_cli("review", "import", str(write_csv(world["tmp"] / "r2.csv", rows))).exit_code == 0
    locked = run_cli("--json", "baseline", "lock", ev, "--name", "main", "--require-review")
    assert locked.exit_code == 0, locked.output
    data = json.loads(locked.output)
    assert data["reviewed"] is True and data["calibration"]["misjudgment_rate"] == 0.0
    assert data["calibration"]["golden_errors"] == 0 and data["calibration"]["gaps"] == 0
    assert reviews_in(world["url"]) == 3

    full = json.loads(run_cli("--json", "report", ev).output)
    cal = full["calibration"]
    assert cal["fails"]["coverage"] == 1.0 and cal["misjudgment_rate"] == 0.0
    assert cal["ready_to_lock"] is True and cal["review_rows"] == 3
    human = run_cli("report", ev)
    assert "judge misjudgment rate 0.0%" in human.output and "golden errors 0" in human.output


def test_judge_against_a_corrected_snapshot(
    world: dict[str, Any], run_cli: Callable[..., Result]
) -> None:
    store = Store.open(world["url"])
    try:
        fixed = [*CASES[:1], case(gcall("get_order", order_id="W448"), id="k2"), *CASES[2:]]
        store.suites.save_suite(
            name="t", domain="retail", suite_hash="sha256:t2", registry=REGISTRY, cases=fixed
        )
    finally:
        store.close()
    out = run_cli(
        "--json",
        "judge",
        "r1",
        "--tier",
        "golden",
        "--rules",
        "standard@2",
        "--suite-snapshot",
        "latest",
    )
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["summary"]["verdict_counts"]["FAIL"] == 1
    unknown = run_cli("judge", "r1", "--tier", "golden", "--suite-snapshot", "sha256:nope")
    assert unknown.exit_code == 1 and "no suite named 't'" in unknown.output


def _doc_table(text: str, heading: str) -> list[tuple[str, ...]]:
    section = text.split(heading, 1)[1]
    rows = []
    for line in section.splitlines()[1:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = tuple(c.strip().strip("`") for c in line.strip("|").split("|"))
        if cells[0] in ("column", "") or set(cells[0]) <= {"-"}:
            continue
        rows.append(cells)
    return rows


def test_documented_columns_match_the_code() -> None:
    from rejudge.judge import RUN_EXPORT_COLUMNS

    text = (Path(__file__).resolve().parents[2] / "docs" / "calibration.md").read_text()
    assert _doc_table(text, "### `export EVAL`") == [tuple(c) for c in EVALUATION_EXPORT_COLUMNS]
    assert _doc_table(text, "### `export run RUN`") == [tuple(c) for c in RUN_EXPORT_COLUMNS]
    review_cols = [row[0] for row in _doc_table(text, "### The review CSV")]
    assert review_cols == list(REVIEW_CSV_COLUMNS)


def test_review_summary_json_is_pinned(
    world: dict[str, Any], run_cli: Callable[..., Result]
) -> None:
    """`review summary --json` key for key, in order (the report's calibration block, stored and
    hashed with a reviewed baseline): a typed result must print what the dicts printed."""
    ev = str(world["ev"])
    rows = read_csv(run_cli("review", "export", ev).output)
    rows[0].update(label="confirmed", reviewer="ana")
    rows[1].update(label="judge_wrong", reviewer="ana", note="W448 is fine here")
    again = dict(rows[1], label="golden_wrong", reviewer="ben", note="")
    path = write_csv(world["tmp"] / "pinned.csv", [*rows, again])
    assert run_cli("review", "import", str(path)).exit_code == 0
    summary = run_cli("--json", "review", "summary", ev)
    assert summary.exit_code == 0, summary.output
    assert summary.output == PINNED_SUMMARY


#: `review summary --json` of test_review_summary_json_is_pinned, as main printed it before the
#: figures were typed (98cc5d7)
PINNED_SUMMARY = """\
{
  "reviewed": 2,
  "judgments": 6,
  "coverage": 0.333333,
  "fails": {
    "total": 2,
    "reviewed": 2,
    "coverage": 1.0,
    "judge_wrong": 0
  },
  "passes": {
    "total": 4,
    "reviewed": 0,
    "coverage": 0.0,
    "judge_wrong": 0
  },
  "labels": {
    "confirmed": 1,
    "judge_wrong": 0,
    "golden_wrong": 0,
    "unclear": 0,
    "disputed": 1
  },
  "misjudged": 0,
  "misjudgment_rate": 0.0,
  "golden_errors": 0,
  "unclear": 0,
  "disputed": 1,
  "unresolved": {
    "judge_wrong": 1,
    "golden_wrong": 1
  },
  "resolved": {
    "judge_wrong": 0,
    "golden_wrong": 0
  },
  "reviewers": [
    "ana",
    "ben"
  ],
  "review_rows": 3,
  "agreement": {
    "pairs": [
      {
        "reviewers": [
          "ana",
          "ben"
        ],
        "items": 1,
        "observed_agreement": 0.0,
        "kappa": 0.0
      }
    ],
    "double_reviewed": 1,
    "kappa": 0.0
  },
  "verdicts_reviewed": {
    "FAIL": 2
  },
  "flagged": [
    {
      "review": 2,
      "label": "judge_wrong",
      "reviewer": "ana",
      "note": "W448 is fine here",
      "case": "k2",
      "repetition": 0,
      "suite": "t",
      "suite_hash": "sha256:t",
      "case_hash": "sha256:8fa9b69933b57dbd0a715df064b63fbe2cc248aef09c4df8c370fc515dcf0c4d",
      "verdict": "FAIL",
      "resolved": false,
      "resolution": null,
      "resolved_in": null
    },
    {
      "review": 3,
      "label": "golden_wrong",
      "reviewer": "ben",
      "note": null,
      "case": "k2",
      "repetition": 0,
      "suite": "t",
      "suite_hash": "sha256:t",
      "case_hash": "sha256:8fa9b69933b57dbd0a715df064b63fbe2cc248aef09c4df8c370fc515dcf0c4d",
      "verdict": "FAIL",
      "resolved": false,
      "resolution": null,
      "resolved_in": null
    }
  ],
  "gaps": 1,
  "ready_to_lock": false
}
"""
