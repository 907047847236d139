"""The shared real-world corpus: every exchange's calls, in order, with parsed arguments, are
what the file holds (expectations written down by reading the files, in data/)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rejudge.recorder import model_exchanges, read_cassette, trace_of

REAL = Path("/work/shared/real-cassettes")
EXPECTED: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "shared_corpus_calls.json").read_text(encoding="utf-8")
)
FILES = sorted(k for k in EXPECTED if not k.startswith("_"))

pytestmark = pytest.mark.skipif(
    not REAL.is_dir(), reason="the shared corpus /work/shared/real-cassettes is absent"
)


def test_the_expectations_cover_the_whole_corpus() -> None:
    on_disk = sorted(str(p.relative_to(REAL)) for p in REAL.glob("*/*.yaml"))
    assert on_disk == FILES


@pytest.mark.parametrize("name", FILES)
def test_each_exchange_holds_the_calls_of_its_file(name: str) -> None:
    cassette = read_cassette(REAL / name)
    exchanges = model_exchanges(cassette.exchanges)
    got = [
        [[c.id, c.name, c.arguments] for c in (m.turn.calls if m.turn else [])] for m in exchanges
    ]
    assert got == EXPECTED[name]
    for m in exchanges:
        assert m.turn is not None and all(c.parse_error is None for c in m.turn.calls)
    # the trace keeps them all, in the same order, and nothing else
    trace = trace_of(cassette, "c", 0)
    assert trace.status == "completed"
    assert [[c.id, c.name, c.arguments] for c in trace.calls] == [
        call for turn in EXPECTED[name] for call in turn
    ]
