"""A small OpenAI-compatible judge server on loopback, for tests of the model-graded tier's
recording path over real HTTP (the live test uses the real local model)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = Callable[[dict[str, Any], int], tuple[int, dict[str, str], str | None]]


def verdict_reply(body: dict[str, Any], _n: int) -> tuple[int, dict[str, str], str | None]:
    """PASS when the conversation shows a get_order call, else FAIL; the reply as a judge
    constrained to the task-success schema would send it."""
    user = body["messages"][-1]["content"]
    ok = "called get_order" in user
    return 200, {}, json.dumps({"justification": "looked at the calls", "success": ok})


class JudgeServer:
    def __init__(self, reply: Reply = verdict_reply) -> None:
        self.reply = reply
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.lock = threading.Lock()

    def handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length))
                with server.lock:
                    n = len(server.requests)
                    server.requests.append(body)
                    server.headers.append(dict(self.headers))
                status, headers, content = server.reply(body, n)
                payload: dict[str, Any]
                if status == 200:
                    payload = {
                        "id": f"chatcmpl-{n}",
                        "object": "chat.completion",
                        "model": body.get("model"),
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": content},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                    }
                else:
                    payload = {"error": {"message": content or "busy"}}
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


@contextmanager
def serve(judge: JudgeServer) -> Iterator[str]:
    """The server's base URL (``http://127.0.0.1:PORT/v1``) while the block runs."""
    with serve_handler(judge.handler()) as url:
        yield url


@contextmanager
def serve_handler(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Any request handler behind a real HTTP server on localhost: its base URL
    (``http://127.0.0.1:PORT/v1``) while the block runs."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()
