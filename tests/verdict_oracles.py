"""Readers of `rejudge export --format otel|langfuse-scores` that owe nothing to rejudge's writer:
OpenTelemetry's own protobuf model and a JSON Schema of Langfuse's documented ingestion format
(tests/data/langfuse/README.md)."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from jsonschema import Draft202012Validator
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

LANGFUSE_SCHEMA = Path(__file__).parent / "data" / "langfuse" / "score-ingestion.schema.json"
_HEX = re.compile(r"[0-9a-f]*\Z")


def _hex_ids_as_base64(value: Any) -> Any:
    # OTLP/JSON writes trace and span ids as hex, where protobuf's JSON mapping of a bytes field
    # is base64 (the OTLP spec's one deviation); the collector converts them the same way before
    # it decodes. A hex id is checked as hex here, so a wrong one fails rather than decodes.
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in ("traceId", "spanId") and isinstance(item, str):
                assert _HEX.match(item), f"{key} is not lowercase hex: {item!r}"
                item = base64.b64encode(bytes.fromhex(item)).decode()
            out[key] = _hex_ids_as_base64(item)
        return out
    if isinstance(value, list):
        return [_hex_ids_as_base64(v) for v in value]
    return value


def parse_otlp_logs(line: str) -> ExportLogsServiceRequest:
    """One line of the otel export as OpenTelemetry's ExportLogsServiceRequest (unknown fields
    refused)."""
    message = ExportLogsServiceRequest()
    json_format.Parse(json.dumps(_hex_ids_as_base64(json.loads(line))), message)
    return message


def plain(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [plain(v) for v in value.array_value.values]
    return getattr(value, kind) if kind else None


def attributes(pairs: Any) -> dict[str, Any]:
    items: list[KeyValue] = list(pairs)
    return {kv.key: plain(kv.value) for kv in items}


def langfuse_validator() -> Draft202012Validator:
    schema = json.loads(LANGFUSE_SCHEMA.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)
