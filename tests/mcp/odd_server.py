"""Stdio programs that are not quite MCP servers, for the bad-input tests.

    python -m tests.mcp.odd_server not-mcp      # writes text that is no JSON-RPC
    python -m tests.mcp.odd_server version      # answers initialize with an unknown version
    python -m tests.mcp.odd_server duplicate    # lists a tool twice
    python -m tests.mcp.odd_server bad-schema   # a tool whose inputSchema is no JSON Schema
    python -m tests.mcp.odd_server silent       # reads, never answers

Each speaks newline-delimited JSON-RPC by hand (the SDK's server would refuse to say these
things), exactly as the stdio transport of the MCP spec frames it.
"""

from __future__ import annotations

import json
import sys
import time

TOOL = {"name": "get_note", "inputSchema": {"type": "object", "properties": {}}}
TOOLS = {
    "duplicate": [TOOL, TOOL],
    "bad-schema": [{"name": "get_note", "inputSchema": {"type": "object", "properties": 5}}],
}


def main() -> None:
    mode = sys.argv[1]
    if mode == "not-mcp":
        print("hello, I am a web server log line", flush=True)
        time.sleep(30)
        return
    for line in sys.stdin:
        if mode == "silent":
            continue
        message = json.loads(line)
        if "id" not in message:
            continue
        if message["method"] == "initialize":
            version = "1999-01-01" if mode == "version" else message["params"]["protocolVersion"]
            result = {
                "protocolVersion": version,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "odd", "version": "0"},
            }
        elif message["method"] == "tools/list":
            result = {"tools": TOOLS.get(mode, [TOOL])}
        else:
            result = {}
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)


if __name__ == "__main__":
    main()
