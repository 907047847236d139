"""The ``rejudge``, ``rejudge.judge`` and ``rejudge.recorder`` packages re-export their public names, lazily (one
file for the three: they share one facade helper, ``rejudge._lazy``)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest


@pytest.mark.parametrize("package", ["rejudge", "rejudge.judge", "rejudge.recorder"])
def test_every_exported_name_resolves_to_its_module_object(package: str) -> None:
    pkg = importlib.import_module(package)
    assert set(pkg._EXPORTS) <= set(pkg.__all__) <= set(dir(pkg))
    for name, module in pkg._EXPORTS.items():
        assert getattr(pkg, name) is getattr(importlib.import_module(module), name), name
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        pkg.nope  # noqa: B018


@pytest.mark.parametrize(
    ("package", "heavy"),
    [
        ("rejudge", ["sqlalchemy", "pydantic", "rejudge.judge", "rejudge.recorder"]),
        ("rejudge.judge", ["rejudge.judge.batch", "jsonschema", "sqlalchemy"]),
        ("rejudge.recorder", ["vcr", "httpx", "sqlalchemy"]),
    ],
)
def test_importing_the_package_loads_none_of_its_modules(package: str, heavy: list[str]) -> None:
    code = f"import sys, {package}; print([m for m in {heavy!r} if m in sys.modules])"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_judge_facade_judges() -> None:
    from rejudge.judge import judge, load_rule_set
    from rejudge.store.schemas import Round, ToolCall, Trace
    from rejudge.suites.case_format import load_suite

    suite = load_suite("retail")
    case = next(c for c in suite.cases if not c.negative and c.golden.calls)
    calls = [
        ToolCall(name=g.tool, arguments=dict(g.params), arguments_raw="", ok=True, result={})
        for g in case.golden.calls
        for _ in range(g.count)
    ]
    trace = Trace(
        case_id=case.id,
        rounds=[Round(index=i, calls=[c]) for i, c in enumerate(calls)],
        final_text="done",
    )
    verdict = judge(trace, case, suite.registry, "contract", load_rule_set("standard@2")).verdict
    assert verdict == "PASS"
