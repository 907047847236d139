"""Non-model exchanges: classified, kept in the cassette, never rounds, never a status change."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rejudge.recorder import Exchange, classify_exchange, normalize_exchanges
from rejudge.recorder.wire import detect_wire_format

CHAT_OK = {
    "choices": [{"index": 0, "message": {"content": "done"}, "finish_reason": "stop"}],
}


def _ex(
    method: str, url: str, body: Any = None, status: int = 200, response: Any = None
) -> Exchange:
    return Exchange(
        method=method, url=url, request_body=body, status=status, response_body=response
    )


@pytest.mark.parametrize(
    ("method", "url", "body", "kind"),
    [
        (
            "POST",
            "https://api.openai.com/v1/embeddings",
            {"model": "e", "input": "hi"},
            "embeddings",
        ),
        (
            "POST",
            "https://api.openai.com/v1/moderations",
            {"model": "m", "input": "hi"},
            "moderation",
        ),
        ("POST", "https://api.openai.com/v1/files", None, "files"),
        ("GET", "https://api.openai.com/v1/files/file-1", None, "files"),
        ("POST", "https://api.cohere.com/v2/embed", {"texts": ["a"]}, "embeddings"),
        ("POST", "https://api.cohere.com/v2/rerank", {"query": "a"}, "rerank"),
        ("POST", "https://g.googleapis.com/v1beta/models/e:embedContent", {}, "embeddings"),
        (
            "POST",
            "https://api.anthropic.com/v1/messages/count_tokens",
            {"messages": []},
            "token-count",
        ),
        ("POST", "https://api.tavily.com/search", {"query": "q"}, "search"),
        ("POST", "https://us.i.posthog.com/batch/", {"batch": []}, "telemetry"),
        ("POST", "https://telemetry.crewai.com:4319/v1/traces", None, "telemetry"),
        ("GET", "https://api.openai.com/v1/models", None, "model-listing"),
        ("GET", "https://example.com/health", None, "get"),
        ("POST", "https://example.com/webhook", {"x": 1}, "other"),
    ],
)
def test_non_model_exchanges_are_classified(method: str, url: str, body: Any, kind: str) -> None:
    found = classify_exchange(_ex(method, url, body))
    assert (found.model, found.kind, found.wire_format) == (False, kind, None)
    assert detect_wire_format(url, body) == "unknown"


def test_model_exchanges_name_their_format() -> None:
    ex = _ex(
        "POST", "https://api.openai.com/v1/chat/completions", {"messages": []}, response=CHAT_OK
    )
    found = classify_exchange(ex)
    assert (found.model, found.kind, found.wire_format) == (True, "model", "openai-chat")


def test_non_model_traffic_never_becomes_a_round_nor_changes_the_status() -> None:
    chat = _ex(
        "POST",
        "https://api.openai.com/v1/chat/completions",
        {"model": "m", "messages": [{"role": "user", "content": "go"}]},
        response=CHAT_OK,
    )
    noise = [
        _ex(
            "POST",
            "https://api.openai.com/v1/embeddings",
            {"model": "e", "input": "go"},
            response={"data": [{"embedding": [0.1]}]},
        ),
        _ex("POST", "https://us.i.posthog.com/batch/", {"batch": []}, status=500, response="oops"),
        _ex("GET", "https://api.openai.com/v1/models", status=401, response={"error": "no"}),
    ]
    alone = normalize_exchanges([chat], "c")
    mixed = normalize_exchanges([noise[0], chat, *noise[1:]], "c")
    assert mixed.status == "completed" and len(mixed.rounds) == 1
    assert mixed.hash == alone.hash
    # the embeddings body through a path that names nothing is not a Responses request either
    proxied = normalize_exchanges(
        [_ex("POST", "/proxy", {"model": "e", "input": "go"}, response={"data": []}), chat], "c"
    )
    assert proxied.hash == alone.hash, json.dumps(proxied.model_dump(mode="json"))
