"""Shared helpers of the importer tests: the real span files and OTLP built from spans."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

OTEL_DATA = Path(__file__).resolve().parents[1] / "data" / "otel"
ANY_AGENT = sorted((OTEL_DATA / "any-agent").glob("*_trace.json"))
GENAI_FIXTURES = OTEL_DATA / "openinference-genai"


def any_value(value: Any) -> dict[str, Any]:
    """A value as OTLP's typed AnyValue."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [any_value(v) for v in value]}}
    if isinstance(value, dict):
        return {
            "kvlistValue": {"values": [{"key": k, "value": any_value(v)} for k, v in value.items()]}
        }
    return {"stringValue": str(value)}


def _id(number: int, width: int, encoding: str) -> str:
    raw = number.to_bytes(width, "big")
    return raw.hex() if encoding == "hex" else base64.b64encode(raw).decode()


def otlp_span(span: dict[str, Any], encoding: str = "hex") -> dict[str, Any]:
    """An any-agent span (the SDK's dump, integer ids) as an OTLP JSON span."""
    parent = span.get("parent") or {}
    out: dict[str, Any] = {
        "traceId": _id(span["context"]["trace_id"], 16, encoding),
        "spanId": _id(span["context"]["span_id"], 8, encoding),
        "name": span["name"],
        "kind": "SPAN_KIND_INTERNAL",
        "startTimeUnixNano": str(span["start_time"]),
        "endTimeUnixNano": str(span["end_time"]),
        "attributes": [{"key": k, "value": any_value(v)} for k, v in span["attributes"].items()],
        "status": {},
    }
    if parent.get("span_id"):
        out["parentSpanId"] = _id(parent["span_id"], 8, encoding)
    return out


def otlp_export(spans: list[dict[str, Any]], encoding: str = "hex") -> dict[str, Any]:
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": [{"key": "service.name", "value": any_value("t")}]},
                "scopeSpans": [
                    {"scope": {"name": "test"}, "spans": [otlp_span(s, encoding) for s in spans]}
                ],
            }
        ]
    }


def spans_of(path: Path) -> list[dict[str, Any]]:
    spans: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["spans"]
    return spans
