"""The store's shape (docs/architecture.md, "Persistence"), read from its source with ``ast``.

- every module of ``store/`` is at most 600 lines: one concept each;
- ``Store`` is only the entry: no base class (no mixin), and no method but opening, closing,
  the backend, the unit of work and two facts of its engine; its queries live in the
  repositories it hands out;
- no public function or method of ``store/`` or ``rejudge/services/`` is annotated to return
  ``dict[str, Any]``, or a ``list``/``Iterator``/``Iterable``/``Sequence`` of dicts: rows cross
  the layers as the model's objects or typed rows (named tuples, frozen dataclasses; a
  ``TypedDict`` for a JSON shape). The ones that still do are listed below; the list may only
  shrink (the test fails when a listed one stops returning one, so it is kept true).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STORE = ROOT / "store"
SERVICES = ROOT / "rejudge" / "services"
MAX_LINES = 600
# what Store may define besides __init__: the entry's own, never a query
STORE_METHODS = {"open", "close", "backend", "atomic", "sqlite_file", "unavailable"}
# (module, class.method) still returning dict[str, Any], each to become a typed row
KNOWN_DICT_RETURNS = {
    # store/: the decoder of body paths' values a query hands its repository
    ("store", "_judgments.py", "body_path_columns"),
    # services: comparison inputs, --json views of results, exports, review figures, suites
    ("services", "_evaluation_meta.py", "EvaluationMeta.to_json"),
    ("services", "_compare.py", "evaluation_inputs"),
    ("services", "_demo_judge.py", "DemoJudged.to_json"),
    ("services", "_demo_judge.py", "DemoModelGraded.to_json"),
    ("services", "_demo_result.py", "DemoRun.to_json"),
    ("services", "_demo_result.py", "DemoEvaluation.to_json"),
    ("services", "_demo_result.py", "DemoComparison.to_json"),
    ("services", "_demo_result.py", "DemoTierComparison.to_json"),
    ("services", "_demo_result.py", "DemoHeadline.to_json"),
    ("services", "_demo_result.py", "PassRate.to_json"),
    ("services", "_demo_result.py", "Tau2Run.to_json"),
    ("services", "_demo_result.py", "DemoResult.to_json"),
    ("services", "_export.py", "evaluation_export_rows"),
    ("services", "_export.py", "run_export_rows"),
    ("services", "_export.py", "export_bfcl"),
    ("services", "_judge_replay.py", "JudgeCheck.as_dict"),
    ("services", "_judge_steps.py", "evaluation_rows"),
    ("services", "_judge_steps.py", "iter_evaluation_rows"),
    ("services", "_mcp.py", "McpSuiteSnapshot.to_json"),
    ("services", "_results_replay.py", "ResultsFile.as_dict"),
    ("services", "_suites.py", "Published.summary"),
    ("services", "_verify.py", "TraceCheck.as_dict"),
    ("services", "_verify.py", "Verification.as_dict"),
}
#: a return annotation that hands out untyped rows
_UNTYPED = re.compile(r"dict\[str, Any\]|(list|Iterator|Iterable|Sequence)\[dict\[")


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
    """The name (``function`` or ``Class.method``) of every public function and public method of
    a public class whose return annotation hands out untyped rows (``dict[str, Any]``, or a
    list/iterator/iterable/sequence of dicts)."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            items = [(node.name, node)]
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            items = [
                (f"{node.name}.{item.name}", item)
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
            ]
        else:
            continue
        for name, item in items:
            if item.name.startswith("_") or item.returns is None:
                continue
            if _UNTYPED.search(ast.unparse(item.returns)):
                yield name


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


def test_no_store_or_service_returns_a_dict_beyond_the_known_ones() -> None:
    found = {
        (folder, path.name, name)
        for folder, root in (("store", STORE), ("services", SERVICES))
        for path in sorted(root.glob("*.py"))
        for name in _dict_returns(_parse(path))
    }
    new = found - KNOWN_DICT_RETURNS
    assert not new, f"return a typed row, not dict[str, Any] (or dicts): {sorted(new)}"
    fixed = KNOWN_DICT_RETURNS - found
    assert not fixed, f"these return typed rows now; drop them from KNOWN_DICT_RETURNS: {fixed}"


def test_the_dict_rule_catches_a_dict_return() -> None:
    source = (
        "class RunRepository(Repository):\n"
        "    def list_runs(self) -> list[dict[str, Any]]: ...\n"
        "    def get_run(self, ref: str) -> RunRecord: ...\n"
        "    def _row(self) -> dict[str, Any]: ...\n"
        "    def rows(self) -> Iterator[dict[str, int]]: ...\n"
        "    def json(self) -> RunJson: ...\n"
        "class _Private:\n"
        "    def rows(self) -> dict[str, Any]: ...\n"
        "def summaries(names: list[str]) -> Sequence[dict[str, str]]: ...\n"
        "def counts() -> dict[str, int]: ...\n"
        "def _helper() -> dict[str, Any]: ...\n"
    )
    assert list(_dict_returns(ast.parse(source))) == [
        "RunRepository.list_runs",
        "RunRepository.rows",
        "summaries",
    ]
