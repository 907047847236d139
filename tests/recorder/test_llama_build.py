"""Building llama.cpp's llama-server: the stamp that makes a second build free, unpacking only the
vendored tree of the sdist, the version in step with the ``local`` extra, and the real build
(marked ``local_model``: it is the one ``.ci/run`` made before the tests, so here it is reused)."""

from __future__ import annotations

import io
import json
import os
import tarfile
import tomllib
from pathlib import Path

import pytest
from rejudge.recorder import (
    CMAKE_FLAGS,
    LLAMA_CPP_PYTHON_VERSION,
    LlamaServerBuild,
    LocalModelError,
    build_llama_server,
    default_build_dir,
    find_llama_server,
)
from rejudge.recorder._llama_build import _unpack_vendored

ROOT = Path(__file__).resolve().parents[2]


def _fake_build(root: Path, *, stamp: dict | None = None) -> LlamaServerBuild:
    build = LlamaServerBuild(root, LLAMA_CPP_PYTHON_VERSION)
    build.binary.parent.mkdir(parents=True)
    build.binary.write_text("#!/bin/sh\n")
    build.binary.chmod(0o755)
    build.template.parent.mkdir(parents=True)
    build.template.write_text("{{ messages }}")
    stamp = stamp or {
        "version": LLAMA_CPP_PYTHON_VERSION,
        "cmake_flags": list(CMAKE_FLAGS),
        "target": "llama-server",
    }
    (root / "rejudge-build.json").write_text(json.dumps(stamp))
    return build


def test_the_build_is_of_the_local_extras_llama_cpp_python() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    local = project["optional-dependencies"]["local"]
    assert f"llama-cpp-python=={LLAMA_CPP_PYTHON_VERSION}" in local
    assert default_build_dir().parts[-3:] == ("rejudge", "llama-server", LLAMA_CPP_PYTHON_VERSION)


def test_the_build_is_portable_and_builds_no_ui() -> None:
    assert "-DGGML_NATIVE=OFF" in CMAKE_FLAGS
    assert {"-DLLAMA_BUILD_UI=OFF", "-DLLAMA_USE_PREBUILT_UI=OFF"} <= set(CMAKE_FLAGS)


def test_a_stamped_build_is_found_and_reused_without_running_anything(tmp_path: Path) -> None:
    build = _fake_build(tmp_path / "b")
    assert find_llama_server(tmp_path / "b") == build
    # nothing to do: no pip, no cmake (neither could run against this fake tree)
    assert build_llama_server(tmp_path / "b") == (build, False)


@pytest.mark.parametrize("change", ["flags", "version", "binary"])
def test_a_build_with_other_flags_or_no_binary_is_not_found(tmp_path: Path, change: str) -> None:
    stamp = {
        "version": LLAMA_CPP_PYTHON_VERSION,
        "cmake_flags": list(CMAKE_FLAGS),
        "target": "llama-server",
    }
    if change == "flags":
        stamp["cmake_flags"] = ["-DGGML_NATIVE=ON"]
    elif change == "version":
        stamp["version"] = "0.0.1"
    build = _fake_build(tmp_path / "b", stamp=stamp)
    if change == "binary":
        build.binary.unlink()
    with pytest.raises(LocalModelError, match=r"is not built in .*build it first") as info:
        find_llama_server(tmp_path / "b")
    assert info.value.field == "build"


def _sdist(path: Path, files: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_only_the_vendored_llama_cpp_tree_is_unpacked(tmp_path: Path) -> None:
    sdist = _sdist(
        tmp_path / "llama_cpp_python-0.3.36.tar.gz",
        {
            "llama_cpp_python-0.3.36/llama_cpp/__init__.py": b"python side",
            "llama_cpp_python-0.3.36/vendor/llama.cpp/CMakeLists.txt": b"project(llama)",
            "llama_cpp_python-0.3.36/vendor/llama.cpp/models/templates/t.jinja": b"{{ x }}",
            "llama_cpp_python-0.3.36/vendor/llama.cpp/../../escape.txt": b"no",
        },
    )
    _unpack_vendored(sdist, tmp_path / "src")
    found = sorted(str(p.relative_to(tmp_path / "src")) for p in (tmp_path / "src").rglob("*"))
    assert found == ["CMakeLists.txt", "models", "models/templates", "models/templates/t.jinja"]
    assert not (tmp_path / "escape.txt").exists()


def test_an_sdist_without_the_vendored_tree_is_refused(tmp_path: Path) -> None:
    sdist = _sdist(tmp_path / "x.tar.gz", {"x-1/setup.py": b""})
    with pytest.raises(LocalModelError, match=r"holds no vendor/llama.cpp/ tree"):
        _unpack_vendored(sdist, tmp_path / "src")


def test_serve_local_build_reports_a_build_it_reused(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from rejudge.cli import cli

    build = _fake_build(tmp_path / "b")
    result = CliRunner().invoke(
        cli, ["--json", "serve-local", "--build", "--build-dir", str(build.root)]
    )
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout.splitlines()[-1])
    assert info == {
        "binary": str(build.binary),
        "template": str(build.template),
        "version": LLAMA_CPP_PYTHON_VERSION,
        "built": False,
    }


def test_serve_local_without_a_build_names_the_build_flag(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from rejudge.cli import cli

    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    import rejudge.recorder._local_server as ls

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ls, "find_smollm2_model", lambda: model)
        result = CliRunner().invoke(cli, ["serve-local", "--build-dir", str(tmp_path / "none")])
    assert result.exit_code == 1
    assert result.output.startswith("Error: --build: llama-server ")
    assert "is not built in" in result.output and "Traceback" not in result.output


@pytest.mark.local_model
def test_the_real_build_is_there_and_a_second_build_is_free() -> None:
    """.ci/run builds before the tests (the README's test command); this checks that build."""
    try:
        build = find_llama_server()
    except LocalModelError as exc:
        if os.environ.get("REJUDGE_REQUIRE_LOCAL_MODEL") == "1":
            pytest.fail(str(exc))
        pytest.skip(f"llama-server not built: {exc}")
    assert build_llama_server() == (build, False)
    assert os.access(build.binary, os.X_OK) and build.license.is_file()
    text = build.template.read_text(encoding="utf-8")
    assert "<tool_call>" in text and "tool_response" in text  # tool calls and their results
