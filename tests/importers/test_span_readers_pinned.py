"""Everything the span readers derive from the shipped real exports, pinned: a change made for
speed (issue 38's bar) must not move a trace hash, a stored body, an anomaly, a tool or a model.

Each file's digest is the sha256 of what reading it gives, in order: per trace its id, hash,
full body (timings and source ids included, which the hash leaves out), instruction, models,
providers, tools, anomalies and span ids, then the file's problems. The digests were taken
from the readers as they were before the speed work (main at b08fbbb); a change that means to
derive something else must bump the normalizer version and re-take them, saying why.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rejudge.errors import InvalidInputError
from rejudge.importers import read_otel
from rejudge.importers._langfuse import read_langfuse
from rejudge.importers._otel_messages import unwrap_json
from rejudge.importers._otel_read import OtelTrace
from tests.importers.conftest import ANY_AGENT, GENAI_FIXTURES, LANGFUSE_TRACES, OTEL_DATA, REPO

OTEL_FILES = [
    *ANY_AGENT,
    *sorted(GENAI_FIXTURES.glob("*.json")),
    *sorted((OTEL_DATA / "langwatch").glob("*.json")),
]


def digest(traces: list[OtelTrace], problems: list[str]) -> str:
    out = hashlib.sha256()
    for item in traces:
        derived = {
            "trace_id": item.trace_id,
            "hash": item.trace.hash,
            "body": item.trace.model_dump(mode="json"),
            "instruction": item.instruction,
            "models": item.models,
            "providers": item.providers,
            "tools": [t.model_dump(mode="json") for t in item.tools],
            "anomalies": item.anomalies,
            "span_ids": item.span_ids,
        }
        out.update(json.dumps(derived, sort_keys=True).encode())
    out.update(json.dumps(problems).encode())
    return out.hexdigest()[:16]


PINNED_OTEL: dict[str, str] = {
    "AGNO_trace.json": "fcb0c958d6243d80",
    "GOOGLE_trace.json": "5bb2d4cb1e7756ad",
    "LANGCHAIN_trace.json": "756380e0092679dd",
    "LLAMA_INDEX_trace.json": "46c24c32a44dc83e",
    "OPENAI_trace.json": "ca21b033a699ff4d",
    "SMOLAGENTS_trace.json": "3e4d5c3b746c1a04",
    "TINYAGENT_trace.json": "f73b434ac9d3b112",
    "openinference_client_span_input_output_only.json": "e063befaba33790d",
    "openinference_client_span_tool_calls.json": "bd2861394c8675d5",
    "otel_genai_client_span_tool_calls.json": "5f415b9287519b27",
    "otel_genai_deprecated_client_span_tool_calls.json": "6756c0c59641be84",
    "otel_genai_tool_execution_span.json": "0af95eeebbd42289",
    "fastapi.json": "884f24392a3e7cdb",
    "genai-anthropic-blocks.json": "0357db8bf80628b7",
    "genai-parts.json": "042ffe3ccc1e1753",
    "genai-tool-operation.json": "754518a67bb08ab4",
    "openinference-openai.json": "29a857f2ec8c3d41",
    "openllmetry-langchain.json": "1eb68c5cd8899bc5",
    "openllmetry-openai.json": "2dd081f008393021",
    "spring-ai.json": "862b661fea367384",
    "strands-agents-trace-v1_14.json": "cead4314e4508264",
    "strands-agents-trace.json": "17a07e5408834494",
    "strands-trace.json": "98b5b295c731e842",
    "trace-with-exception.json": "7a1462a6c638f1d4",
}
PINNED_LANGFUSE: dict[str, str] = {
    "agno-2025-06-11.trace.json": "224bc58f9595bca3",
    "autogen-2025-06-06.trace.json": "599830d14f5ad20c",
    "beeai-2025-08-01.trace.json": "174857bd18350fb2",
    "claude-agent-2025-12-22.trace.json": "e35dd48872eff959",
    "crewai-2025-07-11.trace.json": "a2b46a6aa217764a",
    "csharp-agent-with-gemini-2026-03-09.trace.json": "22d87722541480fe",
    "google-adk-2025-08-28.trace.json": "c0b592336439254c",
    "google-gemini-2025-08-01.trace.json": "13cec34c27279033",
    "koog-2025-08-26.trace.json": "91ee954c7a1b5ba3",
    "langgraph-js-2025-10-30.trace.json": "146b44397f13bdbf",
    "langgraph-python-2025-08-22.trace.json": "7f38ede99e9feb40",
    "llamaindex-2025-06-05.trace.json": "0f6a8a8a03a574df",
    "microsoft-agent-2025-12-17.trace.json": "c0503b538a40fb24",
    "openai-agents-2025-09-30.trace.json": "f652d24f924e9ebb",
    "pydantic-ai-2025-06-06.trace.json": "7c436a6cf06f3f30",
    "pydantic-ai-tools-2025-06-06.trace.json": "2434328c3eb5c972",
    "pydantic-ai-tools-2025-12-04.trace.json": "7b2c6b667b080ac4",
    "pydantic-ai-with-gemini-2025-12-24.trace.json": "9bd51dad3b030615",
    "vercel-aisdk-2025-11-17.trace.json": "92dc86d4ec94f45d",
    "vertex-ai-2025-08-01.trace.json": "9a708fab952d7069",
}


def test_every_shipped_file_is_pinned() -> None:
    assert sorted(PINNED_OTEL) == sorted(p.name for p in OTEL_FILES)
    assert sorted(PINNED_LANGFUSE) == sorted(p.name for p in LANGFUSE_TRACES)


@pytest.mark.parametrize("path", OTEL_FILES, ids=lambda p: p.name)
def test_otel_reading_is_unchanged(path: Path) -> None:
    try:
        read = read_otel(path)
    except InvalidInputError as exc:  # some hold spans without ids: the refusal is pinned too
        assert digest([], [str(exc).replace(str(REPO), "")]) == PINNED_OTEL[path.name]
        return
    assert digest(read.traces, read.problems) == PINNED_OTEL[path.name]


@pytest.mark.parametrize("path", LANGFUSE_TRACES, ids=lambda p: p.name)
def test_langfuse_reading_is_unchanged(path: Path) -> None:
    read = read_langfuse(path)
    assert (
        digest(read.traces, [*read.problems, json.dumps(read.names)]) == PINNED_LANGFUSE[path.name]
    )


def _unwrap_reference(value: Any, depth: int = 3) -> Any:
    """unwrap_json as first written: strip, and parse what starts like a JSON value."""
    for _ in range(depth):
        if not isinstance(value, str):
            return value
        text = value.strip()
        if not text or text[0] not in '{["':
            return value
        try:
            value = json.loads(text)
        except ValueError:
            return value
    return value


SPACE = st.sampled_from(["", " ", "\n", "\t", "\x0c", "\u00a0"])
CORE = st.one_of(
    st.text(max_size=8),
    st.sampled_from(['{"a": 1}', '"x"', '"{\\"b\\": [1]}"', '[1, "2"]', "{bad", "[", '"']),
)


@settings(max_examples=500, deadline=None)
@given(SPACE, CORE, SPACE, st.integers(1, 3))
def test_unwrap_json_without_copying_is_the_stripping_one(
    before: str, core: str, after: str, depth: int
) -> None:
    value = before + core + after
    assert unwrap_json(value, depth) == _unwrap_reference(value, depth)
