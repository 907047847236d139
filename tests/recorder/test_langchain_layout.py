"""langchain's cassette layout: two parallel top-level lists, ``requests`` and ``responses``.

langchain's VCR serializer writes ``requests[i]`` and ``responses[i]`` apart, bodies as
``!!binary`` and (in langchain-openai) every URI and header value as ``**REDACTED**``, so the
reader pairs the lists and the wire format is found from the bodies alone.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import yaml
from rejudge.recorder import (
    SECRET_REQUEST_HEADERS,
    SECRET_RESPONSE_HEADERS,
    CassetteError,
    parse_cassette,
    read_cassette,
    scrubbed_cassette_bytes,
    trace_of,
)
from rejudge.recorder.wire import find_wire_format, make_probe

WORLD = Path(__file__).resolve().parents[1] / "data" / "world"
REDACTED = "**REDACTED**"


def _chat_response(calls: list[tuple[str, dict]], text: str | None = None) -> bytes:
    message = {
        "role": "assistant",
        "content": text,
        "tool_calls": [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": n, "arguments": json.dumps(a)},
            }
            for i, (n, a) in enumerate(calls)
        ]
        or None,
    }
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }
    return json.dumps(body).encode()


def _doc(requests: list[dict], responses: list[dict]) -> bytes:
    text = yaml.safe_dump({"requests": requests, "responses": responses})
    return gzip.compress(text.encode(), mtime=0)


def _request(body: dict, secret: str = REDACTED) -> dict:
    headers = {name: [secret] for name in SECRET_REQUEST_HEADERS}
    return {
        "body": json.dumps(body).encode(),  # safe_dump writes bytes as !!binary, like langchain
        "headers": {**headers, "content-type": [REDACTED]},
        "method": "POST",
        "uri": REDACTED,
    }


def _response(body: bytes, secret: str = REDACTED) -> dict:
    headers = {name: [secret] for name in SECRET_RESPONSE_HEADERS}
    return {
        "body": {"string": body},
        "headers": {**headers, "Content-Type": [REDACTED]},
        "status": {"code": 200, "message": "OK"},
    }


TOOLS = [{"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}]
ASK = {"role": "user", "content": "What is 2 + 3?"}


def _two_rounds(secret: str = REDACTED) -> bytes:
    first = {"model": "gpt-4o", "messages": [ASK], "tools": TOOLS}
    answer = {"role": "tool", "tool_call_id": "call_0", "content": '{"sum": 5}'}
    echo = {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "call_0",
                "type": "function",
                "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'},
            }
        ],
    }
    second = {"model": "gpt-4o", "messages": [ASK, echo, answer], "tools": TOOLS}
    return _doc(
        [_request(first, secret), _request(second, secret)],
        [
            _response(_chat_response([("add", {"a": 2, "b": 3})]), secret),
            _response(_chat_response([], "2 + 3 = 5"), secret),
        ],
    )


def test_requests_pair_with_responses_by_position_and_bodies_name_the_format() -> None:
    cassette = parse_cassette(_two_rounds(), "lc.yaml.gz")
    assert [e.url for e in cassette.exchanges] == [REDACTED, REDACTED]
    first, second = cassette.exchanges
    assert first.request_body["messages"] == [ASK] and first.status == 200
    assert second.response_body["choices"][0]["message"]["content"] == "2 + 3 = 5"
    trace = trace_of(cassette, case_id="lc", repetition=0)
    assert trace.status == "completed" and trace.error is None
    assert [[(c.name, c.arguments, c.result) for c in r.calls] for r in trace.rounds] == [
        [("add", {"a": 2, "b": 3}, {"sum": 5})],
        [],
    ]
    assert trace.final_text == "2 + 3 = 5"


@pytest.mark.parametrize(
    ("doc", "fragment"),
    [
        ({"requests": [{}], "responses": []}, "1 requests but 0 responses"),
        ({"requests": {}, "responses": []}, "'requests' is a dict, not a list"),
        ({"requests": [], "responses": "x"}, "'responses' is a str, not a list"),
    ],
)
def test_unpaired_lists_are_refused_with_one_line(doc: dict, fragment: str) -> None:
    with pytest.raises(CassetteError) as info:
        parse_cassette(yaml.safe_dump(doc), "lc.yaml")
    assert fragment in str(info.value) and "\n" not in str(info.value)


def test_an_imported_copy_of_this_layout_loses_its_secret_headers() -> None:
    secret = "sk-proj-Abcdefghijklmnop0123456789XYZ"
    original = _two_rounds(secret)
    copy = scrubbed_cassette_bytes(original, "lc.yaml.gz")
    assert copy[:2] == b"\x1f\x8b"  # gzipped stays gzipped
    doc = yaml.safe_load(gzip.decompress(copy))
    for side, secret_names in (
        ("requests", SECRET_REQUEST_HEADERS),
        ("responses", SECRET_RESPONSE_HEADERS),
    ):
        for part in doc[side]:
            assert not {k.lower() for k in part["headers"]} & secret_names
    assert secret.encode() not in gzip.decompress(copy)
    # the copy reads to the same trace
    before = trace_of(parse_cassette(original, "a"), case_id="lc", repetition=0)
    after = trace_of(parse_cassette(copy, "b"), case_id="lc", repetition=0)
    assert after.hash == before.hash


LANGCHAIN = sorted(p for p in WORLD.glob("langchain-*/*.yaml.gz"))


@pytest.mark.parametrize("path", LANGCHAIN, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_redacted_uri_finds_the_format_the_real_one_does(path: Path) -> None:
    # langchain-anthropic and -aws keep their URIs: redacting them must not change what the
    # bodies and responses say (langchain-openai's are redacted already)
    for ex in read_cassette(path).exchanges:
        real = find_wire_format(
            make_probe(ex.url, ex.request_body, ex.response_headers, ex.response_body)
        )
        redacted = find_wire_format(
            make_probe(REDACTED, ex.request_body, ex.response_headers, ex.response_body)
        )
        assert real is not None and redacted is real, (ex.index, ex.url)


def test_import_reads_the_layout_and_its_copy_keeps_no_credential_header(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from rejudge.cli import cli

    src = tmp_path / "src"
    src.mkdir()
    original = WORLD / "langchain-openai/test_custom_tool.yaml.gz"
    (src / original.name).write_bytes(original.read_bytes())
    args = ["--db", f"sqlite:///{tmp_path / 'r.db'}", "--cassettes", str(tmp_path / "cas")]
    result = CliRunner().invoke(
        cli, [*args, "import", "cassettes", str(src), "--name", "lc", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["skipped_files"] == [] and data["inserted"] == 1
    (trace,) = data["traces"]
    assert (trace["status"], trace["calls"]) == ("completed", 2)
    copy = yaml.safe_load(gzip.decompress((tmp_path / "cas" / "lc" / original.name).read_bytes()))
    for side, names in (
        ("requests", SECRET_REQUEST_HEADERS),
        ("responses", SECRET_RESPONSE_HEADERS),
    ):
        for part in copy[side]:
            assert not {k.lower() for k in part["headers"]} & names
