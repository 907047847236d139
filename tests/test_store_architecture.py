"""The store's shape (docs/architecture.md, "Persistence"), read from its source with ``ast``.

- every module of ``store/`` is at most 600 lines: one concept each;
- ``Store`` is only the entry: no base class (no mixin), and no method but opening, closing,
  the backend, the unit of work and two facts of its engine; its queries live in the
  repositories it hands out;
- no repository method returns ``dict[str, Any]``: rows cross the layers as the model's objects
  or typed rows. The methods that still do are listed below; the list may only shrink (the test
  fails when a listed method stops returning one, so it is kept true).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

STORE = Path(__file__).resolve().parents[1] / "store"
MAX_LINES = 600
# what Store may define besides __init__: the entry's own, never a query
STORE_METHODS = {"open", "close", "backend", "atomic", "sqlite_file", "unavailable"}
# (module, class.method) still returning dict[str, Any], each to become a typed row
KNOWN_DICT_RETURNS = {
    ("_judgments.py", "JudgmentRepository.judgment_body"),
}


def _store_methods(tree: ast.Module) -> tuple[list[str], list[str]]:
    """Store's base classes and the names of the methods it defines."""
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Store":
            bases = [ast.unparse(b) for b in node.bases]
            names = [
                item.name
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
            ]
            return bases, names
    raise AssertionError("no class Store")


def _dict_returns(tree: ast.Module) -> Iterator[str]:
    """class.method of every public method whose return annotation holds dict[str, Any]."""
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            if not isinstance(item, ast.FunctionDef) or item.name.startswith("_"):
                continue
            if item.returns is not None and "dict[str, Any]" in ast.unparse(item.returns):
                yield f"{node.name}.{item.name}"


def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


@pytest.mark.parametrize("path", sorted(STORE.glob("*.py")), ids=lambda p: p.name)
def test_every_store_module_is_one_concept_of_at_most_600_lines(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.name} has {lines} lines; split it by concept"


def test_store_is_only_the_entry() -> None:
    bases, names = _store_methods(_parse(STORE / "_store.py"))
    assert bases == [], f"Store composes {bases}: hand a repository out as an attribute instead"
    extra = set(names) - STORE_METHODS - {"__init__"}
    assert not extra, f"Store defines queries {sorted(extra)}: move them to a repository"


def test_the_entry_rule_catches_a_mixin_and_a_query() -> None:
    source = "class Store(RunsMixin):\n    def open(cls): ...\n    def get_run(self, ref): ...\n"
    bases, names = _store_methods(ast.parse(source))
    assert bases == ["RunsMixin"]
    assert set(names) - STORE_METHODS == {"get_run"}


def test_no_repository_returns_a_dict_beyond_the_known_ones() -> None:
    found = {
        (path.name, method)
        for path in sorted(STORE.glob("*.py"))
        for method in _dict_returns(_parse(path))
    }
    new = found - KNOWN_DICT_RETURNS
    assert not new, f"return a typed row, not dict[str, Any]: {sorted(new)}"
    fixed = KNOWN_DICT_RETURNS - found
    assert not fixed, f"these return typed rows now; drop them from KNOWN_DICT_RETURNS: {fixed}"


def test_the_dict_rule_catches_a_dict_return() -> None:
    source = (
        "class RunRepository(Repository):\n"
        "    def list_runs(self) -> list[dict[str, Any]]: ...\n"
        "    def get_run(self, ref: str) -> RunRecord: ...\n"
        "    def _row(self) -> dict[str, Any]: ...\n"
    )
    assert list(_dict_returns(ast.parse(source))) == ["RunRepository.list_runs"]
