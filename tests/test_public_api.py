"""The public face of the library: each package exports the public names of its private
``_modules`` (lazily where importing must stay cheap, through ``rejudge._lazy``), and
``import rejudge`` gives the error tree and the main entry points while loading neither
SQLAlchemy nor pydantic."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from rejudge._lazy import face_exports


@pytest.mark.parametrize(
    "package",
    [
        "rejudge",
        "rejudge.judge",
        "rejudge.recorder",
        "rejudge.store",
        "rejudge.services",
        "rejudge.importers",
        "rejudge.judge.tiers",
        "rejudge.model",
        "rejudge.errors",
        "rejudge.suites.generators",
    ],
)
def test_every_exported_name_resolves_to_its_module_object(package: str) -> None:
    pkg = importlib.import_module(package)
    declared = face_exports(package)  # what the face's TYPE_CHECKING block imports
    assert declared and set(declared) <= set(pkg.__all__) <= set(dir(pkg))
    for name, module in declared.items():
        assert getattr(pkg, name) is getattr(importlib.import_module(module), name), name
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        pkg.nope  # noqa: B018


@pytest.mark.parametrize(
    ("package", "heavy"),
    [
        ("rejudge", ["sqlalchemy", "pydantic", "rejudge.judge", "rejudge.recorder"]),
        ("rejudge.judge", ["rejudge.judge._batch", "jsonschema", "sqlalchemy"]),
        ("rejudge.recorder", ["vcr", "httpx", "sqlalchemy"]),
        ("rejudge.store", ["sqlalchemy", "pydantic"]),
        ("rejudge.services", ["sqlalchemy", "pydantic", "rejudge.judge", "rejudge.recorder"]),
        ("rejudge.importers", ["sqlalchemy", "pydantic", "rejudge.store", "rejudge.recorder"]),
        ("rejudge.errors", ["sqlalchemy", "pydantic", "httpx"]),
        ("rejudge.model", ["sqlalchemy", "pydantic", "rejudge.store"]),
        # the data model alone: what worker processes and pure code load
        ("rejudge.model._schemas", ["sqlalchemy", "rejudge.store"]),
        ("rejudge.model._judgment_text", ["sqlalchemy", "rejudge.store"]),
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
    from rejudge.suites import load_suite

    from rejudge.model import Round, ToolCall, Trace

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


# every package of the library, its facade, and the private modules behind it
LIBRARY_PACKAGES = [
    "rejudge.model",
    "rejudge.store",
    "rejudge.judge",
    "rejudge.judge.tiers",
    "rejudge.judge.bfcl",
    "rejudge.recorder",
    "rejudge.recorder.wire",
    "rejudge.recorder.providers",
    "rejudge.suites",
    "rejudge.suites.generators",
    "rejudge.services",
    "rejudge.importers",
]


def _private_modules(package: str) -> list[str]:
    pkg = importlib.import_module(package)
    folder = Path(pkg.__file__).parent
    return [f"{package}.{p.stem}" for p in sorted(folder.glob("_*.py")) if p.stem != "__init__"]


@pytest.mark.parametrize("package", LIBRARY_PACKAGES)
def test_modules_are_private_behind_the_package(package: str) -> None:
    folder = Path(importlib.import_module(package).__file__).parent
    public = [p.name for p in folder.glob("*.py") if not p.name.startswith("_")]
    assert public == [], f"{package}: modules outside the facade must be _private: {public}"
    assert _private_modules(package)


@pytest.mark.parametrize("package", LIBRARY_PACKAGES)
def test_the_package_exports_every_public_name_of_its_modules(package: str) -> None:
    pkg = importlib.import_module(package)
    exported = set(pkg.__all__)
    for module_name in _private_modules(package):
        module = importlib.import_module(module_name)
        names = getattr(module, "__all__", None)
        assert names is not None, f"{module_name} has no __all__"
        for name in names:
            assert name in exported, f"{package} does not export {module_name}.{name}"
            assert getattr(pkg, name) is getattr(module, name), f"{package}.{name}"
    for name in pkg.__all__:
        getattr(pkg, name)  # every exported name resolves


def test_rejudge_exports_the_error_tree_and_the_entry_points() -> None:
    import rejudge
    import rejudge.errors

    for name in rejudge.errors.__all__:
        error = getattr(rejudge, name)
        assert error is getattr(rejudge.errors, name)
        assert issubclass(error, rejudge.RejudgeError)
    for name in (
        "Store",
        "capture",
        "judge_run",
        "evaluation_report",
        "compare_evaluations",
        "import_cassettes",
        "record_suite",
        "replay_run",
        "load_rule_set",
    ):
        assert callable(getattr(rejudge, name)), name


def test_the_error_tree_is_declared_statically() -> None:
    # rejudge.errors.__all__ is one literal list (a type checker and `import *` read it as
    # written), never grown at import time: the classes defined there and those its
    # TYPE_CHECKING block re-exports from where they are raised, each once
    import ast

    import rejudge.errors

    tree = ast.parse(Path(rejudge.errors.__file__).read_text(encoding="utf-8"))
    writes = [
        node
        for node in ast.walk(tree)
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign))
        and "__all__"
        in ast.unparse(node.targets[0] if isinstance(node, ast.Assign) else node.target)
    ]
    assert len(writes) == 1 and isinstance(writes[0], ast.Assign), "one __all__ = [...]"
    assert isinstance(writes[0].value, ast.List)
    assert all(isinstance(item, ast.Constant) for item in writes[0].value.elts)
    names = rejudge.errors.__all__
    assert len(names) == len(set(names))
    assert set(names) == {*rejudge.errors.ROOT_CLASSES, *face_exports("rejudge.errors")}
    defined = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    assert set(rejudge.errors.ROOT_CLASSES) == defined


def test_the_typed_marker_ships() -> None:
    import rejudge

    assert (Path(rejudge.__file__).parent / "py.typed").is_file()
