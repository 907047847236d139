"""The error tree: every library exception is a RejudgeError, drawn where its bases say, and
reachable from ``rejudge.errors``, which imports nothing heavy."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import pickle
import pkgutil
import re
import subprocess
import sys

import rejudge.errors
from rejudge.errors import RejudgeError

PACKAGES = (
    "rejudge",
    "rejudge.store",
    "rejudge.judge",
    "rejudge.recorder",
    "rejudge.suites",
    "rejudge.dashboard",
)


def _library_modules() -> list[str]:
    names: set[str] = set()
    for package in PACKAGES:
        pkg = importlib.import_module(package)
        names.add(package)
        for info in pkgutil.walk_packages(pkg.__path__, prefix=f"{package}."):
            names.add(info.name)
    return sorted(n for n in names if n != "rejudge.__main__")


def _defines_classes(name: str) -> bool:
    # the dashboard's pages are Streamlit scripts that run when imported; none defines a class
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin is not None, name
    tree = ast.parse(open(spec.origin, encoding="utf-8").read())
    return any(isinstance(node, ast.ClassDef) for node in tree.body)


def _library_exceptions() -> dict[str, list[type[BaseException]]]:
    """Public exception classes defined in library modules, by class name."""
    found: dict[str, list[type[BaseException]]] = {}
    for name in _library_modules():
        if not _defines_classes(name):
            continue
        module = importlib.import_module(name)
        for cls_name, cls in vars(module).items():
            if (
                inspect.isclass(cls)
                and issubclass(cls, BaseException)
                and cls.__module__ == name
                and not cls_name.startswith("_")
            ):
                found.setdefault(cls_name, [])
                if cls not in found[cls_name]:
                    found[cls_name].append(cls)
    return found


def _drawn_tree() -> dict[str, set[str]]:
    """Class name -> the names of its parents in the docstring's tree."""
    doc = rejudge.errors.__doc__ or ""
    parents: dict[str, set[str]] = {}
    stack: list[tuple[int, str]] = []
    for line in doc.splitlines():
        match = re.match(r"^(\s*(?:[│ ]\s*)*(?:[├└]── )?)([A-Z]\w*)\b", line)
        if match is None or not ("──" in line or line.strip() == "RejudgeError"):
            continue
        depth, name = len(match.group(1)), match.group(2)
        while stack and stack[-1][0] >= depth:
            stack.pop()
        parents.setdefault(name, set()).add(stack[-1][1] if stack else "")
        stack.append((depth, name))
    return parents


def test_every_library_exception_is_a_rejudge_error_drawn_under_one_of_its_bases() -> None:
    tree = _drawn_tree()
    assert tree["RejudgeError"] == {""}
    found = _library_exceptions()
    assert "ProviderCallError" in found and "TierNotFoundError" in found  # the walk sees them
    for name, classes in found.items():
        for cls in classes:
            assert issubclass(cls, RejudgeError), f"{cls.__module__}.{name} is no RejudgeError"
            assert name in tree, f"{cls.__module__}.{name} is missing from rejudge.errors' tree"
            if cls is not RejudgeError:
                bases = {b.__name__ for b in cls.__bases__}
                assert tree[name] & bases, f"{name} is drawn under {tree[name]}, bases {bases}"
    drawn_only = set(tree) - set(found)
    assert not drawn_only, f"the tree draws classes the library does not define: {drawn_only}"


def test_every_library_exception_is_exported_from_rejudge_errors() -> None:
    for name, classes in _library_exceptions().items():
        assert name in rejudge.errors.__all__, name
        assert getattr(rejudge.errors, name) in classes, name


def test_errors_carry_their_context_and_survive_pickling() -> None:
    from rejudge.errors import NotFoundError

    exc = NotFoundError("no run 'r1'; list the runs to find its name", run="r1", field="run")
    assert (exc.run, exc.case, exc.file, exc.field) == ("r1", None, None, "run")
    assert str(exc) == "no run 'r1'; list the runs to find its name"
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is NotFoundError and back.run == "r1" and back.field == "run"
    assert RejudgeError("plain").case is None


def test_the_store_keeps_exporting_the_root_classes() -> None:
    import rejudge.store._errors as store_errors

    import rejudge

    for name in store_errors.__all__:
        assert getattr(store_errors, name) is getattr(rejudge.errors, name)
    assert rejudge.RejudgeError is RejudgeError


def test_importing_the_error_tree_loads_nothing_heavy() -> None:
    code = (
        "import sys, rejudge.errors; "
        "print([m for m in ('sqlalchemy', 'pydantic', 'httpx', 'rejudge.store', "
        "'rejudge.judge', 'rejudge.recorder', 'rejudge.suites') if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
