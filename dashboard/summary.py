"""What the compare and rule-impact pages show of a comparison (no Streamlit here, so tests call
it too).

The comparison itself is the judge's (:func:`rejudge.judge.compare`, through the service
:func:`rejudge.services.compare_evaluations`: the very object ``rejudge compare --json`` dumps);
this module computes nothing about A against B. It adds only what the page shows beside each
side on its own: the 95% Wilson interval of each accuracy.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from rejudge.dashboard.stats import wilson_interval
from rejudge.store import Store

from rejudge.errors import NotFoundError
from rejudge.model import Comparison
from rejudge.services import compare_evaluations

__all__ = [
    "Difference",
    "CompareSummary",
    "compare_summary",
    "compare_figures",
    "first_flips",
    "without_flips",
]

# the inputs the page names when they differ (the hash beside a rule set's name says nothing more)
_SHOWN_DIFFERENCES = ("tier", "rules", "model", "run", "engine_version")


@dataclass(frozen=True)
class Difference:
    field: str
    a: Any
    b: Any


@dataclass(frozen=True)
class CompareSummary:
    """The judge's comparison of A and B, and each side's interval."""

    comparison: Comparison
    ci_a: tuple[float, float]
    ci_b: tuple[float, float]
    #: how many flips the comparison has (kept when :func:`without_flips` drops the list)
    flip_count: int

    # ---- what the page shows beside the judge's own figures (``comparison.accuracy_a``,
    # ``comparison.judges`` and the rest are read from the comparison itself)
    @property
    def reading(self) -> str:
        return self.comparison.reading()

    @property
    def delta(self) -> float | None:
        return self.comparison.accuracy_delta

    @property
    def differences(self) -> list[Difference]:
        return [
            Difference(d["field"], d["a"], d["b"])
            for d in self.comparison.differences
            if d["field"] in _SHOWN_DIFFERENCES
        ]

    @property
    def same_evaluation(self) -> bool:
        # the sides are the comparison's JSON objects (typed Any there): == of two dicts
        return bool(self.comparison.a == self.comparison.b)

    @property
    def pass_to_fail(self) -> int:
        return self.comparison.discordant["pass_to_fail"]

    @property
    def fail_to_pass(self) -> int:
        return self.comparison.discordant["fail_to_pass"]

    @property
    def other_flips(self) -> int:
        # to or from SKIP / AGENT_ERROR: every flip that is not one of the two PASS/FAIL kinds
        return self.flip_count - self.pass_to_fail - self.fail_to_pass

    @property
    def scored_a(self) -> int:
        return self.comparison.verdict_counts_a.scored

    @property
    def scored_b(self) -> int:
        return self.comparison.verdict_counts_b.scored


def compare_summary(store: Store, a: int, b: int) -> CompareSummary | None:
    """The comparison of evaluations ``a`` and ``b``; None when either is gone."""
    try:
        cmp = compare_evaluations(store, a, b)
    except NotFoundError:
        return None
    return _summary(cmp)


def compare_figures(store: Store, a: int, b: int) -> CompareSummary | None:
    """:func:`compare_summary` without reading its flips (``with_flips=False``: every count
    and figure, an empty ``flips``; a model-graded side still has them); the flips' count is
    the judge's count by cause. At 100k the evidence comparison of run-a against run-b has
    25,466 flips that a page showing a thousand of them read back whole."""
    try:
        cmp = compare_evaluations(store, a, b, with_flips=False)
    except NotFoundError:
        return None
    return without_flips(_summary(cmp, sum(cmp.flips_by_cause.values())))


def first_flips(cmp: Comparison) -> CompareSummary:
    """The summary of a comparison whose ``flips`` are its first ones only
    (:func:`rejudge.services.compare_first_flips`): its flip count is the judge's count by cause,
    as :func:`compare_figures`'."""
    return _summary(cmp, sum(cmp.flips_by_cause.values()))


def _summary(cmp: Comparison, flip_count: int | None = None) -> CompareSummary:
    ca, cb = cmp.verdict_counts_a, cmp.verdict_counts_b
    return CompareSummary(
        comparison=cmp,
        ci_a=wilson_interval(ca.PASS, ca.scored),
        ci_b=wilson_interval(cb.PASS, cb.scored),
        flip_count=len(cmp.flips) if flip_count is None else flip_count,
    )


def without_flips(found: CompareSummary) -> CompareSummary:
    """``found`` without its list of flips (every figure kept, :attr:`~CompareSummary.flip_count`
    too): what the Compare page's figures need, a few kilobytes where the flips of two
    50,000-trace evaluations are megabytes to read back (the page selects flips with
    ``dashboard.data.flips``)."""
    return replace(found, comparison=replace(found.comparison, flips=[]))
