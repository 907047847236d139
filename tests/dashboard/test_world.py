"""The pages on the world corpus (cassettes crewAI, langchain, Mirascope, logfire and others
recorded against live providers), through AppTest: every page renders without an exception,
and a provider-side tool's round shows its blocks in the order the provider sent them."""

from __future__ import annotations

import pytest
from rejudge.recorder.wire import content_blocks
from rejudge.store import Store

from rejudge.services import load_exchanges
from tests.dashboard.conftest import WORLD, app_on
from tests.dashboard.factory import Built

SEARCH = "mirascope/test_web_search_tool/anthropic_claude_sonnet_4_0.yaml"
PAGES = [
    "overview",
    "report",
    "compare",
    "grid",
    "rule_impact",
    "trace_viewer",
    "side_by_side",
    "pass_k",
    "agreement",
    "review",
    "live",
    "trends",
]


def test_blocks_come_in_their_recorded_order_labelled() -> None:
    view = load_exchanges(WORLD, SEARCH)
    assert view is not None and view.error is None
    blocks = content_blocks(view.exchanges[0].response, view.exchanges[0].raw_response)
    assert blocks is not None
    kinds = [b.kind for b in blocks]
    # search, its result, then the text that follows it: never glued to the text before
    assert kinds[:3] == ["server_input", "server_result", "text"]
    assert blocks[0].label == "server tool input · web_search"
    assert blocks[1].label.startswith("server tool result · web_search_tool_result")
    texts = [b.value for b in blocks if b.kind == "text"]
    assert texts[0].startswith("Let me search more specifically")
    # adjacent text parts (split at citations) read as one text
    assert all(a != "text" or b != "text" for a, b in zip(kinds, kinds[1:], strict=False))


def test_a_stream_is_rebuilt_in_order_too() -> None:
    view = load_exchanges(WORLD, SEARCH.replace("web_search_tool/", "web_search_tool_stream/"))
    assert view is not None and view.error is None
    blocks = content_blocks(view.exchanges[0].response, view.exchanges[0].raw_response)
    assert blocks is not None and [b.kind for b in blocks][:2] == ["server_input", "server_result"]
    assert blocks[0].value == {"query": "bitcoin price January 1 2026"}


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_on_the_world_corpus(world: Built, page: str) -> None:
    at = app_on(world, page)
    assert not at.error, [e.value for e in at.error]


def test_the_trace_viewer_shows_a_search_round_in_order(world: Built) -> None:
    store = Store.open(world.url)
    try:
        trace = next(
            t
            for t in store.traces.run_traces(world.runs["world"])
            # a case is named by its path under the imported folder
            if t.case_key.rsplit("/", 1)[-1] == "anthropic_claude_sonnet_4_0"
            and "test_web_search_tool/" in (store.traces.trace_detail(t.id).cassette_path or "")
        )
    finally:
        store.close()
    at = app_on(world, "trace_viewer", run=str(world.runs["world"]), trace=str(trace.id))
    captions = [c.value.replace("\\", "") for c in at.caption]
    start = captions.index(
        "The response's blocks in the order the provider sent them (from the cassette)"
    )
    assert captions[start + 1 : start + 4] == [
        "server tool input · web_search",
        "server tool result · web_search_tool_result",
        "text",
    ]


def test_every_trace_of_the_world_corpus_opens(world: Built) -> None:
    """Each of the corpus's traces in the trace viewer, raw exchanges included (a Bedrock
    event stream's body is bytes, shown as text), without an exception."""
    store = Store.open(world.url)
    try:
        ids = [t.id for t in store.traces.run_traces(world.runs["world"])]
    finally:
        store.close()
    at = app_on(world, "trace_viewer", run=str(world.runs["world"]))
    for trace_id in ids:
        at.selectbox(key="tv_trace").set_value(trace_id).run()
        assert not at.exception, (trace_id, [e.value for e in at.exception])


def test_reasoning_shows_where_the_response_holds_it() -> None:
    view = load_exchanges(WORLD, "langchain-openai/test_code_interpreter.yaml.gz")
    assert view is not None and view.error is None
    blocks = content_blocks(view.exchanges[0].response, view.exchanges[0].raw_response)
    assert blocks is not None and blocks[0].kind == "thinking" and blocks[0].label == "reasoning"
    custom = load_exchanges(WORLD, "langchain-openai/test_custom_tool.yaml.gz")
    labels = [b.label for b in content_blocks(custom.exchanges[0].response) or []]
    assert any(label.startswith("tool call · ") for label in labels), labels
