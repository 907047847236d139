"""Talking to a live MCP server with the official SDK (the ``mcp`` extra): the handshake,
``tools/list`` and ``tools/call``, over stdio or streamable HTTP, every JSON-RPC message kept.

:class:`McpConnection` is one client session. It sits between the SDK's transport and its
``ClientSession`` and keeps each message that passes (what the client sent, what the server
answered), so a recording stores the protocol exchange itself (:mod:`rejudge.recorder._mcp`).
Calls go out as plain ``tools/call`` requests (the SDK's ``send_request``), so the client adds
no traffic of its own (``ClientSession.call_tool`` lists the tools again to validate outputs).

Every way a server can fail is one :class:`ToolServerError`: it cannot be started, it does not
complete the handshake (not an MCP server), it speaks a protocol version this client does not,
it answers slower than the timeout, or it exits. During a recording, a JSON-RPC error response
is not a failure but the server's answer: the model is shown it as an error result.

:class:`McpExecutor` is the sandbox of one recorded trace: a fresh session per trace (for a
stdio server, a fresh process, so each case starts from the server's initial state), opened on
the trace's first call and closed when the trace ends.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import tempfile
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from rejudge.recorder._mcp import ToolServerError, mcp_interaction, result_of_response
from rejudge.recorder._tape import Tape
from rejudge.suites import ToolResult

__all__ = ["McpServer", "McpConnection", "McpSnapshot", "McpExecutor", "McpWorld", "list_mcp_tools"]

DEFAULT_TIMEOUT_S = 30.0


def _sdk() -> Any:
    try:
        import mcp
    except ImportError:
        raise ToolServerError(
            "MCP support needs the official MCP SDK, which is not installed: "
            "`pip install 'rejudge[mcp]'`"
        ) from None
    return mcp


@dataclass(frozen=True)
class McpServer:
    """How to reach an MCP server: a command to start on stdio, or a streamable-HTTP URL."""

    command: tuple[str, ...] | None = None
    url: str | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    #: seconds for starting the server and the handshake (None: the call timeout, at least
    #: :data:`DEFAULT_TIMEOUT_S`: a stdio server's start is an interpreter's start)
    handshake_timeout_s: float | None = None
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None

    def __post_init__(self) -> None:
        if (self.command is None) == (self.url is None):
            raise ToolServerError("an MCP server is a command (stdio) or a URL, exactly one")
        if self.command is not None and not self.command:
            raise ToolServerError("the MCP server's command is empty")
        if self.timeout_s <= 0:
            raise ToolServerError("the MCP timeout must be positive", field="timeout")

    @property
    def handshake_s(self) -> float:
        if self.handshake_timeout_s is not None:
            return self.handshake_timeout_s
        return max(self.timeout_s, DEFAULT_TIMEOUT_S)

    @classmethod
    def stdio(cls, command_line: str, **kwargs: Any) -> McpServer:
        try:
            parts = tuple(shlex.split(command_line))
        except ValueError as exc:
            raise ToolServerError(f"cannot parse the MCP command {command_line!r}: {exc}") from None
        return cls(command=parts, **kwargs)

    @property
    def transport(self) -> str:
        return "stdio" if self.command is not None else "streamable-http"

    @property
    def uri(self) -> str:
        """Where the exchanges are recorded as going (the endpoint, or the stdio command)."""
        if self.url is not None:
            return self.url
        assert self.command is not None
        return f"stdio://{os.path.basename(self.command[0]) or 'mcp'}/"

    def describe(self) -> str:
        if self.url is not None:
            return f"the MCP server at {self.url}"
        assert self.command is not None
        return f"the MCP server `{shlex.join(self.command)}`"

    def as_metadata(self) -> dict[str, Any]:
        """What a suite keeps to reach the server again (never the environment)."""
        if self.url is not None:
            return {"transport": self.transport, "url": self.url}
        return {"transport": self.transport, "command": list(self.command or ())}

    @classmethod
    def from_metadata(cls, data: Any, **kwargs: Any) -> McpServer:
        if not isinstance(data, dict):
            raise ToolServerError("the suite does not say how to reach its MCP server")
        if data.get("url"):
            return cls(url=str(data["url"]), **kwargs)
        command = data.get("command")
        if isinstance(command, list) and command:
            return cls(command=tuple(str(c) for c in command), **kwargs)
        raise ToolServerError("the suite does not say how to reach its MCP server")


@dataclass(frozen=True)
class McpSnapshot:
    """What ``tools/list`` gave, with who answered it."""

    server_name: str
    server_version: str
    protocol_version: str
    tools: list[dict[str, Any]]


def _raw_input(exc: Exception) -> str:
    """The line a server wrote that was no JSON-RPC message (from the SDK's parse error)."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        with contextlib.suppress(Exception):
            value = errors()[0].get("input")
            if isinstance(value, str):
                return repr(value[:120])
    return str(exc).splitlines()[0][:120]


def _leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


class McpConnection:
    """One MCP client session that keeps every JSON-RPC message it passes on."""

    def __init__(self, server: McpServer) -> None:
        self.server = server
        self.sent: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []
        self.garbage: list[str] = []  # what arrived that was no JSON-RPC message
        self.initialize_result: Any = None
        self._stack: contextlib.AsyncExitStack | None = None
        self._session: Any = None
        self._errlog: Any = None

    # ---------------------------------------------------------------- opening

    async def _transport(self, stack: contextlib.AsyncExitStack) -> tuple[Any, Any]:
        server = self.server
        if server.command is not None:
            from mcp import StdioServerParameters
            from mcp.client.stdio import stdio_client

            # the server's stderr, kept to say why it died (never shown otherwise)
            self._errlog = stack.enter_context(tempfile.TemporaryFile("w+", encoding="utf-8"))
            params = StdioServerParameters(
                command=server.command[0],
                args=list(server.command[1:]),
                env={**os.environ, **server.env} if server.env else None,
                cwd=server.cwd,
            )
            read, write = await stack.enter_async_context(stdio_client(params, errlog=self._errlog))
            return read, write
        from mcp.client import streamable_http

        url = str(server.url)
        current = getattr(streamable_http, "streamable_http_client", None)
        if current is None:  # older SDKs have only the older (now deprecated) name
            read, write, _ = await stack.enter_async_context(
                streamable_http.streamablehttp_client(url, timeout=server.handshake_s)
            )
            return read, write
        import httpx
        from mcp.shared._httpx_utils import create_mcp_http_client

        # the SDK's client, with its long read timeout kept for the response streams
        client = create_mcp_http_client(timeout=httpx.Timeout(server.handshake_s, read=300.0))
        await stack.enter_async_context(client)
        read, write, _ = await stack.enter_async_context(current(url, http_client=client))
        return read, write

    def _proxy(self, task_group: Any, read: Any, write: Any) -> tuple[Any, Any]:
        import anyio

        to_session_send: Any
        to_session: Any
        from_session: Any
        from_session_recv: Any
        to_session_send, to_session = anyio.create_memory_object_stream(0)
        from_session, from_session_recv = anyio.create_memory_object_stream(0)

        # a failing pipe (the server died) ends its relay quietly: an exception here would
        # cancel the task group and with it the trace's own task; the session then sees its
        # stream closed and fails the pending request, which is what gets recorded
        async def downstream() -> None:
            async with to_session_send:
                with contextlib.suppress(Exception):
                    async for item in read:
                        if isinstance(item, Exception):
                            self.garbage.append(_raw_input(item))
                            continue
                        self.received.append(self._dump(item))
                        await to_session_send.send(item)

        async def upstream() -> None:
            async with from_session_recv:
                with contextlib.suppress(Exception):
                    async for item in from_session_recv:
                        self.sent.append(self._dump(item))
                        await write.send(item)

        task_group.start_soon(downstream)
        task_group.start_soon(upstream)
        return to_session, from_session

    @staticmethod
    def _dump(item: Any) -> dict[str, Any]:
        message = getattr(item, "message", item)
        dumped: dict[str, Any] = json.loads(
            message.model_dump_json(by_alias=True, exclude_none=True)
        )
        return dumped

    def stderr_tail(self) -> str:
        if self._errlog is None:
            return ""
        with contextlib.suppress(Exception):
            self._errlog.flush()
            self._errlog.seek(0)
            lines = [line.strip() for line in self._errlog.read().splitlines() if line.strip()]
            return lines[-1][:300] if lines else ""
        return ""

    async def open(self) -> None:
        import anyio

        _sdk()
        from mcp import ClientSession
        from mcp.shared.version import SUPPORTED_PROTOCOL_VERSIONS

        stack = contextlib.AsyncExitStack()
        await stack.__aenter__()
        self._stack = stack
        what = self.server.describe()
        try:
            read, write = await self._transport(stack)
            task_group = await stack.enter_async_context(anyio.create_task_group())
            stack.callback(task_group.cancel_scope.cancel)
            session_read, session_write = self._proxy(task_group, read, write)
            # the session's read timeout bounds the handshake too (a server that never answers)
            session = await stack.enter_async_context(
                ClientSession(
                    session_read,
                    session_write,
                    read_timeout_seconds=timedelta(seconds=self.server.handshake_s),
                )
            )
            try:
                self.initialize_result = await session.initialize()
            except RuntimeError as exc:
                if "protocol version" not in str(exc):
                    raise
                got = self._answered_version()
                raise ToolServerError(
                    f"{what} speaks MCP protocol version {got!r}, which this client does "
                    f"not support (supported: {', '.join(SUPPORTED_PROTOCOL_VERSIONS)})"
                ) from None
            self._session = session
        except ToolServerError:
            await self.close()
            raise
        except OSError as exc:
            await self.close()
            raise ToolServerError(f"cannot start {what}: {exc.strerror or exc}") from None
        except Exception as exc:  # the SDK's own errors, or a transport's (an ExceptionGroup)
            leaf = _leaf(exc)
            code = getattr(getattr(leaf, "error", None), "code", None)
            detail = getattr(getattr(leaf, "error", None), "message", None) or leaf
            # worded before closing: the server's stderr goes with the connection
            if code == 408:
                failure = ToolServerError(
                    self._no_handshake(f"within {self.server.handshake_s:g}s"), kind="mcp_timeout"
                )
            else:
                failure = ToolServerError(self._no_handshake(f"({detail})"))
            await self.close()
            raise failure from None

    def _answered_version(self) -> str | None:
        for message in self.received:
            version = (message.get("result") or {}).get("protocolVersion")
            if version is not None:
                return str(version)
        return None

    def _no_handshake(self, detail: str) -> str:
        what = self.server.describe()
        if self.garbage:
            return (
                f"{what} is not an MCP server: it wrote {self.garbage[0]}, which is not a "
                "JSON-RPC message"
            )
        tail = self.stderr_tail()
        said = f"; its last words: {tail}" if tail else ""
        return f"{what} did not complete the MCP handshake {detail}{said}"

    async def close(self) -> None:
        stack, self._stack, self._session = self._stack, None, None
        if stack is not None:
            # a server that died leaves the transport in any state: closing must not fail
            with contextlib.suppress(Exception, BaseExceptionGroup):
                await stack.aclose()

    async def __aenter__(self) -> McpConnection:
        await self.open()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    # ---------------------------------------------------------------- requests

    def exchange(self, request_id: Any) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """The request sent under ``request_id`` and the response it got (None: none yet)."""
        sent = next(
            (m for m in reversed(self.sent) if m.get("id") == request_id and "method" in m), None
        )
        answer = next(
            (m for m in reversed(self.received) if m.get("id") == request_id and "method" not in m),
            None,
        )
        return sent, answer

    async def list_tools(self) -> list[dict[str, Any]]:
        """Every tool of ``tools/list`` (all pages), as the JSON the server sent."""
        assert self._session is not None, "open the connection first"
        tools: list[dict[str, Any]] = []
        cursor = None
        for _page in range(1000):
            try:
                result = (
                    await self._session.list_tools(cursor=cursor)
                    if cursor
                    else await self._session.list_tools()
                )
            except Exception as exc:
                raise self._failure(exc, "tools/list") from None
            sent = next(m for m in reversed(self.sent) if m.get("method") == "tools/list")
            _, answer = self.exchange(sent.get("id"))
            page = ((answer or {}).get("result") or {}).get("tools") or []
            tools.extend(page)
            cursor = result.nextCursor
            if not cursor:
                break
        return tools

    async def call_tool(
        self, name: str, arguments: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any] | None, ToolServerError | None]:
        """Send one ``tools/call``: (request sent, response, failure). A JSON-RPC error
        response is a response; no response at all (a timeout, an exit) is a failure."""
        from mcp import types

        assert self._session is not None, "open the connection first"
        request = types.ClientRequest(
            types.CallToolRequest(
                method="tools/call",
                params=types.CallToolRequestParams(name=name, arguments=arguments),
            )
        )
        failure: ToolServerError | None = None
        try:
            await self._session.send_request(
                request,
                types.CallToolResult,
                request_read_timeout_seconds=timedelta(seconds=self.server.timeout_s),
            )
        except Exception as exc:
            failure = self._failure(exc, f"tools/call {name}")
        sent = next(m for m in reversed(self.sent) if m.get("method") == "tools/call")
        _, answer = self.exchange(sent.get("id"))
        if answer is not None:
            # the server answered (a result the SDK may have disliked, or a JSON-RPC error)
            return sent, answer, None
        return (
            sent,
            None,
            failure
            or ToolServerError(
                f"{self.server.describe()} gave no answer to tools/call {name}",
                kind="mcp_server_exited",
            ),
        )

    def _failure(self, exc: BaseException, what: str) -> ToolServerError:
        leaf = _leaf(exc)
        error = getattr(leaf, "error", None)
        code = getattr(error, "code", None)
        server = self.server.describe()
        if code == 408 or isinstance(leaf, TimeoutError):
            return ToolServerError(
                f"{server} did not answer {what} within {self.server.timeout_s:g}s",
                kind="mcp_timeout",
            )
        tail = self.stderr_tail()
        said = f" (its last words: {tail})" if tail else ""
        return ToolServerError(
            f"{server} stopped answering during {what}: {getattr(error, 'message', None) or leaf}{said}",
            kind="mcp_server_exited",
        )


async def list_mcp_tools(server: McpServer) -> McpSnapshot:
    """Connect, complete the handshake and read every tool of ``tools/list``."""
    async with McpConnection(server) as connection:
        tools = await connection.list_tools()
        init = connection.initialize_result
        info = getattr(init, "serverInfo", None)
        return McpSnapshot(
            server_name=str(getattr(info, "name", "") or ""),
            server_version=str(getattr(info, "version", "") or ""),
            protocol_version=str(getattr(init, "protocolVersion", "") or ""),
            tools=tools,
        )


class McpExecutor:
    """The sandbox of one recorded trace: its calls go to the server with ``tools/call``, and
    every exchange (the handshake first) lands in the trace's tape."""

    def __init__(self, server: McpServer) -> None:
        self.server = server
        self._connection: McpConnection | None = None

    async def _connect(self, tape: Tape) -> McpConnection:
        connection = McpConnection(self.server)
        try:
            await connection.open()
        except ToolServerError as exc:
            # kept as a failed handshake, so replay ends the trace the same way
            opening = next((m for m in connection.sent if m.get("method") == "initialize"), None)
            request = opening or {"jsonrpc": "2.0", "id": 0, "method": "initialize"}
            tape.interactions.append(mcp_interaction(self.server.uri, request, None, exc))
            raise
        self._record_handshake(connection, tape)
        self._connection = connection
        return connection

    def _record_handshake(self, connection: McpConnection, tape: Tape) -> None:
        for message in connection.sent:
            if "method" in message and "id" in message:
                sent, answer = connection.exchange(message["id"])
                if sent is not None and answer is not None:
                    tape.interactions.append(mcp_interaction(self.server.uri, sent, answer))

    async def call_tool(self, name: str, arguments: dict[str, Any], tape: Tape) -> ToolResult:
        connection = self._connection or await self._connect(tape)
        sent, answer, failure = await connection.call_tool(name, arguments)
        tape.interactions.append(mcp_interaction(self.server.uri, sent, answer, failure))
        if failure is not None:
            raise failure
        # the model sees what the recorded answer says, exactly as replay will read it
        return result_of_response(json.dumps(answer, ensure_ascii=False, sort_keys=True))

    async def aclose(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            await connection.close()


class McpWorld:
    """The domain a recording against an MCP server executes in: a fresh executor per trace."""

    name = "mcp"

    def __init__(self, server: McpServer) -> None:
        self.server = server

    def new_sandbox(self, case_metadata: dict[str, Any] | None = None) -> McpExecutor:
        return McpExecutor(self.server)
