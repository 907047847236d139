"""Langfuse exports stream (issue 38 item 7): read a value at a time (JSON Lines by line, one
document by item), grouped by trace id in bounded memory (spilled past a budget), and the traces
are the ones the whole-document read gives, whatever the budget, the shape of the file or where
the reader's window cuts it."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from rejudge.errors import InvalidInputError
from rejudge.importers import LangfuseStream, iter_langfuse
from rejudge.importers import _json_stream as json_stream
from rejudge.importers._json_stream import TooBig, iter_pieces
from rejudge.importers._langfuse import _item_of
from rejudge.importers._langfuse_doc import traces_of_documents
from rejudge.importers._otel_spans import iter_documents
from tests.importers.conftest import LANGFUSE_TRACES

COPIES = 2


def _observations() -> list[dict[str, Any]]:
    """Every observation of the real framework traces, ``COPIES`` times with fresh ids, the
    traces interleaved (a page of observations lists several traces' at once)."""
    per_trace: list[list[dict[str, Any]]] = []
    for copy in range(COPIES):
        for index, path in enumerate(LANGFUSE_TRACES):
            document = json.loads(path.read_text())
            head = document.get("trace", document)
            fresh = []
            for raw in document["observations"]:
                raw = {"traceId": head["id"], **raw}  # some downloads name it on the trace only
                for key in ("id", "traceId", "parentObservationId"):
                    if raw.get(key):
                        raw[key] = f"{raw[key]}-{copy}.{index}"  # two files share a trace
                fresh.append(raw)
            per_trace.append(fresh)
    out = []
    for n in range(max(len(t) for t in per_trace)):
        out.extend(t[n] for t in per_trace if n < len(t))
    return out


def _write(path: Path, shape: str) -> Path:
    observations = _observations()
    if shape == "jsonl":
        text = "".join(json.dumps(o) + "\n" for o in observations)
    elif shape == "list":
        text = json.dumps(observations, indent=2)
    elif shape == "compact-list":  # one line longer than the head: read by the window too
        text = json.dumps(observations)
        assert len(text) > json_stream.HEAD_BYTES
    elif shape == "page":
        text = json.dumps({"meta": {"page": 1}, "data": observations, "x": [1]}, indent=1)
    elif shape == "batch":  # an ingestion request body, pretty-printed: read event by event
        events = [{"type": "observation-create", "body": o} for o in observations]
        # updates that name no trace, placed by the observation their batch created
        events += [
            {"type": "observation-update", "body": {"id": o["id"], "metadata": {"n": n}}}
            for n, o in enumerate(observations[::7])
        ]
        text = json.dumps({"batch": events, "metadata": {"sdk": "t"}}, indent=1)
    elif shape == "traces":  # JSON Lines of the UI's trace downloads, as they are
        text = "".join(json.dumps(json.loads(p.read_text())) + "\n" for p in LANGFUSE_TRACES)
    else:
        raise AssertionError(shape)
    path.write_text(text, encoding="utf-8")
    return path


def _whole(path: Path) -> tuple[list[Any], list[str]]:
    """The non-streamed read: every document parsed whole, then grouped."""
    problems: list[str] = []
    with path.open("rb") as fh:
        documents = [(f"document {n}", d) for n, d in enumerate(iter_documents(fh, problems), 1)]
    out = []
    for trace in traces_of_documents(documents, problems, path.stem.removeprefix("trace-")):
        derived = _item_of(trace, problems)
        if derived is not None:
            out.append(_derived(*derived))
    return out, problems


def _derived(item: Any, name: str | None) -> tuple[Any, ...]:
    body = item.trace.model_dump(mode="json")
    return (item.trace_id, item.trace.hash, body, item.instruction, item.anomalies, name)


def _streamed(path: Path, budget: int) -> tuple[list[Any], LangfuseStream]:
    found = LangfuseStream()
    out = [_derived(item, name) for item, name, _w in iter_langfuse(path, found, budget=budget)]
    return out, found


SHAPES = ["jsonl", "list", "compact-list", "page", "batch", "traces"]


@pytest.mark.parametrize("shape", SHAPES)
def test_streamed_spilled_or_held_reads_as_the_whole_document(tmp_path: Path, shape: str) -> None:
    path = _write(tmp_path / f"export-{shape}.json", shape)
    whole, problems = _whole(path)
    spilled, found_spilled = _streamed(path, budget=1)  # every record waits on disk
    held, found_held = _streamed(path, budget=10**12)
    # the two pydantic-ai downloads are of one trace id: as lines, as Langfuse had them, one
    expected = len(LANGFUSE_TRACES) - 1 if shape == "traces" else COPIES * len(LANGFUSE_TRACES)
    assert len(whole) == expected
    assert found_spilled.spilled > 1 and found_held.spilled == 0
    assert spilled == held == whole
    assert found_spilled.problems == found_held.problems == problems
    assert found_spilled.observations == found_held.observations > 0


@pytest.mark.parametrize("shape", ["list", "page", "batch", "compact-list"])
def test_the_window_cut_anywhere_reads_the_same(
    tmp_path: Path, shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path / f"export-{shape}.json", shape)
    expected, _found = _streamed(path, budget=1)
    # a window of 7 characters cuts every value, string, number and escape somewhere
    monkeypatch.setattr(json_stream, "CHUNK", 7)
    assert _streamed(path, budget=1)[0] == expected


def test_a_page_streams_a_trace_at_a_time(tmp_path: Path) -> None:
    """A long page is not held whole: with a small budget, the records are written out about
    once per budget's worth of the file (each spill empties memory), not once at its end."""
    path = _write(tmp_path / "page.json", "page")
    found = LangfuseStream()
    budget = 4096
    traces = list(iter_langfuse(path, found, budget=budget))
    assert len(traces) == COPIES * len(LANGFUSE_TRACES)
    biggest_piece = max(len(json.dumps(o, indent=1)) for o in _observations()) * 2
    assert found.spilled >= path.stat().st_size // (budget + biggest_piece)


def _pieces(text: str, **options: Any) -> tuple[list[tuple[Any, ...]], list[str]]:
    problems: list[str] = []
    got = [
        (p.document, p.key, p.value, p.item, p.opened)
        for p in iter_pieces(io.BytesIO(text.encode()), problems, **options)
    ]
    return got, problems


def test_pieces_of_each_shape() -> None:
    assert _pieces('[\n 1,\n {"a": [2]},\n "x"\n]\n')[0] == [
        (1, None, 1, True, False),
        (1, None, {"a": [2]}, True, False),
        (1, None, "x", True, False),
    ]
    assert _pieces('{\n "meta": {"n": 1},\n "data": [\n  {"id": 1}\n ],\n "z": 2\n}')[0] == [
        (1, "meta", {"n": 1}, False, False),
        (1, "data", None, True, True),
        (1, "data", {"id": 1}, True, False),
        (1, "z", 2, False, False),
    ]
    assert _pieces('{\n "data": []\n}')[0] == [(1, "data", None, True, True)]
    assert _pieces("{\n}")[0] == [(1, None, {}, False, False)]
    assert _pieces('{"a": 1}\n\n{"b": 2}\n')[0] == [
        (1, None, {"a": 1}, False, False),
        (2, None, {"b": 2}, False, False),
    ]
    assert _pieces("  \n\n") == ([], [])
    # a number cut by the window's edge is read again with more
    assert _pieces("[\n12345678901234567890,\n 3]")[0][0][2] == 12345678901234567890


def test_a_broken_line_or_document_is_a_problem_not_a_traceback() -> None:
    got, problems = _pieces('{"a": 1}\nnot json\n{"b": 2}\n')
    assert [p[2] for p in got] == [{"a": 1}, {"b": 2}]
    assert problems and problems[0].startswith("line 2: not JSON")
    got, problems = _pieces('[\n {"a": 1},\n {"b": \n')
    assert [p[2] for p in got] == [{"a": 1}]
    assert len(problems) == 1 and problems[0].startswith("not JSON and not JSON Lines")
    got, problems = _pieces("[\n 1\n] extra")
    assert len(problems) == 1 and "not JSON and not JSON Lines" in problems[0]


def test_a_value_past_the_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(json_stream, "CHUNK", 16)
    problems: list[str] = []
    text = '[\n "short",\n "' + "x" * 500 + '"\n]'
    pieces = iter_pieces(io.BytesIO(text.encode()), problems, limit=64)
    assert next(pieces).value == "short"
    with pytest.raises(TooBig) as err:
        next(pieces)
    assert err.value.where == "the value at character 13"  # 0-based and err.value.limit == 64
    lines = iter_pieces(io.BytesIO(b'{"a": 1}\n{"b": "' + b"y" * 100 + b'"}\n'), [], limit=64)
    assert next(lines).value == {"a": 1}
    with pytest.raises(TooBig, match="line 2"):
        next(lines)


def test_a_langfuse_value_past_the_limit_is_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path / "page.json", "page")
    monkeypatch.setattr(json_stream, "VALUE_LIMIT", 1024)
    with pytest.raises(InvalidInputError) as err:
        list(iter_langfuse(path, LangfuseStream()))
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"{path}: the value at character")
    assert "is refused" in message


def test_an_ingestion_batch_past_the_limit_streams_an_event_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch is a request body of any size: only one event past the limit is refused, as one
    item of a page is, not the batch as a whole."""
    path = _write(tmp_path / "batch.json", "batch")
    expected, _found = _streamed(path, budget=1)
    largest = max(len(json.dumps(o, indent=1)) for o in _observations()) * 2
    assert path.stat().st_size > 4 * largest
    monkeypatch.setattr(json_stream, "VALUE_LIMIT", largest)
    assert _streamed(path, budget=1)[0] == expected


def test_the_streamed_import_is_the_whole_reads_run(tmp_path: Path) -> None:
    """The import streams (a batch per transaction) and stores what the reader gives."""
    from rejudge.store import Store

    from rejudge.importers import import_langfuse

    path = _write(tmp_path / "export.jsonl", "jsonl")
    store = Store.open(f"sqlite:///{tmp_path / 'store.sqlite'}")
    ticks: list[int] = []
    result = import_langfuse(path, store, progress=ticks.append)
    whole, problems = _whole(path)
    assert result.traces == len(whole) and result.problems == problems
    stored = {t.case_key: t.hash for t in store.traces.iter_trace_rows(result.run_id)}
    assert stored == {trace_id: digest for trace_id, digest, *_rest in whole}
    assert sum(ticks) == 2 * path.stat().st_size  # read, then stored
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert result.run.endswith(digest[:10])
    store.close()


def test_records_are_scrubbed_before_they_are_spilled_to_disk(tmp_path: Path) -> None:
    """A scratch file outlives a process killed with -9: what is spilled holds no secret, no
    more than a stored row does (a secret-named key dropped, a provider key redacted)."""
    key = "sk-" + "A1b2C3d4E5f6G7h8J9k0"
    observations = _observations()
    observations[0]["metadata"] = {"authorization": "Bearer tok-" + "9" * 20, "kept": "yes"}
    observations[-1]["statusMessage"] = f"your key is {key}"
    path = tmp_path / "export.jsonl"
    path.write_text("".join(json.dumps(o) + "\n" for o in observations), encoding="utf-8")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    found = LangfuseStream()
    traces = iter_langfuse(path, found, budget=1, scratch_dir=scratch)
    first = next(traces)  # the records are on disk while the traces are built
    on_disk = b"".join(p.read_bytes() for p in sorted(scratch.rglob("*")) if p.is_file())
    assert found.spilled > 0 and b"your key is" in on_disk  # the records are there, scrubbed
    assert key.encode() not in on_disk
    assert b"tok-99999999" not in on_disk and b"authorization" not in on_disk
    traces.close()
    # and the traces are the ones read without spilling
    held = [_derived(item, name) for item, name, _w in iter_langfuse(path, LangfuseStream())]
    assert _derived(first[0], first[1]) == held[0]
