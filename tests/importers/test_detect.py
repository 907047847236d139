"""``rejudge import FILE``'s choice: every importer's detector sees the same sniffed path, the
most confident takes it, and a file no importer takes is refused with each one's reason."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from rejudge.importers import (
    SHIPPED_TAU2_BENCH,
    SHIPPED_TAU_BENCH,
    Detection,
    Importer,
    NoImporterError,
    Sniff,
    detect_all,
    detect_importer,
    importer_names,
)
from rejudge.registry import REGISTRY

REPO = Path(__file__).resolve().parents[2]
INSPECT = REPO / "tests" / "data" / "inspect"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (INSPECT / "notes.eval", "inspect"),
        (INSPECT / "notes.json", "inspect"),
        (SHIPPED_TAU_BENCH / "gpt-4o-airline.json", "tau-bench"),
        (next(SHIPPED_TAU2_BENCH.glob("*.json")), "tau-bench"),
        (REPO / "cassettes", "cassettes"),
        (next((REPO / "cassettes").rglob("*.yaml")), "cassettes"),
    ],
    ids=lambda v: v.name if isinstance(v, Path) else v,
)
def test_each_shipped_file_is_taken_by_its_importer(path: Path, expected: str) -> None:
    found = detect_importer(path)
    assert found.importer.name == expected
    assert found.detection.confidence > max(d.confidence for _n, d in found.others)
    assert found.detection.reason


def test_bfcl_result_lines_are_detected(tmp_path: Path) -> None:
    lines = tmp_path / "BFCL_v4_simple_python_result.json"
    lines.write_text(json.dumps({"id": "simple_python_0", "result": "[f(x=1)]"}) + "\n")
    assert detect_importer(lines).importer.name == "bfcl-results"
    # a file name naming no category: the id must name one
    other = tmp_path / "results.jsonl"
    other.write_text(json.dumps({"id": "nowhere_0", "result": "[f(x=1)]"}) + "\n")
    with pytest.raises(NoImporterError, match="is in no BFCL AST category"):
        detect_importer(other)


def test_a_file_of_another_format_names_every_importer_and_its_reason() -> None:
    readme = REPO / "README.md"
    with pytest.raises(NoImporterError) as caught:
        detect_importer(readme)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{readme}: no importer takes it")
    for name in importer_names():
        assert f"{name}: " in message, name
    assert "not an Inspect AI log" in message
    assert "not a cassette file name" in message


def test_a_missing_path_is_one_line() -> None:
    with pytest.raises(NoImporterError, match="no such file or folder"):
        detect_importer(REPO / "no-such-file.json")


def _always(confidence: float, reason: str) -> Importer[None]:
    return Importer(
        name=f"sure-{reason}",
        summary="a test's importer",
        accepts="anything",
        run=lambda store, path, **options: None,
        detect=lambda sniff: Detection.accept(confidence, reason),
    )


@pytest.fixture
def two_sure_importers() -> Iterator[None]:
    for importer in (_always(1.0, "a"), _always(1.0, "b")):
        REGISTRY.register("importer", importer.name, importer)
    try:
        yield
    finally:
        REGISTRY.unregister("importer", "sure-a")
        REGISTRY.unregister("importer", "sure-b")


def test_two_equally_sure_importers_are_refused_by_name(two_sure_importers: None) -> None:
    with pytest.raises(NoImporterError, match="sure-a, sure-b all take it equally"):
        detect_importer(REPO / "README.md")


@pytest.fixture
def broken_detector() -> Iterator[None]:
    def explode(sniff: Sniff) -> Detection:
        raise KeyError("boom")

    broken: Importer[None] = Importer(
        name="broken", summary="s", accepts="a", run=lambda *a, **k: None, detect=explode
    )
    REGISTRY.register("importer", "broken", broken)
    try:
        yield
    finally:
        REGISTRY.unregister("importer", "broken")


def test_a_detector_that_fails_has_refused_with_its_error(broken_detector: None) -> None:
    answers = dict(detect_all(INSPECT / "notes.eval"))
    assert answers["broken"].confidence == 0
    assert "KeyError" in answers["broken"].reason
    assert detect_importer(INSPECT / "notes.eval").importer.name == "inspect"


def test_an_importer_without_a_detector_refuses_and_says_how_to_run_it() -> None:
    plain: Importer[None] = Importer(name="plain", summary="s", accepts="a", run=lambda *a: None)
    assert plain.detect(Sniff(REPO / "README.md")) == Detection(
        0.0, "it names no detector (it imports only when named)"
    )


def test_the_sniff_reads_a_json_lines_head_and_a_whole_document(tmp_path: Path) -> None:
    lines = tmp_path / "a.jsonl"
    lines.write_text('{"a": 1}\n{"b": 2}\n')
    sniff = Sniff(lines)
    assert sniff.first_json_line() == {"a": 1}
    assert sniff.whole_json() is None  # two documents, not one
    doc = tmp_path / "b.json"
    doc.write_text('  [{"x": 1}]')
    assert Sniff(doc).whole_json() == [{"x": 1}] and Sniff(doc).starts_with == "["


@pytest.mark.parametrize("confidence", [-1.0, 0.0, 0.5, 2.0])
def test_a_detection_is_a_confidence_between_zero_and_one(confidence: float) -> None:
    found = Detection.accept(confidence, "r")
    assert 0.0 <= found.confidence <= 1.0
    assert found.accepted == (confidence > 0)
