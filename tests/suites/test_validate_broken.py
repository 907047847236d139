"""The validator against deliberately broken case files: every breakage, its line and field."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from rejudge.suites import Problem, validate_suite

BROKEN = Path(__file__).parent / "broken"

# file -> every expected problem as (line, case id, field, message fragment); nothing else
EXPECTED: dict[str, list[tuple[int, str | None, str, str]]] = {
    "bad_json.jsonl": [(2, None, "<line>", "invalid JSON")],
    "not_object.jsonl": [(1, None, "<line>", "must be a JSON object")],
    "missing_field.jsonl": [(1, "fc-d1-001", "golden", "'golden' is a required property")],
    "extra_field.jsonl": [(1, "fc-d1-001", "priority", "'priority' was unexpected")],
    "bad_rule.jsonl": [
        (1, "fc-d1-001", "golden.calls[0].param_rules.order_id", "'fuzzy' is not one of")
    ],
    "duplicate_id.jsonl": [(2, "fc-d1-001", "id", "duplicate id (first on line 1)")],
    "bad_id_pattern.jsonl": [
        (1, "retail-001", "id", "does not match the pattern"),
        (2, "fc-d5-002", "id", "does not match the pattern"),
    ],
    "dimension_mismatch.jsonl": [
        (1, "fc-d2-001", "dimension", "dimension 'D1' does not match the id (expected 'D2')")
    ],
    "unknown_tool.jsonl": [(1, "fc-d1-001", "golden.calls[0].tool", "unknown tool 'refund_order'")],
    "schema_invalid_params.jsonl": [
        (1, "fc-d1-001", "golden.calls[0].params.status", "'shipping' is not one of"),
        (1, "fc-d1-001", "golden.calls[1].params.id", "'id' was unexpected"),
        (1, "fc-d1-001", "golden.calls[1].params.order_id", "'order_id' is a required property"),
    ],
    "rule_key_missing.jsonl": [
        (1, "fc-d1-001", "golden.calls[0].param_rules.reason", "which is not in params")
    ],
    "unknown_fixture.jsonl": [
        (1, "fc-d1-001", "golden.calls[0].params.item_id", "unknown item_id 'P299'"),
        (1, "fc-d1-001", "golden.calls[0].params.order_id", "unknown order_id 'W999'"),
    ],
    "whitelist.jsonl": [
        (1, "fc-d1-001", "golden.allowed_extra[1]", "'request_cancel' changes state"),
        (1, "fc-d1-001", "golden.allowed_extra[2]", "unknown tool 'get_weather'"),
    ],
    "negative_with_calls.jsonl": [
        (1, "fc-d1-001", "golden.calls", "a negative case must have no golden calls")
    ],
    "skip_rules.jsonl": [
        (1, "fc-d1-001", "skip_reason", "skip=true needs a non-empty skip_reason"),
        (2, "fc-d1-002", "skip_reason", "skip=true needs a non-empty skip_reason"),
        (3, "fc-d1-003", "skip_reason", "skip_reason must be null when skip is false"),
    ],
    "phrasing_contract.jsonl": [
        (2, "fc-d1-002", "golden", "may differ only in id, instruction and phrasing")
    ],
    "duplicate_instruction.jsonl": [
        (2, "fc-d1-002", "instruction", "same instruction as fc-d1-001 (line 1)")
    ],
    "context_shape.jsonl": [
        (1, "fc-d1-001", "context", "exactly db_fixture and notes"),
        (1, "fc-d1-001", "context.db_fixture", 'db_fixture must be "standard"'),
        (1, "fc-d1-001", "context.notes", "notes must be a non-empty string"),
    ],
    "any_empty.jsonl": [
        (1, "fc-d1-001", "golden.calls[0].params.action_id", "needs a non-empty example value"),
        (1, "fc-d1-001", "golden.calls[0].params.action_id", "should be non-empty"),
    ],
    "many_at_once.jsonl": [
        (2, None, "<line>", "invalid JSON"),
        (3, "fc-d1-001", "id", "duplicate id (first on line 1)"),
        (4, "fc-d1-004", "golden.calls[0].tool", "unknown tool 'nope'"),
        (5, "fc-d1-005", "golden.calls", "a negative case must have no golden calls"),
        (7, "fc-d1-006", "golden.calls[0].params.order_id", "unknown order_id 'W999'"),
        (8, "fc-d3-007", "dimension", "expected 'D3'"),
    ],
}


def make_suite(tmp_path: Path, cases_file: Path, **manifest: object) -> Path:
    folder = tmp_path / "suite"
    folder.mkdir()
    body = {"name": "broken", "domain": "retail", "format_version": 1, **manifest}
    (folder / "suite.json").write_text(json.dumps(body), encoding="utf-8")
    shutil.copy(cases_file, folder / "cases.jsonl")
    return folder


def test_every_broken_file_has_expectations() -> None:
    assert sorted(p.name for p in BROKEN.glob("*.jsonl")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_breakage_is_caught_with_line_field_and_message(tmp_path: Path, name: str) -> None:
    folder = make_suite(tmp_path, BROKEN / name)
    problems = validate_suite(folder)
    expected = EXPECTED[name]
    assert len(problems) == len(expected), "\n".join(map(str, problems))
    for problem, (line, case, field, fragment) in zip(
        sorted(problems, key=lambda p: (p.line or 0, p.field, p.message)),
        sorted(expected, key=lambda e: (e[0], e[2], e[3])),
        strict=True,
    ):
        assert problem.file == str(folder / "cases.jsonl")
        assert (problem.line, problem.case, problem.field) == (line, case, field)
        assert fragment in problem.message, str(problem)


def test_problem_renders_as_file_line_case_field_message() -> None:
    problem = Problem("a/cases.jsonl", 7, "fc-d1-001", "golden.calls[0].tool", "unknown tool 'x'")
    assert str(problem) == "a/cases.jsonl:7: fc-d1-001: golden.calls[0].tool: unknown tool 'x'"
    assert str(Problem("a/suite.json", None, None, "domain", "m")) == "a/suite.json: -: domain: m"


def test_id_pattern_from_the_manifest_overrides_the_domain(tmp_path: Path) -> None:
    folder = make_suite(tmp_path, BROKEN / "bad_id_pattern.jsonl", id_pattern=r"[a-z0-9-]+")
    assert validate_suite(folder) == []


def test_declared_phrasings_are_enforced_per_scenario(tmp_path: Path) -> None:
    folder = make_suite(
        tmp_path, BROKEN / "duplicate_id.jsonl", phrasings=["canonical", "colloquial"]
    )
    fields = {(p.line, p.field) for p in validate_suite(folder)}
    assert (1, "scenario") in fields and (2, "scenario") in fields


def test_manifest_problems_are_listed(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "suite.json").write_text(
        json.dumps({"name": "Bad Name", "format_version": 1, "colour": "red"}), encoding="utf-8"
    )
    problems = validate_suite(folder)
    fields = sorted(p.field for p in problems)
    assert fields == ["colour", "domain", "name"]
    assert all(p.file.endswith("suite.json") for p in problems)


def test_unsupported_format_version_is_a_problem(tmp_path: Path) -> None:
    folder = make_suite(tmp_path, BROKEN / "duplicate_id.jsonl")
    manifest = json.loads((folder / "suite.json").read_text())
    (folder / "suite.json").write_text(json.dumps({**manifest, "format_version": 2}))
    [problem] = validate_suite(folder)
    assert problem.field == "format_version" and "not supported" in problem.message


def test_unknown_domain_still_checks_the_cases(tmp_path: Path) -> None:
    folder = make_suite(tmp_path, BROKEN / "many_at_once.jsonl", domain="atlantis")
    problems = validate_suite(folder)
    assert any(p.field == "domain" and "unknown domain 'atlantis'" in p.message for p in problems)
    # registry-free checks still run: JSON, duplicates, negatives
    lines = {p.line for p in problems}
    assert {2, 3, 5} <= lines


def test_missing_case_file(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "suite.json").write_text(
        json.dumps({"name": "s", "domain": "retail", "format_version": 1})
    )
    [problem] = validate_suite(folder)
    assert problem.field == "<file>" and "missing" in problem.message
