"""The judge is pure: no module of rejudge/judge/ imports the store's repository or tables,
SQLAlchemy, the services, the recorder or the CLI (checked on the source, so a lazy import inside
a function counts too); the use cases over the store are rejudge.services, whose facade exports
its public names lazily as the judge's does."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

JUDGE = Path(__file__).resolve().parents[2] / "judge"
#: what a pure module may import of the store: the data model, hashing, errors (and the
#: store-free records of judgments ready to write)
ALLOWED_STORE = {
    "rejudge.store._schemas",
    "rejudge.store._hashing",
    "rejudge.store._errors",
    "rejudge.store._records",
}
FORBIDDEN = ("sqlalchemy", "rejudge.services", "rejudge.recorder", "rejudge.cli")


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module)
    return out


@pytest.mark.parametrize(
    "path", sorted(JUDGE.rglob("*.py")), ids=lambda p: str(p.relative_to(JUDGE))
)
def test_judge_modules_import_nothing_impure(path: Path) -> None:
    bad = sorted(
        name
        for name in _imports(path)
        if name.startswith(FORBIDDEN)
        or (name.startswith("rejudge.store") and name not in ALLOWED_STORE)
    )
    assert bad == []


def test_services_facade_resolves_every_name_lazily() -> None:
    services = importlib.import_module("rejudge.services")
    assert set(services._EXPORTS) == set(services.__all__) <= set(dir(services))
    for name, module in services._EXPORTS.items():
        assert getattr(services, name) is getattr(importlib.import_module(module), name), name
    code = (
        "import sys, rejudge.services; "
        "print([m for m in ('sqlalchemy', 'rejudge.judge._engine', 'rejudge.services._judging') "
        "if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_names_that_moved_to_services_left_the_judge() -> None:
    judge = importlib.import_module("rejudge.judge")
    moved = {"judge_run", "evaluation_report", "plan_rejudge", "rejudge", "compare_evaluations"}
    moved |= {"calibration_summary", "evaluation_export_rows", "run_export_rows"}
    assert moved.isdisjoint(judge.__all__)
    assert {"compare_rows", "check_baseline", "lock_baseline", "build_report"} <= set(judge.__all__)
