"""The FuncBenchGen sandbox: one case's generated graph, executed with silent failures.

Rules (seed 003):

- a function that is not one of the case's functions -> error result (``unknown function``);
- arguments whose names differ from the function's parameters (missing or extra) -> error
  result naming what is missing/unexpected;
- otherwise no error, ever: the function returns its true output when *every* argument equals
  its true value, and a plausible wrong 3-digit number otherwise. The wrong number is derived
  from a hash of the function name and the canonical JSON of the arguments, so the same wrong
  call always returns the same wrong value (and never the true one).

The sandbox also tracks what the model has been told so far (the stated inputs and every output
it returned, right or wrong) for the variable-restatement intervention: :meth:`known_values` and
:meth:`restatement`.
"""

from __future__ import annotations

import hashlib
from typing import Any

from rejudge.judge.tiers import as_int
from rejudge.suites._domain import ToolResult

from rejudge.model import canonical_json

__all__ = ["FuncBenchSandbox", "as_int", "wrong_value"]


def wrong_value(function: str, arguments: dict[str, Any], true_value: int) -> int:
    """The deterministic wrong output of a call with wrong arguments (3 digits, never true)."""
    try:
        text = canonical_json([function, arguments])
    except (TypeError, ValueError):
        text = repr((function, sorted(arguments.items(), key=lambda kv: kv[0])))
    digest = int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:16], 16)
    value = 100 + digest % 900
    if value == true_value:
        value = 100 + (value - 100 + 1 + (digest // 900) % 899) % 900
    return value


class FuncBenchSandbox:
    """Executes one case's functions; a fresh one per trace."""

    def __init__(self, case_metadata: dict[str, Any]) -> None:
        graph = case_metadata["graph"]
        self.values: dict[str, int] = {k: int(v) for k, v in graph["values"].items()}
        self.functions: dict[str, dict[str, Any]] = {n["name"]: n for n in graph["nodes"]}
        tools = case_metadata.get("tools")
        self.tools: frozenset[str] = frozenset(tools if tools is not None else self.functions)
        self.target: str = case_metadata["target"]
        self._known: dict[str, int] = {
            var: self.values[var] for var in case_metadata.get("inputs", [])
        }
        self._sources: dict[str, str] = {var: "given" for var in self._known}
        self.log: list[tuple[str, dict[str, Any], ToolResult]] = []

    def execute(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        result = self._execute(name, arguments)
        self.log.append((name, dict(arguments) if isinstance(arguments, dict) else {}, result))
        return result

    def _execute(self, name: str, arguments: Any) -> ToolResult:
        node = self.functions.get(name)
        if node is None or name not in self.tools:
            return ToolResult(ok=False, error=f"unknown function {name!r}")
        if not isinstance(arguments, dict):
            return ToolResult(ok=False, error="arguments must be a JSON object")
        params = [p["name"] for p in node["params"]]
        missing = [p for p in params if p not in arguments]
        extra = sorted(k for k in arguments if k not in params)
        if missing or extra:
            parts = []
            if missing:
                parts.append("missing " + ", ".join(missing))
            if extra:
                parts.append("unexpected " + ", ".join(extra))
            return ToolResult(
                ok=False,
                error=(
                    f"{name} takes {len(params)} argument(s) ({', '.join(params)}); "
                    f"got {len(arguments)}: {'; '.join(parts)}"
                ),
            )
        true_output = self.values[node["output"]]
        correct = all(as_int(arguments[p["name"]]) == self.values[p["var"]] for p in node["params"])
        output = true_output if correct else wrong_value(name, arguments, true_output)
        self._known[node["output"]] = output
        self._sources[node["output"]] = name
        return ToolResult(ok=True, result=output)

    # ------------------------------------------------------------------ restatement

    def known_values(self) -> dict[str, int]:
        """Every value the model has been given so far: the stated inputs, then each function
        output it received (its newest value), by variable (type) name."""
        return dict(self._known)

    def restatement(self) -> str:
        """The text of the restatement intervention: every known variable and its value."""
        lines = []
        for var, value in self._known.items():
            source = self._sources[var]
            where = "given" if source == "given" else f"returned by {source}"
            lines.append(f"- {var} = {value} ({where})")
        return "Known values so far:\n" + "\n".join(lines)
