"""Cassette files: scrubbing, atomic writes, the JSON-body matcher, clear errors, and a scan of
every cassette the project ships."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from rejudge.recorder import RetryPolicy, Tape, differing_fields, parse_retry_after
from rejudge.recorder import scrub_body as _scrub_body
from rejudge.recorder._cassettes import (
    _KEY_PATTERN,
    REDACTED,
    SECRET_REQUEST_HEADERS,
    SECRET_RESPONSE_HEADERS,
    CassetteError,
    read_cassette,
    scrub_interaction,
    scrub_text,
    write_cassette,
)

REPO = Path(__file__).resolve().parents[2]


def interaction(body: dict[str, Any], **headers: str) -> dict[str, Any]:
    return {
        "request": {
            "method": "POST",
            "uri": "https://api.openai.com/v1/chat/completions",
            "body": json.dumps(body),
            "headers": {k.replace("_", "-"): [v] for k, v in headers.items()},
        },
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": {
                "Set-Cookie": ["a=b"],
                "OpenAI-Organization": ["org-x"],
                "x-request-id": ["r1"],
            },
            "body": {"string": '{"ok": true, "echo": "sk-abcdefghijklmnopqrstuvwx"}'},
        },
    }


def test_scrub_redacts_every_secret_header_any_case_and_keys_in_bodies() -> None:
    headers = {
        name.upper() if i % 2 else name: f"value-{i}"
        for i, name in enumerate(sorted(SECRET_REQUEST_HEADERS))
    }
    clean = scrub_interaction(interaction({"k": "sk-ant-api03-abcdefghijklmnopqrstu"}, **headers))
    kept = {name.lower() for name in clean["request"]["headers"]}
    assert not kept & SECRET_REQUEST_HEADERS
    assert "Set-Cookie" not in clean["response"]["headers"]
    assert "OpenAI-Organization" not in clean["response"]["headers"]
    assert clean["response"]["headers"]["x-request-id"] == ["r1"]
    assert (
        "sk-" not in clean["request"]["body"] and "sk-" not in clean["response"]["body"]["string"]
    )


@given(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzABC0123456789_-", min_size=16, max_size=40),
    st.text(max_size=30),
)
def test_scrub_text_never_leaves_a_key(key: str, around: str) -> None:
    text = f"{around} sk-{key} {around}"
    once = scrub_text(text)
    assert f"sk-{key}" not in once
    assert scrub_text(once) == once  # idempotent


@given(
    st.lists(
        st.sampled_from(["sk-", "sk", "-", "k", "s", "x", " ", "é", "0123456789abcdefgh", "\n"]),
        max_size=30,
    ).map("".join)
)
def test_scrub_fast_path_gives_what_the_pattern_alone_gives(text: str) -> None:
    assert scrub_text(text) == _KEY_PATTERN.sub(REDACTED, text)
    raw = text.encode("utf-8")
    assert _scrub_body(raw) == _KEY_PATTERN.sub(REDACTED, text).encode("utf-8")


def test_write_is_atomic_and_leaves_no_temp_on_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "run" / "c__r0.yaml"
    write_cassette(target, [interaction({"a": 1})], {"case": "c"})
    before = target.read_bytes()

    def boom(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        write_cassette(target, [interaction({"a": 2})], {"case": "c"})
    assert target.read_bytes() == before  # the old cassette is intact
    assert [p.name for p in target.parent.iterdir()] == ["c__r0.yaml"]  # no temp left behind


def test_written_cassette_is_scrubbed_even_if_the_caller_forgot(tmp_path: Path) -> None:
    target = tmp_path / "x.yaml"
    digest = write_cassette(
        target, [interaction({"a": 1}, authorization="Bearer sk-abcdefghijklmnopqrstuvwx")], {}
    )
    text = target.read_text()
    assert "Bearer" not in text and "org-x" not in text and "a=b" not in text
    loaded = read_cassette(target)
    assert loaded.sha256 == digest
    assert "authorization" not in loaded.interactions[0]["request"]["headers"]


def test_matcher_ignores_volatile_fields_but_not_content() -> None:
    base = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "f", "arguments": "{}"},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "{}"},
        ],
        "user": "u1",
        "metadata": {"run": "a"},
        "stream_options": {"include_usage": True},
    }
    other = json.loads(json.dumps(base))
    other["messages"][1]["tool_calls"][0]["id"] = "call_999"
    other["messages"][2]["tool_call_id"] = "call_999"
    other["user"] = "u2"
    other["metadata"] = {"run": "b"}
    del other["stream_options"]
    a = interaction(base, authorization="x")["request"]
    b = interaction(other, authorization="y")["request"]  # headers never matter
    assert differing_fields(a, b) == []
    other["messages"][2]["content"] = '{"different": 1}'
    assert differing_fields(a, interaction(other)["request"]) == ["body.messages[2].content"]
    moved = dict(a, uri="https://api.openai.com/v1/embeddings")
    assert differing_fields(a, moved) == ["path"]


def test_anthropic_tool_use_ids_are_volatile() -> None:
    def body(tid: str) -> dict[str, Any]:
        return {
            "messages": [
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": tid, "name": "f", "input": {"id": "keep"}}
                    ],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": tid, "content": "x"}],
                },
            ]
        }

    assert (
        differing_fields(
            interaction(body("toolu_1"))["request"], interaction(body("toolu_2"))["request"]
        )
        == []
    )


def test_replay_serves_in_order_and_names_the_nearest_miss() -> None:
    import asyncio

    import httpx
    from rejudge.recorder import ReplayMissError

    first = interaction({"model": "m", "n": 1})
    second = interaction({"model": "m", "n": 2})
    second["response"]["body"]["string"] = '{"second": true}'
    tape = Tape.for_replay([first, second], source="x.yaml")

    async def send(body: dict[str, Any]) -> httpx.Response:
        request = httpx.Request("POST", "https://api.openai.com/v1/chat/completions", json=body)
        return await tape.handle(request, None)

    assert asyncio.run(send({"model": "m", "n": 2})).json() == {"second": True}
    with pytest.raises(ReplayMissError) as err:
        asyncio.run(send({"model": "m", "n": 3}))
    assert err.value.field == "body.n" and "x.yaml" in str(err.value) and "#1" in str(err.value)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("key: [unclosed", "invalid YAML at line"),
        ("just: a mapping", "no 'interactions' list"),
        ("interactions: [1]", "interaction 0 is a int, not a mapping"),
    ],
)
def test_bad_cassettes_give_one_clear_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(content)
    with pytest.raises(CassetteError, match=message) as err:
        read_cassette(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_retry_after_parsing_and_backoff() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=5.0)
    assert [policy.delay(i) for i in range(5)] == [1.0, 2.0, 4.0, 5.0, 5.0]
    assert policy.delay(0, retry_after=500.0) == policy.max_retry_after_s


def _cassette_files() -> list[Path]:
    roots = [REPO / "cassettes"]
    return sorted(p for root in roots if root.exists() for p in root.rglob("*.yaml"))


def test_every_shipped_cassette_is_free_of_secrets() -> None:
    """Scans every cassette the project writes and ships (cassettes/)."""
    for path in _cassette_files():
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert_no_secrets(data, path)


def assert_no_secrets(data: dict[str, Any], path: Path) -> None:
    for interaction in data.get("interactions") or []:
        for name in interaction["request"].get("headers") or {}:
            assert name.lower() not in SECRET_REQUEST_HEADERS, f"{path}: request header {name}"
        for name in interaction["response"].get("headers") or {}:
            assert name.lower() not in SECRET_RESPONSE_HEADERS, f"{path}: response header {name}"
        text = json.dumps(interaction, default=str)
        assert scrub_text(text) == text, f"{path}: an API key in a body"
