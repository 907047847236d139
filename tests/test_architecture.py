"""The layering of docs/architecture.md, enforced on the import graph.

Every ``import`` and ``from ... import`` of every module is read with ``ast`` (those inside
functions too: a lazy import is still a dependency), relative imports resolved, and each edge
checked against the rules below. A violation names the importing module, the line and the rule.
"""

from __future__ import annotations

import ast
import functools
import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from rejudge._lazy import face_exports

REPO = Path(__file__).resolve().parents[1]
FOLDERS = {
    "rejudge": REPO / "rejudge",
    "rejudge.store": REPO / "store",
    "rejudge.recorder": REPO / "recorder",
    "rejudge.judge": REPO / "judge",
    "rejudge.suites": REPO / "suites",
    "rejudge.dashboard": REPO / "dashboard",
    "rejudge.migrations": REPO / "migrations",
}
BARE = ("store", "recorder", "judge", "suites", "dashboard", "migrations")
# pure code: the cores that know nothing of storage. They speak the data model
# (rejudge.model), raise the error tree (rejudge.errors) and never import the store.
PURE = ("rejudge.judge", "rejudge.recorder", "rejudge.suites", "rejudge.model")
# the pure part of the importers' home: a reader's modules (its importer module, which stores,
# is not); named by prefix, as they sit beside the importer modules
PURE_MODULES = (
    "rejudge.importers._otel_",
    "rejudge.importers._conversation",
    "rejudge.importers._langfuse_",
    "rejudge.importers._inspect_read",
    "rejudge.importers._inspect_log",
    "rejudge.importers._bfcl_read",
    "rejudge.importers._bfcl_schema",
    "rejudge.importers._bfcl_suite",
    "rejudge.importers._tau2_",
    "rejudge.importers._shipped",
    "rejudge.importers._tau_read",
    "rejudge.importers._tau_tools",
    "rejudge.importers._tau_version",
)
# what the model (rejudge.model) may use of ours: itself, the registry, errors
MODEL_USES = ("rejudge.model", "rejudge.registry", "rejudge.errors", "rejudge._lazy")
# what the registry (imported by every layer, so it sits below them all) may use of ours
REGISTRY_USES = ("rejudge.registry", "rejudge.errors", "rejudge._lazy")


def _modules() -> Iterator[tuple[str, Path]]:
    for package, folder in FOLDERS.items():
        for path in sorted(folder.rglob("*.py")):
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            yield ".".join([package, *parts]), path


def _imports(module: str, path: Path) -> Iterator[tuple[int, str]]:
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            yield node.lineno, target
            exports = _facade(target)
            for alias in node.names:
                # a facade's name is an edge to the module defining it (`from rejudge.model
                # import Trace` depends on rejudge.model._schemas); any other name may be a
                # submodule (`from rejudge import services`)
                yield node.lineno, exports.get(alias.name, f"{target}.{alias.name}")


@functools.cache
def _facade(package: str) -> dict[str, str]:
    """A lazy facade's table (public name -> defining module); empty for anything else."""
    if not package.startswith("rejudge"):
        return {}
    try:
        module = importlib.import_module(package)
    except ImportError:
        return {}
    # a face declares its names in its TYPE_CHECKING block (rejudge._lazy reads them there)
    return face_exports(package) if "lazy_exports" in vars(module) else {}


def _within(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _rules(module: str, target: str, type_only: bool = False) -> list[str]:
    """The rules an edge ``module -> target`` breaks (empty when it keeps them all);
    ``type_only``: the import is under ``if TYPE_CHECKING:`` (never run)."""
    broken: list[str] = []
    top = target.split(".", 1)[0]
    if top in BARE:
        broken.append(f"bare top-level name; import rejudge.{target}")
    if _within(target, "rejudge.cli") and not _within(module, "rejudge.cli", "rejudge.__main__"):
        broken.append("nothing imports the CLI")
    if _within(module, *PURE) or module.startswith(PURE_MODULES):
        if _within(target, "rejudge.services", "rejudge.importers._contract"):
            broken.append("pure code never imports services")
        if _within(target, "rejudge.store"):
            # the data model is rejudge.model's, the errors rejudge.errors'
            broken.append("pure code never imports the store (the model: rejudge.model)")
        if top == "sqlalchemy":
            broken.append("pure code never touches SQL")
    if _within(module, "rejudge.judge") and _within(target, "rejudge.recorder"):
        broken.append("judge never imports recorder")
    if _within(module, "rejudge.store") and _within(
        target, "rejudge.judge", "rejudge.recorder", "rejudge.services", "rejudge.dashboard"
    ):
        broken.append("the store imports nothing of ours but errors")
    if _within(module, "rejudge.dashboard") and top == "sqlalchemy":
        broken.append("the dashboard's SQL lives in rejudge.store")
    if _within(module, "rejudge.dashboard") and _within(target, "rejudge.recorder"):
        # the wire formats and the cassette are read once, by the recorder's readers, which a
        # service calls (rejudge.services.load_exchanges: exchanges and their content blocks)
        broken.append("the dashboard imports no wire or cassette reader; it shows a service's")
    ours = top == "rejudge" and target != "rejudge"
    if _within(module, "rejudge.model") and ours and not _within(target, *MODEL_USES):
        broken.append("the model uses only itself, the registry and errors")
    # the registry names each kind's type for a type checker only (REGISTRY.get typed by kind)
    registry_run_time = module == "rejudge.registry" and not type_only
    if registry_run_time and ours and not _within(target, *REGISTRY_USES):
        broken.append("the registry imports nothing of ours but errors")
    return broken


def _violations() -> list[str]:
    found: list[str] = []
    for module, path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        type_only = {
            inner.lineno
            for node in ast.walk(tree)
            if _type_checking_only(node)
            for inner in ast.walk(node)
            if isinstance(inner, ast.Import | ast.ImportFrom)
        }
        for line, target in _imports(module, path):
            for rule in _rules(module, target, line in type_only):
                found.append(f"{path.relative_to(REPO)}:{line} ({module} -> {target}): {rule}")
    return found


def test_the_import_graph_keeps_the_layers() -> None:
    assert _violations() == []


# what computes a comparison of two evaluations (the judge's compare and its statistics, the
# model's comparison rules): the judge uses them once, and the dashboard shows the judge's result
# (the compare service) instead of computing its own
COMPARISON_COMPUTATION = {
    "rejudge.judge._compare": {
        "compare",
        "compare_rows",
        "mcnemar_exact",
        "plain_verdict",
        "comparison_kind",
    },
    "rejudge.model._comparison": {"comparability_reasons", "flip_causes", "flip_cause"},
    "rejudge.model._agreement": {"cohens_kappa"},
}


def _imported_names(module: str, path: Path) -> Iterator[tuple[int, str, str]]:
    """(line, defining module, name) of every name a module imports from a package facade or
    a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            exports = _facade(node.module)
            for alias in node.names:
                yield node.lineno, exports.get(alias.name, node.module), alias.name


def _comparison_violations(module: str, defining: str, name: str) -> list[str]:
    if _within(module, "rejudge.dashboard") and name in COMPARISON_COMPUTATION.get(defining, ()):
        return [f"the dashboard shows the judge's comparison and computes none ({name})"]
    return []


def test_the_dashboard_computes_no_comparison() -> None:
    found = [
        f"{path.relative_to(REPO)}:{line} ({module} imports {name}): {rule}"
        for module, path in _modules()
        for line, defining, name in _imported_names(module, path)
        for rule in _comparison_violations(module, defining, name)
    ]
    assert found == []
    # nor does the store hold a second copy of it (the SQL CASE of flip causes was one)
    from rejudge.store import Store

    assert [
        m for m in ("pair_counts", "coverage", "flips", "flip_count") if hasattr(Store, m)
    ] == []
    for module, path in _modules():
        if _within(module, "rejudge.dashboard"):
            assert "Flip.between(" not in path.read_text(encoding="utf-8"), module


@pytest.mark.parametrize(
    ("module", "defining", "name", "broken"),
    [
        ("rejudge.dashboard.summary", "rejudge.judge._compare", "mcnemar_exact", True),
        ("rejudge.dashboard.stats", "rejudge.judge._compare", "plain_verdict", True),
        ("rejudge.dashboard.summary", "rejudge.model._comparison", "comparability_reasons", True),
        ("rejudge.dashboard.sidebyside", "rejudge.model._comparison", "flip_cause", True),
        ("rejudge.dashboard.data", "rejudge.judge._compare", "select_flips", False),
        ("rejudge.dashboard.links", "rejudge.model._comparison", "Flip", False),
        ("rejudge.services._compare", "rejudge.judge._compare", "compare", False),
    ],
)
def test_the_comparison_rule_catches_its_edge(
    module: str, defining: str, name: str, broken: bool
) -> None:
    assert bool(_comparison_violations(module, defining, name)) is broken


@pytest.mark.parametrize(
    ("module", "target", "rule"),
    [
        ("rejudge.judge._engine", "rejudge.recorder._loop", "judge never imports recorder"),
        ("rejudge.judge._engine", "rejudge.store._store", "never imports the store"),
        ("rejudge.judge._engine", "rejudge.store", "never imports the store"),
        ("rejudge.recorder._loop", "rejudge.store._errors", "never imports the store"),
        ("rejudge.suites.domains.retail", "rejudge.store._tables", "never imports the store"),
        ("rejudge.model._schemas", "rejudge.store._tables", "never imports the store"),
        ("rejudge.recorder.wire._anthropic", "sqlalchemy.orm", "pure code never touches SQL"),
        ("rejudge.suites.domains.retail", "rejudge.services._ingest", "never imports services"),
        ("rejudge.importers._otel_read", "rejudge.services._ingest", "never imports services"),
        ("rejudge.importers._otel_spans", "rejudge.store", "never imports the store"),
        ("rejudge.services._ingest", "rejudge.cli.record", "nothing imports the CLI"),
        ("rejudge.store._store", "rejudge.judge._engine", "imports nothing of ours"),
        ("rejudge.dashboard.app", "sqlalchemy", "SQL lives in rejudge.store"),
        ("rejudge.dashboard.blocks", "rejudge.recorder.wire._anthropic", "no wire or cassette"),
        ("rejudge.dashboard.cassette", "rejudge.recorder.wire", "no wire or cassette reader"),
        ("rejudge.dashboard.cassette", "rejudge.recorder._cassettes", "no wire or cassette"),
        ("rejudge.services._ingest", "store.schemas", "bare top-level name"),
        ("rejudge.model._world", "rejudge.store._store", "the model uses only"),
        ("rejudge.model._world", "rejudge.store", "the model uses only"),
        ("rejudge.model._world", "rejudge.judge._engine", "the model uses only"),
        ("rejudge.registry", "rejudge.judge.tiers", "the registry imports nothing"),
    ],
)
def test_each_rule_catches_its_edge(module: str, target: str, rule: str) -> None:
    assert any(rule in broken for broken in _rules(module, target))


@pytest.mark.parametrize(
    ("module", "target"),
    [
        ("rejudge.judge._engine", "rejudge.model._schemas"),
        ("rejudge.judge._engine", "rejudge.model"),
        ("rejudge.judge._engine", "rejudge.errors"),
        ("rejudge.recorder.wire._common", "rejudge.model._schemas"),
        ("rejudge.store._store", "rejudge.model._schemas"),
        ("rejudge.services._ingest", "rejudge.store._store"),
        ("rejudge.cli.judge", "rejudge.services._judging"),
        ("rejudge.__main__", "rejudge.cli"),
        ("rejudge.dashboard.app", "rejudge.store.read_models"),
        ("rejudge.dashboard.evidence", "rejudge.services._exchanges"),
        ("rejudge.dashboard.evidence", "rejudge.model._blocks"),
        ("rejudge.model._world", "rejudge.model._hashing"),
        ("rejudge.model._judgment_text", "rejudge.model._schemas"),
        ("rejudge.model._world", "rejudge.registry"),
        ("rejudge.registry", "rejudge.errors"),
        ("rejudge.importers._otel_read", "rejudge.recorder"),
        ("rejudge.importers._otel", "rejudge.services._ingest"),
    ],
)
def test_allowed_edges_pass(module: str, target: str) -> None:
    assert _rules(module, target) == []


@pytest.mark.parametrize("module", ["rejudge.judge._engine", "rejudge.recorder._normalizer"])
def test_relative_imports_resolve(module: str) -> None:
    path = dict(_modules())[module]
    targets = [t for _, t in _imports(module, path)]
    assert all(not t.startswith(".") for t in targets)


# the store's methods that write traces: only the ingest service calls them (every importer,
# recording, replay and capture store through it); no import shows this, so calls are read
TRACE_WRITES = ("save_traces", "replace_trace")
# the store's writes of runs and suites (and verdicts): services make them; pure code, which may
# be handed a store-like object, never does (an importer's parser builds, its service stores)
PURE_STORE_WRITES = (
    *TRACE_WRITES,
    "save_suite",
    "create_run",
    "finish_run",
    "save_external_verdicts",
)


# modules that still write traces themselves, each with the open issue that moves it to ingest;
# the list may only shrink (the test fails when a listed module stops writing, too). Empty since
# issue 28 moved the BFCL importers' store writes to rejudge.importers._bfcl_results.
KNOWN_TRACE_WRITERS: set[str] = set()


def _calls(path: Path, names: tuple[str, ...]) -> Iterator[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in names:
            yield node.lineno, node.attr


def _trace_writers() -> list[str]:
    found = []
    for module, path in _modules():
        if _within(module, "rejudge.store") or module == "rejudge.services._ingest":
            continue
        if module in KNOWN_TRACE_WRITERS:
            continue
        for line, attr in _calls(path, TRACE_WRITES):
            found.append(f"{path.relative_to(REPO)}:{line} ({module}): .{attr}")
    return found


def _pure_store_writers() -> list[str]:
    found = []
    for module, path in _modules():
        pure = _within(module, "rejudge.judge", "rejudge.recorder", "rejudge.suites")
        if not pure and not module.startswith(PURE_MODULES):
            continue
        for line, attr in _calls(path, PURE_STORE_WRITES):
            found.append(f"{path.relative_to(REPO)}:{line} ({module}): .{attr}")
    return found


def test_only_ingest_writes_traces() -> None:
    assert _trace_writers() == []


def test_pure_code_never_writes_the_store() -> None:
    assert _pure_store_writers() == []


def test_the_store_write_check_catches_a_suites_writer(tmp_path: Path) -> None:
    module = tmp_path / "importer.py"
    module.write_text(
        "def load(store, suite):\n"
        "    record = store.suites.save_suite(name=suite.name)\n"
        "    return store.runs.create_run(name='x', suite=record, config=None)\n",
        encoding="utf-8",
    )
    assert [attr for _line, attr in _calls(module, PURE_STORE_WRITES)] == [
        "save_suite",
        "create_run",
    ]


def test_every_known_trace_writer_still_writes() -> None:
    # an entry whose module no longer writes traces must leave KNOWN_TRACE_WRITERS
    for module, path in _modules():
        if module in KNOWN_TRACE_WRITERS:
            assert any(w in path.read_text(encoding="utf-8") for w in TRACE_WRITES), module


# importing has one home (issue 38): only rejudge.importers registers importers (kind
# "importer", or register_importer) and every built-in importer is declared there; suites/ keeps
# suites (case files, domains, worlds) and the other benchmarks' shipped data, never code that
# reads those files; and a τ² results document is told from a τ-bench file only there
IMPORTER_HOME = "rejudge.importers"
FORMAT_PREDICATES = ("is_tau2_results",)


def _called_name(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    if isinstance(node.func, ast.Name):
        return node.func.id
    return None


def _importer_registrations(path: Path) -> Iterator[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _called_name(node)
        first = node.args[0] if node.args else None
        kind = first.value if isinstance(first, ast.Constant) else None
        if name == "register_importer" or (
            name in ("register", "register_factory", "configure") and kind == "importer"
        ):
            yield node.lineno, str(name)
        elif name in FORMAT_PREDICATES:
            yield node.lineno, str(name)


def _importing_outside_its_home() -> list[str]:
    found = []
    for module, path in _modules():
        if _within(module, IMPORTER_HOME):
            continue
        for line, name in _importer_registrations(path):
            found.append(f"{path.relative_to(REPO)}:{line} ({module}): {name}")
    return found


def test_only_the_importers_home_registers_importers_or_tells_formats_apart() -> None:
    assert _importing_outside_its_home() == []


def test_a_tau2_document_is_told_apart_in_one_place() -> None:
    # the importer's detector and its read both ask _tau_read.tau_flavor, which alone asks
    # is_tau2_results (before: the detector, the read and the parse each asked it)
    calls = [
        (module, line)
        for module, path in _modules()
        for line, name in _importer_registrations(path)
        if name == "is_tau2_results"
    ]
    assert [module for module, _line in calls] == ["rejudge.importers._tau_read"]


def test_every_builtin_importer_lives_in_the_importers_home() -> None:
    from rejudge.registry import BUILTINS

    assert {m for m in BUILTINS["importer"].values() if not _within(m, IMPORTER_HOME)} == set()


def test_suites_hold_no_importer_code() -> None:
    # suites/importers/ keeps only the shipped runs (data); stores name them by that place
    assert (
        sorted(str(p.relative_to(REPO)) for p in (REPO / "suites").rglob("importers/**/*.py")) == []
    )
    assert not any(_within(m, "rejudge.suites.importers") for m, _path in _modules())


def test_the_importer_home_check_catches_a_registration(tmp_path: Path) -> None:
    module = tmp_path / "elsewhere.py"
    module.write_text(
        "from rejudge.registry import REGISTRY\n"
        "REGISTRY.register('importer', 'x', object())\n"
        "register_importer(X)\n"
        "REGISTRY.register('tier', 'y', object())\n"
        "if is_tau2_results(data):\n"
        "    pass\n",
        encoding="utf-8",
    )
    assert sorted(_importer_registrations(module)) == [
        (2, "register"),
        (3, "register_importer"),
        (5, "is_tau2_results"),
    ]


# no import cycles among modules (issue 40): what a module imports when it runs (at its top or
# inside a function; a lazy import is still a dependency) must never lead back to it. Imports
# under ``if TYPE_CHECKING:`` are left out: they are how a type checker sees a lazy facade's
# names and never run. ``from package import submodule`` depends on the submodule, a facade's
# name on the module defining it.


def _type_checking_only(node: ast.AST) -> bool:
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _run_time_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    stack = [tree]
    while stack:
        node = stack.pop()
        if _type_checking_only(node):
            assert isinstance(node, ast.If)
            stack.extend(node.orelse)
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _run_time_dependencies(
    module: str, source: str, known: set[str], is_package: bool = False
) -> Iterator[tuple[int, str]]:
    """(line, module of ours) for each run-time import of ``module`` (given its source)."""

    def known_prefix(name: str) -> str | None:
        parts = name.split(".")
        while parts and ".".join(parts) not in known:
            parts.pop()
        return ".".join(parts) or None

    for node in _run_time_nodes(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if (found := known_prefix(alias.name)) is not None:
                    yield node.lineno, found
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            exports = _facade(target)
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                name = submodule if submodule in known else exports.get(alias.name, target)
                if (found := known_prefix(name)) is not None:
                    yield node.lineno, found


def _import_cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(graph.get(target, {}))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        cycles.append(sorted(component))
    return cycles


def _dependency_graph() -> dict[str, dict[str, int]]:
    paths = dict(_modules())
    known = set(paths)
    graph: dict[str, dict[str, int]] = {}
    for module, path in paths.items():
        edges = graph.setdefault(module, {})
        source = path.read_text(encoding="utf-8")
        for line, target in _run_time_dependencies(
            module, source, known, path.name == "__init__.py"
        ):
            if target != module:
                edges.setdefault(target, line)
    return graph


def test_no_import_cycles_among_modules() -> None:
    graph = _dependency_graph()
    found = [
        " <-> ".join(
            f"{m} (line {graph[m][n]} -> {n})" for m in cycle for n in graph[m] if n in cycle
        )
        for cycle in _import_cycles(graph)
    ]
    assert found == []


def test_the_cycle_rule_catches_a_cycle() -> None:
    # the cycle issue 40 broke: _judging -> _distributed -> _partitions -> _judging
    known = {
        "rejudge.services",
        "rejudge.services._judging",
        "rejudge.services._distributed",
        "rejudge.services._partitions",
    }
    sources = {
        "rejudge.services._judging": (
            "def judge_run():\n    from rejudge.services._distributed import open_cluster\n"
        ),
        "rejudge.services._distributed": "from . import _partitions\n",
        "rejudge.services._partitions": (
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from rejudge.services._distributed import DaskEngine\n"
            "def judge_partition():\n    from rejudge.services._judging import settle_chunk\n"
        ),
    }
    graph = {
        m: {t: line for line, t in _run_time_dependencies(m, s, known)} for m, s in sources.items()
    }
    assert graph["rejudge.services._partitions"] == {"rejudge.services._judging": 5}
    assert _import_cycles(graph) == [sorted(sources)]
    # a type-only import back is no cycle
    sources["rejudge.services._partitions"] = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from rejudge.services._judging import settle_chunk\n"
    )
    graph = {
        m: {t: line for line, t in _run_time_dependencies(m, s, known)} for m, s in sources.items()
    }
    assert _import_cycles(graph) == []


# the CLI only parses and prints (issue 40): it opens the store (rejudge.store.Store, in
# cli/_context.py) and hands it to one service, which reads and writes; it imports nothing else
# of the store (not its repositories, engine or migrations) but the URL redaction it prints, and
# calls no repository (store.runs, store.traces, ...) itself
CLI_STORE_NAMES = {"Store", "redact_url"}
REPOSITORIES = (
    "suites",
    "rule_sets",
    "runs",
    "traces",
    "evaluations",
    "judgments",
    "reviews",
    "baselines",
    "external",
    "catalog",
)


def _store_receiver(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "store") or (
        isinstance(node, ast.Attribute) and node.attr == "store"
    )


def _cli_store_uses(source: str) -> Iterator[tuple[int, str]]:
    """(line, what) for each store name the CLI imports beyond CLI_STORE_NAMES and each
    repository it reaches through a store."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and _within(node.module or "", "rejudge.store"):
            for alias in node.names:
                if node.module != "rejudge.store" or alias.name not in CLI_STORE_NAMES:
                    yield node.lineno, f"imports {node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _within(alias.name, "rejudge.store"):
                    yield node.lineno, f"imports {alias.name}"
        elif isinstance(node, ast.Attribute) and node.attr in REPOSITORIES:
            if _store_receiver(node.value):
                yield node.lineno, f"calls the store's repository .{node.attr}"


def test_the_cli_reads_the_store_only_through_services() -> None:
    found = [
        f"{path.relative_to(REPO)}:{line}: {what}"
        for module, path in _modules()
        if _within(module, "rejudge.cli")
        for line, what in _cli_store_uses(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_cli_store_rule_catches_its_edges() -> None:
    source = (
        "from rejudge.store import Store, redact_url\n"
        "from rejudge.store import make_engine\n"
        "from rejudge.store._runs import RunRepository\n"
        "import rejudge.store._migrate\n"
        "def runs(app, store):\n"
        "    app.store.runs.list_runs()\n"
        "    store.traces.iter_traces(1)\n"
        "    app.summary.runs\n"
        "    services.list_runs_with_statuses(app.store)\n"
    )
    assert sorted(_cli_store_uses(source)) == [
        (2, "imports rejudge.store.make_engine"),
        (3, "imports rejudge.store._runs.RunRepository"),
        (4, "imports rejudge.store._migrate"),
        (6, "calls the store's repository .runs"),
        (7, "calls the store's repository .traces"),
    ]


def test_the_harness_policy_is_a_service_the_cli_calls() -> None:
    # what a recording's harness mode allows (round budget, the step count disclosed) is
    # decided in rejudge.services, not where the flags are parsed
    for module, path in _modules():
        if _within(module, "rejudge.cli"):
            assert "HarnessAssistance(" not in path.read_text(encoding="utf-8"), module


# runs are built through ingest (issue 40): a run is created and finished only by
# ingest_run (every importer, capture, the demo) and by recording, which creates its run before
# the model answers and stores each batch through ingest as it comes
RUN_WRITES = ("create_run", "finish_run")
RUN_BUILDERS = ("rejudge.services._ingest", "rejudge.services._record")


def test_runs_are_built_through_ingest() -> None:
    found = [
        f"{path.relative_to(REPO)}:{line} ({module}): .{attr}"
        for module, path in _modules()
        if module not in RUN_BUILDERS and not _within(module, "rejudge.store")
        for line, attr in _calls(path, RUN_WRITES)
    ]
    assert found == []
