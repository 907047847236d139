"""Run mypy on rejudge as it is installed: ``python .ci/typecheck.py [mypy args...]``.

Plain mypy's arguments (``--strict -p rejudge.judge -m rejudge.registry snippet.py``), with one
difference in how mypy finds the package. The build maps the top-level folders into the
namespace (``store/`` is ``rejudge.store``, pyproject's ``[tool.setuptools.package-dir]``), and
an editable install does that with an import hook, which mypy cannot follow: it finds a module
only by its path under a search root, so it would see ``rejudge.store`` as missing and every
store type as ``Any``. So this asks the installed package where each of its modules is (the
import system's own finders, the same answer ``import`` gets, nothing imported), and hands mypy
that list: each module by its dotted name and its file, read where it is, so mypy's report
names the repository's own paths. No tree is built; an installed wheel works the same way.

``-p``/``-m`` name what is checked (errors reported); the package modules they import are read
as ``follow_imports = "silent"`` reads them (type-checked, errors not reported), exactly as a
plain ``mypy -p`` over a normal layout does. Files named on the command line are checked too.
The exit status is mypy's.
"""

from __future__ import annotations

import ast
import sys
import time
import tomllib
from collections.abc import Iterable
from importlib.machinery import ModuleSpec
from pathlib import Path

from mypy.fscache import FileSystemCache
from mypy.main import process_options, run_build
from mypy.modulefinder import BuildSource
from mypy.util import FancyFormatter, count_stats

ROOT = Path(__file__).resolve().parent.parent


def _find_spec(name: str, path: list[str] | None) -> ModuleSpec | None:
    """What ``import name`` would find, without importing it or its parents."""
    for finder in sys.meta_path:
        find_spec = getattr(finder, "find_spec", None)
        spec = find_spec(name, path) if find_spec is not None else None
        if spec is not None:
            return spec
    return None


def installed_modules() -> dict[str, str]:
    """Every module of the installed ``rejudge`` (dotted name -> file): the packages the build
    installs (pyproject's list), each located by the import system."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    packages: list[str] = config["tool"]["setuptools"]["packages"]
    locations: dict[str, list[str] | None] = {}
    modules: dict[str, str] = {}
    for package in sorted(packages, key=lambda p: p.count(".")):
        parent = package.rpartition(".")[0]
        spec = _find_spec(package, locations[parent] if parent else None)
        if spec is None or spec.origin is None or not spec.submodule_search_locations:
            sys.exit(f"Error: {package} is not installed (pip install -e . first)")
        locations[package] = list(spec.submodule_search_locations)
        modules[package] = spec.origin
        for folder in spec.submodule_search_locations:
            for file in sorted(Path(folder).glob("*.py")):
                if file.stem != "__init__":
                    modules[f"{package}.{file.stem}"] = str(file)
    return modules


def _imports(module: str, path: str, is_package: bool) -> Iterable[str]:
    """Every module name ``path`` imports (at any depth, TYPE_CHECKING included: mypy follows
    them all), with the name each ``from X import y`` could mean by ``X.y``."""
    package = module if is_package else module.rpartition(".")[0]
    tree = ast.parse(Path(path).read_bytes(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def reachable(
    roots: Iterable[str], extra_files: Iterable[str], modules: dict[str, str]
) -> set[str]:
    """The package modules ``roots`` and ``extra_files`` import, transitively, with every
    parent package (what mypy would follow from them)."""
    todo = [(m, modules[m]) for m in roots]
    todo += [("__main__", f) for f in extra_files]
    seen: set[str] = set()
    while todo:
        module, path = todo.pop()
        for name in _imports(module, path, path.endswith("__init__.py")):
            parts = name.split(".")
            for i in range(1, len(parts) + 1):
                candidate = ".".join(parts[:i])
                if candidate in modules and candidate not in seen:
                    seen.add(candidate)
                    todo.append((candidate, modules[candidate]))
    seen.update(roots)
    return seen


def main(argv: list[str]) -> int:
    modules = installed_modules()
    targets: list[str] = []
    args: list[str] = []
    it = iter(argv)
    for arg in it:
        if arg in ("-p", "--package", "-m", "--module"):
            name = next(it, "")
            found = [
                m
                for m in modules
                if m == name or (arg in ("-p", "--package") and m.startswith(name + "."))
            ]
            if not found:
                sys.exit(f"Error: no module {name!r} in the installed rejudge")
            targets += found
        else:
            args.append(arg)
    files = [a for a in args if a.endswith(".py")]
    config = [
        "--config-file",
        str(ROOT / "pyproject.toml"),
        "--cache-dir",
        str(ROOT / ".mypy_cache"),
    ]
    # mypy's own option parsing (a placeholder target when only -p/-m were given)
    sources, options = process_options(
        [*config, *args, *([] if files else ["-c", "pass"])], fscache=(fscache := FileSystemCache())
    )
    if not files:
        sources = []
    followed = reachable(targets, files, modules) - set(targets)
    sources += [BuildSource(modules[m], m) for m in sorted({*targets, *followed})]
    # what mypy's follow_imports=silent does for a followed module: checked, errors not shown
    for module in followed:
        options.per_module_options.setdefault(module, {})["ignore_errors"] = True
    options.build_per_module_cache()
    stdout, stderr = sys.stdout, sys.stderr
    _, messages, blockers = run_build(sources, options, fscache, time.time(), stdout, stderr)
    formatter = FancyFormatter(stdout, stderr, options.hide_error_codes)
    n_errors, n_notes, n_files = count_stats(messages)
    checked = len(sources) - len(followed)
    if n_errors:
        print(formatter.format_error(n_errors, n_files, checked, blockers=blockers))
    else:
        print(formatter.format_success(checked))
    return (2 if blockers else 1) if messages and n_notes < len(messages) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
