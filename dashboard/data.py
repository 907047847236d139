"""Cached access to the store's read models for the pages.

The store (its engine and connection pool) is a cached resource per database URL; every read is
cached with ``st.cache_data`` under a short TTL (the live monitor's is shorter still), keyed on
the URL and the read's arguments, so moving between pages or widgets re-runs no SQL until the TTL
passes. The reads themselves live in ``rejudge.store`` (catalog, evaluation and trace read
models, methods of ``Store``) and ``rejudge.services``; a comparison is the judge's, through the
compare service (:mod:`rejudge.dashboard.summary`): its figures cached once per pair, its flips
read a page at a time, or all of them once where a view selects or counts over every one. This
module only adds the caching.

On a SQLite store the reads are kept while the store is unchanged, not for a TTL: each is keyed
by the file's state (:mod:`.kept`: its and its log's modification time and size), in memory and
on disk, so a new server on an unchanged store (a cold session) reads them back instead of
running the SQL again. At 100,000 traces a page's aggregates took 0.2-0.6 s each, several per
page, on every fresh start (bench/README.md, "100k-trace store"). PostgreSQL, which has no such
state, keeps the TTL.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import streamlit as st
from rejudge.dashboard import paging, stats, summary
from rejudge.dashboard import report_view as view
from rejudge.dashboard.explained import Explained
from rejudge.dashboard.explained import explained_codes as count_explained_codes
from rejudge.dashboard.grid import CountedColumn, Grid, grid_of_counts
from rejudge.dashboard.kept import StoreState, kept, store_state
from rejudge.dashboard.report_view import ReportOptions, ReportRows
from rejudge.judge import QueueItem, count_by_cause, select_flips
from rejudge.store import (
    BaselineSummary,
    CasePasses,
    EvaluationSummary,
    FilterOptions,
    JudgmentBody,
    PairGroups,
    PartialBucket,
    PassCell,
    PendingCase,
    RecentTrace,
    RunProgress,
    RunSummary,
    RunUsage,
    Store,
    TraceDetail,
    TraceListing,
    TraceRowSummary,
    TrendPoint,
)

from rejudge.errors import NotFoundError
from rejudge.model import (
    EvaluationReport,
    Flip,
    JudgeCalibration,
    PriceTable,
    RunCost,
    TraceStatuses,
)
from rejudge.services import (
    FlipCodes,
    ReviewPageState,
    compare_first_flips,
    comparison_flips,
    evaluation_queue,
    read_price_table,
    review_page_state,
)
from rejudge.services import run_cost as services_run_cost

TTL_S = 30
LIVE_TTL_S = 1
R = TypeVar("R")


class _Opened(NamedTuple):
    store: Store
    # the SQLite file and its (device, inode) when the store opened it: a file deleted or
    # replaced since is detected, not read through a connection that still holds the old one
    file: Path | None
    identity: tuple[int, int] | None


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return (status.st_dev, status.st_ino)


@st.cache_resource(show_spinner=False)
def _opened(url: str) -> _Opened:
    opened = Store.open(url, migrate=False)
    file = opened.sqlite_file()
    return _Opened(opened, file, _identity(file) if file is not None else None)


def store(url: str) -> Store:
    """One store (engine and connection pool) per database URL for the whole server."""
    return _opened(url).store


def store_gone(url: str) -> str | None:
    """Why the store can no longer be used (one line), or None: its SQLite file was deleted or
    replaced since the dashboard opened it. SQLite would go on reading the deleted file through
    open connections and write a label into an orphaned WAL file, so every page run and every
    write checks first."""
    opened = _opened(url)
    if opened.file is None:
        return None
    now = _identity(opened.file)
    if now is None:
        return (
            f"The store's SQLite file {opened.file} is gone (deleted or moved) since the "
            "dashboard opened it: nothing is read or written. Restart the dashboard on the store."
        )
    if now != opened.identity:
        return (
            f"The store's SQLite file {opened.file} was replaced since the dashboard opened it: "
            "nothing is read or written. Restart the dashboard to open the new file."
        )
    return None


def _filters(filters: Mapping[str, Sequence[str]] | None) -> dict[str, list[str]] | None:
    if not filters:
        return None
    return {k: list(v) for k, v in filters.items() if v}


#: every read the decorator below wraps, by name (what a kept read calls on a miss)
_READS: dict[str, Callable[..., Any]] = {}


def _stored(ttl: float = TTL_S) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """A read of the store ``read(url, *args)``, cached: kept under the SQLite store's state (in
    memory and on disk, see the module) or, without a state (PostgreSQL), for ``ttl`` seconds."""

    def wrap(read: Callable[..., R]) -> Callable[..., R]:
        timed = st.cache_data(ttl=ttl, show_spinner=False)(read)
        name = f"{read.__name__}"
        _READS[name] = read

        @functools.wraps(read)
        def cached(url: str, *args: Any, **kwargs: Any) -> R:
            now = state(url)
            if now is None:
                return timed(url, *args, **kwargs)
            return _kept_read(url, name, args, tuple(sorted(kwargs.items())), now)  # type: ignore[no-any-return]

        return cached

    return wrap


# in memory, by state: a write to the store moves the state, so older entries are never hit
# again and fall out (max_entries); the disk copy is what a new server reads
@st.cache_data(show_spinner=False, max_entries=256)
def _kept_read(
    url: str, name: str, args: tuple[Any, ...], kwargs: tuple[tuple[str, Any], ...], now: StoreState
) -> Any:
    file = _opened(url).file
    assert file is not None  # a state is read from a file
    read = _READS[name]
    return kept(file, ("read", name, args, kwargs), now, lambda: read(url, *args, **dict(kwargs)))


@_stored()
def filter_options(url: str) -> FilterOptions:
    return store(url).catalog.filter_options()


@_stored()
def runs(url: str, filters: dict[str, list[str]] | None = None) -> list[RunSummary]:
    return store(url).catalog.run_summaries(_filters(filters))


@_stored()
def trace_statuses(url: str) -> dict[int, TraceStatuses]:
    return store(url).catalog.trace_statuses()


@_stored()
def evaluations(url: str, filters: dict[str, list[str]] | None = None) -> list[EvaluationSummary]:
    return store(url).catalog.evaluation_summaries(_filters(filters))


@_stored()
def evaluations_by_id(url: str, ids: tuple[int, ...]) -> dict[int, EvaluationSummary]:
    return {r.id: r for r in store(url).catalog.evaluation_summaries(ids=list(ids))}


@_stored()
def baselines(url: str) -> list[BaselineSummary]:
    return store(url).catalog.baseline_summaries()


@_stored()
def pair_group_counts(url: str, a: int, b: int) -> PairGroups:
    """A's and B's verdict counts per dimension and per category, from one read of both (what
    Compare's filter and bars show; four reads of the same rows before)."""
    return store(url).evaluations.pair_group_counts(a, b)


@_stored()
def taxonomy_counts(url: str, evaluation_id: int) -> dict[str, int]:
    return store(url).evaluations.taxonomy_counts(evaluation_id)


def state(url: str) -> StoreState | None:
    """The SQLite store's state (:mod:`.kept`); None for PostgreSQL."""
    return store_state(_opened(url).file)


@_stored()
def compare_figures(url: str, a: int, b: int) -> summary.CompareSummary | None:
    """The comparison's figures without its flips (:func:`dashboard.summary.compare_figures`:
    the service reads none), so Compare and Rule impact open without reading every flip; the
    flips they show are read a page at a time (:func:`flips`)."""
    return summary.compare_figures(store(url), a, b)


class RuleImpact(NamedTuple):
    """Rule impact's reads: the comparison's figures with its first page of flips, and every
    flip's verdicts and codes, counted (what the "Why" table counts)."""

    figures: summary.CompareSummary
    codes: list[FlipCodes]


@_stored()
def rule_impact(url: str, a: int, b: int) -> RuleImpact | None:
    """A → B's figures, its first :data:`~paging.FLIPS_PAGE` flips and every flip's codes, from
    one pairing read (:func:`rejudge.services.compare_first_flips`): the figures read alone and
    every flip read again for the "Why" counts walked the pairing twice and made all 4,681
    flips of the 100k store's rule pair to show 1,000."""
    try:
        found = compare_first_flips(store(url), a, b, limit=paging.FLIPS_PAGE)
    except NotFoundError:
        return None
    return RuleImpact(summary.first_flips(found.comparison), found.codes)


@_stored()
def explained(url: str, a: int, b: int, changed: tuple[str, ...]) -> Explained:
    """How many of A → B's flips each changed setting likely explains (:mod:`.explained`),
    counted over every flip's codes (:func:`rule_impact`)."""
    found = rule_impact(url, a, b)
    return count_explained_codes(found.codes if found else [], changed)


@_stored()
def every_flip(url: str, a: int, b: int) -> list[Flip]:
    """Every flip of A → B, read alone (not the whole comparison beside the figures): what a
    count over all of them needs (Rule impact's "Why"), and its table's pages slice it rather
    than read the flips' keys once more (4,681 flips for the 100k store's rule pair)."""
    try:
        return comparison_flips(store(url), a, b)
    except NotFoundError:
        return []


def every_flip_page(
    url: str, a: int, b: int, start: int, limit: int, **filters: Any
) -> tuple[int, list[Flip]]:
    """How many of :func:`every_flip` :func:`flips` would select, and a page of them (for a
    page that reads them all anyway)."""
    chosen = select_flips(every_flip(url, a, b), **filters)
    return len(chosen), chosen[start : start + limit]


@_stored()
def cached_default_pair(url: str, count: int, newest: int) -> tuple[int, int] | None:
    """Compare's opening pair (see ``dashboard.pairs``), kept while the evaluations are the same.
    Each pair tried is checked on its figures alone (no flips read); the pair chosen is the
    one the page then shows, so its figures are read once."""
    from rejudge.dashboard.pairs import default_pair

    def comparable(a: int, b: int) -> bool:
        found = compare_figures(url, a, b)
        return found is not None and found.comparison.comparable

    return default_pair(evaluations(url), comparable)


def _unfiltered(filters: Mapping[str, Any]) -> bool:
    return not any(filters.values())


@_stored()
def flips(
    url: str, a: int, b: int, limit: int = 1000, start: int = 0, **filters: Any
) -> list[Flip]:
    """The comparison's flips a view asks for (filters of :func:`rejudge.judge.select_flips`),
    ``limit`` of them from ``start``. Unfiltered, only that page is read (the service's
    :func:`~rejudge.services.comparison_flips`); a filter selects from every flip
    (:func:`every_flip`: the flips alone, not the whole comparison)."""
    if _unfiltered(filters):
        try:
            return comparison_flips(store(url), a, b, start=start, limit=limit)
        except NotFoundError:
            return []
    return select_flips(every_flip(url, a, b), **filters)[start : start + limit]


@_stored()
def flip_count(url: str, a: int, b: int, **filters: Any) -> dict[str, int]:
    """Flips per cause (``total`` included) among those :func:`flips` selects; unfiltered, the
    judge's count by cause from the figures (no flip read)."""
    if _unfiltered(filters):
        figures = compare_figures(url, a, b)
        out = {} if figures is None else dict(figures.comparison.flips_by_cause)
        out["total"] = 0 if figures is None else figures.flip_count
        return out
    chosen = select_flips(every_flip(url, a, b), **filters)
    out = count_by_cause(chosen)
    out["total"] = len(chosen)
    return out


def _first_pass_fail(flips: Sequence[Flip]) -> Flip | None:
    ordered = sorted(flips, key=lambda f: (f.case, f.repetition))
    return next((f for f in ordered if (f.from_verdict, f.to_verdict) == ("PASS", "FAIL")), None)


@_stored()
def opening_case(url: str, a: int, b: int) -> tuple[str, int] | None:
    """The (case, repetition) Side by side opens on when the address names none: the first
    PASS→FAIL flip of A → B, else its first flip, else B's (then A's) first failing trace."""
    # the page Side by side lists (the same kept read), in (case, repetition) order; every flip
    # is read only when that page is full and holds no PASS→FAIL flip
    page = flips(url, a, b, limit=paging.LISTED_FLIPS)
    first = _first_pass_fail(page)
    if first is None and len(page) == paging.LISTED_FLIPS:
        first = _first_pass_fail(every_flip(url, a, b))
    chosen = first or (page[0] if page else None)
    if chosen is not None:
        return chosen.case, chosen.repetition
    summaries = evaluations_by_id(url, (b, a))
    for ev in (b, a):
        if ev in summaries:
            failing = trace_rows(url, summaries[ev].run_id, ev, ("FAIL",))
            if failing:
                return failing[0].case_key, failing[0].repetition
    return None


@_stored()
def pass_histogram(url: str, evaluation_id: int) -> list[PassCell]:
    return store(url).evaluations.pass_histogram(evaluation_id)


@_stored()
def pass_curve(url: str, evaluation_id: int) -> list[dict[str, Any]]:
    """pass^k for k = 1..the most repetitions (:func:`dashboard.stats.pass_curve`): at 50,000
    cases the estimator's sums take most of a second, so the curve is kept, not the cells."""
    return stats.pass_curve(pass_histogram(url, evaluation_id))


@_stored()
def case_grid(url: str, columns: tuple[tuple[int, str], ...]) -> Grid:
    """The models grid of ``columns`` ((evaluation, label) each, :mod:`dashboard.grid`), from
    each column's passes counted per case in SQL, in case order as the report's rows are: not
    each column's whole report (50,000 rows each at 100k: its first open took seconds per
    column). Kept like any read."""
    evaluations = store(url).evaluations
    return grid_of_counts(
        [
            CountedColumn(
                ev,
                label,
                # in Python, not ORDER BY: the report orders cases as Python does
                sorted(
                    (r.case, r.passed, r.scored)
                    for r in evaluations.per_case_passes(ev, limit=None)
                ),
            )
            for ev, label in columns
        ]
    )


@_stored()
def per_case_passes(
    url: str, evaluation_id: int, only_inconsistent: bool = False
) -> list[CasePasses]:
    return store(url).evaluations.per_case_passes(
        evaluation_id, only_inconsistent=only_inconsistent
    )


@_stored()
def run_traces(url: str, run_id: int, case_contains: str | None = None) -> list[TraceListing]:
    return store(url).traces.run_traces(run_id, case_contains=case_contains)


@_stored()
def run_trace_count(url: str, run_id: int, case_contains: str | None = None) -> int:
    return store(url).traces.run_trace_count(run_id, case_contains=case_contains)


@_stored()
def trace_rows(
    url: str,
    run_id: int,
    evaluation_id: int | None,
    verdicts: tuple[str, ...] = (),
    causes: tuple[str, ...] = (),
    tool: str | None = None,
    text: str | None = None,
) -> list[TraceRowSummary]:
    return store(url).runs.trace_rows(
        run_id, evaluation_id, verdicts=verdicts, causes=causes, tool=tool, text=text
    )


@_stored()
def run_tools(url: str, run_id: int) -> list[str]:
    return store(url).runs.run_tools(run_id)


@_stored()
def run_usage(url: str, run_id: int) -> RunUsage:
    return store(url).runs.run_usage(run_id)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def price_table(path: str) -> PriceTable:
    """The price table at ``path``, read again after the TTL (an edited file is picked up)."""
    return read_price_table(path)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def run_cost(url: str, run_id: int, prices_path: str) -> RunCost:
    return services_run_cost(store(url), run_id, price_table(prices_path))


@_stored()
def runs_with_external_verdicts(url: str) -> set[int]:
    return store(url).runs.runs_with_external_verdicts()


@_stored()
def external_details(url: str, run_id: int, source: str) -> dict[tuple[str, int], Any]:
    """(case, repetition) -> what the external verdict recorded (e.g. τ-bench's reward_info)."""
    return {
        (v.case_key, v.repetition): v.verdict.detail
        for v in store(url).external.external_verdicts(run_id, source)
    }


@_stored()
def external_values(url: str, run_id: int, source: str) -> dict[tuple[str, int], float]:
    """(case, repetition) -> the external verdict's value (τ-bench's reward)."""
    return {
        (v.case_key, v.repetition): v.verdict.value
        for v in store(url).external.external_verdicts(run_id, source)
    }


def evaluation_report(url: str, evaluation_id: int) -> EvaluationReport:
    """The report `rejudge report EVAL` renders (without the review figures): kept while a
    SQLite store is unchanged (in memory and on disk, :mod:`.kept`), for the TTL on
    PostgreSQL."""
    now = state(url)
    if now is None:
        return _evaluation_report(url, evaluation_id)
    return _kept_evaluation_report(url, evaluation_id, now)


def _build_report(url: str, evaluation_id: int) -> EvaluationReport:
    from rejudge.services import evaluation_report as build

    return build(store(url), evaluation_id)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def _evaluation_report(url: str, evaluation_id: int) -> EvaluationReport:
    return _build_report(url, evaluation_id)


@st.cache_resource(show_spinner=False, max_entries=16)
def _kept_evaluation_report(url: str, evaluation_id: int, now: StoreState) -> EvaluationReport:
    file = _opened(url).file
    assert file is not None
    return kept(
        file, ("report", evaluation_id), now, lambda: _built_report(url, evaluation_id, now)
    )


@st.cache_resource(show_spinner=False, max_entries=4)
def _built_report(url: str, evaluation_id: int, now: StoreState) -> EvaluationReport:
    # built in this server's memory only: the Report page's filtered rows need every row, and
    # pickling all 50,000 of them to disk beside their kept answers was a third of an open at
    # 100k; a download or the JSON keeps it on disk when asked
    return _build_report(url, evaluation_id)


def _page_report(url: str, evaluation_id: int) -> EvaluationReport:
    """The report the Report page's filtered rows are computed from (not kept on disk)."""
    now = state(url)
    if now is None:
        return _evaluation_report(url, evaluation_id)
    return _built_report(url, evaluation_id, now)


@_stored()
def report_options(url: str, evaluation_id: int) -> ReportOptions:
    """The Report page's summary and filter choices (:mod:`.report_view`), counted in the
    database (the report's summary without its rows: the service's, as `rejudge report`
    builds it), kept without the report's rows."""
    from rejudge.services import evaluation_report as build

    opened = store(url)
    # one grouped read for both: the choices are the counts' groups' verdicts and codes
    counts = opened.evaluations.report_counts(evaluation_id)
    summary = build(opened, evaluation_id, with_cases=False, counts=counts).summary
    verdicts, codes = counts.choices()
    return ReportOptions(summary=summary, cases=summary.cases, verdicts=verdicts, codes=codes)


@_stored()
def report_rows(
    url: str, evaluation_id: int, verdicts: tuple[str, ...], causes: tuple[str, ...], text: str
) -> ReportRows:
    """The rows the Report page lists for its filters (:mod:`.report_view`): unfiltered, read
    a verdict at a time until the grid is full; filtered, from the whole report."""
    if not (verdicts or causes or text):
        evaluations = store(url).evaluations
        first = view.first_rows(
            report_options(url, evaluation_id).cases,
            lambda verdict, n: evaluations.verdict_rows(evaluation_id, verdict, n),
        )
        if first is not None:
            return first
    cases = _page_report(url, evaluation_id).cases
    return view.report_rows(cases, verdicts, causes, text)


@_stored()
def judge_calibration(url: str, evaluation_id: int) -> JudgeCalibration:
    """A model judge's calibration (what `rejudge report EVAL` prints beside its verdicts)."""
    from rejudge.services import evaluation_judge_calibration

    return evaluation_judge_calibration(store(url), evaluation_id)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def evaluation_trace(url: str, evaluation_id: int, case_key: str, repetition: int) -> int | None:
    return store(url).traces.evaluation_trace(evaluation_id, case_key, repetition)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def trace_detail(url: str, trace_id: int) -> TraceDetail | None:
    return store(url).traces.trace_detail(trace_id)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def judgment_body(url: str, evaluation_id: int, trace_id: int) -> JudgmentBody | None:
    return store(url).judgments.judgment_body(evaluation_id, trace_id)


@st.cache_data(ttl=TTL_S, show_spinner=False)
def rule_set_body(url: str, rule_set_id: int) -> dict[str, Any]:
    return store(url).rule_sets.get_rule_set(rule_set_id).model_dump(mode="json")


@_stored(LIVE_TTL_S)
def run_progress(url: str, run_id: int) -> RunProgress | None:
    return store(url).traces.run_progress(run_id)


@_stored(LIVE_TTL_S)
def pending_cases(url: str, run_id: int) -> list[PendingCase]:
    return store(url).traces.pending_cases(run_id)


@_stored(LIVE_TTL_S)
def recent_traces(url: str, run_id: int, limit: int = 20) -> list[RecentTrace]:
    return store(url).traces.recent_traces(run_id, limit=limit)


@_stored(LIVE_TTL_S)
def live_runs(url: str) -> list[RunSummary]:
    return store(url).catalog.run_summaries()


@_stored(LIVE_TTL_S)
def live_evaluations(url: str, run_id: int) -> list[EvaluationSummary]:
    return [r for r in store(url).catalog.evaluation_summaries() if r.run_id == run_id]


@_stored()
def trend_points(url: str, filters: dict[str, list[str]] | None = None) -> list[TrendPoint]:
    return store(url).catalog.trend_points(_filters(filters))


@_stored()
def partial_histogram(
    url: str, filters: dict[str, list[str]] | None = None, bins: int = 10
) -> list[PartialBucket]:
    return store(url).catalog.partial_histogram(_filters(filters), bins=bins)


# Review at 100,000 judgments: the queue before labels (about 19,000 items) is a resource, not
# data, so a rerun neither re-reads nor unpickles it; it changes only when the evaluation's
# judgment count does. The page state is keyed by the review stamp, which every label changes.
@st.cache_resource(show_spinner=False, max_entries=8)
def _review_base(
    url: str, evaluation_id: int, judgments: int, sample_passes: int, seed: int
) -> list[QueueItem]:
    return evaluation_queue(store(url), evaluation_id, sample_passes=sample_passes, seed=seed)


@st.cache_resource(show_spinner=False, max_entries=16)
def review_state(
    url: str,
    evaluation_id: int,
    sample_passes: int,
    seed: int,
    judgments: int,
    stamp: tuple[int, int, int],
) -> ReviewPageState:
    """The review page's queue and figures (read-only: shared by every session); on a SQLite
    store also kept on disk under its state, so a new server opens an unchanged evaluation's
    review without reading its rows (at 100,000 judgments: seconds). A label moves the state:
    the next queue is built from the rows this server holds."""

    def build() -> ReviewPageState:
        return review_page_state(
            store(url),
            evaluation_id,
            sample_passes=sample_passes,
            seed=seed,
            base=_review_base(url, evaluation_id, judgments, sample_passes, seed),
        )

    now = state(url)
    file = _opened(url).file
    if now is None or file is None:
        return build()
    return kept(file, ("review", evaluation_id, sample_passes, seed, stamp), now, build)
