"""The verdict exports (rejudge.judge._verdict_export), read back with OpenTelemetry's protobuf
model and Langfuse's documented schema (tests/verdict_oracles.py), never with the writer."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from rejudge.judge import (
    EVALUATION_EVENT,
    LANGFUSE_SCORES_FORMAT,
    OTEL_EVALUATIONS_FORMAT,
    ExportedVerdict,
    langfuse_score_lines,
    otlp_log_lines,
)

from rejudge.model import (
    SOURCE_LANGFUSE_OBSERVATION_ID,
    SOURCE_LANGFUSE_TRACE_ID,
    SOURCE_OTEL_SPAN_ID,
    SOURCE_OTEL_TRACE_ID,
)
from tests.verdict_oracles import attributes, langfuse_validator, parse_otlp_logs

WHEN = datetime(2026, 12, 6, 4, 30, 15, 123456, tzinfo=UTC)
VALIDATOR = langfuse_validator()


def verdict(**changes: Any) -> ExportedVerdict:
    base: dict[str, Any] = {
        "evaluation": 7,
        "run": "r1",
        "case": "k1",
        "repetition": 0,
        "tier": "golden",
        "rules": "standard@2",
        "verdict": "FAIL",
        "judgment_key": "sha256:" + "1" * 64,
        "trace_hash": "sha256:" + "2" * 64,
        "judged_at": WHEN,
        "taxonomy": ("wrong_arguments",),
        "partial_score": 0.5,
        "reasons": ("order_id: expected 'W441', got 'W448'",),
    }
    base.update(changes)
    return ExportedVerdict(**base)


def otlp_records(verdicts: list[ExportedVerdict]) -> list[Any]:
    lines = [json.dumps(doc) for doc in otlp_log_lines(verdicts, version="9.9")]
    out = []
    for line in lines:
        request = parse_otlp_logs(line)
        for resource in request.resource_logs:
            for scope in resource.scope_logs:
                assert attributes(scope.scope.attributes) == {
                    "rejudge.export.format": OTEL_EVALUATIONS_FORMAT
                }
                assert (scope.scope.name, scope.scope.version) == ("rejudge", "9.9")
                out.extend(scope.log_records)
    return out


def langfuse_events(verdicts: list[ExportedVerdict]) -> list[dict[str, Any]]:
    events = []
    for doc in langfuse_score_lines(verdicts):
        line = json.loads(json.dumps(doc))  # as a file would hold it
        errors = [e.message for e in VALIDATOR.iter_errors(line)]
        assert errors == [], errors
        assert line["metadata"] == {"format": LANGFUSE_SCORES_FORMAT}
        events.extend(line["batch"])
    return events


def test_an_imported_trace_keeps_its_own_trace_and_span_ids() -> None:
    ids = {SOURCE_OTEL_TRACE_ID: "ab" * 16, SOURCE_OTEL_SPAN_ID: "cd" * 8}
    [record] = otlp_records([verdict(source_ids=ids)])
    assert (record.trace_id.hex(), record.span_id.hex()) == ("ab" * 16, "cd" * 8)
    assert record.event_name == EVALUATION_EVENT
    assert record.time_unix_nano == int(WHEN.timestamp() * 1e6) * 1000
    got = attributes(record.attributes)
    assert got["gen_ai.evaluation.name"] == "rejudge.golden"
    assert got["gen_ai.evaluation.score.label"] == "FAIL"
    assert got["gen_ai.evaluation.score.value"] == 0.0
    assert got["gen_ai.evaluation.explanation"].startswith("FAIL under standard@2 (golden)")
    assert "causes: wrong_arguments" in got["gen_ai.evaluation.explanation"]
    assert "expected 'W441', got 'W448'" in got["gen_ai.evaluation.explanation"]
    assert (got["rejudge.case"], got["rejudge.repetition"], got["rejudge.evaluation"]) == (
        "k1",
        0,
        7,
    )
    assert got["rejudge.taxonomy"] == ["wrong_arguments"]
    # Langfuse names a trace sent over OTLP by its trace id and a span by its span id
    events = langfuse_events([verdict(source_ids=ids)])
    assert {(e["body"]["traceId"], e["body"]["observationId"]) for e in events} == {
        ("ab" * 16, "cd" * 8)
    }


def test_a_langfuse_trace_keeps_its_langfuse_ids() -> None:
    ids = {SOURCE_LANGFUSE_TRACE_ID: "lf-trace-1", SOURCE_LANGFUSE_OBSERVATION_ID: "obs-9"}
    events = langfuse_events([verdict(source_ids=ids)])
    assert {(e["body"]["traceId"], e["body"]["observationId"]) for e in events} == {
        ("lf-trace-1", "obs-9")
    }
    no_observation = langfuse_events([verdict(source_ids={SOURCE_LANGFUSE_TRACE_ID: "t"})])
    assert all("observationId" not in e["body"] for e in no_observation)


def test_other_traces_get_ids_derived_the_same_on_every_export() -> None:
    a = verdict(judgment_key="sha256:" + "a" * 64)
    b = verdict(judgment_key="sha256:" + "b" * 64)  # another tier's verdict, same trace
    c = verdict(trace_hash="sha256:" + "3" * 64, judgment_key="sha256:" + "c" * 64)
    first = [(r.trace_id, r.span_id) for r in otlp_records([a, b, c])]
    again = [(r.trace_id, r.span_id) for r in otlp_records([a, b, c])]
    assert first == again
    assert all(len(t) == 16 and len(s) == 8 for t, s in first)
    assert first[0][0] == first[1][0] != first[2][0]  # one trace, one trace id
    assert len({s for _t, s in first}) == 3
    # a malformed source id is not sent on: the derived ids stand in
    bad = verdict(
        judgment_key=a.judgment_key,
        source_ids={SOURCE_OTEL_TRACE_ID: "xyz", SOURCE_OTEL_SPAN_ID: "cd" * 8},
    )
    assert [(r.trace_id, r.span_id) for r in otlp_records([bad])] == [first[0]]
    events = langfuse_events([a])
    assert {e["body"]["traceId"] for e in events} == {first[0][0].hex()}
    assert all("observationId" not in e["body"] for e in events)


def test_a_verdict_gives_a_categorical_a_boolean_and_a_numeric_score() -> None:
    events = langfuse_events([verdict(verdict="PASS", partial_score=1.0)])
    by_name = {e["body"]["name"]: e["body"] for e in events}
    assert {n: (b["dataType"], b["value"]) for n, b in by_name.items()} == {
        "rejudge.golden": ("CATEGORICAL", "PASS"),
        "rejudge.golden.pass": ("BOOLEAN", 1),
        "rejudge.golden.partial_score": ("NUMERIC", 1.0),
    }
    # SKIP and AGENT_ERROR are neither a pass nor a fail; no partial score, no numeric score
    skipped = langfuse_events([verdict(verdict="SKIP", partial_score=None, taxonomy=())])
    assert [(e["body"]["name"], e["body"]["value"]) for e in skipped] == [
        ("rejudge.golden", "SKIP")
    ]
    [record] = otlp_records([verdict(verdict="AGENT_ERROR")])
    assert "gen_ai.evaluation.score.value" not in attributes(record.attributes)
    # the same judgment gives the same score ids (Langfuse updates a score sent again)
    again = langfuse_events([verdict(verdict="PASS", partial_score=1.0)])
    assert [e["body"]["id"] for e in again] == [e["body"]["id"] for e in events]
    assert len({e["id"] for e in events}) == len(events)


def test_large_evaluations_are_split_into_requests() -> None:
    many = [verdict(case=f"k{i}", judgment_key=f"sha256:{i:064x}") for i in range(1201)]
    docs = list(otlp_log_lines(many, version="1"))
    sizes = [len(d["resourceLogs"][0]["scopeLogs"][0]["logRecords"]) for d in docs]
    assert sizes == [500, 500, 201]
    lines = [json.dumps(d) for d in langfuse_score_lines(many)]
    assert sum(len(json.loads(line)["batch"]) for line in lines) == 1201 * 3
    assert max(len(line.encode()) for line in lines) < 3_500_000  # Langfuse's batch limit


def test_an_explanation_is_one_bounded_line() -> None:
    long = verdict(reasons=("a\nreason " * 400,))
    [record] = otlp_records([long])
    text = attributes(record.attributes)["gen_ai.evaluation.explanation"]
    assert len(text) == 2000 and text.endswith("...") and "\n" not in text


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)


@settings(max_examples=60, deadline=None)
@given(
    outcome=st.sampled_from(["PASS", "FAIL", "SKIP", "AGENT_ERROR"]),
    tier=st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True),
    case=_TEXT,
    reasons=st.lists(_TEXT, max_size=3),
    partial=st.none() | st.floats(min_value=0, max_value=1),
    ids=st.sampled_from(["none", "otel", "langfuse"]),
    repetition=st.integers(min_value=0, max_value=2**40),
)
def test_any_verdict_reads_back_in_both_formats(
    outcome: str,
    tier: str,
    case: str,
    reasons: list[str],
    partial: float | None,
    ids: str,
    repetition: int,
) -> None:
    source = {
        "none": {},
        "otel": {SOURCE_OTEL_TRACE_ID: "0f" * 16, SOURCE_OTEL_SPAN_ID: "1e" * 8},
        "langfuse": {SOURCE_LANGFUSE_TRACE_ID: case or "t"},
    }[ids]
    v = verdict(
        verdict=outcome,
        tier=tier,
        case=case,
        reasons=tuple(reasons),
        partial_score=partial,
        source_ids=source,
        repetition=repetition,
    )
    [record] = otlp_records([v])
    got = attributes(record.attributes)
    assert got["gen_ai.evaluation.score.label"] == outcome
    assert got["rejudge.case"] == case and got["rejudge.repetition"] == repetition
    assert got.get("gen_ai.evaluation.score.value") == {"PASS": 1.0, "FAIL": 0.0}.get(outcome)
    assert got.get("rejudge.partial_score") == partial
    events = langfuse_events([v])
    expected = 1 + (outcome in ("PASS", "FAIL")) + (partial is not None)
    assert len(events) == expected
    assert all(e["body"]["metadata"]["case"] == case for e in events)
