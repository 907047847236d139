"""Shared helpers of the importer tests: the real span files, OTLP built from spans, and the
shipped cassettes whose model called tools (one conversation kept in several formats)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import yaml

OTEL_DATA = Path(__file__).resolve().parents[1] / "data" / "otel"
ANY_AGENT = sorted((OTEL_DATA / "any-agent").glob("*_trace.json"))
GENAI_FIXTURES = OTEL_DATA / "openinference-genai"
REPO = OTEL_DATA.parents[2]


def tool_call_cassettes() -> list[Path]:
    """The shipped cassettes of an OpenAI-compatible server (llama.cpp's, serving SmolLM2)
    whose model called tools and whose every exchange succeeded (a recorded 500 is a failed
    call, not a conversation)."""
    out = []
    for path in sorted(REPO.glob("cassettes/smollm2-*/*.yaml")):
        interactions = yaml.safe_load(path.read_text(encoding="utf-8"))["interactions"]
        called = any("tool_calls" in str(i["response"]["body"]) for i in interactions)
        if called and all(i["response"]["status"]["code"] == 200 for i in interactions):
            out.append(path)
    return out


LANGFUSE_TRACES = sorted((OTEL_DATA.parent / "langfuse" / "framework-traces").glob("*.trace.json"))


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


# --------------------------------------------------------------------------- chat JSONL

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Get the current weather in a given location",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string"},
                "format": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["location", "format"],
        },
    },
}

# the shape OpenAI's fine-tuning guide documents for function calling: a system prompt, the
# user's question, an assistant turn with tool_calls (arguments a JSON string), the tool's
# answer by tool_call_id, then the assistant's reply; "tools" lists the offered functions
TOOL_LINE: dict[str, Any] = {
    "messages": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "What is the weather in San Francisco?"},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "call_id",
                    "type": "function",
                    "function": {
                        "name": "get_current_weather",
                        "arguments": '{"location": "San Francisco, USA", "format": "celsius"}',
                    },
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_id", "content": '{"temperature": 21}'},
        {"role": "assistant", "content": "It is 21 degrees Celsius in San Francisco."},
    ],
    "tools": [WEATHER_TOOL],
}
PLAIN_LINE = [
    {"role": "system", "content": "Marv is a sarcastic chatbot."},
    {"role": "user", "content": "What's the capital of France?"},
    {"role": "assistant", "content": "Paris, as if everyone doesn't know that already."},
]


def write_lines(path: Path, *records: Any) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path
