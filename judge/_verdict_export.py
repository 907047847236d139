"""Verdicts back out, in the formats tracers read (pure: typed verdicts in, JSON documents out).

- **OpenTelemetry** (``rejudge-otel-evaluations@1``): each judgment as the GenAI semantic
  conventions' ``gen_ai.evaluation.result`` *event*. The conventions define it as an event, and
  an OpenTelemetry event is a log record with an event name, so it is written as OTLP logs:
  JSON Lines of ``ExportLogsServiceRequest`` (``resourceLogs`` -> ``scopeLogs`` ->
  ``logRecords``), the shape the collector's file exporter writes and its ``otlpjsonfile``
  receiver reads, and the OTLP/HTTP JSON body of ``/v1/logs``. Each record carries the trace id
  and span id of the trace it judges: a trace imported from spans keeps its own (its root
  span's; the conventions ask the event be parented to the operation it evaluates), any other
  trace gets ids derived from its hash and the judgment key, the same on every export.
- **Langfuse** (``rejudge-langfuse-scores@1``): JSON Lines of Langfuse's ingestion request body
  (``{"batch": [score-create events], "metadata"}``, ``POST /api/public/ingestion``), each line
  small enough for one request. A judgment gives a ``CATEGORICAL`` score (the verdict), a
  ``BOOLEAN`` one (passed; PASS and FAIL only) and a ``NUMERIC`` one (the partial score, when
  the tier gave one), on the trace's Langfuse ids: its own when imported from Langfuse, its
  OpenTelemetry ids when imported from spans (Langfuse keeps an OTLP trace id as its trace id
  and a span id as its observation id), derived ids otherwise. Score ids are derived from the
  judgment key, so sending the file again updates the same scores.

The format is named in each document: a scope attribute ``rejudge.export.format`` in OTLP,
the batch's ``metadata.format`` and each score's ``metadata.format`` in Langfuse's.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from rejudge.model import (
    SOURCE_LANGFUSE_OBSERVATION_ID,
    SOURCE_LANGFUSE_TRACE_ID,
    SOURCE_OTEL_SPAN_ID,
    SOURCE_OTEL_TRACE_ID,
)

__all__ = [
    "EVALUATION_EVENT",
    "LANGFUSE_SCORES_FORMAT",
    "OTEL_EVALUATIONS_FORMAT",
    "ExportedVerdict",
    "evaluation_name",
    "langfuse_score_lines",
    "otel_ids",
    "otlp_log_lines",
    "verdict_explanation",
]

OTEL_EVALUATIONS_FORMAT = "rejudge-otel-evaluations@1"
LANGFUSE_SCORES_FORMAT = "rejudge-langfuse-scores@1"
#: the event's name in the GenAI semantic conventions (``model/gen-ai/events.yaml``)
EVALUATION_EVENT = "gen_ai.evaluation.result"

# the collector and Langfuse both cap one request (Langfuse at 3.5 MB a batch): a line each
_OTLP_RECORDS_PER_LINE = 500
_LANGFUSE_EVENTS_PER_LINE = 100
_EXPLANATION_CHARS = 2000
_HEX32 = re.compile(r"[0-9a-f]{32}\Z")
_HEX16 = re.compile(r"[0-9a-f]{16}\Z")
# the namespace of every id rejudge derives (uuid5 of "rejudge.dev")
_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_DNS, "rejudge.dev")


@dataclass(frozen=True)
class ExportedVerdict:
    """One judgment of an evaluation, with what the exports say about it."""

    evaluation: int
    run: str
    case: str
    repetition: int
    tier: str
    rules: str
    verdict: str
    judgment_key: str
    trace_hash: str
    judged_at: datetime
    taxonomy: tuple[str, ...] = ()
    partial_score: float | None = None
    reasons: tuple[str, ...] = ()
    source_ids: Mapping[str, str] = field(default_factory=dict)


def evaluation_name(tier: str) -> str:
    """The evaluation's name (``gen_ai.evaluation.name``, Langfuse's score name): one per tier,
    low cardinality as the conventions ask."""
    return f"rejudge.{tier}"


def verdict_explanation(v: ExportedVerdict) -> str:
    """The verdict, its causes and the judge's reasons, in one line of at most 2,000 chars."""
    parts = [f"{v.verdict} under {v.rules} ({v.tier})"]
    if v.taxonomy:
        parts.append("causes: " + ", ".join(v.taxonomy))
    parts.extend(v.reasons)
    text = "; ".join(" ".join(p.split()) for p in parts)
    return text if len(text) <= _EXPLANATION_CHARS else text[: _EXPLANATION_CHARS - 3] + "..."


def _digest(kind: str, *values: str) -> str:
    return hashlib.sha256("\0".join((kind, *values)).encode("utf-8")).hexdigest()


def otel_ids(v: ExportedVerdict) -> tuple[str, str, bool]:
    """(trace id, span id, whether they are the source's own). A trace imported from spans
    keeps its ids; any other gets a trace id from its hash (every verdict on one trace shares
    it) and a span id from the judgment key."""
    trace_id = v.source_ids.get(SOURCE_OTEL_TRACE_ID, "")
    span_id = v.source_ids.get(SOURCE_OTEL_SPAN_ID, "")
    if _HEX32.match(trace_id) and _HEX16.match(span_id):
        return trace_id, span_id, True
    return _digest("trace", v.trace_hash)[:32], _digest("judgment", v.judgment_key)[:16], False


def _score_value(verdict: str) -> float | None:
    return {"PASS": 1.0, "FAIL": 0.0}.get(verdict)


def _iso(moment: datetime) -> str:
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return aware.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _unix_nanos(moment: datetime) -> int:
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return int(aware.timestamp()) * 1_000_000_000 + aware.microsecond * 1000


# --------------------------------------------------------------------------- OTLP logs


def _any_value(value: str | int | float | bool | list[str]) -> dict[str, Any]:
    """An OTLP JSON ``AnyValue`` (int64 as a decimal string, as the OTLP JSON encoding says)."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [{"stringValue": item} for item in value]}}
    return {"stringValue": value}


def _attributes(pairs: Iterable[tuple[str, Any]]) -> list[dict[str, Any]]:
    return [{"key": k, "value": _any_value(val)} for k, val in pairs if val is not None]


def _log_record(v: ExportedVerdict) -> dict[str, Any]:
    trace_id, span_id, _own = otel_ids(v)
    nanos = str(_unix_nanos(v.judged_at))
    return {
        "timeUnixNano": nanos,
        "observedTimeUnixNano": nanos,
        "eventName": EVALUATION_EVENT,
        "traceId": trace_id,
        "spanId": span_id,
        "attributes": _attributes(
            [
                ("gen_ai.evaluation.name", evaluation_name(v.tier)),
                ("gen_ai.evaluation.score.value", _score_value(v.verdict)),
                ("gen_ai.evaluation.score.label", v.verdict),
                ("gen_ai.evaluation.explanation", verdict_explanation(v)),
                ("rejudge.evaluation", v.evaluation),
                ("rejudge.run", v.run),
                ("rejudge.case", v.case),
                ("rejudge.repetition", v.repetition),
                ("rejudge.rules", v.rules),
                ("rejudge.taxonomy", list(v.taxonomy) if v.taxonomy else None),
                ("rejudge.partial_score", v.partial_score),
                ("rejudge.judgment_key", v.judgment_key),
                ("rejudge.trace_hash", v.trace_hash),
            ]
        ),
    }


def _logs_request(records: list[dict[str, Any]], version: str) -> dict[str, Any]:
    return {
        "resourceLogs": [
            {
                "resource": {"attributes": _attributes([("service.name", "rejudge")])},
                "scopeLogs": [
                    {
                        "scope": {
                            "name": "rejudge",
                            "version": version,
                            "attributes": _attributes(
                                [("rejudge.export.format", OTEL_EVALUATIONS_FORMAT)]
                            ),
                        },
                        "logRecords": records,
                    }
                ],
            }
        ]
    }


def otlp_log_lines(
    verdicts: Iterable[ExportedVerdict], *, version: str
) -> Iterator[dict[str, Any]]:
    """``ExportLogsServiceRequest`` documents of up to 500 evaluation events each (streamed);
    ``version`` is rejudge's, the instrumentation scope's version."""
    batch: list[dict[str, Any]] = []
    for v in verdicts:
        batch.append(_log_record(v))
        if len(batch) == _OTLP_RECORDS_PER_LINE:
            yield _logs_request(batch, version)
            batch = []
    if batch:
        yield _logs_request(batch, version)


# --------------------------------------------------------------------------- Langfuse


def _langfuse_ids(v: ExportedVerdict) -> tuple[str, str | None]:
    """(traceId, observationId or None): Langfuse's own, else the OpenTelemetry ones (what
    Langfuse names a trace sent it over OTLP), else derived."""
    own = v.source_ids.get(SOURCE_LANGFUSE_TRACE_ID)
    if own:
        return own, v.source_ids.get(SOURCE_LANGFUSE_OBSERVATION_ID) or None
    trace_id, span_id, from_source = otel_ids(v)
    return trace_id, (span_id if from_source else None)


def _score_event(
    v: ExportedVerdict, name: str, value: float | str, data_type: str
) -> dict[str, Any]:
    trace_id, observation_id = _langfuse_ids(v)
    body: dict[str, Any] = {
        "id": str(uuid.uuid5(_NAMESPACE, f"score\0{v.judgment_key}\0{name}")),
        "traceId": trace_id,
        "name": name,
        "value": value,
        "dataType": data_type,
        "comment": verdict_explanation(v),
        "metadata": {
            "format": LANGFUSE_SCORES_FORMAT,
            "evaluation": v.evaluation,
            "run": v.run,
            "case": v.case,
            "repetition": v.repetition,
            "tier": v.tier,
            "rules": v.rules,
            "taxonomy": list(v.taxonomy),
            "judgment_key": v.judgment_key,
            "trace_hash": v.trace_hash,
        },
    }
    if observation_id is not None:
        body["observationId"] = observation_id
    return {
        "id": str(uuid.uuid5(_NAMESPACE, f"event\0{v.evaluation}\0{body['id']}")),
        "timestamp": _iso(v.judged_at),
        "type": "score-create",
        "body": body,
    }


def _score_events(v: ExportedVerdict) -> Iterator[dict[str, Any]]:
    name = evaluation_name(v.tier)
    yield _score_event(v, name, v.verdict, "CATEGORICAL")
    passed = _score_value(v.verdict)
    if passed is not None:
        yield _score_event(v, f"{name}.pass", passed, "BOOLEAN")
    if v.partial_score is not None:
        yield _score_event(v, f"{name}.partial_score", float(v.partial_score), "NUMERIC")


def langfuse_score_lines(verdicts: Iterable[ExportedVerdict]) -> Iterator[dict[str, Any]]:
    """Langfuse ingestion request bodies of up to 100 score-create events each (streamed)."""
    batch: list[dict[str, Any]] = []
    for v in verdicts:
        for event in _score_events(v):
            batch.append(event)
            if len(batch) == _LANGFUSE_EVENTS_PER_LINE:
                yield {"batch": batch, "metadata": {"format": LANGFUSE_SCORES_FORMAT}}
                batch = []
    if batch:
        yield {"batch": batch, "metadata": {"format": LANGFUSE_SCORES_FORMAT}}
