"""Span files of any size stream (issue 38 item 7): spans are grouped by trace id in bounded
memory (:mod:`rejudge.importers._spill`), and the traces are the same whatever the budget, the
order the spans come in, or how many lines a trace is spread over."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rejudge.errors import InvalidInputError
from rejudge.importers import Groups, OtelStream, iter_otel, read_otel
from rejudge.importers import _otel as otel_module
from tests.importers.conftest import ANY_AGENT, any_value, otlp_export, spans_of


def test_groups_come_back_by_key_in_the_order_added_whatever_the_budget() -> None:
    added = [(f"k{n % 7}", {"n": n, "text": "x" * (n % 5)}) for n in range(200)]
    outputs = []
    for budget in (0, 50, 10**9):
        with Groups[dict[str, Any]](lambda r: r, lambda d: d, budget=budget) as groups:
            for key, record in added:
                groups.add(key, record, weight=10)
            got = list(groups.groups())
            outputs.append((budget, groups.spilled, got))
    (_b0, spilled_small, small), (_b1, spilled_mid, mid), (_b2, spilled_none, whole) = outputs
    assert spilled_small == 200 and spilled_mid > 1 and spilled_none == 0
    assert small == mid == whole
    assert [key for key, _records, _w in whole] == sorted({k for k, _r in added})
    k3 = next(records for key, records, _w in whole if key == "k3")
    assert [r["n"] for r in k3] == [n for n in range(200) if n % 7 == 3]
    assert all(weight == 10 * len(records) for _key, records, weight in whole)


def test_groups_can_come_back_in_the_order_their_keys_first_came() -> None:
    # keys first seen in an order that is not theirs, some only after several spills
    added = [(f"k{(n * 5) % 11}", n) for n in range(120)] + [("a-late", 999), ("k3", 1000)]
    seen = list(dict.fromkeys(key for key, _n in added))
    assert seen != sorted(seen)
    outputs = []
    for budget in (0, 30, 10**9):
        with Groups[int](lambda r: r, lambda d: d, budget=budget, first_seen=True) as groups:
            for key, n in added:
                groups.add(key, n, weight=3)
            outputs.append((groups.spilled, list(groups.groups())))
    (spilled_small, small), (spilled_mid, mid), (spilled_none, whole) = outputs
    assert spilled_small == len(added) and spilled_mid > 1 and spilled_none == 0
    assert small == mid == whole
    assert [key for key, _records, _w in whole] == seen
    assert dict((k, r) for k, r, _w in whole)["k3"] == [n for k, n in added if k == "k3"]


def test_the_scratch_file_is_gone_once_closed(tmp_path: Path) -> None:
    groups = Groups[int](lambda r: r, lambda d: d, budget=0, scratch_dir=tmp_path)
    groups.add("a", 1, 1)
    assert list(tmp_path.iterdir())  # spilled: a scratch folder exists
    assert list(groups.groups()) == [("a", [1], 1)]
    groups.close()
    assert list(tmp_path.iterdir()) == []


def _spread_file(path: Path, copies: int = 3, *, secret: str | None = None) -> Path:
    """The any-agent traces, ``copies`` times with fresh ids, each trace's spans over two lines
    written five traces apart, and the lines of a trace shuffled against its start order."""
    lines: list[str] = []
    later: list[tuple[int, str]] = []
    n = 0
    for _ in range(copies):
        for source in ANY_AGENT:
            n += 1
            spans = []
            for s in spans_of(source):
                s = json.loads(json.dumps(s))
                s["context"]["trace_id"] = n
                s["context"]["span_id"] = (n << 20) + (s["context"]["span_id"] & 0xFFFFF)
                if s.get("parent") and s["parent"].get("span_id"):
                    s["parent"]["span_id"] = (n << 20) + (s["parent"]["span_id"] & 0xFFFFF)
                if secret is not None:
                    s["attributes"]["http.request.header.authorization"] = f"Bearer {secret}"
                spans.append(s)
            spans.reverse()  # ended-first, as a collector exports them
            half = len(spans) // 2
            lines.append(json.dumps(otlp_export(spans[:half])))
            later.append((n + 5, json.dumps(otlp_export(spans[half:]))))
            while later and later[0][0] <= n:
                lines.append(later.pop(0)[1])
    lines.extend(line for _n, line in later)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _traces(path: Path, budget: int) -> tuple[list[tuple[str, str, list[str]]], OtelStream]:
    found = OtelStream()
    out = [
        (item.trace_id, item.trace.hash, item.anomalies)
        for item, _weight in iter_otel(path, found, budget=budget)
    ]
    return out, found


def test_a_trace_spread_over_lines_reads_the_same_spilled_or_held(tmp_path: Path) -> None:
    path = _spread_file(tmp_path / "spread.jsonl")
    held, found_held = _traces(path, budget=10**12)
    spilled, found_spilled = _traces(path, budget=1)  # every span waits on disk
    assert len(held) == 3 * len(ANY_AGENT)
    assert spilled == held
    # the same anomalies (each item's, compared above), and some: the files have them
    assert found_spilled.spans == found_held.spans and any(a for _i, _h, a in spilled)
    # each trace is its framework's conversation as its own file gives it, split or not
    originals = [read_otel(source).traces[0].trace for source in ANY_AGENT]
    copies = [item.trace for item, _w in iter_otel(path, OtelStream(), budget=1)]
    for n, trace in enumerate(copies):
        original = originals[n % len(ANY_AGENT)]
        assert [(c.name, c.arguments, c.result) for c in trace.calls] == [
            (c.name, c.arguments, c.result) for c in original.calls
        ]
        assert trace.final_text == original.final_text
    # and as the whole-file reader (replay's) reads it
    assert [(t.trace_id, t.trace.hash) for t in read_otel(path).traces] == [
        (i, h) for i, h, _a in held
    ]


def test_a_span_missing_its_id_is_named_and_secrets_are_scrubbed_when_spilled(
    tmp_path: Path,
) -> None:
    key = "sk-proj-" + "A1b2C3d4" * 6
    path = _spread_file(tmp_path / "secret.jsonl", copies=1, secret=key)
    broken = otlp_export(spans_of(ANY_AGENT[0])[:1])
    del broken["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(broken) + "\n")
    found = OtelStream()
    items = [item for item, _w in iter_otel(path, found, budget=1)]
    assert any("no usable traceId; left out" in p for p in found.problems)
    for item in items:
        dumped = item.trace.model_dump_json()
        assert key not in dumped and "authorization" not in dumped.lower()


def test_one_document_streams_and_a_value_too_big_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # one pretty-printed export of every trace, a resourceSpans entry each: read an entry at a
    # time, as the same exports one per line are
    exports = [otlp_export(spans_of(p)) for p in ANY_AGENT]
    pretty = tmp_path / "export.json"
    pretty.write_text(
        json.dumps({"resourceSpans": [e["resourceSpans"][0] for e in exports]}, indent=2)
    )
    lines = tmp_path / "export.jsonl"
    lines.write_text("".join(json.dumps(e) + "\n" for e in exports))
    as_lines = [(t.trace_id, t.trace.hash, t.anomalies) for t in read_otel(lines).traces]
    largest = max(len(json.dumps(e["resourceSpans"][0], indent=2)) for e in exports)
    monkeypatch.setattr(otel_module, "DOCUMENT_LIMIT", largest * 2)  # not the whole file
    assert pretty.stat().st_size > largest * 2
    found = OtelStream()
    streamed = [
        (i.trace_id, i.trace.hash, i.anomalies) for i, _w in iter_otel(pretty, found, budget=1)
    ]
    assert streamed == as_lines and len(streamed) == len(ANY_AGENT) and found.spilled > 1
    # a list of dumped spans, and a {"spans": [...]} wrapper, item by item too
    dumped = [s for p in ANY_AGENT for s in spans_of(p)]
    for name, value in (("list.json", dumped), ("wrapped.json", {"n": 1, "spans": dumped})):
        path = tmp_path / name
        path.write_text(json.dumps(value, indent=1))
        assert [(t.trace_id, t.trace.hash) for t in read_otel(path).traces] == [
            (i, h) for i, h, _a in as_lines
        ]
    # one entry over the limit is refused, in one line
    monkeypatch.setattr(otel_module, "DOCUMENT_LIMIT", 4096)
    with pytest.raises(InvalidInputError) as err:
        read_otel(pretty)
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"{pretty}: the value at character")
    assert "JSON Lines" in message and "bounded memory" in message


def test_a_scratch_folder_left_by_a_killed_import_is_removed_by_the_next(tmp_path: Path) -> None:
    """kill -9 runs no cleanup: the killed process's scratch folder stays until the next spill
    in the same place finds its lock let go (the kernel releases it when the process ends); a
    live process's folder is left alone."""
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from rejudge.importers._spill import Groups\n"
            f"g = Groups(lambda r: r, lambda d: d, budget=0, scratch_dir={str(tmp_path)!r})\n"
            "g.add('k', {'span': 1}, 10)\n"
            "print('spilled', flush=True)\n"
            "time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "spilled"
    [left] = list(tmp_path.iterdir())
    assert left.name.startswith(f"rejudge-spill-{child.pid}-")
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert left.exists()  # nothing ran on the kill
    with Groups[int](lambda r: r, lambda d: d, budget=0, scratch_dir=tmp_path) as live:
        live.add("a", 1, 1)  # this spill clears the dead process's folder, not its own
        [mine] = list(tmp_path.iterdir())
        assert mine.name.startswith(f"rejudge-spill-{os.getpid()}-")
        with Groups[int](lambda r: r, lambda d: d, budget=0, scratch_dir=tmp_path) as other:
            other.add("b", 2, 1)
            assert mine.exists() and len(list(tmp_path.iterdir())) == 2
    assert list(tmp_path.iterdir()) == []


KEY = "sk-" + "A1b2C3d4E5f6G7h8J9k0"  # a provider key's shape (scrub_text redacts it)


def _scratch_bytes(scratch: Path) -> bytes:
    """Every byte of the scratch files under ``scratch`` (the spill's SQLite file)."""
    return b"".join(p.read_bytes() for p in sorted(scratch.rglob("*")) if p.is_file())


def test_spans_are_scrubbed_before_they_are_spilled_to_disk(tmp_path: Path) -> None:
    """A scratch file outlives a process killed with -9: what is spilled holds no secret, no
    more than a stored row does (a secret header dropped, a provider key redacted)."""
    spans = spans_of(ANY_AGENT[0])
    spans[0]["attributes"]["http.request.header.authorization"] = "Bearer tok-" + "9" * 20
    spans[-1]["attributes"]["note"] = f"your key is {KEY}"
    export = otlp_export(spans)
    # SDKs put the process's command line in the resource: a key passed as an argument too
    export["resourceSpans"][0]["resource"]["attributes"] += [
        {"key": "process.command_args", "value": any_value(["agent.py", "--key", KEY])},
        {"key": "x_api_key", "value": any_value("tok-" + "9" * 20)},
    ]
    path = tmp_path / "spans.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    found = OtelStream()
    traces = iter_otel(path, found, budget=0, scratch_dir=scratch)
    item, _weight = next(traces)  # the spans are on disk while the traces are built
    on_disk = _scratch_bytes(scratch)
    assert found.spilled > 0 and b"your key is" in on_disk  # the spans are there, scrubbed
    assert b"agent.py" in on_disk and KEY.encode() not in on_disk
    assert b"tok-99999999" not in on_disk and b"authorization" not in on_disk
    assert b"x_api_key" not in on_disk
    traces.close()
    # and the trace is the one read without spilling
    whole, _w = next(iter_otel(path, OtelStream()))
    assert item.trace.model_dump() == whole.trace.model_dump()


def test_a_dumped_spans_resource_is_scrubbed_as_it_is_read() -> None:
    from rejudge.importers._otel_spans import spans_of_document

    dumped = {
        "name": "chat",
        "context": {"trace_id": 1, "span_id": 2},
        "resource": {"attributes": {"process.command_args": ["a.py", KEY], "api_key": "x"}},
    }
    [span] = spans_of_document(dumped, [])
    assert span.resource == {"process.command_args": ["a.py", "REDACTED"]}


def _held_lock(folder: Path) -> Any:
    """``folder``'s lock file, opened and locked as a live import holds it."""
    import fcntl

    handle = (folder / "lock").open("wb")
    fcntl.flock(handle, fcntl.LOCK_EX)
    return handle


def test_a_live_imports_folder_is_kept_whatever_its_pid_says(tmp_path: Path) -> None:
    """A pid says nothing across PID namespaces (containers sharing a temporary folder): a
    folder named by a pid that does not exist here, whose lock is held, is a live import's and
    stays; once its lock is let go (the process ended) the next spill removes it."""
    foreign = tmp_path / "rejudge-spill-999999999-abcd"  # no such pid in this namespace
    foreign.mkdir()
    lock = _held_lock(foreign)
    with Groups[int](lambda r: r, lambda d: d, budget=0, scratch_dir=tmp_path) as groups:
        groups.add("a", 1, 1)
        assert foreign.exists()
    lock.close()  # as the kernel does when the process ends, however it ends
    with Groups[int](lambda r: r, lambda d: d, budget=0, scratch_dir=tmp_path) as groups:
        groups.add("a", 1, 1)
        assert not foreign.exists()
    assert list(tmp_path.iterdir()) == []


def test_older_versions_folders_without_a_lock_go_once_untouched_for_an_hour(
    tmp_path: Path,
) -> None:
    """Folders of versions before the lock (named by a pid, or before that only by a random
    suffix) have no lock file: they are removed once nothing in them changed for an hour, and
    one just made (a spill creating its folder, not yet locked) is left alone."""
    import time

    old_pid = tmp_path / f"rejudge-spill-{os.getpid()}-old1"  # a live pid: no matter
    old_plain = tmp_path / "rejudge-spill-x7k2m9q1"  # named before pid-naming
    fresh = tmp_path / "rejudge-spill-fresh123"
    unrelated = tmp_path / "someone-elses-folder"
    for folder in (old_pid, old_plain, fresh, unrelated):
        folder.mkdir()
        (folder / "groups.sqlite").write_bytes(b"x")
    hours_ago = time.time() - 2 * 3600
    for folder in (old_pid, old_plain, unrelated):
        os.utime(folder / "groups.sqlite", (hours_ago, hours_ago))
        os.utime(folder, (hours_ago, hours_ago))
    with Groups[int](lambda r: r, lambda d: d, budget=0, scratch_dir=tmp_path) as groups:
        groups.add("a", 1, 1)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([fresh.name, unrelated.name])
