"""Inspect AI logs written by inspect-ai itself (tests/data/inspect) read as rejudge evidence:
conversation, calls and results, expected calls, scores; an unknown version or a truncated log
is one clear error."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from rejudge.errors import InvalidInputError
from rejudge.importers import (
    InspectLogError,
    parse_inspect_samples,
    read_inspect_log,
    score_value,
)

DATA = Path(__file__).parents[1] / "data" / "inspect"
LOGS = [DATA / "notes.eval", DATA / "notes.json"]


def _zstd_available() -> bool:
    try:
        import zipfile_zstd  # noqa: F401
    except ImportError:
        return hasattr(zipfile, "ZIP_ZSTANDARD")
    return True


def _parse(path: Path, **kwargs):
    log = read_inspect_log(path)
    return log, parse_inspect_samples(log.header, log.samples(), source=str(path), **kwargs)


@pytest.fixture(params=LOGS, ids=["eval", "json"])
def parsed(request):
    if request.param.suffix == ".eval" and not _zstd_available():
        pytest.skip("zipfile-zstd (the inspect extra) unpacks the zstd .eval log")
    return _parse(request.param)


def test_samples_become_traces_with_their_conversation(parsed) -> None:
    log, imp = parsed
    assert log.version == 2 and imp.task == "notes" and imp.model == "mockllm/model"
    traces = {t.case_id: t for t in imp.traces}
    assert sorted(traces) == ["missing", "read-n1", "read-then-add"]
    one = traces["read-n1"]
    (call,) = one.rounds[0].calls
    assert (call.name, call.arguments, call.result, call.ok) == (
        "get_note", {"note_id": "n1"}, "buy milk", True
    )  # fmt: skip
    assert one.final_text == "Note n1 says: buy milk." and one.format_version == 1
    # the second user turn is kept in its place: before the round that answered it
    talk = traces["read-then-add"]
    assert talk.format_version == 2
    assert [(u.before_round, u.text) for u in talk.user_turns] == [
        (0, "What does note n2 say?"),
        (2, "Now add a note saying pay rent."),
    ]
    assert [c.name for r in talk.rounds for c in r.calls] == ["get_note", "add_note"]
    assert talk.rounds[2].calls[0].result == "n3"
    # a tool that raised: the call failed with Inspect's error message
    failed = traces["missing"].rounds[0].calls[0]
    assert failed.ok is False and failed.error == "no note n9"


def test_cases_registry_and_scores(parsed) -> None:
    _log, imp = parsed
    cases = {c.id: c for c in imp.cases}
    assert [(g.tool, g.params) for g in cases["read-then-add"].golden.calls] == [
        ("get_note", {"note_id": "n2"}),
        ("add_note", {"text": "pay rent"}),
    ]
    assert cases["read-n1"].instruction == "What does note n1 say?"
    assert cases["missing"].golden.calls == [] and not cases["missing"].negative
    assert cases["missing"].metadata["inspect_target"] == "buy milk"
    # the tools Inspect offered the model, with their schemas
    assert imp.registry.tool_names() == ["get_note", "add_note"] and not imp.registry_inferred
    assert imp.registry.tool("get_note").parameters["required"] == ["note_id"]
    got = {(v.case_id, v.source): v.value for v in imp.verdicts}
    assert got == {
        ("missing", "inspect/includes"): 0.0,
        ("read-n1", "inspect/includes"): 1.0,
        ("read-then-add", "inspect/includes"): 1.0,
    }
    (detail,) = [v.detail for v in imp.verdicts if v.case_id == "read-n1"]
    assert detail["value"] == "C" and detail["scorer"] == "includes"


def test_the_two_formats_give_the_same_cases() -> None:
    if not _zstd_available():
        pytest.skip("zipfile-zstd (the inspect extra) unpacks the zstd .eval log")
    a, b = (_parse(p)[1] for p in LOGS)
    assert [c.hash for c in a.cases] == [c.hash for c in b.cases]
    assert a.registry.hash == b.registry.hash


@pytest.mark.parametrize(
    ("value", "expected"),
    [("C", 1.0), ("I", 0.0), ("P", 0.5), ("N", 0.0), (True, 1.0), (0.25, 0.25), ("yes", 1.0),
     (3, None), ({"a": 1}, None), ("maybe", None), ("0.75", 0.75)],
)  # fmt: skip
def test_score_values(value, expected) -> None:
    assert score_value(value) == expected


def _json_log() -> dict:
    return json.loads((DATA / "notes.json").read_text())


def test_expected_calls_from_the_target_and_attachments(tmp_path: Path) -> None:
    data = _json_log()
    sample = next(s for s in data["samples"] if s["id"] == "missing")
    sample["target"] = json.dumps([{"function": "get_note", "arguments": {"note_id": "n9"}}])
    # Inspect stores long content once and refers to it
    sample["attachments"] = {"abc": "What does note n9 say?"}
    sample["messages"][0]["content"] = "attachment://abc"
    negative = next(s for s in data["samples"] if s["id"] == "read-n1")
    negative["metadata"] = {"expected_calls": []}
    path = tmp_path / "log.json"
    path.write_text(json.dumps(data))
    _log, imp = _parse(path)
    cases = {c.id: c for c in imp.cases}
    assert cases["missing"].golden.calls[0].params == {"note_id": "n9"}
    assert cases["missing"].instruction == "What does note n9 say?"
    assert cases["read-n1"].negative and cases["read-n1"].golden.calls == []


def test_epochs_are_repetitions(tmp_path: Path) -> None:
    data = _json_log()
    again = json.loads(json.dumps(data["samples"][0]))
    again["epoch"] = 2
    data["samples"].append(again)
    path = tmp_path / "log.json"
    path.write_text(json.dumps(data))
    _log, imp = _parse(path)
    assert imp.epochs == 2
    assert sorted((t.case_id, t.repetition) for t in imp.traces if t.case_id == again["id"]) == [
        (again["id"], 0),
        (again["id"], 1),
    ]


def test_unknown_version_is_one_clear_error(tmp_path: Path) -> None:
    data = _json_log()
    data["version"] = 9
    path = tmp_path / "log.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InspectLogError) as info:
        read_inspect_log(path)
    message = str(info.value)
    assert "format version 9" in message and "reads versions 1, 2" in message
    assert isinstance(info.value, InvalidInputError) and info.value.file == str(path)


@pytest.mark.parametrize("name", ["notes.eval", "notes.json"])
def test_truncated_logs(tmp_path: Path, name: str) -> None:
    raw = (DATA / name).read_bytes()
    path = tmp_path / name
    path.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(InspectLogError) as info:
        log = read_inspect_log(path)
        list(log.samples())
    assert "is not a complete Inspect AI log" in str(info.value)
    assert "\n" not in str(info.value)


def test_samples_must_name_the_suites_cases() -> None:
    from rejudge.suites import load_suite

    retail = load_suite("retail")
    log = read_inspect_log(DATA / "notes.json")
    with pytest.raises(InspectLogError) as info:
        parse_inspect_samples(
            log.header,
            log.samples(),
            source="notes.json",
            suite_cases={c.id: c for c in retail.cases},
            suite_registry=retail.registry,
        )
    assert "nothing imported: sample missing names no case of the suite" in str(info.value)
