"""A trace's timeline (:class:`rejudge.model.Timeline`), built from the trace, its case and the
per-step facts its evidence holds; and the structural diff of a call's JSON arguments against
its golden call.

Pure: the services read the cassette (or an importer's span times) into :class:`StepFacts` and
hand them here; the dashboard and the HTML report draw the result.

The argument diff is for reading, not judging: it lines each call up with the first golden call
of the same tool not yet lined up (a golden call of ``count`` n takes n calls) and compares the
values path by path, exactly. The verdict is the tier's, under its rule set's matchers (case
folding, numeric tolerance, equivalent tools...), and a judgment's own call-by-call diff says
what those decided; this one shows where the JSON differs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rejudge.model import (
    ArgumentDiff,
    Case,
    DiffStatus,
    StepFacts,
    Timeline,
    TimelineCall,
    TimelineStep,
    ToolCall,
    Trace,
)

__all__ = ["build_timeline", "json_diff"]

# the keys a trace's timings use for its whole wall time, by who wrote them (rejudge's loop,
# older recordings, importers with span or latency figures)
_ELAPSED_KEYS = ("elapsed_s", "wall_s", "latency_s")


def _same(golden: Any, actual: Any) -> bool:
    # JSON's true is not its 1, though Python says they are equal
    return golden == actual and isinstance(golden, bool) == isinstance(actual, bool)


def json_diff(golden: Any, actual: Any, path: str = "") -> list[ArgumentDiff]:
    """``actual`` against ``golden``, path by path: objects key by key (golden's keys in its
    order, then the keys only ``actual`` has), arrays index by index, anything else compared
    whole. A leaf path per value (an empty object or array on both sides is one); an object or
    array on one side only is one entry."""
    if (
        isinstance(golden, dict | list)
        and type(golden) is type(actual)
        and not golden
        and not actual
    ):
        return [ArgumentDiff(path or "(arguments)", "same", golden=golden, actual=actual)]
    if isinstance(golden, dict) and isinstance(actual, dict):
        out: list[ArgumentDiff] = []
        for key in [*golden, *(k for k in actual if k not in golden)]:
            sub = f"{path}.{key}" if path else str(key)
            if key not in actual:
                out.append(ArgumentDiff(sub, "missing", golden=golden[key]))
            elif key not in golden:
                out.append(ArgumentDiff(sub, "extra", actual=actual[key]))
            else:
                out.extend(json_diff(golden[key], actual[key], sub))
        return out
    if isinstance(golden, list) and isinstance(actual, list):
        out = []
        for i in range(max(len(golden), len(actual))):
            sub = f"{path}[{i}]"
            if i >= len(actual):
                out.append(ArgumentDiff(sub, "missing", golden=golden[i]))
            elif i >= len(golden):
                out.append(ArgumentDiff(sub, "extra", actual=actual[i]))
            else:
                out.extend(json_diff(golden[i], actual[i], sub))
        return out
    status: DiffStatus = "same" if _same(golden, actual) else "changed"
    return [ArgumentDiff(path or "(arguments)", status, golden=golden, actual=actual)]


def _golden_slots(case: Case | None) -> list[tuple[str, dict[str, Any]]]:
    if case is None:
        return []
    return [(g.tool, dict(g.params)) for g in case.golden.calls for _ in range(g.count)]


def _call(call: ToolCall, slots: list[tuple[str, dict[str, Any]] | None]) -> TimelineCall:
    golden_tool: str | None = None
    diff: tuple[ArgumentDiff, ...] = ()
    for i, slot in enumerate(slots):
        if slot is not None and slot[0] == call.name:
            slots[i] = None  # taken: the next call of this tool lines up with the next one
            golden_tool = slot[0]
            if call.arguments is None:
                diff = (
                    ArgumentDiff(
                        "(arguments)", "changed", golden=slot[1], actual=call.arguments_raw
                    ),
                )
            else:
                diff = tuple(json_diff(slot[1], call.arguments))
            break
    return TimelineCall(call, golden_tool, diff)


def _timing_note(facts: Sequence[StepFacts | None], rounds: int, source_note: str | None) -> str:
    if source_note:
        return source_note
    known = [f for f in facts if f is not None and not f.empty]
    if not known:
        return "the evidence holds no per-step latency or tokens"
    sources = sorted({f.source for f in known if f.source})
    where = f" ({', '.join(sources)})" if sources else ""
    if len(facts) != rounds:
        return (
            f"per-step figures{where}: {len(facts)} model response(s) for {rounds} round(s), "
            "lined up in order"
        )
    return f"per-step figures from the evidence{where}"


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _tokens(usage: dict[str, int], key: str) -> int | None:
    value = usage.get(key)
    return value if isinstance(value, int) else None


def build_timeline(
    trace: Trace,
    case: Case | None,
    facts: Sequence[StepFacts | None] = (),
    *,
    facts_note: str | None = None,
    verdict: str | None = None,
    causes: Sequence[str] = (),
    reasons: Sequence[str] = (),
) -> Timeline:
    """``trace`` in order: each user message in its place, each round (the model's text, its
    calls with their results and argument diffs, its provider-side tools) with ``facts[i]``
    for the i-th round, then the error that stopped it, if any. ``facts_note`` replaces the
    note on where per-step figures came from (a cassette that could not be read, say);
    ``verdict``, ``causes`` and ``reasons`` are a judgment's, when shown under one."""
    slots: list[tuple[str, dict[str, Any]] | None] = list(_golden_slots(case))
    turns: dict[int, list[str]] = {}
    for turn in sorted(trace.user_turns, key=lambda t: t.position):
        turns.setdefault(turn.before_round, []).append(turn.text)
    steps: list[TimelineStep] = []
    for position, rnd in enumerate(trace.rounds):
        steps.extend(TimelineStep("user", text=text) for text in turns.pop(rnd.index, []))
        steps.append(
            TimelineStep(
                "round",
                round=rnd.index,
                text=rnd.text,
                finish_reason=rnd.finish_reason,
                calls=tuple(_call(c, slots) for c in rnd.calls),
                server_tools=tuple((s.name, s.input) for s in rnd.server_tools),
                facts=facts[position] if position < len(facts) else None,
            )
        )
    for before in sorted(turns):  # messages nothing answered
        steps.extend(TimelineStep("user", text=text) for text in turns[before])
    if trace.error is not None:
        steps.append(
            TimelineStep(
                "error",
                round=trace.error.round,
                text=f"{trace.error.kind}: {trace.error.message}",
            )
        )
    elapsed = next(
        (v for k in _ELAPSED_KEYS if (v := _number(trace.timings.get(k))) is not None), None
    )
    return Timeline(
        case_id=trace.case_id,
        repetition=trace.repetition,
        status=trace.status,
        instruction=case.instruction if case is not None else "",
        steps=tuple(steps),
        latency_s=elapsed,
        input_tokens=_tokens(trace.usage, "input_tokens"),
        output_tokens=_tokens(trace.usage, "output_tokens"),
        timing_note=_timing_note(facts, len(trace.rounds), facts_note),
        golden_uncalled=tuple(s[0] for s in slots if s is not None),
        verdict=verdict,
        causes=tuple(causes),
        reasons=tuple(reasons),
    )
