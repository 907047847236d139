"""docs/architecture.md's table "To add an X, touch these files" is true to the code.

Every file a row names exists (a ``<name>`` placeholder: the folder holds at least one file of
that shape, the ones already added), no row names more than two files, and a new importer, tier
and world are found by the registry from their two files alone: the module written, and the one
line that declares it (a ``BUILTINS`` line is what ``REGISTRY.declare(kind,
name, module)`` does when its table is imported, so the test declares it the same way).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from rejudge.registry import REGISTRY

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "architecture.md"
ROW_FILES = 2


def _rows() -> list[tuple[str, list[str]]]:
    text = DOC.read_text(encoding="utf-8")
    table = text.split("<!-- map-table -->", 1)[1].split("<!-- /map-table -->", 1)[0]
    rows = []
    for line in table.strip().splitlines()[2:]:  # after the header and its rule
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert len(cells) == 3, line
        files = [
            path
            for cell in cells[1:]
            for path in re.findall(r"`([^`\s]+)`", cell)
            if "/" in path and re.search(r"\.(py|yaml)$", path)
        ]
        rows.append((cells[0], list(dict.fromkeys(files))))
    return rows


def test_the_table_is_at_the_top_of_the_architecture() -> None:
    text = DOC.read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, flags=re.M)
    assert headings[:2] == ["The map", "To add an X, touch these files"]
    assert len(_rows()) >= 12


@pytest.mark.parametrize(("kind", "files"), _rows(), ids=[kind for kind, _ in _rows()])
def test_each_row_names_at_most_two_files_that_exist(kind: str, files: list[str]) -> None:
    assert 1 <= len(files) <= ROW_FILES, (kind, files)
    for name in files:
        if "<" in name:
            pattern = re.sub(r"<[^>]+>", "*", name)
            assert sorted(REPO.glob(pattern)), f"{kind}: nothing of the shape {name}"
        else:
            assert (REPO / name).is_file(), f"{kind}: {name} does not exist"


def test_the_table_check_catches_a_missing_file_and_a_third_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = tmp_path / "architecture.md"
    doc.write_text(
        "<!-- map-table -->\n| to add | write | register it in |\n|---|---|---|\n"
        "| a thing | `rejudge/_nowhere.py` and `judge/_a.py` | `judge/tiers/_base.py` |\n"
        "<!-- /map-table -->\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(sys.modules[__name__], "DOC", doc)
    ((kind, files),) = _rows()
    assert files == ["rejudge/_nowhere.py", "judge/_a.py", "judge/tiers/_base.py"]
    with pytest.raises(AssertionError):
        test_each_row_names_at_most_two_files_that_exist(kind, files)
    with pytest.raises(AssertionError, match="does not exist"):
        test_each_row_names_at_most_two_files_that_exist(kind, files[:1])


def _declare(monkeypatch: pytest.MonkeyPatch, kind: str, name: str, module: str) -> None:
    """The one registration line, undone after the test (the registry's declared table is
    restored, the registered value forgotten)."""
    declared = REGISTRY._kind(kind).declared
    monkeypatch.setitem(declared, name, module)
    REGISTRY.declare(kind, name, module)


@pytest.fixture
def module_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


IMPORTER_MODULE = """
from rejudge.importers import Detection, Importer, register_importer


def _detect(sniff):
    if sniff.suffix == ".maptest":
        return Detection.accept(1.0, "a .maptest file")
    return Detection.refuse("not a .maptest file")


def _run(store, path, **options):
    return {"path": str(path)}


register_importer(
    Importer(name="map-test", summary="a test importer", accepts="a .maptest file", run=_run,
             detect=_detect)
)
"""

TIER_MODULE = """
from dataclasses import dataclass

from rejudge.judge.tiers import TierResult, register_tier


@dataclass(frozen=True)
class MapTestTier:
    name: str = "map-test"
    description: str = "a test tier"
    partial_family: str = "contract"

    def applies(self, case, registry):
        return True

    def evaluate(self, ctx):
        return TierResult()


register_tier(MapTestTier())
"""

WORLD_MODULE = """
from rejudge.registry import REGISTRY

BUILT = []


def build():
    BUILT.append(1)
    return "the map-test world"


REGISTRY.register_factory("world", "map-test", build)
"""


@pytest.mark.parametrize(
    ("kind", "module", "source"),
    [
        ("importer", "rejudge_map_test_importer", IMPORTER_MODULE),
        ("tier", "rejudge_map_test_tier", TIER_MODULE),
        ("world", "rejudge_map_test_world", WORLD_MODULE),
    ],
)
def test_the_registry_finds_a_new_x_from_its_two_files(
    kind: str, module: str, source: str, module_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if kind == "tier":
        import rejudge.judge.tiers  # noqa: F401  (configures the tier kind, as a lookup does)
    if kind == "importer":
        import rejudge.importers  # noqa: F401
    (module_dir / f"{module}.py").write_text(source, encoding="utf-8")
    assert "map-test" not in REGISTRY.names(kind, load=False)
    _declare(monkeypatch, kind, "map-test", module)
    try:
        assert "map-test" in REGISTRY.names(kind, load=False)  # listed, nothing imported
        assert module not in sys.modules
        found = REGISTRY.get(kind, "map-test")  # imported on its first lookup
        assert module in sys.modules
        assert getattr(found, "name", found) in ("map-test", "the map-test world")
        assert "map-test" in REGISTRY.names(kind)
    finally:
        REGISTRY.unregister(kind, "map-test")
        sys.modules.pop(module, None)


def test_the_importer_is_listed_and_detected_with_no_other_change(
    module_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from rejudge.importers import detect_importer

    (module_dir / "rejudge_map_test_importer.py").write_text(IMPORTER_MODULE, encoding="utf-8")
    _declare(monkeypatch, "importer", "map-test", "rejudge_map_test_importer")
    target = tmp_path / "evidence.maptest"
    target.write_text("{}", encoding="utf-8")
    try:
        assert detect_importer(target).importer.name == "map-test"
    finally:
        REGISTRY.unregister("importer", "map-test")
        sys.modules.pop("rejudge_map_test_importer", None)
