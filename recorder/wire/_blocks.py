"""A model response's content blocks in the order the provider sent them, read from its body.

The normalized trace keeps a round's text (all text blocks joined), its client calls and its
provider-side tool uses as separate lists: the order of the blocks between them is not recorded
in the trace. The raw response is, so they are read from there: Anthropic's
``content`` list (text, thinking, ``tool_use``, ``server_tool_use`` and the tool's
``*_tool_result``), the Responses API's ``output`` items (reasoning, ``*_call`` items, messages,
function calls), and a Chat Completions message (reasoning text, content, tool calls). An
Anthropic stream is rebuilt from its ``content_block_*`` events.

Pure: the exchanges service (:mod:`rejudge.services._exchanges`) attaches each response's
blocks to its exchange, and the dashboard renders each :class:`rejudge.model.Block` as text or
JSON under its label; it parses no wire format itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from rejudge.model import Block

__all__ = ["content_blocks"]


def _typed(items: list[Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each object of ``items`` with its ``type`` ("" without one); any other value is skipped."""
    for item in items:
        if isinstance(item, dict):
            yield str(item.get("type", "")), item


def _call(name: Any, arguments: Any) -> Block:
    """A client call's block: its arguments as JSON when their text parses, else as sent."""
    try:
        arguments = json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:
        pass
    return Block("call", f"tool call · {name}", arguments)


def _anthropic(content: list[Any]) -> list[Block]:
    out: list[Block] = []
    for kind, block in _typed(content):
        if kind == "text":
            out.append(Block("text", "text", block.get("text", "")))
        elif kind == "thinking":
            out.append(Block("thinking", "thinking", block.get("thinking", "")))
        elif kind == "redacted_thinking":
            out.append(Block("thinking", "thinking (redacted by the provider)", ""))
        elif kind == "tool_use":
            out.append(Block("call", f"tool call · {block.get('name', '?')}", block.get("input")))
        elif kind in ("server_tool_use", "mcp_tool_use"):
            name = block.get("name", "?")
            out.append(Block("server_input", f"server tool input · {name}", block.get("input")))
        elif kind.endswith("_tool_result"):
            out.append(Block("server_result", f"server tool result · {kind}", block.get("content")))
        else:
            out.append(Block("other", kind or "block", block))
    return out


def _responses(output: list[Any]) -> list[Block]:
    out: list[Block] = []
    for kind, item in _typed(output):
        if kind == "reasoning":
            summary = item.get("summary") or []
            text = (
                "\n".join(str(s.get("text", "")) for s in summary if isinstance(s, dict))
                or "(no summary recorded)"
            )
            out.append(Block("thinking", "reasoning", text))
        elif kind == "message":
            for part in item.get("content") or []:
                if isinstance(part, dict) and "text" in part:
                    out.append(Block("text", "text", part.get("text", "")))
        elif kind == "function_call":
            out.append(_call(item.get("name", "?"), item.get("arguments")))
        elif kind == "custom_tool_call":  # a client tool taking free text, not the provider's
            out.append(Block("call", f"tool call · {item.get('name', '?')}", item.get("input")))
        elif kind.endswith("_call"):
            body = {k: v for k, v in item.items() if k not in ("type", "id", "status")}
            out.append(Block("server_input", f"server tool · {kind}", body))
        else:
            out.append(Block("other", kind or "item", item))
    return out


def _chat(message: dict[str, Any]) -> list[Block]:
    out: list[Block] = []
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    if reasoning:
        out.append(Block("thinking", "reasoning", str(reasoning)))
    if message.get("content"):
        content = message["content"]
        out.append(Block("text", "text", content if isinstance(content, str) else content))
    calls = message.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        # shown as sent (iterating it raised on a number): what the model wrote instead of calls
        out.append(Block("other", "tool_calls (not a list)", calls))
    for call in calls if isinstance(calls, list) else []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            out.append(_call(function.get("name", "?"), function.get("arguments")))
    return out


def _anthropic_stream(raw: str) -> list[dict[str, Any]] | None:
    """The content blocks of an Anthropic event stream, rebuilt in their index order."""
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, str] = {}
    for line in raw.splitlines():
        if not line.startswith("data:"):
            continue
        try:
            event = json.loads(line[5:].strip())
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        index = event.get("index")
        if event.get("type") == "content_block_start" and isinstance(index, int):
            blocks[index] = dict(event.get("content_block") or {})
        elif event.get("type") == "content_block_delta" and index in blocks:
            delta = event.get("delta") or {}
            block = blocks[index]
            if delta.get("type") == "text_delta":
                block["text"] = block.get("text", "") + str(delta.get("text", ""))
            elif delta.get("type") == "thinking_delta":
                block["thinking"] = block.get("thinking", "") + str(delta.get("thinking", ""))
            elif delta.get("type") == "input_json_delta":
                partial[index] = partial.get(index, "") + str(delta.get("partial_json", ""))
    if not blocks:
        return None
    for index, text in partial.items():
        try:
            blocks[index]["input"] = json.loads(text) if text else {}
        except ValueError:
            blocks[index]["input"] = text
    return [blocks[i] for i in sorted(blocks)]


def _merged(blocks: list[Block]) -> list[Block]:
    """Adjacent text blocks as one: a provider splits one passage at each citation, and its
    parts read as one text (text on either side of a tool block stays apart)."""
    out: list[Block] = []
    for block in blocks:
        if out and block.kind == "text" == out[-1].kind and isinstance(block.value, str):
            out[-1] = out[-1]._replace(value=str(out[-1].value) + block.value)
        else:
            out.append(block)
    return out


def content_blocks(response: Any, raw: str = "") -> list[Block] | None:
    """The blocks of one response in their recorded order; None when the response is of no
    shape this knows (the page then shows the response itself)."""
    found = _blocks(response, raw)
    return None if found is None else _merged(found)


def _blocks(response: Any, raw: str) -> list[Block] | None:
    if isinstance(response, dict):
        if isinstance(response.get("content"), list) and response.get("type") == "message":
            return _anthropic(response["content"])
        if isinstance(response.get("output"), list):
            return _responses(response["output"])
        choices = response.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], dict):
            message = choices[0].get("message")
            if isinstance(message, dict):
                return _chat(message)
    if raw and "content_block_start" in raw:
        rebuilt = _anthropic_stream(raw)
        if rebuilt is not None:
            return _anthropic(rebuilt)
    return None
