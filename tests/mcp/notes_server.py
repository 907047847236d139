"""A small read/write MCP world written with the SDK's FastMCP, for the tests and the bench.

A notebook: two read-only tools, one that adds (not destructive, not idempotent), one that
tags (idempotent), one that deletes (destructive), one without annotations at all, and three
that misbehave on purpose (an error result, a hang, an exit). State lives in the process, so a
fresh stdio process is a fresh notebook.

    python -m tests.mcp.notes_server                 # stdio
    python -m tests.mcp.notes_server --http PORT     # streamable HTTP on 127.0.0.1:PORT/mcp
"""

from __future__ import annotations

import argparse
import os
import time

from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations

READ = ToolAnnotations(readOnlyHint=True)
ADD = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False)
TAG = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=True)
DELETE = ToolAnnotations(readOnlyHint=False, destructiveHint=True)


def build(port: int = 8000) -> FastMCP:
    server = FastMCP("notes", host="127.0.0.1", port=port, log_level="WARNING")
    notes: dict[str, dict] = {
        "n1": {"id": "n1", "text": "buy milk", "tags": []},
        "n2": {"id": "n2", "text": "call Ada", "tags": ["work"]},
    }

    @server.tool(annotations=READ)
    def list_notes() -> dict:
        """List every note (id and text)."""
        return {"notes": [{"id": n["id"], "text": n["text"]} for n in notes.values()]}

    @server.tool(annotations=READ)
    def get_note(note_id: str) -> dict:
        """One note with its tags."""
        if note_id not in notes:
            raise ValueError(f"no note {note_id}")
        return notes[note_id]

    @server.tool(annotations=ADD)
    def add_note(text: str) -> dict:
        """Add a note; returns its id."""
        note_id = f"n{len(notes) + 1}"
        notes[note_id] = {"id": note_id, "text": text, "tags": []}
        return {"id": note_id}

    @server.tool(annotations=TAG)
    def tag_note(note_id: str, tag: str) -> dict:
        """Put a tag on a note (tagging twice changes nothing)."""
        note = notes[note_id]
        if tag not in note["tags"]:
            note["tags"].append(tag)
        return note

    @server.tool(annotations=DELETE)
    def delete_note(note_id: str) -> dict:
        """Delete a note for good."""
        notes.pop(note_id)
        return {"deleted": note_id}

    @server.tool()
    def echo(text: str) -> str:
        """Say it back (no annotations: treated as changing state)."""
        return text

    @server.tool()
    def slow(seconds: float) -> str:
        """Sleep, then answer (for timeouts)."""
        time.sleep(seconds)
        return "done"

    @server.tool()
    def crash() -> str:
        """Exit the server process without answering."""
        os._exit(3)

    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, default=None, metavar="PORT")
    args = parser.parse_args()
    if args.http is not None:
        build(args.http).run(transport="streamable-http")
    else:
        build().run()


if __name__ == "__main__":
    main()
