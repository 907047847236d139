"""One derivation across formats (issue 38 item 4): a conversation kept as a cassette and the
same conversation kept as spans give the same calls, arguments, results and texts.

Each shipped cassette recorded from an OpenAI-compatible chat-completions server (llama.cpp's,
serving SmolLM2) whose model made tool calls is replayed, with vcrpy and the network blocked,
through the real ``openai`` client instrumented by a real instrumentation into the
OpenTelemetry SDK's in-memory exporter; the spans are written as OTLP JSON (the SDK's own
protobuf encoding, ids as hex as OTLP/JSON says) and read by the ``otel`` importer. The trace
read from the spans must equal the cassette's trace but for the fields named in
:data:`DIFFERS`, which spans cannot hold or hold otherwise.

Two instrumentations, each as its users run it:

- ``opentelemetry-instrumentation-openai-v2`` under the latest GenAI conventions with content
  on the spans (``OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental``,
  ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only``; on the older conventions it
  writes content as log events, not on spans, where no span reader can find it);
- ``openinference-instrumentation-openai`` (Arize Phoenix's), which always records content.

The packages are the ``otel-oracle`` extra; without them these tests skip, naming the package.
"""

from __future__ import annotations

import base64
import json
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rejudge.recorder import read_cassette, trace_of
from rejudge.recorder._capture import capture_cassette

from rejudge.importers import read_otel
from rejudge.model import Case, Golden, Trace
from tests.importers.conftest import tool_call_cassettes

openai = pytest.importorskip("openai", reason="the otel-oracle extra's openai is not installed")
sdk_trace = pytest.importorskip(
    "opentelemetry.sdk.trace", reason="the otel-oracle extra's opentelemetry-sdk is not installed"
)
in_memory = pytest.importorskip(
    "opentelemetry.sdk.trace.export.in_memory_span_exporter",
    reason="the otel-oracle extra's opentelemetry-sdk is not installed",
)
encoder = pytest.importorskip(
    "opentelemetry.exporter.otlp.proto.common.trace_encoder",
    reason="the otel-oracle extra's opentelemetry-exporter-otlp-proto-common is not installed",
)
from google.protobuf import json_format  # noqa: E402 - after the skips that need it
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402

REPO = Path(__file__).resolve().parents[2]

#: the fields a trace read from spans may differ in from its cassette's, by instrumentation:
#: ``case_id`` (spans name no case: the trace id stands in), ``normalizer_version`` (another
#: reader), ``source_ids`` (only spans have span ids), ``timings`` (a replayed cassette keeps
#: none; spans keep their latency); openai-v2 also lacks ``usage.total_tokens`` (the GenAI
#: conventions count input and output tokens only) and records a call's arguments as a parsed
#: object, so ``arguments_raw`` is that object re-serialised, not the model's own text
#: (``arguments`` themselves are equal).
DIFFERS = {
    "openai-v2": {
        "case_id",
        "normalizer_version",
        "source_ids",
        "timings",
        "usage.total_tokens",
        "call.arguments_raw",
    },
    "openinference": {"case_id", "normalizer_version", "source_ids", "timings"},
}


CASSETTES = tool_call_cassettes()


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing may leave the machine: a socket connecting anywhere fails the test."""

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError(f"network access attempted: {args[1:]!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)


@pytest.fixture(params=sorted(DIFFERS))
def instrumented(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[str, Any, Any]]:
    """(name, tracer provider, exporter) with the instrumentation on for the test."""
    name = request.param
    if name == "openai-v2":
        monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
        monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "span_only")
        module = pytest.importorskip(
            "opentelemetry.instrumentation.openai_v2",
            reason="the otel-oracle extra's opentelemetry-instrumentation-openai-v2 "
            "is not installed",
        )
    else:
        module = pytest.importorskip(
            "openinference.instrumentation.openai",
            reason="the otel-oracle extra's openinference-instrumentation-openai is not installed",
        )
    exporter = in_memory.InMemorySpanExporter()
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor = module.OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        yield name, provider, exporter
    finally:
        instrumentor.uninstrument()


def _hex_ids(value: Any) -> Any:
    # protobuf's JSON mapping writes bytes as base64; OTLP/JSON writes trace and span ids as hex
    if isinstance(value, dict):
        return {
            k: (
                base64.b64decode(v).hex()
                if k in ("traceId", "spanId", "parentSpanId") and isinstance(v, str)
                else _hex_ids(v)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_hex_ids(v) for v in value]
    return value


def _replay_as_spans(cassette_path: Path, provider: Any, exporter: Any, tmp: Path) -> Path:
    """Send the cassette's requests through the instrumented client, answered by vcrpy from
    the cassette (record mode none); write the finished spans as an OTLP JSON file."""
    cassette = read_cassette(cassette_path)
    run = cassette_path.parent.name
    (tmp / run).mkdir(parents=True)
    shutil.copy(cassette_path, tmp / run / cassette_path.name)  # the replay never writes ours
    case = Case(
        id=str(cassette.meta["case"]),
        dimension="replay",
        category="replay",
        instruction="(replayed)",
        golden=Golden(calls=[]),
    )
    base_url = str(cassette.interactions[0]["request"]["uri"]).rsplit("/chat/completions", 1)[0]
    client = openai.OpenAI(base_url=base_url, api_key="sk-replay-only", max_retries=0)
    with capture_cassette(case=case, cassettes_dir=tmp, run=run, record_mode="none"):
        with provider.get_tracer("agent").start_as_current_span("invoke_agent agent"):
            for interaction in cassette.interactions:
                client.chat.completions.create(**json.loads(interaction["request"]["body"]))
    request = encoder.encode_spans(exporter.get_finished_spans())
    out = tmp / "spans.json"
    out.write_text(json.dumps(_hex_ids(json_format.MessageToDict(request))), encoding="utf-8")
    return out


def _differences(cassette: Trace, spans: Trace) -> set[str]:
    a, b = cassette.model_dump(mode="json"), spans.model_dump(mode="json")
    out = {k for k in (set(a) | set(b)) - {"rounds", "usage"} if a.get(k) != b.get(k)}
    out |= {
        f"usage.{k}"
        for k in set(a["usage"]) | set(b["usage"])
        if a["usage"].get(k) != b["usage"].get(k)
    }
    assert len(a["rounds"]) == len(b["rounds"])
    for ra, rb in zip(a["rounds"], b["rounds"], strict=True):
        out |= {f"round.{k}" for k in (set(ra) | set(rb)) - {"calls"} if ra.get(k) != rb.get(k)}
        assert len(ra["calls"]) == len(rb["calls"])
        for ca, cb in zip(ra["calls"], rb["calls"], strict=True):
            out |= {f"call.{k}" for k in set(ca) | set(cb) if ca.get(k) != cb.get(k)}
    return out


def test_the_cassettes_hold_tool_calls_to_compare() -> None:
    assert len(CASSETTES) >= 10
    assert {p.parent.name for p in CASSETTES} >= {"smollm2-retail", "smollm2-genome-simple"}


@pytest.mark.parametrize("cassette_path", CASSETTES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_cassette_and_its_spans_give_the_same_calls_results_and_texts(
    cassette_path: Path,
    instrumented: tuple[str, Any, Any],
    no_network: None,
    tmp_path: Path,
) -> None:
    name, provider, exporter = instrumented
    expected = trace_of(read_cassette(cassette_path))
    [read] = read_otel(_replay_as_spans(cassette_path, provider, exporter, tmp_path)).traces
    got = read.trace
    assert read.anomalies == []
    # the calls, arguments, results and texts, whichever way the conversation was kept
    assert [(c.id, c.name, c.arguments, c.result, c.ok, c.error) for c in got.calls] == [
        (c.id, c.name, c.arguments, c.result, c.ok, c.error) for c in expected.calls
    ]
    assert expected.calls  # a cassette with tool calls, or the comparison is empty
    assert [(r.text, r.finish_reason) for r in got.rounds] == [
        (r.text, r.finish_reason) for r in expected.rounds
    ]
    assert (got.final_text, got.status, got.user_turns) == (
        expected.final_text,
        expected.status,
        expected.user_turns,
    )
    assert got.usage["input_tokens"] == expected.usage["input_tokens"]
    assert got.usage["output_tokens"] == expected.usage["output_tokens"]
    # and nothing else differs than the fields named
    assert _differences(expected, got) <= DIFFERS[name]
