"""Build llama.cpp's own ``llama-server`` from the sources a registry package ships.

The local model is served by llama.cpp's C++ server, not by llama-cpp-python's Python one: that
one's ``chatml-function-calling`` handler never shows the model a tool result and can never
answer in text (recorder/LOCAL_MODEL_NOTES.md). llama-cpp-python's sdist on PyPI vendors the
whole llama.cpp tree, so the build needs nothing but pip, CMake and a C++ compiler:

1. ``pip download --no-binary :all: --no-deps llama-cpp-python==VERSION`` (76 MB, hash-checked
   by pip against the index);
2. unpack its ``vendor/llama.cpp`` into ``<cache>/src``;
3. configure portably (``GGML_NATIVE=OFF``: a native build uses every instruction set the
   build machine advertises, and a VM that advertises AMX or AVX-512 without running it dies of
   SIGILL on the first request), static libraries (one self-contained binary), no web UI, no
   HTTPS;
4. build the ``llama-server`` target only, into ``<cache>/build/bin/llama-server``.

A stamp file records the version and the CMake flags; a build whose stamp matches is reused, so
calling :func:`build_llama_server` again costs nothing. The tool-aware chat template (Qwen2.5's,
from llama.cpp's ``models/templates``) is read from the unpacked tree, so it comes with the
sources and their MIT licence (``<cache>/src/LICENSE``) and is not copied into this package.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rejudge.errors import RejudgeError

__all__ = [
    "LocalModelError",
    "LLAMA_CPP_PYTHON_VERSION",
    "CMAKE_FLAGS",
    "TOOL_TEMPLATE",
    "LlamaServerBuild",
    "default_build_dir",
    "find_llama_server",
    "build_llama_server",
]


class LocalModelError(RejudgeError):
    """The local model cannot be found, started or reached."""


#: the llama-cpp-python release whose vendored llama.cpp is built (the ``local`` extra's pin)
LLAMA_CPP_PYTHON_VERSION = "0.3.36"
#: CMake cache entries of the build; part of the stamp, so changing one rebuilds
CMAKE_FLAGS: tuple[str, ...] = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DGGML_NATIVE=OFF",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DLLAMA_BUILD_TOOLS=ON",
    "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAVA_BUILD=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_OPENSSL=OFF",
)
#: the tool-aware chat template inside the llama.cpp tree (Hermes-style ``<tool_call>`` JSON,
#: with ``role: tool`` results rendered back to the model)
TOOL_TEMPLATE = "models/templates/Qwen-Qwen2.5-7B-Instruct.jinja"

_STAMP = "rejudge-build.json"
_VENDORED = "vendor/llama.cpp/"


@dataclass(frozen=True)
class LlamaServerBuild:
    """A finished build: the server binary, the chat template and the source tree they came from."""

    root: Path
    version: str

    @property
    def source(self) -> Path:
        return self.root / "src"

    @property
    def binary(self) -> Path:
        return self.root / "build" / "bin" / "llama-server"

    @property
    def template(self) -> Path:
        return self.source / TOOL_TEMPLATE

    @property
    def license(self) -> Path:
        return self.source / "LICENSE"


def default_build_dir(version: str = LLAMA_CPP_PYTHON_VERSION) -> Path:
    """``~/.cache/rejudge/llama-server/<version>``: one build per user and version."""
    return Path.home() / ".cache" / "rejudge" / "llama-server" / version


def _stamp(version: str) -> dict[str, object]:
    return {"version": version, "cmake_flags": list(CMAKE_FLAGS), "target": "llama-server"}


def _is_built(build: LlamaServerBuild) -> bool:
    try:
        stamp = json.loads((build.root / _STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        stamp == _stamp(build.version)
        and build.binary.is_file()
        and os.access(build.binary, os.X_OK)
        and build.template.is_file()
    )


def find_llama_server(
    root: Path | None = None, *, version: str = LLAMA_CPP_PYTHON_VERSION
) -> LlamaServerBuild:
    """The finished build in ``root`` (default: :func:`default_build_dir`), or raise
    :class:`LocalModelError` (``field="build"``) saying it must be built first."""
    build = LlamaServerBuild(Path(root) if root else default_build_dir(version), version)
    if not _is_built(build):
        raise LocalModelError(
            f"llama-server {version} is not built in {build.root}; build it first "
            "(about 6-17 minutes on 2 cores, once per machine)",
            field="build",
        )
    return build


def _run(argv: list[str], log: Callable[[str], None], cwd: Path | None = None) -> None:
    log("$ " + " ".join(argv))
    try:
        done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    except OSError as exc:
        raise LocalModelError(f"could not run {argv[0]}: {exc}", field="build") from exc
    if done.returncode != 0:
        tail = " | ".join((done.stdout + done.stderr).strip().splitlines()[-8:])
        raise LocalModelError(
            f"{Path(argv[0]).name} failed (exit {done.returncode}): {tail}", field="build"
        )


def _unpack_vendored(sdist: Path, dest: Path) -> None:
    """Extract ``<sdist>/vendor/llama.cpp/**`` into ``dest`` (regular files and dirs only)."""
    with tarfile.open(sdist, "r:gz") as tar:
        members = []
        for member in tar.getmembers():
            _, _, inner = member.name.partition("/")
            if not inner.startswith(_VENDORED) or not (member.isfile() or member.isdir()):
                continue
            relative = inner[len(_VENDORED) :]
            if not relative or relative.startswith("/") or ".." in Path(relative).parts:
                continue
            member.name = relative
            members.append(member)
        if not members:
            raise LocalModelError(f"{sdist.name} holds no {_VENDORED} tree", field="build")
        tar.extractall(dest, members=members, filter="data")


def build_llama_server(
    root: Path | None = None,
    *,
    version: str = LLAMA_CPP_PYTHON_VERSION,
    jobs: int | None = None,
    log: Callable[[str], None] = lambda _line: None,
) -> tuple[LlamaServerBuild, bool]:
    """Build ``llama-server`` into ``root`` unless a matching build is there already.

    Returns the build and whether it was built now (``False``: reused). ``log`` receives one
    line per step (the commands run), never the compiler's output, which is only shown, tail
    first, when a step fails.
    """
    build = LlamaServerBuild(Path(root) if root else default_build_dir(version), version)
    if _is_built(build):
        return build, False
    for tool in ("cmake",):
        if shutil.which(tool) is None:
            raise LocalModelError(
                f"building llama-server needs {tool} and a C++ compiler on PATH", field="build"
            )
    build.root.mkdir(parents=True, exist_ok=True)
    (build.root / _STAMP).unlink(missing_ok=True)
    if not (build.source / "CMakeLists.txt").is_file():
        with tempfile.TemporaryDirectory(dir=build.root, prefix="sdist-") as tmp:
            _run(
                [sys.executable, "-m", "pip", "download", "--quiet", "--no-binary", ":all:"]
                + ["--no-deps", "--dest", tmp, f"llama-cpp-python=={version}"],
                log,
            )
            sdists = sorted(Path(tmp).glob("llama_cpp_python-*.tar.gz"))
            if not sdists:
                raise LocalModelError(
                    f"pip downloaded no llama-cpp-python {version} sdist", field="build"
                )
            unpacked = build.root / "src.partial"
            shutil.rmtree(unpacked, ignore_errors=True)
            log(f"unpacking {sdists[0].name}: {_VENDORED} -> {build.source}")
            _unpack_vendored(sdists[0], unpacked)
            shutil.rmtree(build.source, ignore_errors=True)
            unpacked.rename(build.source)
    cmake = shutil.which("cmake") or "cmake"
    _run([cmake, "-S", str(build.source), "-B", str(build.root / "build"), *CMAKE_FLAGS], log)
    _run(
        [cmake, "--build", str(build.root / "build"), "--target", "llama-server"]
        + ["-j", str(jobs or os.cpu_count() or 1)],
        log,
    )
    if not build.binary.is_file() or not build.template.is_file():
        raise LocalModelError(
            f"the build finished without {build.binary} or {build.template}", field="build"
        )
    (build.root / _STAMP).write_text(json.dumps(_stamp(version), indent=2) + "\n", "utf-8")
    return build, True
