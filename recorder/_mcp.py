"""MCP ``tools/call`` exchanges in a cassette, and the executor that answers them in replay.

Recording against an MCP server (:mod:`rejudge.recorder._mcp_client`) keeps each JSON-RPC
request the client sent and the response the server gave as one interaction of the trace's
tape, next to the model's HTTP exchanges and in the same vcrpy shape::

    request:  POST <server uri>, body = the JSON-RPC request (initialize, tools/call, ...)
    response: 200, body = the JSON-RPC response (result or error)

The server URI is the streamable-HTTP endpoint, or ``stdio://<command>`` for a server on stdio:
the exchange is the protocol's, whichever transport carried it. A call that got no answer (the
server hung past the timeout, or exited) is kept with a 504/502 response whose body says so
(``{"rejudge_mcp_failure": {"kind", "message"}}``), so replay meets the same failure.

No model exchange looks like this (the wire-format registry recognizes none of them), so the
normalizer skips them; the trace's results are what the model was sent, i.e. what the server
answered (:func:`rejudge.suites.domains.mcp.tool_result_from_mcp`).

:class:`McpReplayExecutor` is the sandbox of a replayed MCP trace: it plays the session's
handshake and each ``tools/call`` back from the tape (a call whose name or arguments differ is a
replay miss, like a changed model request), so replay needs neither the model nor the server.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from rejudge.recorder._http import RecorderError
from rejudge.recorder._tape import ReplayMissError, Tape
from rejudge.suites import ToolResult
from rejudge.suites.domains.mcp import tool_result_from_mcp

__all__ = [
    "ToolServerError",
    "MCP_FAILURE_KEY",
    "mcp_interaction",
    "mcp_message",
    "McpReplayExecutor",
    "McpReplayWorld",
    "REPLAY_WORLDS",
    "result_of_response",
]

MCP_FAILURE_KEY = "rejudge_mcp_failure"
#: the response status a failed call is recorded with
_FAILURE_STATUS = {"mcp_timeout": 504}
_JSON = {"content-type": ["application/json"]}


class ToolServerError(RecorderError):
    """A tool server (an MCP server) could not be used or stopped answering: no handshake,
    another protocol version, a timeout, an exit. ``kind`` is the trace error it becomes when
    it happens during a recording (``mcp_timeout``, ``mcp_server_exited``, ``mcp_protocol``)."""

    def __init__(self, message: str, *, kind: str = "mcp_protocol", field: str | None = None):
        super().__init__(message, field=field)
        self.kind = kind

    def __reduce__(self) -> Any:  # keep kind across pickling (worker processes)
        return (_rebuild, (str(self), self.kind, self.field))


def _rebuild(message: str, kind: str, field: str | None) -> ToolServerError:
    return ToolServerError(message, kind=kind, field=field)


def mcp_interaction(
    uri: str,
    request: dict[str, Any],
    response: dict[str, Any] | None,
    failure: ToolServerError | None = None,
) -> dict[str, Any]:
    """One JSON-RPC exchange as a tape interaction (``failure`` when no response came)."""
    if response is None:
        kind = failure.kind if failure is not None else "mcp_server_exited"
        message = str(failure) if failure is not None else "no response"
        status = _FAILURE_STATUS.get(kind, 502)
        body: dict[str, Any] = {MCP_FAILURE_KEY: {"kind": kind, "message": message}}
    else:
        status, body = 200, response
    return {
        "request": {
            "method": "POST",
            "uri": uri,
            "body": json.dumps(request, ensure_ascii=False, sort_keys=True),
            "headers": dict(_JSON),
        },
        "response": {
            "status": {"code": status, "message": "OK" if status == 200 else "No Response"},
            "headers": dict(_JSON),
            "body": {"string": json.dumps(body, ensure_ascii=False, sort_keys=True)},
        },
    }


def mcp_message(interaction: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON-RPC request of an interaction, None when it is no MCP exchange."""
    body = (interaction.get("request") or {}).get("body")
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    if not isinstance(body, str) or '"jsonrpc"' not in body:
        return None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if isinstance(data, dict) and data.get("jsonrpc") == "2.0" and "method" in data:
        return data
    return None


def result_of_response(body: bytes | str) -> ToolResult:
    """The tool result of a recorded (or live) ``tools/call`` response body; raises
    :class:`ToolServerError` for a recorded failure."""
    try:
        data = json.loads(body)
    except ValueError:
        raise ToolServerError("the MCP server's answer is not JSON") from None
    if not isinstance(data, dict):
        raise ToolServerError("the MCP server's answer is not a JSON-RPC message")
    failure = data.get(MCP_FAILURE_KEY)
    if isinstance(failure, dict):
        raise ToolServerError(
            str(failure.get("message") or "the MCP server did not answer"),
            kind=str(failure.get("kind") or "mcp_server_exited"),
        )
    return tool_result_from_mcp(data)


class McpReplayExecutor:
    """Answers a replayed trace's calls from the MCP exchanges in its tape."""

    async def call_tool(self, name: str, arguments: dict[str, Any], tape: Tape) -> ToolResult:
        index = None
        for i, interaction in enumerate(tape.interactions):
            if tape.played[i]:
                continue
            message = mcp_message(interaction)
            if message is None:
                continue
            if message.get("method") == "tools/call":
                index = i
                break
            tape.played[i] = True  # the session's own traffic (initialize, tools/list, ...)
            response = tape.interactions[i].get("response") or {}
            if int((response.get("status") or {}).get("code", 200)) != 200:
                # the session never opened (the server did not start or answer): again now
                result_of_response(str((response.get("body") or {}).get("string") or "{}"))
        if index is None:
            raise ReplayMissError(
                f"replay miss{f' in {tape.source}' if tape.source else ''}: a call of "
                f"{name!r} has no recorded MCP tools/call left",
                field="tools/call",
            )
        recorded = tape.interactions[index]["request"]
        body = dict(mcp_message(tape.interactions[index]) or {})
        # the recorded request with this call's name and arguments: a difference is a miss
        body["params"] = {**(body.get("params") or {}), "name": name, "arguments": arguments}
        request = httpx.Request(
            "POST",
            str(recorded.get("uri") or "stdio://mcp"),
            content=json.dumps(body, ensure_ascii=False, sort_keys=True).encode("utf-8"),
        )
        response = await tape.handle(request, None)
        return result_of_response(response.content)

    async def aclose(self) -> None:
        return None


class McpReplayWorld:
    """The domain a replayed MCP run executes in: a replay executor per trace."""

    name = "mcp"

    def new_sandbox(self, case_metadata: dict[str, Any] | None = None) -> McpReplayExecutor:
        return McpReplayExecutor()


#: domains whose calls replay from the cassette instead of a sandbox: domain name -> factory
REPLAY_WORLDS = {"mcp": McpReplayWorld}
