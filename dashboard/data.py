"""Cached access to :mod:`dashboard.queries` for the pages.

The engine is a cached resource per database URL; every aggregate is cached with
``st.cache_data`` under a short TTL (the live monitor's is shorter still), keyed on the URL and
the query's arguments, so moving between pages or widgets re-runs no SQL until the TTL passes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st
from rejudge.dashboard import queries, summary
from rejudge.store.repository import Store
from sqlalchemy import Engine

TTL_S = 30
LIVE_TTL_S = 1


@st.cache_resource(show_spinner=False)
def engine(url: str) -> Engine:
    """One engine (connection pool) per database URL for the whole server."""
    return Store.open(url, migrate=False).engine


def _filters(filters: Mapping[str, Sequence[str]] | None) -> queries.Filters | None:
    if not filters:
        return None
    return {k: list(v) for k, v in filters.items() if v}


@st.cache_data(ttl=TTL_S, show_spinner=False)
def filter_options(url: str) -> dict[str, list[str]]:
    return queries.filter_options(engine(url))


@st.cache_data(ttl=TTL_S, show_spinner=False)
def runs(url: str, filters: dict[str, list[str]] | None = None) -> list[dict[str, Any]]:
    return queries.list_runs(engine(url), _filters(filters))


@st.cache_data(ttl=TTL_S, show_spinner=False)
def evaluations(url: str, filters: dict[str, list[str]] | None = None) -> list[dict[str, Any]]:
    return queries.list_evaluations(engine(url), _filters(filters))


@st.cache_data(ttl=TTL_S, show_spinner=False)
def evaluations_by_id(url: str, ids: tuple[int, ...]) -> dict[int, dict[str, Any]]:
    return {r["id"]: r for r in queries.list_evaluations(engine(url), ids=list(ids))}


@st.cache_data(ttl=TTL_S, show_spinner=False)
def baselines(url: str) -> list[dict[str, Any]]:
    return queries.list_baselines(engine(url))


@st.cache_data(ttl=TTL_S, show_spinner=False)
def group_counts(url: str, evaluation_id: int, by: str) -> dict[str, dict[str, Any]]:
    return queries.group_counts(engine(url), evaluation_id, by)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def taxonomy_counts(url: str, evaluation_id: int) -> dict[str, int]:
    return queries.taxonomy_counts(engine(url), evaluation_id)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def compare_summary(url: str, a: int, b: int) -> dict[str, Any] | None:
    return summary.compare_summary(engine(url), a, b)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def pair_counts(url: str, a: int, b: int) -> dict[tuple[str | None, str | None], int]:
    return queries.pair_counts(engine(url), a, b)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def coverage(url: str, a: int, b: int) -> dict[str, int]:
    return queries.coverage(engine(url), a, b)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def flips(url: str, a: int, b: int, limit: int = 1000, **filters: Any) -> list[dict[str, Any]]:
    return queries.flips(engine(url), a, b, limit=limit, **filters)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def flip_count(url: str, a: int, b: int, **filters: Any) -> dict[str, int]:
    return queries.flip_count(engine(url), a, b, **filters)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def pass_histogram(url: str, evaluation_id: int) -> list[dict[str, int]]:
    return queries.pass_histogram(engine(url), evaluation_id)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def per_case_passes(
    url: str, evaluation_id: int, only_inconsistent: bool = False
) -> list[dict[str, Any]]:
    return queries.per_case_passes(engine(url), evaluation_id, only_inconsistent=only_inconsistent)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def run_traces(url: str, run_id: int, case_contains: str | None = None) -> list[dict[str, Any]]:
    return queries.run_traces(engine(url), run_id, case_contains=case_contains)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def trace_detail(url: str, trace_id: int) -> dict[str, Any] | None:
    return queries.trace_detail(engine(url), trace_id)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def judgment_body(url: str, evaluation_id: int, trace_id: int) -> dict[str, Any] | None:
    return queries.judgment_body(engine(url), evaluation_id, trace_id)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def rule_set_body(url: str, rule_set_id: int) -> dict[str, Any]:
    return Store(engine(url)).get_rule_set(rule_set_id).model_dump(mode="json")


@st.cache_data(ttl=LIVE_TTL_S, show_spinner=False)
def run_progress(url: str, run_id: int) -> dict[str, Any] | None:
    return queries.run_progress(engine(url), run_id)


@st.cache_data(ttl=LIVE_TTL_S, show_spinner=False)
def pending_cases(url: str, run_id: int) -> list[dict[str, Any]]:
    return queries.pending_cases(engine(url), run_id)


@st.cache_data(ttl=LIVE_TTL_S, show_spinner=False)
def recent_traces(url: str, run_id: int, limit: int = 20) -> list[dict[str, Any]]:
    return queries.recent_traces(engine(url), run_id, limit=limit)


@st.cache_data(ttl=LIVE_TTL_S, show_spinner=False)
def live_runs(url: str) -> list[dict[str, Any]]:
    return queries.list_runs(engine(url))


@st.cache_data(ttl=LIVE_TTL_S, show_spinner=False)
def live_evaluations(url: str, run_id: int) -> list[dict[str, Any]]:
    return [r for r in queries.list_evaluations(engine(url)) if r["run_id"] == run_id]


@st.cache_data(ttl=TTL_S, show_spinner=False)
def trend_points(url: str, filters: dict[str, list[str]] | None = None) -> list[dict[str, Any]]:
    return queries.trend_points(engine(url), _filters(filters))


@st.cache_data(ttl=TTL_S, show_spinner=False)
def partial_histogram(
    url: str, filters: dict[str, list[str]] | None = None, bins: int = 10
) -> list[dict[str, Any]]:
    return queries.partial_histogram(engine(url), _filters(filters), bins=bins)
