"""Per-step figures read from real cassettes (rejudge.services._timeline): llama.cpp's timings
object, OpenAI's processing-time header, usage read by the wire format; a missing cassette is a
note naming the file, and the timeline still comes from the stored trace. The expected figures
are read from the same files by another path (PyYAML, gzip, json), not typed in."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import yaml
from rejudge.store import Store

from rejudge.services import cassette_step_facts, failing_timelines, trace_timeline
from tests.dashboard.factory import build_store

REPO = Path(__file__).resolve().parents[2]
LLAMA = REPO / "cassettes/sweep-SmolLM2-135M-Instruct-c5-d2-s1-plain/fb-001__r0.yaml"
OPENAI = REPO / "suites/data/real-world/simonw-llm/test_tool_use_chain_of_two_calls.yaml"


def _responses(path: Path) -> list[dict]:
    return [i["response"] for i in yaml.safe_load(path.read_text())["interactions"]]


def test_llama_cpp_timings_and_usage_give_each_step_its_figures() -> None:
    facts, note = cassette_step_facts(str(LLAMA), None, {}, 1)
    assert note is None
    bodies = [json.loads(r["body"]["string"]) for r in _responses(LLAMA)]
    assert len(facts) == len(bodies) >= 1
    for got, body in zip(facts, bodies, strict=True):
        assert got is not None
        assert got.source == "llama.cpp timings"
        assert got.latency_ms == body["timings"]["prompt_ms"] + body["timings"]["predicted_ms"]
        assert got.input_tokens == body["usage"]["prompt_tokens"]
        assert got.output_tokens == body["usage"]["completion_tokens"]


def test_the_processing_time_header_times_a_gzip_openai_cassette() -> None:
    facts, note = cassette_step_facts(str(OPENAI), None, {}, 3)
    assert note is None
    responses = _responses(OPENAI)
    assert len(facts) == len(responses) == 3
    for got, response in zip(facts, responses, strict=True):
        usage = json.loads(gzip.decompress(response["body"]["string"]))["usage"]
        assert got is not None
        assert got.source == "openai-processing-ms"
        assert got.latency_ms == float(response["headers"]["openai-processing-ms"][0])
        assert (got.input_tokens, got.output_tokens) == (
            usage["prompt_tokens"],
            usage["completion_tokens"],
        )


def test_a_missing_cassette_is_a_note_naming_it_and_round_timings_still_count(
    tmp_path: Path,
) -> None:
    gone = tmp_path / "gone.yaml"
    timings = {"rounds": [{"elapsed_s": 0.25}, 0.5]}
    facts, note = cassette_step_facts(str(gone), None, timings, 2)
    assert note is not None and str(gone) in note
    assert [f.latency_ms if f else None for f in facts] == [250.0, 500.0]
    assert {f.source for f in facts if f} == {"trace timings"}
    assert cassette_step_facts(None, None, {}, 2) == ([None, None], None)


def test_a_stored_failing_trace_becomes_a_timeline_with_its_judgment(tmp_path: Path) -> None:
    built = build_store(
        f"sqlite:///{tmp_path / 'r.db'}", cases=12, repeat=2, cassettes_dir=tmp_path
    )
    store = Store.open(built.url)
    try:
        evaluation = built.evaluations["a1"]
        rows = list(store.judgments.iter_evaluation_rows(evaluation))
        failing = [r for r in rows if r.verdict in ("FAIL", "AGENT_ERROR")]
        assert failing, "the factory's seed gives run-a failures"
        timelines = list(failing_timelines(store, evaluation, tmp_path))
        assert [(t.case_id, t.repetition, t.verdict) for t in timelines] == [
            (r.case_key, r.repetition, r.verdict) for r in failing
        ]
        detail = store.traces.trace_detail(int(failing[0].trace_id))
        assert detail is not None and detail.body is not None
        # the factory's cassettes hold one response and no timing: one step, no figures
        first = timelines[0]
        assert first.timing_note is not None
        assert first.rounds == len(detail.body["rounds"])
        again = trace_timeline(detail.body, detail.case_body, detail.cassette_path, tmp_path)
        assert again.steps == first.steps and again.verdict is None
    finally:
        store.close()
