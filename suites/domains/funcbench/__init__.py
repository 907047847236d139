"""The funcbench domain (seed 003): generated dependency-graph tasks, silent-failure execution.

Unlike retail or genome, funcbench has no fixed tool set: every generated suite carries its own
registry (the union of its cases' functions, see :mod:`suites.generators.funcbench`), and each
case's graph lives in its metadata. So :meth:`FuncBenchDomain.registry` has nothing to return and
raises with what to do instead; :meth:`FuncBenchDomain.new_sandbox` builds the case's graph from
``case.metadata``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rejudge.suites._domain import register_domain
from rejudge.suites._errors import SuiteError
from rejudge.suites.domains.funcbench.sandbox import FuncBenchSandbox, as_int, wrong_value

from rejudge.model import Case, ToolRegistry

__all__ = ["FuncBenchDomain", "FuncBenchSandbox", "as_int", "wrong_value", "CASE_ID_PATTERN"]

CASE_ID_PATTERN = r"fb-[0-9]{3,}"


class FuncBenchDomain:
    name = "funcbench"
    case_id_pattern: str | None = CASE_ID_PATTERN

    def registry(self) -> ToolRegistry:
        raise SuiteError(
            "funcbench suites are generated and carry their own registry (registry.json in the "
            "suite folder); load one with rejudge.suites.generators.load_generated_suite or "
            "from the store, or generate one first"
        )

    def new_sandbox(self, case_metadata: dict[str, Any] | None = None) -> FuncBenchSandbox:
        if not case_metadata or "graph" not in case_metadata:
            raise SuiteError(
                "a funcbench sandbox needs the case's metadata (its generated graph); "
                "pass case.metadata"
            )
        return FuncBenchSandbox(case_metadata)

    def check_case(self, case: Case, registry: ToolRegistry) -> Iterator[tuple[str, str]]:
        """The case's graph agrees with itself, its golden calls and the registry."""
        meta = case.metadata
        graph = meta.get("graph")
        if not isinstance(graph, dict):
            yield "metadata.graph", "a funcbench case needs its generated graph"
            return
        try:
            nodes = {n["name"]: n for n in graph["nodes"]}
            values = graph["values"]
            target = meta["target"]
            tools = list(meta["tools"])
        except (KeyError, TypeError) as exc:
            yield "metadata", f"incomplete funcbench metadata: missing {exc}"
            return
        if values.get(target) != meta.get("target_value"):
            yield "metadata.target_value", "target_value is not the target's true value"
        if sorted(tools) != sorted(nodes):
            yield "metadata.tools", "tools must list exactly the graph's functions"
        known = set(registry.tool_names())
        for name in tools:
            if name not in known:
                yield "metadata.tools", f"function {name!r} is not in the suite's registry"
        core = sorted(n for n, node in nodes.items() if node.get("role") == "core")
        golden = [call.tool for call in case.golden.calls]
        if sorted(golden) != core:
            yield "golden.calls", "the golden calls must call every core function once"
        if meta.get("n_core") != len(core):
            yield "metadata.n_core", f"n_core is {meta.get('n_core')}, the graph has {len(core)}"


register_domain("funcbench", FuncBenchDomain)
