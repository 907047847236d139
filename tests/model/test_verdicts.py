"""VerdictCounts and Flip: the one accuracy formula, and JSON identical to the dicts they
replaced (``--json`` keeps its bytes)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rejudge.model import VERDICTS, Flip, VerdictCounts, flip_causes

counts = st.integers(min_value=0, max_value=10**6)


@given(counts, counts, counts, counts)
def test_accuracy_is_pass_over_scored_exactly(p: int, f: int, s: int, e: int) -> None:
    vc = VerdictCounts(PASS=p, FAIL=f, SKIP=s, AGENT_ERROR=e)
    assert vc.scored == p + f
    assert vc.accuracy == (p / (p + f) if p + f else None)
    assert list(vc.to_json()) == list(VERDICTS)
    assert VerdictCounts.from_json(vc.to_json()) == vc


@given(st.lists(st.sampled_from([*VERDICTS, None, "other"])))
def test_from_verdicts_counts_only_verdicts(verdicts: list[str | None]) -> None:
    vc = VerdictCounts.from_verdicts(verdicts)
    assert vc.to_json() == {v: verdicts.count(v) for v in VERDICTS}
    assert vc.total == sum(v in VERDICTS for v in verdicts)


hashes = st.one_of(st.none(), st.sampled_from(["x", "y"]))
judgment = st.fixed_dictionaries(
    {
        "verdict": st.sampled_from(VERDICTS),
        "taxonomy": st.lists(st.sampled_from(["TOOL_WRONG", "PARAM_MISSING"]), max_size=2),
        "trace_hash": hashes,
        "case_hash": hashes,
        "rule_set_hash": hashes,
        "tier": hashes,
    }
)


@given(judgment, judgment)
def test_a_flip_json_is_the_compare_flip_dict_in_order(a: dict, b: dict) -> None:  # type: ignore[type-arg]
    flip = Flip.between("c1", 2, a, b, dimension="d")
    causes = flip_causes(a, b)
    assert list(flip.to_json().items()) == [
        ("case", "c1"),
        ("repetition", 2),
        ("from", a["verdict"]),
        ("to", b["verdict"]),
        ("cause", causes[0] if causes else "unknown"),
        ("causes", causes),
        ("taxonomy_from", a["taxonomy"]),
        ("taxonomy_to", b["taxonomy"]),
    ]
    assert flip.dimension == "d"  # the dashboard's columns stay out of the JSON
