"""Cassettes other open-source projects recorded read to what a person reads in them.

tests/data/world holds vcrpy cassettes that crewAI, langchain-aws, langchain-cohere, langchain-openai,
logfire, Mirascope, openinference and openllmetry recorded against live providers, and Ruby VCR
cassettes of the ruby_llm gem (origins in its README). tests/data/world/expected.json says, per file and read from the file itself: each model
exchange's client calls (name and parsed arguments), its provider-side tool uses and other
choices, the exchanges that are no model call, the conversation's user messages and the final
text. Each file goes through the product's one path (``read_cassette`` then ``trace_of``) and
the trace must say the same.

Files the recorder does not read right yet are strict xfails naming what is missing, so each mark
has to go once that lands.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from rejudge.recorder import is_cassette_file, read_cassette, trace_of

from rejudge.model import Trace

WORLD = Path(__file__).resolve().parents[1] / "data" / "world"
EXPECTED: dict[str, Any] = {
    k: v
    for k, v in json.loads((WORLD / "expected.json").read_text(encoding="utf-8")).items()
    if not k.startswith("_")
}
PERMISSIVE = {"MIT", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause"}

# file -> what the reader gets wrong there, as a strict xfail that must go once it is fixed
# (every file reads right today)
PENDING: dict[str, str] = {}


def _cassettes() -> list[str]:
    return sorted(
        p.relative_to(WORLD).as_posix()
        for p in WORLD.rglob("*")
        if p.is_file() and p.name not in ("expected.json", "README.md")
    )


def _case(rel: str) -> Any:
    marks = []
    if rel in PENDING:
        marks.append(pytest.mark.xfail(strict=True, reason=PENDING[rel]))
    return pytest.param(rel, id=rel, marks=marks)


def _trace(rel: str) -> Trace:
    return trace_of(read_cassette(WORLD / rel), case_id=Path(rel).stem, repetition=0)


def _readme_rows() -> dict[str, tuple[str, str]]:
    """File -> (license, sha256 prefix), from the README's file table."""
    rows: dict[str, tuple[str, str]] = {}
    row = re.compile(r"^\| `([^`]+)` \| `[^`]+` \| ([^|]+) \| .+ \| `([0-9a-f]{16})` \|$")
    for line in (WORLD / "README.md").read_text(encoding="utf-8").splitlines():
        m = row.match(line)
        if m:
            rows[m.group(1)] = (m.group(2).strip(), m.group(3))
    return rows


class _PlainLoader(yaml.SafeLoader):
    """Plain YAML plus Ruby's ``!binary`` tag (kept as its base64 text: only headers are read)."""


_PlainLoader.add_constructor("!binary", lambda loader, node: loader.construct_scalar(node))


def _raw_headers(rel: str) -> list[dict[str, Any]]:
    """Every header block of a file, read with plain YAML so layouts the product rejects count."""
    data = (WORLD / rel).read_bytes()
    if rel.endswith(".gz"):
        data = gzip.decompress(data)
    doc = yaml.load(data, Loader=_PlainLoader)  # noqa: S506 - a SafeLoader subclass
    listed = doc.get("interactions") or doc.get("http_interactions")
    if listed is not None:
        sides = [i[s] for i in listed for s in ("request", "response")]
    else:
        sides = list(doc["requests"]) + list(doc["responses"])
    return [side.get("headers") or {} for side in sides]


def test_every_file_is_in_the_readme_with_a_permissive_license_and_unedited() -> None:
    rows = _readme_rows()
    files = _cassettes()
    assert len(files) >= 40
    assert set(files) == set(rows)
    for rel, (lic, digest) in rows.items():
        assert lic in PERMISSIVE, rel
        assert hashlib.sha256((WORLD / rel).read_bytes()).hexdigest()[:16] == digest, rel


def test_every_file_is_a_cassette_with_expectations() -> None:
    assert set(_cassettes()) == set(EXPECTED)
    assert all(is_cassette_file(WORLD / rel) for rel in _cassettes())


def test_no_file_carries_a_credential() -> None:
    # the files keep only the recording projects' placeholders (README); a real value here
    # would be a leak into this repository
    # ruby_llm's are ``<NAME>`` (``Bearer <AUTH_TOKEN>``, ``<COOKIE>``)
    placeholder = re.compile(
        r"^(<filtered>|[A-Z0-9-]*XXX[A-Z0-9-]*|\**REDACTED\**|(Bearer )?<[A-Z0-9_]+>)$", re.I
    )
    names = {"authorization", "x-api-key", "api-key", "cookie", "set-cookie", "x-goog-api-key"}
    names |= {"openai-organization", "openai-project", "x-amz-security-token"}
    key = re.compile(
        rb"\bsk-(ant-)?[A-Za-z0-9_-]{20,}|\bAKIA[0-9A-Z]{16}\b|\bAIza[0-9A-Za-z_-]{35}"
    )
    for rel in _cassettes():
        for headers in _raw_headers(rel):
            for name, value in headers.items():
                if name.lower() in names:
                    values = value if isinstance(value, list) else [value]
                    assert all(placeholder.match(str(v)) for v in values), (rel, name)
        data = (WORLD / rel).read_bytes()
        assert not key.search(gzip.decompress(data) if rel.endswith(".gz") else data), rel


@pytest.mark.parametrize("rel", [_case(r) for r in sorted(EXPECTED) if "error" not in EXPECTED[r]])
def test_world_cassette_reads_as_a_person_reads_it(rel: str) -> None:
    want = EXPECTED[rel]
    trace = _trace(rel)
    rounds = want["rounds"]
    assert trace.error is None, trace.error
    assert trace.status == "completed"
    assert len(trace.rounds) == len(rounds)
    assert [_calls(r.calls) for r in trace.rounds] == [_want_calls(r["calls"]) for r in rounds]
    assert all(c.parse_error is None for c in trace.calls)
    for got, exp in zip(trace.rounds, rounds, strict=True):
        _check_server_tools(got.server_tools, exp.get("server_tools") or [])
        _check_alternatives(got.alternatives, exp.get("alternatives") or [])
    users = want["user_messages"]
    if len(users) < 2:
        assert trace.user_turns == []  # a single instruction carries no turns
    else:
        got_turns = [(t.before_round, t.position, t.text) for t in trace.user_turns]
        assert got_turns == [(u["before_round"], i, u["text"]) for i, u in enumerate(users)]
    if "final_text" in want:
        assert (trace.final_text or None) == want["final_text"]


def _check_server_tools(got: list[Any], want: list[dict[str, Any]]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        if "type" in w:
            # an OpenAI Responses built-in item: its input holds what the file shows it ran
            assert g.kind == w["type"]
            assert json.dumps(w["shows"])[1:-1] in json.dumps(g.input)
        else:
            assert g.kind == "server_tool_use"
            assert (g.name, g.input) == (w["name"], w["input"])


def _check_alternatives(got: list[Any], want: list[dict[str, Any]]) -> None:
    assert [(a.choice, _calls(a.calls), a.text) for a in got] == [
        (w["choice"], _want_calls(w["calls"]), w["text"]) for w in want
    ]


def _calls(calls: list[Any]) -> list[tuple[str, Any]]:
    # a freeform (custom) tool's input is text, kept whole as the raw argument
    return [(c.name, c.arguments if c.arguments is not None else c.arguments_raw) for c in calls]


def _want_calls(calls: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    return [(c["name"], c["input"] if "input" in c else c["arguments"]) for c in calls]


@pytest.mark.parametrize("rel", [_case(r) for r in sorted(EXPECTED) if "error" in EXPECTED[r]])
def test_a_failure_the_provider_reports_is_the_traces_error(rel: str) -> None:
    want = EXPECTED[rel]["error"]
    trace = _trace(rel)
    assert trace.error is not None
    assert (trace.error.kind, trace.error.round) == (want["kind"], want["round"])
    assert trace.calls == []


@pytest.mark.parametrize("rel", sorted(r for r in EXPECTED if EXPECTED[r]["non_model"]))
def test_non_model_exchanges_stay_in_the_cassette(rel: str) -> None:
    # an embeddings call or a download is part of the evidence, never a round or a failure
    cassette = read_cassette(WORLD / rel)
    model = {r["exchange"] for r in EXPECTED[rel]["rounds"]}
    assert len(cassette.exchanges) == len(model) + len(EXPECTED[rel]["non_model"])
    trace = _trace(rel)
    assert trace.status == "completed" and trace.error is None, trace.error
    assert len(trace.rounds) == len(model)
