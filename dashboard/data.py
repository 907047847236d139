"""Cached access to the store's read models for the pages.

The store (its engine and connection pool) is a cached resource per database URL; every read is
cached with ``st.cache_data`` under a short TTL (the live monitor's is shorter still), keyed on
the URL and the read's arguments, so moving between pages or widgets re-runs no SQL until the TTL
passes. The reads themselves live in ``rejudge.store`` (catalog, evaluation, comparison and trace
read models); this module only adds the caching.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st
from rejudge.dashboard import summary
from rejudge.judge._compare import CAUSES
from rejudge.store import _catalog_reads as catalog_reads
from rejudge.store import _comparison_reads as comparison_reads
from rejudge.store import _evaluation_reads as evaluation_reads
from rejudge.store import _trace_reads as trace_reads
from rejudge.store._catalog_reads import (
    BaselineSummary,
    EvaluationSummary,
    FilterOptions,
    PartialBucket,
    RunSummary,
    TrendPoint,
)
from rejudge.store._comparison_reads import Coverage, Flip, PairCounts
from rejudge.store._evaluation_reads import CasePasses, GroupSummary, PassCell
from rejudge.store._repository import Store
from rejudge.store._trace_reads import (
    PendingCase,
    RecentTrace,
    RunProgress,
    TraceDetail,
    TraceListing,
)

TTL_S = 30
LIVE_TTL_S = 1


@st.cache_resource(show_spinner=False)
def store(url: str) -> Store:
    """One store (engine and connection pool) per database URL for the whole server."""
    return Store.open(url, migrate=False)


def _filters(filters: Mapping[str, Sequence[str]] | None) -> dict[str, list[str]] | None:
    if not filters:
        return None
    return {k: list(v) for k, v in filters.items() if v}


@st.cache_data(ttl=TTL_S, show_spinner=False)
def filter_options(url: str) -> FilterOptions:
    return catalog_reads.filter_options(store(url))


@st.cache_data(ttl=TTL_S, show_spinner=False)
def runs(url: str, filters: dict[str, list[str]] | None = None) -> list[RunSummary]:
    return catalog_reads.list_runs(store(url), _filters(filters))


@st.cache_data(ttl=TTL_S, show_spinner=False)
def evaluations(url: str, filters: dict[str, list[str]] | None = None) -> list[EvaluationSummary]:
    return catalog_reads.list_evaluations(store(url), _filters(filters))


@st.cache_data(ttl=TTL_S, show_spinner=False)
def evaluations_by_id(url: str, ids: tuple[int, ...]) -> dict[int, EvaluationSummary]:
    return {r.id: r for r in catalog_reads.list_evaluations(store(url), ids=list(ids))}


@st.cache_data(ttl=TTL_S, show_spinner=False)
def baselines(url: str) -> list[BaselineSummary]:
    return catalog_reads.list_baselines(store(url))


@st.cache_data(ttl=TTL_S, show_spinner=False)
def group_counts(url: str, evaluation_id: int, by: str) -> dict[str, GroupSummary]:
    return evaluation_reads.group_counts(store(url), evaluation_id, by)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def taxonomy_counts(url: str, evaluation_id: int) -> dict[str, int]:
    return evaluation_reads.taxonomy_counts(store(url), evaluation_id)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def compare_summary(url: str, a: int, b: int) -> summary.CompareSummary | None:
    return summary.compare_summary(store(url), a, b)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def pair_counts(url: str, a: int, b: int) -> PairCounts:
    return comparison_reads.pair_counts(store(url), a, b)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def coverage(url: str, a: int, b: int) -> Coverage:
    return comparison_reads.coverage(store(url), a, b)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def flips(url: str, a: int, b: int, limit: int = 1000, **filters: Any) -> list[Flip]:
    return comparison_reads.flips(store(url), a, b, cause_order=CAUSES, limit=limit, **filters)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def flip_count(url: str, a: int, b: int, **filters: Any) -> dict[str, int]:
    return comparison_reads.flip_count(store(url), a, b, cause_order=CAUSES, **filters)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def pass_histogram(url: str, evaluation_id: int) -> list[PassCell]:
    return evaluation_reads.pass_histogram(store(url), evaluation_id)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def per_case_passes(
    url: str, evaluation_id: int, only_inconsistent: bool = False
) -> list[CasePasses]:
    return evaluation_reads.per_case_passes(
        store(url), evaluation_id, only_inconsistent=only_inconsistent
    )


@st.cache_data(ttl=TTL_S, show_spinner=False)
def run_traces(url: str, run_id: int, case_contains: str | None = None) -> list[TraceListing]:
    return trace_reads.run_traces(store(url), run_id, case_contains=case_contains)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def trace_detail(url: str, trace_id: int) -> TraceDetail | None:
    return trace_reads.trace_detail(store(url), trace_id)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def judgment_body(url: str, evaluation_id: int, trace_id: int) -> dict[str, Any] | None:
    return trace_reads.judgment_body(store(url), evaluation_id, trace_id)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def rule_set_body(url: str, rule_set_id: int) -> dict[str, Any]:
    return store(url).get_rule_set(rule_set_id).model_dump(mode="json")


@st.cache_data(ttl=LIVE_TTL_S, show_spinner=False)
def run_progress(url: str, run_id: int) -> RunProgress | None:
    return trace_reads.run_progress(store(url), run_id)


@st.cache_data(ttl=LIVE_TTL_S, show_spinner=False)
def pending_cases(url: str, run_id: int) -> list[PendingCase]:
    return trace_reads.pending_cases(store(url), run_id)


@st.cache_data(ttl=LIVE_TTL_S, show_spinner=False)
def recent_traces(url: str, run_id: int, limit: int = 20) -> list[RecentTrace]:
    return trace_reads.recent_traces(store(url), run_id, limit=limit)


@st.cache_data(ttl=LIVE_TTL_S, show_spinner=False)
def live_runs(url: str) -> list[RunSummary]:
    return catalog_reads.list_runs(store(url))


@st.cache_data(ttl=LIVE_TTL_S, show_spinner=False)
def live_evaluations(url: str, run_id: int) -> list[EvaluationSummary]:
    return [r for r in catalog_reads.list_evaluations(store(url)) if r.run_id == run_id]


@st.cache_data(ttl=TTL_S, show_spinner=False)
def trend_points(url: str, filters: dict[str, list[str]] | None = None) -> list[TrendPoint]:
    return catalog_reads.trend_points(store(url), _filters(filters))


@st.cache_data(ttl=TTL_S, show_spinner=False)
def partial_histogram(
    url: str, filters: dict[str, list[str]] | None = None, bins: int = 10
) -> list[PartialBucket]:
    return catalog_reads.partial_histogram(store(url), _filters(filters), bins=bins)
