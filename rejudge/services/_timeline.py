"""Timelines of stored traces (:class:`rejudge.model.Timeline`): the per-step facts read from a
trace's cassette, handed with the trace and its case to the pure
:func:`rejudge.judge.build_timeline`.

Where a step's figures come from, in the order they are trusted:

- the response's own timing: llama.cpp's ``timings`` object (``prompt_ms + predicted_ms``, the
  server's work on that response), else a provider's processing-time header
  (``openai-processing-ms``, ...);
- the trace's per-round timings, when the evidence gave them (``timings.rounds[i]``: an
  OpenTelemetry or Langfuse import's model span, its duration and tokens);
- tokens from the response's usage, read by the wire format that speaks it.

Only model exchanges count as steps (an embeddings call or a telemetry ping is not a round), in
the order the cassette holds them. A cassette that is missing or unreadable gives no figures
and a note saying which file and why; the timeline itself comes from the stored trace.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from rejudge.errors import RejudgeError
from rejudge.judge import build_timeline
from rejudge.model import Case, Comparison, StepFacts, Timeline, Trace
from rejudge.recorder import CassetteError, Exchange, classify_exchange, read_cassette
from rejudge.recorder.wire import parse_response
from rejudge.services._evidence_paths import resolve_evidence_path
from rejudge.store import Store

__all__ = [
    "cassette_step_facts",
    "trace_timeline",
    "failing_timelines",
    "flip_timelines",
    "TIMELINE_VERDICTS",
    "LATENCY_HEADERS",
]

#: the verdicts whose traces a report shows as timelines
TIMELINE_VERDICTS = ("FAIL", "AGENT_ERROR")
#: response headers that time the provider's own work, in the order they are trusted (the
#: dashboard's exchange view reads the same)
LATENCY_HEADERS = ("openai-processing-ms", "x-envoy-upstream-service-time", "req-cost-time")


def _header_ms(exchange: Exchange) -> tuple[float | None, str | None]:
    for name in LATENCY_HEADERS:
        for value in exchange.response_headers.get(name) or []:
            try:
                return float(value), name
            except ValueError:
                continue
    return None, None


def _body_ms(exchange: Exchange) -> float | None:
    body = exchange.response_body
    timings = body.get("timings") if isinstance(body, dict) else None
    if not isinstance(timings, dict):
        return None
    parts = [timings.get("prompt_ms"), timings.get("predicted_ms")]
    numbers = [float(p) for p in parts if isinstance(p, int | float) and not isinstance(p, bool)]
    return sum(numbers) if numbers else None


def _round_ms(timings: Mapping[str, Any], position: int) -> float | None:
    rounds = timings.get("rounds")
    if not isinstance(rounds, list) or position >= len(rounds):
        return None
    value = rounds[position]
    if isinstance(value, dict):
        value = value.get("elapsed_s", value.get("duration_s"))
    if isinstance(value, int | float) and not isinstance(value, bool):
        return 1000.0 * float(value)
    return None


def _facts(exchange: Exchange, wire: str, round_ms: float | None) -> StepFacts:
    source: str | None = "llama.cpp timings"
    latency = _body_ms(exchange)
    if latency is None:
        latency, source = _header_ms(exchange)
    if latency is None and round_ms is not None:
        latency, source = round_ms, "trace timings"
    usage = parse_response(wire, exchange.response_body, exchange.response_headers).usage
    tokens_in, tokens_out = usage.get("input_tokens"), usage.get("output_tokens")
    if source is None and (tokens_in is not None or tokens_out is not None):
        source = "response usage"
    return StepFacts(latency, tokens_in, tokens_out, source)


def _round_tokens(timings: Mapping[str, Any], position: int, key: str) -> int | None:
    rounds = timings.get("rounds")
    if not isinstance(rounds, list) or position >= len(rounds):
        return None
    value = rounds[position].get(key) if isinstance(rounds[position], dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _timings_only(timings: Mapping[str, Any], rounds: int) -> list[StepFacts | None]:
    """Each round's figures from the trace's own timings (an importer's span times and
    tokens), for a trace whose cassette is absent or unreadable."""
    out: list[StepFacts | None] = []
    for i in range(rounds):
        facts = StepFacts(
            _round_ms(timings, i),
            _round_tokens(timings, i, "input_tokens"),
            _round_tokens(timings, i, "output_tokens"),
            "trace timings",
        )
        out.append(None if facts.empty else facts)
    return out


def cassette_step_facts(
    cassette_path: str | None,
    cassettes_dir: Path | None,
    timings: Mapping[str, Any],
    rounds: int,
) -> tuple[list[StepFacts | None], str | None]:
    """One :class:`StepFacts` per model exchange of the cassette a trace names (resolved as
    :func:`resolve_evidence_path` does), and a note when the cassette could not be read (which
    file, why). A trace without a cassette gets its per-round timings, if it has any."""
    if not cassette_path:
        return _timings_only(timings, rounds), None
    try:
        path = resolve_evidence_path(cassette_path, cassettes_dir)
        exchanges = read_cassette(path).exchanges
    except (CassetteError, RejudgeError, OSError) as exc:
        return _timings_only(timings, rounds), f"no per-step figures: {exc}"
    facts: list[StepFacts | None] = []
    for exchange in exchanges:
        kind = classify_exchange(exchange)
        if kind.model and kind.wire_format is not None:
            facts.append(_facts(exchange, kind.wire_format, _round_ms(timings, len(facts))))
    return facts, None


def trace_timeline(
    body: Mapping[str, Any],
    case_body: Mapping[str, Any] | None,
    cassette_path: str | None,
    cassettes_dir: Path | None,
    judgment: Mapping[str, Any] | None = None,
) -> Timeline:
    """The timeline of a stored trace (its body and its case's, as the store keeps them), with
    per-step figures from its cassette and, given a judgment body, its verdict and causes."""
    trace = Trace.model_validate(dict(body))
    case = Case.model_validate(dict(case_body)) if case_body else None
    facts, note = cassette_step_facts(
        cassette_path, cassettes_dir, trace.timings, len(trace.rounds)
    )
    return build_timeline(
        trace,
        case,
        facts,
        facts_note=note,
        verdict=None if judgment is None else judgment.get("verdict"),
        causes=[] if judgment is None else list(judgment.get("taxonomy") or []),
        reasons=[] if judgment is None else [str(r) for r in judgment.get("reasons") or []],
    )


def _stored_timeline(
    store: Store, evaluation_id: int, trace_id: int, cassettes_dir: Path | None
) -> Timeline | None:
    detail = store.traces.trace_detail(trace_id)
    if detail is None or detail.body is None:
        return None
    judgment = store.judgments.judgment_body(evaluation_id, trace_id)
    return trace_timeline(
        detail.body, detail.case_body, detail.cassette_path, cassettes_dir, judgment
    )


def failing_timelines(
    store: Store, evaluation_id: int, cassettes_dir: Path | None
) -> Iterator[Timeline]:
    """The timeline of every trace ``evaluation_id`` judged FAIL or AGENT_ERROR, in case
    order, each with its judgment's verdict, causes and reasons."""
    wanted = [
        int(row.trace_id)
        for row in store.judgments.iter_evaluation_rows(evaluation_id)
        if row.verdict in TIMELINE_VERDICTS
    ]
    for trace_id in wanted:
        timeline = _stored_timeline(store, evaluation_id, trace_id, cassettes_dir)
        if timeline is not None:
            yield timeline


def flip_timelines(
    store: Store, comparison: Comparison, cassettes_dir: Path | None
) -> Iterator[Timeline]:
    """The timeline of B's trace of every flip of ``comparison`` (A's when B has none), under
    its evaluation's judgment, in the comparison's flip order."""
    sides = [(int(comparison.b), "b"), (int(comparison.a), "a")]
    for flip in comparison.flips:
        for evaluation_id, _side in sides:
            trace_id = store.traces.evaluation_trace(evaluation_id, flip.case, flip.repetition)
            if trace_id is None:
                continue
            timeline = _stored_timeline(store, evaluation_id, trace_id, cassettes_dir)
            if timeline is not None:
                yield timeline
                break
