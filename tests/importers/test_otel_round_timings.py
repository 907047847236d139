"""An OpenTelemetry import gives each round its model span's duration and tokens
(``timings.rounds``, outside the trace's hash), so an imported trace's timeline has per-step
figures as a recorded one does. Checked on mozilla-ai/any-agent's real exports against the
span times read straight from the files."""

from __future__ import annotations

from pathlib import Path

import pytest

from rejudge.importers import read_otel
from rejudge.services import cassette_step_facts
from tests.importers.conftest import ANY_AGENT, spans_of


@pytest.mark.parametrize("path", ANY_AGENT, ids=lambda p: p.stem)
def test_each_round_carries_its_model_span_time_and_tokens(path: Path) -> None:
    [item] = read_otel(path).traces
    trace = item.trace
    llm_spans = sorted(
        (s for s in spans_of(path) if s["name"].startswith("call_llm")),
        key=lambda s: s["start_time"],
    )
    per_round = trace.timings["rounds"]
    assert len(per_round) == len(trace.rounds) == len(llm_spans)
    assert [r["elapsed_s"] for r in per_round] == [
        round((s["end_time"] - s["start_time"]) / 1e9, 6) for s in llm_spans
    ]
    for key in ("input_tokens", "output_tokens"):
        assert sum(r.get(key, 0) for r in per_round) == trace.usage[key]
    # no cassette: the timeline's figures are these
    facts, note = cassette_step_facts(None, None, trace.timings, len(trace.rounds))
    assert note is None
    assert [f.latency_ms if f else None for f in facts] == [
        1000.0 * r["elapsed_s"] for r in per_round
    ]
    assert all(f is not None and f.source == "trace timings" for f in facts)
    assert trace.hash == trace.model_copy(update={"timings": {}}).hash
