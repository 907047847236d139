"""Rubrics as versioned, hashed objects: the built-ins, files checked with every problem at once
(file:line), the registry kind, and ``rejudge rubrics list|show``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from rejudge.judge import (
    DEFAULT_RUBRIC,
    NL_ASSERTIONS_RUBRIC,
    RUBRICS_DIR,
    TEMPLATE_VARIABLES,
    RubricError,
    builtin_rubric_refs,
    check_rubric,
    load_rubric,
    rubric_from_text,
    template_variables,
)

from rejudge.cli import cli
from rejudge.errors import NotFoundError
from rejudge.model import Rubric
from rejudge.registry import REGISTRY


def _builtin_text(ref: str) -> str:
    return (RUBRICS_DIR / f"{ref}.yaml").read_text(encoding="utf-8")


def test_builtins_are_registered_and_sound() -> None:
    assert {DEFAULT_RUBRIC, NL_ASSERTIONS_RUBRIC} <= set(builtin_rubric_refs())
    for ref in builtin_rubric_refs():
        rubric = load_rubric(ref)
        assert rubric.ref == ref
        assert check_rubric(rubric) == []
        assert REGISTRY.get("rubric", ref) is rubric
    assert load_rubric("task-success").ref == "task-success@1"
    assert load_rubric(NL_ASSERTIONS_RUBRIC).inputs == "nl_assertions"


def test_hash_is_content_and_changes_with_any_field() -> None:
    rubric = load_rubric(DEFAULT_RUBRIC)
    again = rubric_from_text(_builtin_text(DEFAULT_RUBRIC), "again")
    assert again.hash == rubric.hash
    changed = rubric.model_copy(update={"criteria": rubric.criteria + " Be brief."})
    assert changed.hash != rubric.hash
    assert rubric.model_copy(update={"version": "2"}).hash != rubric.hash


def test_a_file_rubric_loads(tmp_path: Path) -> None:
    data = yaml.safe_load(_builtin_text(DEFAULT_RUBRIC))
    data.update(name="mine", version="3", scale="graded", threshold=0.7)
    data["reply_schema"]["properties"]["score"] = {"type": "number"}
    data["reply_schema"]["required"] = ["justification", "score"]
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    rubric = load_rubric(path)
    assert (rubric.ref, rubric.scale, rubric.threshold) == ("mine@3", "graded", 0.7)


BAD = """\
name: mine
version: 1
criteria: be fair
colour: blue
template: |-
  Judge this.
  {{transcrpt}}
  {{instruction}}
view: whole
reply_schema:
  type: objekt
scale: graded
"""


def test_every_problem_of_a_file_at_once_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(BAD, encoding="utf-8")
    with pytest.raises(RubricError) as info:
        load_rubric(path)
    message = str(info.value)
    expected = [
        (4, "unknown field 'colour'"),
        (5, "the template must show {{transcript}}"),
        (7, "unknown template variable {{transcrpt}}"),
        (9, "view:"),
        (10, "reply_schema: not a valid JSON schema"),
        (12, "a graded rubric needs a threshold"),
    ]
    for line, text in expected:
        assert any(
            part.startswith(f"{path}:{line}: ") and text in part for part in message.split("; ")
        ), (line, text, message)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("name: x\nversion: '1'\ncriteria: {a: 1\ntemplate: t\n", 4),  # the parser's error
        ("name: x\nversion: '1'\ncriteria: !!python/name:os.system\n", 3),  # the constructor's
    ],
)
def test_malformed_yaml_is_one_error_at_its_line(tmp_path: Path, text: str, line: int) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RubricError, match=rf"^{re.escape(str(path))}:{line}: not valid YAML/JSON"):
        load_rubric(path)


def test_a_schema_that_does_not_require_what_the_scale_reads(tmp_path: Path) -> None:
    data = yaml.safe_load(_builtin_text(NL_ASSERTIONS_RUBRIC))
    data["reply_schema"]["required"] = []
    path = tmp_path / "r.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    with pytest.raises(RubricError, match=r"r.yaml:\d+: reply_schema: .*'assertions'"):
        load_rubric(path)


def test_nl_assertion_rubric_must_show_the_assertions(tmp_path: Path) -> None:
    data = yaml.safe_load(_builtin_text(NL_ASSERTIONS_RUBRIC))
    data["template"] = "{{transcript}}"
    path = tmp_path / "r.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(RubricError, match=r"must show \{\{assertions\}\}"):
        load_rubric(path)


def test_a_name_loads_its_latest_version_by_number() -> None:
    base = load_rubric(DEFAULT_RUBRIC)
    refs = ["numbered@9", "numbered@10"]
    for ref in refs:
        version = ref.split("@")[1]
        REGISTRY.register(
            "rubric", ref, base.model_copy(update={"name": "numbered", "version": version})
        )
    try:
        # as a rule set's: 10 is after 9 (not before it, as text would sort it)
        assert load_rubric("numbered").ref == "numbered@10"
        assert [r for r in builtin_rubric_refs() if r.startswith("numbered@")] == refs
    finally:
        for ref in refs:
            REGISTRY.unregister("rubric", ref)


def test_unknown_rubric_names_the_known_ones() -> None:
    with pytest.raises(NotFoundError, match="task-success@1"):
        load_rubric("no-such-rubric@1")
    with pytest.raises(NotFoundError):
        load_rubric("no-such-rubric")


@given(st.lists(st.sampled_from(sorted(TEMPLATE_VARIABLES) + ["x", "y_z"]), max_size=6))
def test_template_variables_are_found_in_order(names: list[str]) -> None:
    template = " text ".join("{{ " + n + " }}" for n in names)
    assert template_variables(template) == list(dict.fromkeys(names))


def test_cli_list_and_show() -> None:
    runner = CliRunner()
    listed = runner.invoke(cli, ["rubrics", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    data = json.loads(listed.output)
    refs = {d["ref"]: d for d in data}
    assert refs[DEFAULT_RUBRIC]["hash"] == load_rubric(DEFAULT_RUBRIC).hash
    shown = runner.invoke(cli, ["rubrics", "show", NL_ASSERTIONS_RUBRIC, "--json"])
    assert shown.exit_code == 0, shown.output
    body = json.loads(shown.output)
    assert (
        Rubric.model_validate({k: v for k, v in body.items() if k not in ("ref", "hash")}).hash
        == body["hash"]
    )
    human = runner.invoke(cli, ["rubrics", "show", DEFAULT_RUBRIC])
    assert DEFAULT_RUBRIC in human.output and "reply_schema" in human.output


def test_cli_bad_file_is_one_error_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(BAD, encoding="utf-8")
    result = CliRunner().invoke(cli, ["rubrics", "show", str(path)])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: ")
    assert f"{path}:7:" in lines[0] and f"{path}:10:" in lines[0]


def test_a_plugin_rubric_is_refused_unless_it_is_a_rubric_under_its_own_ref() -> None:
    rubric = load_rubric(DEFAULT_RUBRIC)
    with pytest.raises(ValueError, match=r"^rubric 'mine@1' is not a Rubric$"):
        REGISTRY.register("rubric", "mine@1", {"name": "mine"})
    with pytest.raises(
        ValueError, match=rf"^rubric '{rubric.ref}' registered as 'mine@1': use its name@version$"
    ):
        REGISTRY.register("rubric", "mine@1", rubric)
    assert "mine@1" not in builtin_rubric_refs()
