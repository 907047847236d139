"""Reading cassettes of every flavour, and refusing broken files with one clear line."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from rejudge.recorder import CassetteError, normalize_exchanges, read_cassette

from rejudge.errors import RejudgeError

REAL = Path("/work/shared/real-cassettes")


def test_gzip_binary_body_is_decoded() -> None:
    exchanges = read_cassette(REAL / "simonw-llm/test_tool_use_chain_of_two_calls.yaml").exchanges
    assert len(exchanges) == 3
    first = exchanges[0]
    assert first.method == "POST" and first.path == "/v1/chat/completions" and first.status == 200
    assert (
        isinstance(first.response_body, dict) and first.response_body["object"] == "chat.completion"
    )
    assert first.response_header("Content-Encoding") == "gzip"  # header names are case-insensitive
    assert isinstance(first.request_body, dict) and first.request_body["model"]


def test_parsed_body_is_taken_as_is() -> None:
    (first, second) = read_cassette(
        REAL / "pydantic-ai/test_tool_choice_matrix_auto-anthropic.yaml"
    ).exchanges
    assert first.request_body["model"] == "claude-sonnet-4-5"
    assert first.response_body["content"][0]["input"] == {"city": "Paris"}
    assert (
        second.request_body["messages"][2]["content"][0]["tool_use_id"]
        == "toolu_01WN4AuToBnJyXNQXwQBBebj"
    )


def test_sse_body_stays_text() -> None:
    exchanges = read_cassette(REAL / "simonw-llm/test_tools_streaming_variant_a.yaml").exchanges
    assert isinstance(exchanges[0].response_body, str)
    assert exchanges[0].response_body.startswith("data: ")
    assert exchanges[0].response_body.rstrip().endswith("data: [DONE]")


def _cassette(interactions: list) -> dict:
    return {"interactions": interactions, "version": 1}


def _interaction(req_body, resp_body, headers=None, status=200) -> dict:
    return {
        "request": {
            "method": "POST",
            "uri": "https://api.openai.com/v1/chat/completions",
            "body": req_body,
            "headers": {},
        },
        "response": {
            "status": {"code": status, "message": "OK"},
            "headers": headers or {},
            "body": {"string": resp_body},
        },
    }


RESPONSE = {
    "model": "m",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "tool_calls": [{"id": "x", "function": {"name": "f", "arguments": '{"a": 1}'}}]
            },
        }
    ],
}


def test_our_own_gzip_binary_yaml_and_json_cassettes(tmp_path: Path) -> None:
    packed = gzip.compress(json.dumps(RESPONSE).encode())
    doc = _cassette([_interaction('{"messages": []}', packed, {"Content-Encoding": ["gzip"]})])
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(doc))  # bytes -> !!binary
    assert "!!binary" in path.read_text()
    (e,) = read_cassette(path).exchanges
    assert e.response_body == RESPONSE and e.request_body == {"messages": []}
    jpath = tmp_path / "c.json"
    jpath.write_text(
        json.dumps(_cassette([_interaction('{"messages": []}', json.dumps(RESPONSE))]))
    )
    (j,) = read_cassette(jpath).exchanges
    assert j.response_body == RESPONSE
    trace = normalize_exchanges(read_cassette(path).exchanges, "c")
    assert [(c.name, c.arguments) for c in trace.calls] == [("f", {"a": 1})]


def test_betamax_style_cassette(tmp_path: Path) -> None:
    import base64

    doc = {
        "http_interactions": [
            {
                "request": {
                    "method": "post",
                    "uri": "https://api.openai.com/v1/chat/completions",
                    "body": {"string": "{}"},
                    "headers": {},
                },
                "response": {
                    "status": {"code": 200},
                    "headers": {},
                    "body": {
                        "base64_string": base64.b64encode(json.dumps(RESPONSE).encode()).decode()
                    },
                },
            }
        ]
    }
    path = tmp_path / "b.json"
    path.write_text(json.dumps(doc))
    (e,) = read_cassette(path).exchanges
    assert e.method == "POST" and e.response_body == RESPONSE


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("interactions: [\n  - request: {uri: 'x'\n", "invalid YAML at line"),
        ("just: a mapping\n", "no 'interactions' list"),
        ("", "empty file"),
        ("interactions:\n- request: {uri: x}\n", "interaction 0 has no response mapping"),
        ("interactions: 5\n", "not a list"),
        ('{"interactions": [', "invalid JSON"),
    ],
)
def test_corrupt_cassette_names_the_file(tmp_path: Path, content: str, fragment: str) -> None:
    path = tmp_path / "broken_case.yaml"
    path.write_text(content)
    with pytest.raises(CassetteError) as info:
        read_cassette(path)
    message = str(info.value)
    assert isinstance(info.value, RejudgeError)
    assert str(path) in message and fragment in message and "\n" not in message


def test_corrupt_gzip_and_missing_file(tmp_path: Path) -> None:
    doc = _cassette(
        [_interaction("{}", b"\x1f\x8bnot really gzip", {"Content-Encoding": ["gzip"]})]
    )
    path = tmp_path / "badzip.yaml"
    path.write_text(yaml.safe_dump(doc))
    with pytest.raises(
        CassetteError, match="badzip.yaml: interaction 0: gzip body does not decompress"
    ):
        read_cassette(path)
    with pytest.raises(CassetteError, match="nope.yaml: no such cassette file"):
        read_cassette(tmp_path / "nope.yaml")


def test_exchanges_from_loaded_interactions() -> None:
    from rejudge.recorder import exchanges_from_interactions

    doc = yaml.safe_load(
        (REAL / "pydantic-ai/test_tool_choice_matrix_required-openai.yaml").read_text()
    )
    (e,) = exchanges_from_interactions(doc["interactions"])
    assert (
        e.url == "https://api.openai.com/v1/chat/completions"
        and e.request_body["tool_choice"] == "required"
    )
    with pytest.raises(CassetteError, match="mine: interaction 0 has no response mapping"):
        exchanges_from_interactions([{"request": {"uri": "x"}}], "mine")


def test_old_vcrpy_python_unicode_tags() -> None:
    from rejudge.recorder import parse_cassette

    text = (
        "interactions:\n"
        "- request: {uri: !!python/unicode 'https://x/v1/chat/completions', method: POST,"
        " body: !!python/unicode '{\"messages\": []}'}\n"
        "  response: {status: {code: 200}, body: {string: !!python/unicode '{\"choices\": []}'}}\n"
    )
    (e,) = parse_cassette(text, "old.yaml").exchanges
    assert e.url == "https://x/v1/chat/completions" and e.request_body == {"messages": []}
    assert e.response_body == {"choices": []}


_leaf = st.none() | st.booleans() | st.integers() | st.text(max_size=20) | st.binary(max_size=20)
_docs = st.recursive(
    _leaf,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "interactions",
                    "request",
                    "response",
                    "body",
                    "string",
                    "uri",
                    "method",
                    "status",
                    "code",
                    "headers",
                    "parsed_body",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(doc=_docs, raw=st.text(max_size=200))
def test_reader_raises_only_cassette_error(doc: object, raw: str) -> None:
    from rejudge.recorder import parse_cassette

    for text in (yaml.safe_dump(doc), raw, "[" * 5000, "interactions: " + "[" * 3000):
        try:
            parse_cassette(text, "fuzz.yaml")
        except CassetteError as exc:
            assert str(exc).startswith("fuzz.yaml: ") and "\n" not in str(exc)


def test_old_httpx_stub_layout(tmp_path: Path) -> None:
    """vcrpy's old httpx stubs stored responses as {status_code, headers, content}."""
    packed = gzip.compress(json.dumps(RESPONSE).encode())
    doc = _cassette(
        [
            {
                "request": {
                    "method": "POST",
                    "uri": "https://api.openai.com/v1/chat/completions",
                    "body": '{"messages": []}',
                    "headers": {},
                },
                "response": {
                    "status_code": 200,
                    "http_version": "HTTP/1.1",
                    "headers": {"content-encoding": ["gzip"]},
                    "content": packed,
                },
            }
        ]
    )
    path = tmp_path / "stub.yaml"
    path.write_text(yaml.safe_dump(doc))
    (e,) = read_cassette(path).exchanges
    assert e.status == 200 and e.response_body == RESPONSE
    trace = normalize_exchanges(read_cassette(path).exchanges, "stub")
    assert [(c.name, c.arguments) for c in trace.calls] == [("f", {"a": 1})]


def test_gzipped_cassette_file(tmp_path: Path) -> None:
    source = REAL / "simonw-llm/test_tool_use_chain_of_two_calls.yaml"
    packed = tmp_path / "chain.yaml.gz"
    packed.write_bytes(gzip.compress(source.read_bytes()))
    plain, zipped = read_cassette(source), read_cassette(packed)
    assert zipped.exchanges == plain.exchanges and len(zipped.exchanges) == 3
    assert zipped.sha256 != plain.sha256  # the hash is of the file as stored
    broken = tmp_path / "broken.yaml.gz"
    broken.write_bytes(b"\x1f\x8b" + b"not gzip at all")
    with pytest.raises(
        CassetteError, match="broken.yaml.gz: gzipped file does not decompress"
    ) as e:
        read_cassette(broken)
    assert e.value.path == broken


def test_one_error_class_carries_the_path(tmp_path: Path) -> None:
    from rejudge.recorder import _cassettes as cassettes

    path = tmp_path / "x.yaml"
    path.write_text("just: a mapping\n")
    with pytest.raises(cassettes.CassetteError) as info:
        read_cassette(path)
    assert info.value.path == path and isinstance(info.value, RejudgeError)


def test_import_reads_gz_cassettes_and_names_cases(tmp_path: Path) -> None:
    from rejudge.recorder import plan_import

    source = REAL / "simonw-llm/test_tool_use_chain_of_two_calls.yaml"
    (tmp_path / "fc-d1-001__r2.yaml.gz").write_bytes(gzip.compress(source.read_bytes()))
    (planned,) = plan_import(tmp_path)
    assert (planned.case_id, planned.repetition) == ("fc-d1-001", 2)
    assert [c.name for c in planned.trace.calls] == ["lookup_population", "can_have_dragons"]


@pytest.mark.parametrize(
    "rel",
    [
        "pydantic-ai/test_tool_choice_matrix_auto-anthropic.yaml",  # parsed_body
        "simonw-llm/test_tool_use_chain_of_two_calls.yaml",  # gzip !!binary bodies
    ],
)
def test_dashboard_shows_what_the_importer_reads(tmp_path: Path, rel: str) -> None:
    import shutil

    from rejudge.services import load_exchanges

    shutil.copy(REAL / rel, tmp_path / "c.yaml")
    view = load_exchanges(tmp_path, "c.yaml")
    assert view is not None and view.error is None
    exchanges = read_cassette(REAL / rel).exchanges
    assert len(view.exchanges) == len(exchanges)
    first = view.exchanges[0]
    assert first.status == 200 and first.method == "POST"
    assert first.response == exchanges[0].response_body
    assert json.loads(first.raw_response) == exchanges[0].response_body
    assert json.loads(first.raw_request) == exchanges[0].request_body
    bad = tmp_path / "bad.yaml"
    bad.write_text("interactions: 5\n")
    shown = load_exchanges(tmp_path, "bad.yaml")
    assert shown is not None and "not a list" in (shown.error or "")
