"""The wheel ships the cassettes `rejudge demo` replays (as data files under
``<prefix>/share/rejudge/cassettes``, the last place the demo looks), one entry per folder that
holds cassettes: a run's folder, and a judge's (``<run>/judge/<rubric hash>``)."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from rejudge.services import cassette_roots

REPO = Path(__file__).resolve().parents[2]


def _data_files() -> dict[str, list[str]]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return dict(config["tool"]["setuptools"]["data-files"])


def test_every_cassette_folder_is_shipped_with_the_wheel() -> None:
    root = REPO / "cassettes"
    # folder -> the suffix of its cassettes (a run's are YAML; a judge's vcrpy's JSON layout)
    folders = {
        p.parent.relative_to(root).as_posix(): p.suffix
        for p in root.rglob("*")
        if p.is_file() and not p.name.startswith(".") and p.parent != root
    }
    assert folders, "no cassettes/ run folders in the checkout"
    data_files = _data_files()
    expected = {
        f"share/rejudge/cassettes/{name}": [f"cassettes/{name}/*{suffix}"]
        for name, suffix in folders.items()
    }
    # a new folder of cassettes needs its line in pyproject.toml; a removed one must lose it
    assert data_files == expected
    for patterns in data_files.values():
        for pattern in patterns:
            matched = sorted(REPO.glob(pattern))
            every = sorted((REPO / pattern).parent.iterdir())
            assert matched, f"{pattern} matches no file"
            shipped = [p for p in every if p.is_file() and not p.name.startswith(".")]
            assert matched == shipped, f"{pattern} misses a file"


def test_the_demo_looks_where_the_wheel_puts_them() -> None:
    assert Path(sys.prefix) / "share" / "rejudge" / "cassettes" in cassette_roots(None)
