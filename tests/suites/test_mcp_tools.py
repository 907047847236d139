"""The pure half of MCP tool worlds: annotations to read-only/kind (the MCP spec's defaults),
tools/list to a registry, tools/call answers to the result the model sees, the skeleton."""

from __future__ import annotations

import json

import pytest
from rejudge.suites import check_cases
from rejudge.suites._validate import CaseEntry
from rejudge.suites.domains.mcp import (
    McpToolsError,
    registry_from_mcp_tools,
    skeleton_cases,
    tool_kind,
    tool_result_from_mcp,
)

from rejudge.errors import InvalidInputError

OBJ = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        (None, (False, "unannotated")),
        ({}, (False, "unannotated")),
        ({"readOnlyHint": True, "destructiveHint": True}, (True, "read")),
        ({"readOnlyHint": False}, (False, "destructive")),  # destructiveHint defaults to true
        ({"title": "Search"}, (False, "destructive")),
        ({"destructiveHint": False}, (False, "additive")),  # idempotentHint defaults to false
        ({"destructiveHint": False, "idempotentHint": True}, (False, "idempotent")),
        ({"destructiveHint": True, "idempotentHint": True}, (False, "destructive")),
    ],
)
def test_tool_kind_follows_the_spec_defaults(annotations, expected) -> None:
    assert tool_kind(annotations) == expected


def test_registry_keeps_the_input_schema_and_order() -> None:
    tools = [
        {"name": "search", "description": "Find", "inputSchema": OBJ,
         "annotations": {"readOnlyHint": True}},
        {"name": "write", "inputSchema": {"type": "object"}, "annotations": {"title": "Write it"}},
    ]  # fmt: skip
    registry = registry_from_mcp_tools(tools)
    assert registry.domain == "mcp" and registry.tool_names() == ["search", "write"]
    assert registry.tool("search").parameters == OBJ and registry.tool("search").read_only
    assert registry.tool("write").description == "Write it"  # the title when no description


@pytest.mark.parametrize(
    ("tools", "fragment"),
    [
        ([{"name": "a", "inputSchema": OBJ}, {"name": "a", "inputSchema": OBJ}], "'a' twice"),
        ([{"inputSchema": OBJ}], "without a name"),
        ([{"name": "a", "inputSchema": {"type": "string"}}], "MCP requires 'object'"),
        ([{"name": "a", "inputSchema": {"type": "object", "required": "q"}}], "at required"),
        ([{"name": "a"}], "not a JSON object"),
        ([], "lists no tools"),
    ],
)
def test_unusable_tool_lists_are_refused(tools, fragment) -> None:
    with pytest.raises(McpToolsError) as info:
        registry_from_mcp_tools(tools, source="the server X")
    assert fragment in str(info.value) and isinstance(info.value, InvalidInputError)


def _answer(result=None, error=None) -> dict:
    out = {"jsonrpc": "2.0", "id": 3}
    out.update({"error": error} if error else {"result": result})
    return out


def test_answers_become_results() -> None:
    structured = _answer({"content": [{"type": "text", "text": "{}"}],
                          "structuredContent": {"n": 1}, "isError": False})  # fmt: skip
    assert tool_result_from_mcp(structured).result == {"n": 1}
    text_json = _answer({"content": [{"type": "text", "text": json.dumps([1, 2])}]})
    assert tool_result_from_mcp(text_json).result == [1, 2]
    plain = tool_result_from_mcp(_answer({"content": [{"type": "text", "text": "hi"}]}))
    assert plain.ok and plain.result == "hi"
    two = _answer({"content": [{"type": "text", "text": "a"}, {"type": "image", "data": "x"}]})
    assert tool_result_from_mcp(two).result == ["a", {"type": "image", "data": "x"}]
    failed = tool_result_from_mcp(_answer({"content": [{"type": "text", "text": "boom"}],
                                           "isError": True}))  # fmt: skip
    assert not failed.ok and failed.error == "boom"
    rpc = tool_result_from_mcp(_answer(error={"code": -32602, "message": "Unknown tool: x"}))
    assert not rpc.ok and rpc.error == "MCP error -32602: Unknown tool: x"


def test_skeleton_validates_against_its_registry() -> None:
    schema = {
        "type": "object",
        "properties": {
            "mode": {"type": "string", "enum": ["fast", "slow"]},
            "n": {"type": "integer", "minimum": 2},
            "flag": {"type": "boolean"},
            "inner": {"type": "object", "properties": {"x": {"type": "number"}},
                      "required": ["x"]},
            "opt": {"type": "string"},
        },
        "required": ["mode", "n", "flag", "inner"],
    }  # fmt: skip
    registry = registry_from_mcp_tools([{"name": "Run.Job", "inputSchema": schema}])
    (case,) = skeleton_cases(registry)
    assert case.id == "run.job-001" and case.skip and case.skip_reason
    assert case.golden.calls[0].params == {"mode": "fast", "n": 2, "flag": False, "inner": {"x": 0}}
    assert check_cases([CaseEntry(case, 1)], registry, file="cases.jsonl") == []
