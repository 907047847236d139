"""The Langfuse reader on real exports (langfuse/langfuse's framework traces: one real trace per
agent framework, as Langfuse Cloud served them) and on each shape Langfuse writes: the public
API's trace, observation pages and JSONL, the ingestion batch; generations that repeat the
history, tool results paired by id, arguments or order, missing fields, secrets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rejudge.errors import InvalidInputError
from rejudge.importers import detect_importer
from rejudge.importers._langfuse import read_langfuse
from tests.importers.conftest import LANGFUSE_TRACES

# by framework ("koog"), or by file stem where a framework has two ("pydantic-ai-tools-2025-12-04")
TRACES = {p.name.removesuffix(".trace.json"): p for p in LANGFUSE_TRACES}
for _stem, _path in list(TRACES.items()):
    _short = _stem.split("-20")[0]
    if sum(s.startswith(_short + "-20") for s in TRACES) == 1:
        TRACES[_short] = _path


def _called_with(name: str, observation: str) -> Any:
    """The arguments of the one call a generation's output (GenAI parts) holds, from the file."""
    listed = json.loads(TRACES[name].read_text())["observations"]
    output = next(o["output"] for o in listed if o["id"] == observation)
    output = json.loads(output) if isinstance(output, str) else output  # a string, or JSON
    return output[0]["parts"][0]["arguments"]


# two agents answer through an output tool: the C# agent's TOOL observation kept no output
# ("null"); pydantic-ai's never ran as an observation
CSHARP_ANSWER = _called_with("csharp-agent-with-gemini", "cb394d8e10fdda0f")
CRITIC_ANSWER = _called_with("pydantic-ai-tools-2025-12-04", "eb0cc14cf7943ad5")

# what a person reads in each trace: the calls (tool, arguments, the result's first words),
# the user's first words and the last answer's first words (None: the run ends on a call)
EXPECTED: dict[str, tuple[list[tuple[str, Any, str | None]], str, str | None]] = {
    "agno": (
        [("duckduckgo_search", {"query": "currently trending on Twitter"}, "[{'title'")],
        "What is currently trending on Twitter?",
        "To find out what's currently trending on Twitter",
    ),
    "autogen": ([], "system: You are a helpful AI assistant.", "Hello World!"),
    "claude-agent": (
        [
            ("mcp__weather__get_weather", {"city": "Berlin"}, "Weather in Berlin: Cloudy, 59°F"),
            ("mcp__weather__get_weather", {"city": "New York"}, "Weather in New York: Sunny"),
        ],
        "What's the weather like in Berlin and New York?",
        "Great! Here's the current weather for both cities",
    ),
    "crewai": ([], "\nCurrent Task: Define the HTML", "I now can give a great answer"),
    "google-adk": ([("say_hello", {}, "{}")], "hi", "Hello Langfuse 👋!"),
    "google-gemini": ([], "What is Langfuse?", "**Langfuse** is an **open-source"),
    "koog": (
        [
            ("HelloTool", {"name": "Bob"}, "Hello my darling Bob!"),
            ("ByeTool", {"name": "Bob"}, "Bye my dear Bob!"),
        ],
        "Greet and say goodbye to the user",
        "Hello my darling Bob! And, bye my dear Bob!",
    ),
    "langgraph-js": (
        [("get_weather", {"city": "San Francisco"}, "It's always sunny in San Francisco!")],
        "What's the weather in San Francisco?",
        "It's always sunny in San Francisco! \n\nWould you like more details",
    ),
    "langgraph-python": (
        [("Web-Search", {"query": "example"}, "[{'url': 'https://example.com'")],
        "Be helpful!",
        'The search for "example" primarily leads',
    ),
    "llamaindex": ([], "What is Langfuse?", "Langfuse is a tool designed to help developers"),
    "microsoft-agent": (
        [("get_weather", {"location": "Tokyo, Japan"}, "The weather in Tokyo, Japan is stormy")],
        "What's the weather in Tokyo?",
        "Current conditions in Tokyo, Japan: stormy",
    ),
    "openai-agents": (
        [("get_weather", {"city": "Tokyo"}, "The weather in Tokyo is sunny.")],
        "What's the weather in Tokyo?",
        "The weather in Tokyo is currently sunny.",
    ),
    "pydantic-ai": ([], "What is Langfuse?", "Langfuse is a tool designed for observability"),
    "pydantic-ai-tools-2025-06-06": ([], "What is Langfuse?", "Langfuse is a tool designed for"),
    "pydantic-ai-tools-2025-12-04": (
        [
            ("get_pun_suggestion", {"topic": "programming"}, "Pun idea: Play on words"),
            ("get_dad_joke_suggestion", {"topic": "programming"}, "Dad joke idea: Use a classic"),
            ("get_one_liner_suggestion", {"topic": "programming"}, "One-liner idea: Make a quick"),
            ("final_result", CRITIC_ANSWER, None),
        ],
        "Select and call THREE of the available tools",
        None,
    ),
    "csharp-agent-with-gemini": (
        [
            (
                "get_custom_report",
                {
                    "dimensions": ["Campaign"],
                    "filters": {"dateRange": {"from_date": "2025-10-01", "to_date": "2025-12-31"}},
                    "timeDimension": "Month",
                    "metrics": ["Cost", "Displays", "Clicks", "Ctr", "Sales", "Cvr"],
                },
                "{'response_status': 'Error', 'message': 'ERROR: No data found",
            ),
            ("final_result", CSHARP_ANSWER, None),
        ],
        "What are my month over month performance insights the past quarter",
        None,
    ),
    "pydantic-ai-with-gemini": ([], "what is 1+1?", '{"answer": "2", "rationale"'),
    "vercel-aisdk": (
        [("getWeather", {"location": "San Francisco"}, "{'location': 'San Francisco'")],
        "What is the weather like today in San Francisco?",
        None,
    ),
    "vertex-ai": ([], "What is Langfuse?", "**Langfuse** is an **open-source"),
}
MODELS = {
    "claude-agent": "claude-sonnet-4-5-20250929",
    "koog": "gpt-4o",
    "microsoft-agent": "gpt-5-mini-2025-08-07",
    "openai-agents": "gpt-4.1-2025-04-14",
    "vercel-aisdk": "gpt-5",
}


def test_every_framework_trace_is_taken_by_the_langfuse_importer() -> None:
    assert len(LANGFUSE_TRACES) == 20
    for path in LANGFUSE_TRACES:
        found = detect_importer(path)
        assert found.importer.name == "langfuse", path.name
        assert found.detection.reason == "a Langfuse trace with its observations"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_framework_trace_reads_as_a_person_reads_it(name: str) -> None:
    read = read_langfuse(TRACES[name])
    [item] = read.traces
    trace = item.trace
    calls, instruction, final = EXPECTED[name]
    assert [(c.name, c.arguments) for c in trace.calls] == [(n, a) for n, a, _r in calls]
    for call, (_n, _a, result) in zip(trace.calls, calls, strict=True):
        if result is None:  # the file kept no result for this call
            assert call.result is None, call
        else:
            assert call.ok is True and str(call.result).startswith(result), call
    assert item.instruction is not None and item.instruction.startswith(instruction)
    if final is None:
        assert trace.final_text is None and trace.rounds[-1].calls
    else:
        assert trace.final_text is not None and trace.final_text.startswith(final)
    assert trace.usage["input_tokens"] > 0 and trace.timings["latency_s"] > 0
    if name in MODELS:
        assert item.models == [MODELS[name]]
    assert trace.normalizer_version == "langfuse-2"


def test_usage_and_latency_are_langfuses() -> None:
    # claude-agent: four generations, each with its usageDetails (read from the file itself)
    path = TRACES["claude-agent"]
    observations = json.loads(path.read_text())["observations"]
    generations = [o for o in observations if o["type"] == "GENERATION"]
    [item] = read_langfuse(path).traces
    assert item.trace.usage == {
        "input_tokens": sum(o["usageDetails"]["input"] for o in generations),
        "output_tokens": sum(o["usageDetails"]["output"] for o in generations),
        "total_tokens": sum(o["usageDetails"]["total"] for o in generations),
    }
    assert item.trace.usage == {"input_tokens": 34, "output_tokens": 232, "total_tokens": 266}
    # the trace ran from its first observation's start to its last one's end
    assert item.trace.timings["latency_s"] == pytest.approx(7.36, abs=0.001)


def test_reads_that_fall_short_say_so_naming_observation_and_field() -> None:
    [agno] = read_langfuse(TRACES["agno"]).traces
    assert any(
        a.startswith("observation ca136de468e156c9 (GENERATION OpenAIChat.invoke): input: ")
        and "read from the span attributes" in a
        for a in agno.anomalies
    )
    [pydantic] = read_langfuse(TRACES["pydantic-ai-tools-2025-12-04"]).traces
    # pydantic-ai's output tool never runs as a TOOL observation: its result is not in the file
    assert [c.name for c in pydantic.trace.calls][-1] == "final_result"
    assert pydantic.anomalies == [
        "observation eb0cc14cf7943ad5 (GENERATION chat gpt-4o-mini): "
        "result of call 'final_result': not found"
    ]
    [beeai] = read_langfuse(TRACES["beeai"]).traces
    assert beeai.instruction is not None and "Barcelona" in beeai.instruction
    assert any(
        "(GENERATION backend.openai.chat.start-14): output messages: missing" in a
        for a in beeai.anomalies
    )
    # its answer streamed a message per token; Langfuse kept them from the 233rd on
    assert (
        "observation f50f7bbf13112df9 (GENERATION backend.openai.chat.success-16): "
        "llm.output_messages: starts at message 233 (cut short)"
    ) in beeai.anomalies


def test_the_three_joke_tools_called_at_once_get_their_own_results() -> None:
    [item] = read_langfuse(TRACES["pydantic-ai-tools-2025-12-04"]).traces
    first = item.trace.rounds[0]
    assert [(c.name, c.id, str(c.result)[:8]) for c in first.calls] == [
        ("get_pun_suggestion", "call_X0OSgjUukT5inyEQvuZQnHrk", "Pun idea"),
        ("get_dad_joke_suggestion", "call_WxZcCvSDhGT4RJHlcU01k10x", "Dad joke"),
        ("get_one_liner_suggestion", "call_aRaObiWKKt6GzgDkkUl3bu1Q", "One-line"),
    ]


# --------------------------------------------------------------------------- the other shapes


def _download(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(TRACES[name].read_text())
    return data


def _public_api(name: str) -> dict[str, Any]:
    """The trace as ``GET /api/public/traces/{id}`` serves it (input/output as objects)."""
    data = _download(name)
    trace = {k: v for k, v in data["trace"].items() if k != "observations"}
    observations = []
    for o in data["observations"]:
        o = dict(o)
        for key in ("input", "output", "metadata"):
            try:
                o[key] = json.loads(o[key]) if isinstance(o[key], str) else o[key]
            except ValueError:
                pass
        observations.append(o)
    return {**trace, "htmlPath": "/project/p/traces/x", "observations": observations}


@pytest.mark.parametrize("name", ["koog", "claude-agent", "openai-agents"])
def test_every_shape_langfuse_writes_gives_the_same_trace(name: str, tmp_path: Path) -> None:
    original = read_langfuse(TRACES[name]).traces[0].trace
    expected = original.hash
    api = _public_api(name)
    observations = api["observations"]
    shapes: dict[str, str] = {
        "api.json": json.dumps(api),
        "traces.json": json.dumps([api]),
        "page.json": json.dumps({"data": observations, "meta": {"page": 1}}),
        "observations.json": json.dumps(observations),
        "observations.jsonl": "".join(json.dumps(o) + "\n" for o in observations),
        "batch.json": json.dumps(
            {
                "batch": [
                    {"id": "e0", "type": "trace-create", "body": {"id": api["id"]}},
                    *(
                        {
                            "id": f"e{n}",
                            "type": {"GENERATION": "generation-create", "SPAN": "span-create"}.get(
                                o["type"], "observation-create"
                            ),
                            "timestamp": o["startTime"],
                            "body": o,
                        }
                        for n, o in enumerate(observations, start=1)
                    ),
                ]
            }
        ),
    }
    # the blob storage export: ClickHouse's columns and time format, a row per line
    columns = {
        "traceId": "trace_id",
        "parentObservationId": "parent_observation_id",
        "startTime": "start_time",
        "endTime": "end_time",
        "model": "provided_model_name",
        "usageDetails": "usage_details",
        "statusMessage": "status_message",
    }
    rows = [
        {
            columns.get(k, k): (
                v.replace("T", " ").removesuffix("Z") if k in ("startTime", "endTime") and v else v
            )
            for k, v in o.items()
            if k not in ("usage", "costDetails")
        }
        for o in observations
    ]
    shapes["blob-export.jsonl"] = "".join(json.dumps(r) + "\n" for r in rows)
    for file_name, text in shapes.items():
        path = tmp_path / file_name
        path.write_text(text)
        assert detect_importer(path).importer.name == "langfuse", file_name
        [item] = read_langfuse(path).traces
        assert item.trace.hash == expected, file_name
        # times outside the hash: the same instants (ClickHouse's unmarked times are UTC)
        assert item.trace.timings == original.timings, file_name


def test_updates_in_a_batch_complete_the_observation(tmp_path: Path) -> None:
    batch = {
        "batch": [
            {"type": "trace-create", "body": {"id": "t1", "name": "weather"}},
            {
                "type": "generation-create",
                "body": {
                    "id": "g1",
                    "traceId": "t1",
                    "startTime": "2026-01-01T00:00:00Z",
                    "model": "gpt-4o",
                    "input": [{"role": "user", "content": "Weather in Oslo?"}],
                },
            },
            {
                "type": "generation-update",
                "body": {
                    "id": "g1",
                    "endTime": "2026-01-01T00:00:02Z",
                    "output": {"role": "assistant", "content": "Cold."},
                    "usage": {"promptTokens": 7, "completionTokens": 2},
                },
            },
        ]
    }
    path = tmp_path / "batch.json"
    path.write_text(json.dumps(batch))
    read = read_langfuse(path)
    [item] = read.traces
    assert item.trace.final_text == "Cold." and item.instruction == "Weather in Oslo?"
    assert item.trace.usage == {"input_tokens": 7, "output_tokens": 2}
    assert item.trace.timings["latency_s"] == 2.0
    assert read.names == {"t1": "weather"}


def _obs(ident: str, kind: str, start: int, **fields: Any) -> dict[str, Any]:
    return {
        "id": ident,
        "traceId": "t1",
        "type": kind,
        "name": ident,
        "startTime": f"2026-01-01T00:00:{start:02d}Z",
        "endTime": f"2026-01-01T00:00:{start + 1:02d}Z",
        "parentObservationId": "root" if ident != "root" else None,
        **fields,
    }


def test_a_missing_field_is_an_anomaly_naming_observation_and_field(tmp_path: Path) -> None:
    observations = [
        _obs("root", "AGENT", 0),
        _obs(
            "g1",
            "GENERATION",
            1,
            input=[{"role": "user", "content": "Add 2 and 3"}],
            output={
                "role": "assistant",
                "tool_calls": [
                    {"id": "c1", "function": {"name": "add", "arguments": '{"a": 2, "b": 3'}}
                ],
            },
        ),
        _obs("t1", "TOOL", 2, input={"a": 2, "b": 3}, metadata={"toolCallId": "c1"}),
        _obs("g2", "GENERATION", 3, input=[{"role": "user", "content": "Add 2 and 3"}]),
    ]
    del observations[2]["startTime"]
    path = tmp_path / "obs.json"
    path.write_text(json.dumps(observations))
    [item] = read_langfuse(path).traces
    # the model's arguments were cut; the TOOL observation kept what ran, and says so
    [call] = item.trace.calls
    assert (call.name, call.arguments, call.result) == ("add", {"a": 2, "b": 3}, None)
    assert item.anomalies == [
        "observation t1 (TOOL t1): output: missing (Langfuse kept no result)",
        "observation t1 (TOOL t1): startTime: missing or not a time",
        "observation g1 (GENERATION g1): arguments of 'add': not a JSON object (cut short?)",
        "observation g1 (GENERATION g1): arguments of 'add': empty; read from "
        "observation t1 (TOOL t1) (input)",
        "observation g2 (GENERATION g2): output messages: missing (no round for this call)",
    ]


def test_secrets_never_reach_the_trace(tmp_path: Path) -> None:
    key = "sk-proj-" + "A1b2C3d4" * 5
    observations = [
        _obs(
            "g1",
            "GENERATION",
            1,
            input=[{"role": "user", "content": f"my key is {key}"}],
            output={"role": "assistant", "content": "noted"},
            metadata={"attributes": {"http.request.header.authorization": "Bearer abc"}},
        ),
    ]
    path = tmp_path / "obs.jsonl"
    path.write_text(json.dumps(observations[0]) + "\n")
    [item] = read_langfuse(path).traces
    assert key not in json.dumps(item.trace.model_dump()) and key not in str(item.instruction)
    assert item.instruction is not None and item.instruction.startswith("my key is ")


def test_a_file_of_no_langfuse_trace_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text(json.dumps([{"id": "a", "type": "SPAN"}]))  # no traceId
    with pytest.raises(InvalidInputError, match="no Langfuse trace with observations") as exc:
        read_langfuse(path)
    assert "\n" not in str(exc.value) and "names no traceId" in str(exc.value)


# --------------------------------------------------------------------------- properties

_LEAF = st.none() | st.booleans() | st.integers() | st.text(max_size=12)
_JSON = st.recursive(
    _LEAF,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "id",
                    "traceId",
                    "type",
                    "input",
                    "output",
                    "role",
                    "content",
                    "parts",
                    "batch",
                    "observations",
                    "data",
                    "body",
                    "tool_calls",
                    "startTime",
                    "parentObservationId",
                    "usageDetails",
                    "metadata",
                    "trace",
                    "name",
                    "messages",
                    "choices",
                ]
            )
            | st.text(max_size=4),
            inner,
            max_size=5,
        )
    ),
    max_leaves=20,
)
_TYPES = st.sampled_from(["GENERATION", "SPAN", "TOOL", "EVENT", "AGENT", "CHAIN"])


@settings(max_examples=150, deadline=None)
@given(st.lists(_JSON, min_size=1, max_size=4), st.booleans())
def test_any_json_is_read_or_refused_by_the_importer_error(
    tmp_path_factory: Any, documents: list[Any], as_lines: bool
) -> None:
    path = tmp_path_factory.mktemp("lf") / "export.json"
    if as_lines:
        path.write_text("".join(json.dumps(d) + "\n" for d in documents))
    else:
        path.write_text(json.dumps(documents))
    try:
        read = read_langfuse(path)
    except InvalidInputError as exc:
        assert "\n" not in str(exc)
    else:
        assert read.traces
        for item in read.traces:
            item.trace.hash  # noqa: B018 - every value in the trace is JSON
            assert all(a.startswith("observation ") for a in item.anomalies)


_NAMES = st.sampled_from(["search", "lookup", "add"])
_ARGS = st.dictionaries(st.sampled_from(["q", "n", "x"]), st.integers(0, 9) | st.text(max_size=5))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.tuples(_NAMES, _ARGS), min_size=0, max_size=3), min_size=1, max_size=4),
    st.booleans(),
    st.randoms(use_true_random=False),
)
def test_a_generated_observation_tree_round_trips_its_calls(
    tmp_path_factory: Any, turns: list[list[tuple[str, dict[str, Any]]]], with_ids: bool, rng: Any
) -> None:
    """Generations that each repeat the history, a TOOL observation per call (with the call's
    id in its metadata, or none: paired by name and arguments or by order), in any file order:
    the calls, arguments and results come back as generated, in order."""
    observations = [_obs("root", "AGENT", 0)]
    history: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    expected = []
    clock = 1
    turns = [t for t in turns if t] + [[]]  # the last turn answers in text
    for n, calls in enumerate(turns):
        tool_calls = [
            {
                "id": f"c{n}_{m}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
            for m, (name, args) in enumerate(calls)
        ]
        output = {
            "role": "assistant",
            "content": None if calls else "done",
            "tool_calls": tool_calls,
        }
        observations.append(
            _obs(f"g{n}", "GENERATION", clock, input=list(history), output=output, model="m")
        )
        clock += 1
        history.append(output)
        for m, (name, args) in enumerate(calls):
            result = f"r{n}_{m}"
            metadata = {"toolCallId": f"c{n}_{m}"} if with_ids else {}
            observations.append(
                _obs(f"t{n}_{m}", "TOOL", clock, input=args, output=result, metadata=metadata)
            )
            observations[-1]["name"] = name
            history.append({"role": "tool", "tool_call_id": f"c{n}_{m}", "content": result})
            expected.append((name, args, result))
            clock += 1
    rng.shuffle(observations)
    path = tmp_path_factory.mktemp("tree") / "tree.json"
    path.write_text(json.dumps(observations))
    [item] = read_langfuse(path).traces
    got = [(c.name, c.arguments, c.result) for c in item.trace.calls]
    assert got == expected
    assert item.trace.final_text == "done" and item.instruction == "go"
    assert item.anomalies == []


def test_the_langfuse_trace_id_is_kept_for_scores_written_back() -> None:
    from rejudge.model import SOURCE_LANGFUSE_TRACE_ID

    [item] = read_langfuse(TRACES["koog"]).traces
    assert item.trace.source_ids == {SOURCE_LANGFUSE_TRACE_ID: "dff173a675b759ce1b70e522b27d6846"}


def test_an_observation_list_is_no_span_dump_to_the_otel_importer(tmp_path: Path) -> None:
    from rejudge.importers import detect_all

    observations = _download("koog")["observations"]
    listed, lines = tmp_path / "obs.json", tmp_path / "obs.jsonl"
    listed.write_text(json.dumps(observations))
    lines.write_text("".join(json.dumps(o) + "\n" for o in observations))
    for path in (listed, lines):
        said = dict(detect_all(path))
        assert said["langfuse"].accepted and not said["otel"].accepted, path.name


@settings(max_examples=150, deadline=None)
@given(_JSON, _JSON, _JSON, _TYPES)
def test_any_input_output_and_metadata_read_or_become_anomalies(
    tmp_path_factory: Any, given_input: Any, given_output: Any, metadata: Any, kind: str
) -> None:
    """Whatever an integration put in an observation's input, output or metadata (as JSON or
    as the JSON string the v2 API returns), the trace reads: a message, or an anomaly."""
    observations = [
        _obs("root", "AGENT", 0),
        _obs("a", kind, 1, input=given_input, output=given_output, metadata=metadata),
        _obs("b", "GENERATION", 2, input=json.dumps(given_input), output=json.dumps(given_output)),
    ]
    path = tmp_path_factory.mktemp("io") / "obs.json"
    path.write_text(json.dumps(observations))
    [item] = read_langfuse(path).traces
    item.trace.hash  # noqa: B018 - every value in the trace is JSON
    assert all(a.startswith("observation ") for a in item.anomalies)


def test_usage_in_another_unit_is_no_token_count(tmp_path: Path) -> None:
    observations = [
        _obs(
            "g1",
            "GENERATION",
            1,
            input="Say hi",
            output="hi",
            usage={"input": 6, "output": 2, "unit": "CHARACTERS"},
        ),
        _obs("g2", "GENERATION", 3, input="Again", output="hi", usage={"input": 5, "output": 1}),
    ]
    path = tmp_path / "obs.json"
    path.write_text(json.dumps(observations))
    [item] = read_langfuse(path).traces
    assert item.trace.usage == {"input_tokens": 5, "output_tokens": 1}


def test_the_web_apps_other_downloads_give_the_same_trace(tmp_path: Path) -> None:
    """The server's trace download (``{observations, scores}``, each observation with its
    traceId) and the log view's (observations in tree order with a depth, no trace or parent
    id; the file is ``trace-<id>.json``)."""
    api = _public_api("openai-agents")
    original = read_langfuse(TRACES["openai-agents"]).traces[0].trace
    server = tmp_path / "trace-export.json"
    server.write_text(json.dumps({"observations": api["observations"], "scores": []}))
    assert detect_importer(server).importer.name == "langfuse"
    assert read_langfuse(server).traces[0].trace.hash == original.hash

    by_id = {o["id"]: o for o in api["observations"]}

    def depth(o: dict[str, Any]) -> int:
        parent = o.get("parentObservationId")
        return 0 if parent is None else 1 + depth(by_id[parent])

    def tree(parent: str | None) -> list[dict[str, Any]]:
        children = sorted(
            (o for o in api["observations"] if o.get("parentObservationId") == parent),
            key=lambda o: o["startTime"],
        )
        return [x for o in children for x in [o, *tree(o["id"])]]

    rows = [
        {k: o.get(k) for k in ("id", "type", "name", "startTime", "endTime", "input", "output")}
        | {"depth": depth(o), "metadata": o.get("metadata")}
        for o in tree(None)
    ]
    assert len(rows) == len(api["observations"])
    log = tmp_path / f"trace-{api['id']}.json"
    log.write_text(json.dumps(rows))
    assert detect_importer(log).importer.name == "langfuse"
    [item] = read_langfuse(log).traces
    assert item.trace_id == api["id"]
    # the rows keep no usageDetails: the token counts come from the OpenInference attributes
    # Langfuse kept in the metadata, so even they agree
    assert item.trace.hash == original.hash and item.trace.usage["total_tokens"] == 184
