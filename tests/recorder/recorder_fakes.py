"""Test helpers: a loopback fake model server (real HTTP in a thread) and a tiny tool domain.

The server answers OpenAI chat completions (``/v1/chat/completions``) and Anthropic messages
(``/v1/messages``), JSON or SSE, from a script keyed by the case instruction and the round (the
number of assistant turns already in the request). It can answer 429/500, cut a stream short,
or drop the connection mid-body.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from rejudge.suites import SuiteSource, ToolResult, register_domain

from rejudge.model import Case, Golden, GoldenCall, ToolRegistry, ToolSpec

# --------------------------------------------------------------------------- replies


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict -> JSON; str/bytes -> raw
    headers: dict[str, str] = field(default_factory=dict)
    sse: list[str] | None = None  # data payloads of an event stream
    sse_done: bool = True  # end the stream with its terminator
    drop_after: int | None = None  # announce the full length, send this many bytes, close
    delay_s: float = 0.0


_ids = itertools.count(1)


def call(name: str, arguments: Any) -> tuple[str, str]:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return name, raw


def openai_reply(
    calls: list[tuple[str, str]] | None = None, text: str | None = None, *, usage: bool = True
) -> dict[str, Any]:
    n = next(_ids)
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {
                "id": f"call_{n}_{i}",
                "type": "function",
                "function": {"name": name, "arguments": raw},
            }
            for i, (name, raw) in enumerate(calls)
        ]
    body: dict[str, Any] = {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "model": "fake-model",
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
        ],
    }
    if usage:
        body["usage"] = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    return body


def openai_sse(calls: list[tuple[str, str]] | None = None, text: str | None = None) -> list[str]:
    n = next(_ids)
    chunks: list[dict[str, Any]] = []

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{n}",
            "object": "chat.completion.chunk",
            "model": "fake-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    chunks.append(chunk({"role": "assistant", "content": ""}))
    if text:
        half = len(text) // 2
        chunks.append(chunk({"content": text[:half]}))
        chunks.append(chunk({"content": text[half:]}))
    for i, (name, raw) in enumerate(calls or []):
        half = len(raw) // 2
        first = {"index": i, "id": f"call_{n}_{i}", "type": "function"}
        first["function"] = {"name": name, "arguments": raw[:half]}
        chunks.append(chunk({"tool_calls": [first]}))
        chunks.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": raw[half:]}}]}))
    chunks.append(chunk({}, "tool_calls" if calls else "stop"))
    return [json.dumps(c) for c in chunks]


def anthropic_reply(
    calls: list[tuple[str, str]] | None = None, text: str | None = None
) -> dict[str, Any]:
    n = next(_ids)
    content: list[dict[str, Any]] = []
    if text:
        content.append({"type": "text", "text": text})
    for i, (name, raw) in enumerate(calls or []):
        content.append(
            {"type": "tool_use", "id": f"toolu_{n}_{i}", "name": name, "input": json.loads(raw)}
        )
    return {
        "id": f"msg_{n}",
        "type": "message",
        "role": "assistant",
        "model": "fake-claude",
        "content": content,
        "stop_reason": "tool_use" if calls else "end_turn",
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def anthropic_sse(calls: list[tuple[str, str]] | None = None, text: str | None = None) -> list[str]:
    n = next(_ids)
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": f"msg_{n}",
                "type": "message",
                "role": "assistant",
                "model": "fake-claude",
                "content": [],
                "usage": {"input_tokens": 10, "output_tokens": 1},
            },
        }
    ]
    index = 0
    if text:
        events.append(
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            }
        )
        events.append(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": text},
            }
        )
        events.append({"type": "content_block_stop", "index": 0})
        index = 1
    for i, (name, raw) in enumerate(calls or []):
        block = {"type": "tool_use", "id": f"toolu_{n}_{i}", "name": name, "input": {}}
        events.append({"type": "content_block_start", "index": index, "content_block": block})
        half = len(raw) // 2
        for part in (raw[:half], raw[half:]):
            events.append(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": part},
                }
            )
        events.append({"type": "content_block_stop", "index": index})
        index += 1
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use" if calls else "end_turn"},
            "usage": {"output_tokens": 5},
        }
    )
    events.append({"type": "message_stop"})
    return [json.dumps(e) for e in events]


# --------------------------------------------------------------------------- the server


Responder = Callable[[str, dict[str, Any], dict[str, str]], Reply]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # one write per response and no Nagle delay: otherwise every exchange waits ~40 ms for an ACK
    wbufsize = 1 << 16
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # silence
        return

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        headers = {k.lower(): v for k, v in self.headers.items()}
        with self.server.lock:
            self.server.requests.append(
                {
                    "path": self.path,
                    "headers": headers,
                    "body": body,
                    "connection": self.client_address[1],  # the client's port: one per connection
                }
            )
        reply = self.server.responder(self.path, body, headers)
        delay = reply.delay_s or self.server.delay_s
        if delay:
            time.sleep(delay)
        if reply.sse is not None:
            is_anthropic = self.path.endswith("/messages")
            parts = []
            for data in reply.sse:
                if is_anthropic:
                    kind = json.loads(data).get("type", "message")
                    parts.append(f"event: {kind}\ndata: {data}\n\n")
                else:
                    parts.append(f"data: {data}\n\n")
            if reply.sse_done and not is_anthropic:
                parts.append("data: [DONE]\n\n")
            payload = "".join(parts).encode()
            content_type = "text/event-stream"
        elif isinstance(reply.body, (dict, list)):
            payload = json.dumps(reply.body).encode()
            content_type = "application/json"
        elif isinstance(reply.body, str):
            payload = reply.body.encode()
            content_type = "text/plain"
        else:
            payload = reply.body or b""
            content_type = "application/octet-stream"
        self.send_response(reply.status)
        self.send_header("content-type", content_type)
        self.send_header("set-cookie", "session=secret-cookie-value")
        self.send_header("openai-organization", "org-secret")
        for key, value in reply.headers.items():
            self.send_header(key, value)
        self.send_header("content-length", str(len(payload)))
        if reply.drop_after is not None:
            self.send_header("connection", "close")
            self.end_headers()
            self.wfile.write(payload[: reply.drop_after])
            self.wfile.flush()
            self.close_connection = True
            return
        self.end_headers()
        self.wfile.write(payload)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    responder: Responder
    requests: list[dict[str, Any]]
    lock: threading.Lock
    delay_s: float


class FakeModelServer:
    """A real HTTP server on 127.0.0.1 in a background thread."""

    def __init__(self, responder: Responder, *, delay_s: float = 0.0, port: int = 0) -> None:
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.responder = responder
        self._server.requests = []
        self._server.lock = threading.Lock()
        self._server.delay_s = delay_s
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def requests(self) -> list[dict[str, Any]]:
        return self._server.requests

    def __enter__(self) -> FakeModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


# --------------------------------------------------------------------------- scripted model


def instruction_of(body: dict[str, Any]) -> str:
    for message in body.get("messages", []):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                for block in content:
                    if block.get("type") == "text":
                        return str(block.get("text"))
    return ""


def round_of(body: dict[str, Any]) -> int:
    return sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")


Turn = Callable[[dict[str, Any], int], Reply]


class ScriptedModel:
    """Per instruction, a list of turns; a turn is a function of (request body, attempt)."""

    def __init__(self, script: dict[str, list[Turn]], default: Turn | None = None) -> None:
        self.script = script
        self.default = default
        self.attempts: dict[tuple[str, int], int] = {}
        self.lock = threading.Lock()

    def __call__(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> Reply:
        key = instruction_of(body)
        rnd = round_of(body)
        with self.lock:
            attempt = self.attempts.get((key, rnd), 0)
            self.attempts[(key, rnd)] = attempt + 1
        turns = self.script.get(key)
        if turns is None:
            if self.default is None:
                return Reply(status=400, body={"error": {"message": f"unscripted {key!r}"}})
            return self.default(body, attempt)
        if rnd >= len(turns):
            return _final("all done")(body, attempt)
        return turns[rnd](body, attempt)


def _is_anthropic(body: dict[str, Any]) -> bool:
    return "max_tokens" in body and "system" in body or body.get("_anthropic", False)


def calls_turn(*calls: tuple[str, str], text: str | None = None, anthropic: bool = False) -> Turn:
    def turn(body: dict[str, Any], attempt: int) -> Reply:
        stream = bool(body.get("stream"))
        if anthropic:
            if stream:
                return Reply(sse=anthropic_sse(list(calls), text))
            return Reply(body=anthropic_reply(list(calls), text))
        if stream:
            return Reply(sse=openai_sse(list(calls), text))
        return Reply(body=openai_reply(list(calls), text))

    return turn


def _final(text: str, anthropic: bool = False) -> Turn:
    return calls_turn(text=text, anthropic=anthropic)


final_turn = _final


# --------------------------------------------------------------------------- a tiny domain

CALC_TOOLS = [
    ToolSpec(
        name="add",
        description="Add two integers and return their sum.",
        parameters={
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
        read_only=True,
    ),
    ToolSpec(
        name="get_user",
        description="Look up a user profile by user id.",
        parameters={
            "type": "object",
            "properties": {"user_id": {"type": "string"}},
            "required": ["user_id"],
        },
        read_only=True,
    ),
    ToolSpec(
        name="send_email",
        description="Send an email message to an address.",
        parameters={
            "type": "object",
            "properties": {"to": {"type": "string"}, "body": {"type": "string"}},
            "required": ["to", "body"],
        },
    ),
    ToolSpec(
        name="get_weather",
        description="Weather forecast for a city.",
        parameters={
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
        read_only=True,
    ),
]
CALC_REGISTRY = ToolRegistry(domain="testcalc", tools=CALC_TOOLS)


class CalcSandbox:
    def __init__(self) -> None:
        self.executed: list[tuple[str, dict[str, Any]]] = []

    def execute(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        self.executed.append((name, arguments))
        if name == "add":
            return ToolResult(ok=True, result={"sum": arguments["a"] + arguments["b"]})
        if name == "get_user":
            if arguments.get("user_id") == "U1":
                return ToolResult(ok=True, result={"user_id": "U1", "email": "ada@example.com"})
            return ToolResult(ok=False, error=f"no user {arguments.get('user_id')!r}")
        if name == "send_email":
            return ToolResult(ok=True, result={"status": "queued"})
        if name == "get_weather":
            return ToolResult(ok=True, result={"city": arguments.get("city"), "temp_c": 21})
        return ToolResult(ok=False, error="unknown")


class CalcDomain:
    name = "testcalc"

    def __init__(self) -> None:
        self.sandboxes: list[CalcSandbox] = []

    def registry(self) -> ToolRegistry:
        return CALC_REGISTRY

    def new_sandbox(self, case_metadata: dict[str, Any] | None = None) -> CalcSandbox:
        box = CalcSandbox()
        self.sandboxes.append(box)
        return box


register_domain("testcalc", CalcDomain)


def case(
    case_id: str, instruction: str, golden: list[tuple[str, dict[str, Any]]] | None = None
) -> Case:
    return Case(
        id=case_id,
        dimension="D1",
        category="test",
        instruction=instruction,
        golden=Golden(calls=[GoldenCall(tool=t, params=p) for t, p in (golden or [])]),
    )


def suite(cases: list[Case], name: str = "calc") -> SuiteSource:
    return SuiteSource(
        name=name, domain="testcalc", format_version=1, registry=CALC_REGISTRY, cases=tuple(cases)
    )
