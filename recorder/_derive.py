"""Cassette -> trace as every path derives it: the normalizer, plus what rejudge recorded.

A cassette that rejudge's own loop recorded carries a ``rejudge`` block with the facts its
exchanges cannot show: how the loop ended (a round budget or a timeout leaves no exchange that
says so), which tools retrieval selected, the results of calls never sent back (the last round
when the budget ran out), and the whole run config. :func:`trace_of` honours that block, so
recording, ``replay``, ``renormalize``, ``import cassettes``, ``capture`` and the demo all derive
the same trace, with the same hash, from the same file. A cassette recorded elsewhere has no such
block and is exactly the normalizer's view of its exchanges.

Pure: no store, no clock, no I/O.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from rejudge.recorder._cassettes import (
    CASSETTE_FORMAT,
    CassetteFile,
    Exchange,
    exchanges_from_interactions,
)
from rejudge.recorder._normalizer import normalize_exchanges

from rejudge.model import Case, RunConfig, Trace, TraceError

if TYPE_CHECKING:
    from rejudge.recorder._loop import LoopOutcome

__all__ = [
    "rejudge_version",
    "outcome_meta",
    "cassette_meta",
    "capture_meta",
    "trace_from_cassette",
    "trace_of",
    "run_config_from_meta",
]


@functools.cache
def rejudge_version() -> str:
    try:
        from importlib.metadata import version

        return version("rejudge")
    except Exception:  # pragma: no cover - not installed
        return "0+unknown"


def outcome_meta(outcome: LoopOutcome) -> dict[str, Any]:
    """Facts a cassette cannot show by itself, kept in its ``rejudge`` block (see the module)."""
    tail: list[dict[str, Any]] = []
    if outcome.error is not None and outcome.rounds:
        last = outcome.rounds[-1]
        for position, call in enumerate(last.calls):
            tail.append(
                {
                    "round": last.index,
                    "call": position,
                    "result": call.result,
                    "ok": call.ok,
                    "error": call.error,
                }
            )
    return {
        "status": outcome.status,
        "error": outcome.error.model_dump(mode="json") if outcome.error else None,
        "selected_tools": outcome.selected_tools,
        "tail_results": tail,
    }


def _meta_head(run_name: str, case: Case, repetition: int) -> dict[str, Any]:
    """What every cassette's ``rejudge`` block starts with: its format, the rejudge that wrote
    it, and the run, case and repetition it holds."""
    return {
        "cassette_format": CASSETTE_FORMAT,
        "rejudge_version": rejudge_version(),
        "run": run_name,
        "case": case.id,
        "case_hash": case.hash,
        "repetition": repetition,
    }


def cassette_meta(
    *,
    run_name: str,
    case: Case,
    repetition: int,
    config: RunConfig,
    outcome: LoopOutcome,
) -> dict[str, Any]:
    """The ``rejudge`` block of a cassette the loop recorded."""
    return {
        **_meta_head(run_name, case, repetition),
        "provider": config.provider,
        "model": config.model,
        "stream": config.stream,
        # the whole run config, so shipped cassettes are self-describing: a reader that has
        # only the files (``rejudge demo``, ``import cassettes``) rebuilds the run exactly
        "config": config.model_dump(mode="json"),
        "outcome": outcome_meta(outcome),
    }


def capture_meta(*, run_name: str, case: Case, repetition: int) -> dict[str, Any]:
    """The ``rejudge`` block of a cassette ``capture`` recorded (no outcome: the user's loop)."""
    return {**_meta_head(run_name, case, repetition), "captured": True}


def _apply_outcome(trace: Trace, outcome: dict[str, Any]) -> Trace:
    tails = outcome.get("tail_results") or []
    if not tails:
        return trace
    rounds = list(trace.rounds)
    by_index = {rnd.index: i for i, rnd in enumerate(rounds)}
    for tail in tails:
        i = by_index.get(tail.get("round"))
        if i is None:
            continue
        calls = list(rounds[i].calls)
        position = tail.get("call")
        if not isinstance(position, int) or position >= len(calls):
            continue
        call = calls[position]
        if call.ok is None and call.result is None:
            calls[position] = call.model_copy(
                update={
                    "result": tail.get("result"),
                    "ok": tail.get("ok"),
                    "error": tail.get("error"),
                }
            )
        rounds[i] = rounds[i].model_copy(update={"calls": calls})
    trace = trace.model_copy(update={"rounds": rounds})
    # round-trip through validation so the stored body is exactly what a reader rebuilds
    return Trace.model_validate(trace.model_dump(mode="json"))


def _derive(
    exchanges: list[Exchange],
    meta: dict[str, Any],
    case_id: str,
    repetition: int,
    name_map: dict[str, str] | None,
) -> Trace:
    raw_outcome = meta.get("outcome")
    if not isinstance(raw_outcome, dict):
        # recorded elsewhere (or by capture): the normalizer's view, tool names mapped back
        return normalize_exchanges(exchanges, case_id, repetition, name_map=name_map)
    # rejudge's loop recorded it: its derivation, exactly as recording stored it (the loop
    # already sent the registry's wire names and kept them, so no name map applies)
    error = raw_outcome.get("error")
    selected = raw_outcome.get("selected_tools")
    trace = normalize_exchanges(
        exchanges,
        case_id,
        repetition,
        selected_tools=list(selected) if selected is not None else None,
        error=TraceError.model_validate(error) if error else None,
    )
    return _apply_outcome(trace, raw_outcome)


def trace_from_cassette(
    interactions: list[dict[str, Any]],
    meta: dict[str, Any],
    case_id: str,
    repetition: int,
    *,
    name_map: dict[str, str] | None = None,
) -> Trace:
    """The trace of in-memory interactions (a tape) with the ``rejudge`` block ``meta``."""
    exchanges = exchanges_from_interactions(interactions, f"{case_id}__r{repetition}")
    return _derive(exchanges, meta, case_id, repetition, name_map)


def trace_of(
    cassette: CassetteFile,
    case_id: str | None = None,
    repetition: int | None = None,
    *,
    name_map: dict[str, str] | None = None,
) -> Trace:
    """The trace a cassette file stands for (case and repetition default to its block's)."""
    case = case_id if case_id is not None else str(cassette.meta.get("case") or "")
    rep = repetition if repetition is not None else int(cassette.meta.get("repetition") or 0)
    return _derive(cassette.exchanges, cassette.meta, case, rep, name_map)


def run_config_from_meta(meta: dict[str, Any], source: str) -> RunConfig | None:
    """The run config a rejudge-recorded cassette carries (None for a cassette from elsewhere)."""
    stored = meta.get("config")
    if isinstance(stored, dict):
        try:
            return RunConfig.model_validate(stored)
        except ValueError:
            pass
    if meta.get("case") is None or meta.get("captured"):
        return None  # recorded elsewhere, or by capture (the user's own loop, no run config)
    return RunConfig(
        model=str(meta.get("model") or "unknown"),
        provider=str(meta.get("provider") or "openai"),
        stream=bool(meta.get("stream", False)),
        harness_mode=meta.get("harness_mode") or "production-parity",
        extra={"source": source},
    )
