"""Detection does not need the URL: every model exchange of the real-world corpus and the
shared corpus is given the same wire format when its URL is redacted (langchain's cassettes
redact every URI, other projects' scrubbers do the same), from its request and response."""

from __future__ import annotations

from pathlib import Path

import pytest
from rejudge.recorder import is_cassette_file, read_cassette
from rejudge.recorder.wire import find_wire_format, make_probe

# the expectations written beside the corpora
_NOT_CASSETTES = {"expected.json", "shared_corpus_calls.json"}
TESTS = Path(__file__).resolve().parents[1]
SHARED = TESTS.parents[1] / "shared" / "real-cassettes"
FILES = sorted(
    p
    for root in (TESTS / "data" / "world", TESTS / "recorder" / "data", SHARED)
    if root.is_dir()
    for p in root.rglob("*")
    if p.is_file() and is_cassette_file(p) and p.name not in _NOT_CASSETTES
)
REDACTED = "**REDACTED**"


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_a_redacted_url_finds_the_format_the_real_one_does(path: Path) -> None:
    for ex in read_cassette(path).exchanges:
        real = find_wire_format(
            make_probe(ex.url, ex.request_body, ex.response_headers, ex.response_body)
        )
        if real is None:
            continue  # not a model exchange (embeddings, telemetry, GETs)
        redacted = find_wire_format(
            make_probe(REDACTED, ex.request_body, ex.response_headers, ex.response_body)
        )
        assert redacted is real, (ex.index, ex.url, real.name, redacted and redacted.name)


def test_the_corpus_is_there() -> None:
    assert len(FILES) >= 80
