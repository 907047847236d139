"""The README's two commands are the contract with a fresh machine; CI must run the same one."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _bash_blocks(text: str) -> list[str]:
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S)]


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    blocks = _bash_blocks(readme)
    test_commands = [b for b in blocks if "pytest" in b]
    assert len(test_commands) >= 1, "README must give the test command"
    assert test_commands[0] in ci.splitlines(), "`.ci/run` must run the README's test command"


def test_readme_main_job_installs_the_package() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first = _bash_blocks(readme)[0]
    assert "pip install" in first and "rejudge" in first
