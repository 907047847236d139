"""Golden self-test: run every golden sequence in a fresh sandbox; every call must succeed.

``golden_trace(case, sandbox)`` executes a case's golden calls (each repeated ``count`` times) and
returns them as a synthetic :class:`rejudge.model.Trace`, as if a model had made them. Parameters
ruled ``any`` (dynamic values such as action ids) are taken from the results of earlier calls in
the sequence when such a key appears there. ``selftest_suite`` does this for every case and, given
a ``judge_fn``, also judges each golden trace: every verdict it returns must be PASS.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from rejudge.suites._case_format import SuiteSource
from rejudge.suites._domain import Sandbox, get_domain

from rejudge.model import Case, GoldenCall, Round, ToolCall, ToolRegistry, Trace, canonical_json

__all__ = [
    "JudgeFn",
    "StepResult",
    "CaseSelftest",
    "SelftestReport",
    "expand_calls",
    "resolve_arguments",
    "golden_trace",
    "selftest_case",
    "selftest_suite",
]

# (golden trace, case, registry) -> {tier: verdict}; every verdict must be "PASS"
JudgeFn = Callable[[Trace, Case, ToolRegistry], Mapping[str, str]]

GOLDEN_FINAL_TEXT = "golden sequence complete"


@dataclass(frozen=True)
class StepResult:
    index: int
    tool: str
    arguments: dict[str, Any]
    ok: bool
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CaseSelftest:
    case_id: str
    ok: bool
    steps: tuple[StepResult, ...] = ()
    problems: tuple[str, ...] = ()
    verdicts: dict[str, str] = field(default_factory=dict)
    skipped: bool = False
    trace_hash: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "case": self.case_id,
            "ok": self.ok,
            "skipped": self.skipped,
            "steps": [step.as_dict() for step in self.steps],
            "problems": list(self.problems),
            "verdicts": dict(self.verdicts),
            "trace_hash": self.trace_hash,
        }


@dataclass(frozen=True)
class SelftestReport:
    suite: str
    suite_hash: str
    cases: tuple[CaseSelftest, ...]
    judged: bool = False

    @property
    def ok(self) -> bool:
        return all(result.ok for result in self.cases)

    @property
    def failures(self) -> list[CaseSelftest]:
        return [result for result in self.cases if not result.ok]

    @property
    def calls_executed(self) -> int:
        return sum(len(result.steps) for result in self.cases)

    def as_dict(self) -> dict[str, Any]:
        return {
            "suite": self.suite,
            "hash": self.suite_hash,
            "ok": self.ok,
            "judged": self.judged,
            "cases": len(self.cases),
            "passed": sum(1 for r in self.cases if r.ok),
            "failed": len(self.failures),
            "calls_executed": self.calls_executed,
            "results": [result.as_dict() for result in self.cases],
        }


def expand_calls(case: Case) -> list[GoldenCall]:
    """The golden calls in sequence, each repeated ``count`` times."""
    return [call for call in case.golden.calls for _ in range(call.count)]


def _find_key(value: Any, key: str) -> Iterator[Any]:
    if isinstance(value, dict):
        if key in value:
            yield value[key]
        for item in value.values():
            yield from _find_key(item, key)
    elif isinstance(value, list):
        for item in value:
            yield from _find_key(item, key)


def _set_path(params: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    current = params
    for part in parts[:-1]:
        nxt = current.get(part)
        if not isinstance(nxt, dict):
            return
        current = nxt
    if parts[-1] in current:
        current[parts[-1]] = value


def resolve_arguments(call: GoldenCall, earlier_results: list[Any]) -> dict[str, Any]:
    """The arguments to execute for ``call``: its params, with each ``any``-ruled parameter taken
    from the newest earlier result that carries a non-empty scalar under the same key."""
    arguments = copy.deepcopy(call.params)
    for path, rule in sorted(call.param_rules.items()):
        if rule != "any":
            continue
        key = path.split(".")[-1]
        for result in reversed(earlier_results):
            found = [
                v
                for v in _find_key(result, key)
                if isinstance(v, (str, int, float)) and not isinstance(v, bool) and v != ""
            ]
            if found:
                _set_path(arguments, path, found[0])
                break
    return arguments


def golden_trace(case: Case, sandbox: Sandbox) -> Trace:
    """Execute ``case``'s golden calls in ``sandbox`` and return them as a trace (one call per
    round, then a final text round)."""
    rounds: list[Round] = []
    results: list[Any] = []
    for index, call in enumerate(expand_calls(case)):
        arguments = resolve_arguments(call, results)
        outcome = sandbox.execute(call.tool, copy.deepcopy(arguments))
        if outcome.ok:
            results.append(outcome.result)
        rounds.append(
            Round(
                index=index,
                calls=[
                    ToolCall(
                        id=f"golden-{index + 1}",
                        name=call.tool,
                        arguments=arguments,
                        arguments_raw=canonical_json(arguments),
                        result=outcome.as_message_content(),
                        ok=outcome.ok,
                        error=outcome.error,
                    )
                ],
                finish_reason="tool_calls",
            )
        )
    final_text = str(case.metadata.get("golden_final_text", GOLDEN_FINAL_TEXT))
    if case.required_outputs and "golden_final_text" not in case.metadata:
        # the ideal agent tells the user what the case requires (a read-only case's answer)
        final_text += ": " + "; ".join(str(o) for o in case.required_outputs)
    rounds.append(Round(index=len(rounds), text=final_text, finish_reason="stop"))
    return Trace(case_id=case.id, rounds=rounds, final_text=final_text, normalizer_version="golden")


def selftest_case(
    case: Case,
    sandbox: Sandbox,
    registry: ToolRegistry,
    judge_fn: JudgeFn | None = None,
) -> CaseSelftest:
    if case.skip:
        return CaseSelftest(case.id, ok=True, skipped=True)
    trace = golden_trace(case, sandbox)
    steps = tuple(
        StepResult(i, c.name, c.arguments or {}, bool(c.ok), c.error)
        for i, c in enumerate(trace.calls)
    )
    problems: list[str] = []
    if not case.call_only:
        for step in steps:
            if not step.ok:
                problems.append(f"call {step.index + 1} ({step.tool}) failed: {step.error}")
    verdicts: dict[str, str] = {}
    if judge_fn is not None:
        try:
            verdicts = dict(judge_fn(trace, case, registry))
        except Exception as exc:  # a judge bug must show up as a failed case, not a crash
            problems.append(f"judge raised {type(exc).__name__}: {exc}")
        for tier, verdict in sorted(verdicts.items()):
            if verdict != "PASS":
                problems.append(f"tier {tier}: golden trace judged {verdict}")
    return CaseSelftest(
        case.id,
        ok=not problems,
        steps=steps,
        problems=tuple(problems),
        verdicts=verdicts,
        trace_hash=trace.hash,
    )


def selftest_suite(source: SuiteSource, judge_fn: JudgeFn | None = None) -> SelftestReport:
    """Self-test every case of ``source``, each in a fresh sandbox of its domain."""
    domain = get_domain(source.domain)
    results = tuple(
        selftest_case(case, domain.new_sandbox(case.metadata), source.registry, judge_fn)
        for case in source.cases
    )
    return SelftestReport(source.name, source.hash, results, judged=judge_fn is not None)
