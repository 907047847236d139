"""The library examples in the docs run as written (against a store ``rejudge demo`` filled)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from rejudge.cli import cli

REPO = Path(__file__).resolve().parents[1]


def _python_blocks(doc: str) -> list[str]:
    text = (REPO / doc).read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("docs") / "rejudge.db"
    result = CliRunner().invoke(
        cli,
        ["--db", f"sqlite:///{db}", "demo"],
        env={"REJUDGE_DB": None, "REJUDGE_CASSETTES": None},
    )
    assert result.exit_code == 0, result.output[-2000:]
    return db


def test_the_judge_library_example_runs(demo_db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    [block] = [b for b in _python_blocks("docs/judge.md") if "judge_run" in b]
    code = block.replace("sqlite:///rejudge.db", f"sqlite:///{demo_db}")
    exec(compile(code, "docs/judge.md", "exec"), {})  # noqa: S102 - the doc's own example
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].split()[0] in {"PASS", "FAIL", "SKIP", "AGENT_ERROR"}
    assert len(printed) == 2 and printed[1].split()[0].isdigit()


def test_the_docs_name_the_default_rubric_the_code_uses() -> None:
    from rejudge.judge import DEFAULT_RUBRIC, builtin_rubric_refs

    text = (REPO / "docs" / "model-graded.md").read_text(encoding="utf-8")
    said = re.findall(r"`([\w-]+@\d+)`, \*\*the default\*\*", text)
    assert said == [DEFAULT_RUBRIC]
    # every built-in rubric is named in the docs
    assert [ref for ref in builtin_rubric_refs() if f"`{ref}`" not in text] == []
