"""One namespace: the repository keeps its architecture in top-level folders, and the build maps
each of them under ``rejudge`` so that nothing else is installed at the top level."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FOLDERS = {
    "rejudge": "rejudge",
    "rejudge.store": "store",
    "rejudge.recorder": "recorder",
    "rejudge.judge": "judge",
    "rejudge.suites": "suites",
    "rejudge.dashboard": "dashboard",
    "rejudge.migrations": "migrations",
}


def _setuptools() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"
    ]


def test_the_build_maps_each_top_level_folder_under_rejudge() -> None:
    assert _setuptools()["package-dir"] == FOLDERS


def test_every_package_folder_is_listed_for_the_build() -> None:
    found = set()
    for package, folder in FOLDERS.items():
        for init in (REPO / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(REPO / folder)
            found.add(".".join([package, *rel.parts]))
    # a new package folder needs its line in pyproject.toml; a removed one must lose it
    assert sorted(_setuptools()["packages"]) == sorted(found)


def test_the_installed_modules_come_from_the_checkout_folders() -> None:
    import rejudge.judge
    import rejudge.migrations
    import rejudge.store

    assert Path(rejudge.judge.__file__).resolve() == REPO / "judge" / "__init__.py"
    assert Path(rejudge.store.__file__).resolve() == REPO / "store" / "__init__.py"
    assert Path(rejudge.migrations.__file__).resolve() == REPO / "migrations" / "__init__.py"


@pytest.fixture
def crowded_folder(tmp_path: Path) -> Path:
    """A user's project whose own modules carry the names rejudge's folders have."""
    (tmp_path / "judge.py").write_text("raise ImportError('the user judge.py was imported')\n")
    for name in ("store", "suites", "recorder", "dashboard", "migrations"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(
            f"raise ImportError('the user package {name} was imported')\n"
        )
    return tmp_path


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "REJUDGE_DB")}
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def test_python_m_rejudge_runs_beside_a_users_judge_py_and_store_package(
    crowded_folder: Path,
) -> None:
    db = f"sqlite:///{crowded_folder / 'r.db'}"
    out = _run(["-m", "rejudge", "--db", db, "--json", "suite", "list"], crowded_folder)
    assert out.returncode == 0, out.stderr
    assert "retail" in out.stdout
    out = _run(["-m", "rejudge", "--db", db, "report", "30"], crowded_folder)
    # the evaluation does not exist: a clean one-line error, not an import failure
    assert out.returncode == 1, out.stderr
    assert out.stderr.startswith("Error: ") and "import" not in out.stderr.lower(), out.stderr


def test_import_rejudge_beside_a_users_packages(crowded_folder: Path) -> None:
    code = (
        "import rejudge, rejudge.judge, rejudge.store, rejudge.suites, rejudge.recorder;"
        "from rejudge.judge import judge; from rejudge.store import Store;"
        "from rejudge.suites._case_format import load_suite; print(len(load_suite('retail').cases))"
    )
    out = _run(["-c", code], crowded_folder)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "72"


@pytest.mark.slow
def test_the_wheel_installs_only_rejudge_at_the_top_level(tmp_path: Path) -> None:
    # built from a copy of the tracked files: setuptools builds in the source tree, and a
    # build/ folder left in the checkout would feed stale modules into later wheels
    source = tmp_path / "source"
    files = (
        subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True)
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, files):
        if (REPO / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    out = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(source), "-w", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    [wheel] = tmp_path.glob("rejudge-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        top_level = zf.read(next(n for n in names if n.endswith(".dist-info/top_level.txt")))
    assert top_level.decode().split() == ["rejudge"]
    tops = {
        n.split("/", 1)[0]
        for n in names
        if not n.split("/", 1)[0].endswith((".dist-info", ".data"))
    }
    assert tops == {"rejudge"}
    for must in (
        "rejudge/py.typed",
        "rejudge/judge/rulesets/standard@2.yaml",
        "rejudge/migrations/env.py",
        "rejudge/suites/data/retail/cases.jsonl",
        "rejudge/dashboard/app.py",
    ):
        assert must in names, must
