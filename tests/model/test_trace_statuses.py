"""TraceStatuses: how a run's traces ended, most first, with the total they add up to."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rejudge.model import TraceStatuses

_STATUS = st.sampled_from(["completed", "step_limit", "agent_error", "round_budget", "x y"])


@given(st.dictionaries(_STATUS, st.integers(min_value=0, max_value=10_000)))
def test_the_parts_add_up_and_are_listed_most_first(counts: dict[str, int]) -> None:
    statuses = TraceStatuses.of(counts)
    assert statuses.total == sum(counts.values())
    assert statuses.as_dict() == {s: n for s, n in counts.items() if n}
    listed = [n for _, n in statuses.counts]
    assert listed == sorted(listed, reverse=True)
    text = statuses.describe()
    assert text.startswith(str(statuses.total))
    for status, n in statuses.counts:
        assert f"{status} {n}" in text


def test_the_tau_bench_run_reads_as_stored() -> None:
    statuses = TraceStatuses.of({"step_limit": 5, "completed": 195})
    assert statuses.describe() == "200 (completed 195, step_limit 5)"
    assert TraceStatuses.of({}).describe() == "0"
