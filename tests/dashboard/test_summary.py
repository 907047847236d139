"""The compare page shows the judge's comparison, computed once (on SQLite and PostgreSQL): the
very object `rejudge compare --json` dumps, its kind, and the flips the page's filters select."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from rejudge.dashboard.stats import wilson_interval
from rejudge.dashboard.summary import compare_summary
from rejudge.judge import count_by_cause, select_flips
from rejudge.store import Store

from rejudge.errors import InvalidInputError
from tests.dashboard.conftest import judge_compare
from tests.dashboard.factory import Built


@pytest.fixture
def store(built: Built) -> Iterator[Store]:
    opened = Store.open(built.url)
    yield opened
    opened.close()


@pytest.mark.parametrize("pair", [("a1", "a2"), ("a1", "b1"), ("b1", "a2"), ("a1", "c1")])
def test_the_page_shows_the_judge_compare(built: Built, store: Store, pair) -> None:
    a, b = (built.evaluations[k] for k in pair)
    expected = judge_compare(built.url, a, b)
    got = compare_summary(store, a, b)
    assert got is not None
    assert got.comparison.to_json() == expected
    assert got.delta == expected["accuracy_delta"]
    assert got.pass_to_fail == expected["discordant"]["pass_to_fail"]
    assert got.fail_to_pass == expected["discordant"]["fail_to_pass"]
    assert got.flip_count == len(expected["flips"])
    counts = got.comparison.verdict_counts_a
    assert got.ci_a == wilson_interval(counts.PASS, counts.scored)


def test_the_kinds_of_the_factory_pairs(built: Built, store: Store) -> None:
    ev = built.evaluations
    rules = compare_summary(store, ev["a1"], ev["a2"])
    models = compare_summary(store, ev["a1"], ev["b1"])
    assert rules is not None and models is not None
    # one run under two rule sets: two judges, who is stricter and kappa, no test, no "better"
    two_judges = rules.comparison
    assert (
        two_judges.kind == "judge" and two_judges.mcnemar_p is None and two_judges.verdict is None
    )
    assert two_judges.judges is not None
    assert two_judges.judges.a_stricter == rules.fail_to_pass
    assert two_judges.judges.b_stricter == rules.pass_to_fail
    assert "better" not in rules.reading
    # two models on the same suite and rules: the evidence differs, McNemar and a verdict
    evidence = models.comparison
    assert evidence.kind == "evidence" and evidence.mcnemar_p is not None
    assert evidence.verdict in ("B better", "B worse", "no significant difference")


def test_not_comparable_names_its_reasons(built: Built, store: Store) -> None:
    s = compare_summary(store, built.evaluations["a1"], built.evaluations["c1"])
    assert s is not None and s.comparison.comparable is False
    assert any(r.startswith("case sets differ") for r in s.comparison.reasons)
    assert any(r.startswith("harness modes differ") for r in s.comparison.reasons)
    same = compare_summary(store, built.evaluations["a1"], built.evaluations["a2"])
    assert same is not None and same.comparison.comparable is True
    assert same.comparison.reasons == []
    assert [d.field for d in same.differences] == ["rules"]
    assert compare_summary(store, built.evaluations["a1"], 10**9) is None


def test_the_flip_filters_narrow_the_judges_flips(built: Built, store: Store) -> None:
    found = compare_summary(store, built.evaluations["a1"], built.evaluations["a2"])
    assert found is not None
    every = found.comparison.flips
    assert every, "the factory flips about a tenth of the verdicts"
    assert {f.cause for f in every} == {"rules changed"}
    down = select_flips(every, direction="PASS→FAIL")
    up = select_flips(every, direction="FAIL→PASS")
    other = select_flips(every, direction="other")
    assert len(down) + len(up) + len(other) == len(every)
    assert all(f.from_verdict == "PASS" and f.to_verdict == "FAIL" for f in down)
    one = every[0].case
    assert {f.case for f in select_flips(every, case_contains=one)} == {one}
    assert select_flips(every, causes=["trace changed"]) == []
    dims = sorted(d for d in {f.dimension for f in every} if d is not None)
    assert dims, "the judge's flips carry the case's dimension for the page"
    assert {f.dimension for f in select_flips(every, dimensions=[dims[0]])} == {dims[0]}
    assert count_by_cause(every) == found.comparison.flips_by_cause == {"rules changed": len(every)}
    with pytest.raises(InvalidInputError, match="direction"):
        select_flips(every, direction="sideways")
    models = compare_summary(store, built.evaluations["a1"], built.evaluations["b1"])
    assert models is not None and {f.cause for f in models.comparison.flips} == {"trace changed"}


def test_the_figures_without_the_flips_keep_every_figure(built: Built, store: Store) -> None:
    """What the Compare page keeps for its figures: the comparison less its flip list, every
    other key and the number of flips as they were."""
    from rejudge.dashboard.summary import without_flips

    full = compare_summary(store, built.evaluations["a1"], built.evaluations["a2"])
    assert full is not None and full.comparison.flips
    light = without_flips(full)
    assert light.comparison.flips == [] and light.flip_count == len(full.comparison.flips)
    assert (light.ci_a, light.ci_b, light.other_flips) == (full.ci_a, full.ci_b, full.other_flips)
    expected = {k: v for k, v in full.comparison.to_json().items() if k != "flips"}
    assert {k: v for k, v in light.comparison.to_json().items() if k != "flips"} == expected
