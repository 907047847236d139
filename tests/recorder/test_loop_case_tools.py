"""A case that names its own tools (generated and imported suites) offers only those."""

from __future__ import annotations

from rejudge.recorder._loop import case_tools

from rejudge.model import Case, Golden, ToolRegistry, ToolSpec

REGISTRY = ToolRegistry(
    domain="union",
    tools=[ToolSpec(name="a"), ToolSpec(name="b"), ToolSpec(name="c")],
    name_map={"x_y": "x.y"},
)


def _case(metadata: dict) -> Case:
    return Case(
        id="c", dimension="d", category="k", instruction="i", golden=Golden(), metadata=metadata
    )


def test_without_metadata_every_tool_is_offered() -> None:
    assert case_tools(REGISTRY, _case({})) is REGISTRY


def test_named_tools_restrict_the_registry() -> None:
    own = case_tools(REGISTRY, _case({"tools": ["c", "a"]}))
    assert own.tool_names() == ["a", "c"]
    assert own.name_map == REGISTRY.name_map


def test_own_specs_replace_the_union() -> None:
    spec = {"name": "a", "description": "case a", "parameters": {"type": "object"}}
    own = case_tools(REGISTRY, _case({"tool_specs": [spec]}))
    assert [t.description for t in own.tools] == ["case a"]
