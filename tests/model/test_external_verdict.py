"""An external verdict's per-assertion verdicts are read from the source's own record (τ²'s
``reward_info.nl_assertions``), whatever else that record holds."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rejudge.model import AssertionVerdict, ExternalVerdict

_ITEM = st.one_of(
    st.fixed_dictionaries(
        {"nl_assertion": st.text(max_size=20), "met": st.booleans()},
        optional={"justification": st.one_of(st.none(), st.text(max_size=20), st.integers())},
    ),
    st.fixed_dictionaries({"nl_assertion": st.text(max_size=5), "met": st.none()}),
    st.integers(),
    st.none(),
)


@settings(deadline=None)  # a loaded shared machine: time is not the property
@given(st.lists(_ITEM, max_size=8))
def test_each_boolean_met_is_one_assertion_verdict_at_its_index(items: list[Any]) -> None:
    verdict = ExternalVerdict(
        source="tau2-bench", value=0.0, detail={"reward_info": {"nl_assertions": items}}
    )
    expected = [
        AssertionVerdict(
            index=i,
            assertion=item["nl_assertion"],
            met=item["met"],
            justification=item.get("justification")
            if isinstance(item.get("justification"), str)
            else None,
        )
        for i, item in enumerate(items)
        if isinstance(item, dict) and isinstance(item["met"], bool)
    ]
    assert list(verdict.assertions) == expected


def test_a_source_without_assertions_has_none() -> None:
    for detail in (None, {}, {"reward_info": None}, {"reward_info": {"nl_assertions": None}}):
        assert ExternalVerdict(source="tau-bench", value=1.0, detail=detail).assertions == ()
