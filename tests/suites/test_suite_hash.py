"""A suite's hash is made as its case hashes come (a streamed import's seal reads them from the
store, never as one list): it must stay the content hash of the mapping it always was, or every
stored suite would stop matching the file it was loaded from."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rejudge.suites import suite_hash

from rejudge.model import Case, Golden, ToolRegistry, ToolSpec, content_hash

# case hashes as stored (``sha256:<hex>``), and any other text, quotes and non-ASCII included
_hashes = st.lists(
    st.one_of(
        st.text(alphabet="0123456789abcdef", min_size=64, max_size=64).map("sha256:{}".format),
        st.text(max_size=20),
    ),
    max_size=30,
)
_registries = st.builds(
    ToolRegistry,
    domain=st.text(min_size=1, max_size=10),
    version=st.text(min_size=1, max_size=5),
    tools=st.lists(st.builds(ToolSpec, name=st.text(min_size=1, max_size=8)), max_size=3),
)


def _mapping_hash(format_version: int, registry: ToolRegistry, hashes: list[str]) -> str:
    return content_hash(
        {"format_version": format_version, "registry": registry.hash, "cases": hashes}
    )


@given(
    format_version=st.integers(min_value=0, max_value=10**6), registry=_registries, hashes=_hashes
)
def test_streamed_hash_is_the_mappings(
    format_version: int, registry: ToolRegistry, hashes: list[str]
) -> None:
    expected = _mapping_hash(format_version, registry, hashes)
    assert suite_hash(format_version, registry, [], hashes) == expected
    # a generator (as the store streams them) gives the same
    assert suite_hash(format_version, registry, [], iter(hashes)) == expected


def test_cases_without_their_hashes_are_hashed_in_order() -> None:
    registry = ToolRegistry(domain="d", tools=[ToolSpec(name="t")])
    cases = [
        Case(id=f"c{n}", dimension="d", category="k", instruction=f"do {n}", golden=Golden())
        for n in range(3)
    ]
    expected = _mapping_hash(1, registry, [c.hash for c in cases])
    assert suite_hash(1, registry, cases) == expected
    assert suite_hash(1, registry, list(reversed(cases))) != expected
