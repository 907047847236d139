"""Read model of what the store holds: runs, evaluations (with verdict counts), baselines, and
the across-evaluations aggregates (trend points, the partial-score histogram): ``CatalogRepository``,
which ``Store`` hands out as ``store.catalog``.

Counting happens in the database (one grouped scan of the evaluation links), never by loading
judgments into Python. Results are named tuples: typed, yet as cheap to pickle (the dashboard's
``st.cache_data``) and to turn into a DataFrame as plain rows, which frozen dataclasses are not
(5-10x slower for 1,000 rows).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from rejudge.store._read_common import (
    Filters,
    accuracy,
    apply_filters,
    aware,
    listed_runs,
    rule_ref,
    verdict_columns,
)
from rejudge.store._tables import _T_BASE, _T_EJ, _T_EVAL, _T_RULES, _T_RUN, _T_SUITE, _T_TRACE
from rejudge.store._unit_of_work import Repository
from sqlalchemy import case, func, select

from rejudge.model import VERDICTS, TraceStatuses

if TYPE_CHECKING:
    pass

__all__ = [
    "FilterOptions",
    "RunSummary",
    "EvaluationSummary",
    "BaselineSummary",
    "TrendPoint",
    "PartialBucket",
]


class FilterOptions(NamedTuple):
    """The distinct values a filter can take (sorted)."""

    suite: list[str]
    model: list[str]
    tier: list[str]
    rule_set: list[str]

    def values(self, name: str) -> list[str]:
        return list(getattr(self, name, []))


class RunSummary(NamedTuple):
    id: int
    run: str
    suite: str
    model: str
    provider: str
    harness_mode: str
    repetitions: int
    traces: int
    expected_traces: int
    status: str
    started_at: datetime | None
    finished_at: datetime | None


class EvaluationSummary(NamedTuple):
    """An evaluation with what it judged (run, suite, model, tier, rule set) and its counts."""

    id: int
    run_id: int
    run: str
    suite: str
    suite_hash: str
    registry_hash: str
    model: str
    provider: str
    harness_mode: str
    tier: str
    rule_set: str
    rule_set_id: int
    rule_set_hash: str
    engine_version: str
    status: str
    created_at: datetime | None
    PASS: int
    FAIL: int
    SKIP: int
    AGENT_ERROR: int
    avg_partial: float | None
    judgments: int
    scored: int
    accuracy: float | None

    @property
    def verdict_counts(self) -> dict[str, int]:
        return {v: int(getattr(self, v)) for v in VERDICTS}


class BaselineSummary(NamedTuple):
    id: int
    name: str
    evaluation_id: int
    report_hash: str
    note: str | None
    created_at: datetime | None
    run: str
    tier: str
    rule_set: str


class TrendPoint(NamedTuple):
    evaluation: int
    created_at: datetime | None
    model: str
    suite: str
    tier: str
    rule_set: str
    accuracy: float | None
    scored: int
    avg_partial: float | None
    # when the run was recorded (its start): re-judging an old run keeps its place in time
    recorded_at: datetime | None = None


class PartialBucket(NamedTuple):
    """Judgments of one verdict whose partial score falls in [low, high) (the last bin is closed)."""

    bucket: int
    low: float
    high: float
    verdict: str
    n: int


class CatalogRepository(Repository):
    """``store.catalog``: what the store holds (runs, evaluations, baselines) and their aggregates.

    Named ``*_summaries`` where a repository already has a ``list_*`` method returning records:
    these return the dashboard's rows with counts, those the records the services work on.
    """

    def filter_options(self) -> FilterOptions:
        """Distinct suites, models, tiers and rule sets (name@version) that evaluations or runs use."""
        ref = rule_ref()
        with self._connect() as c:
            suites = list(
                c.execute(select(_T_SUITE.c.name).distinct().order_by(_T_SUITE.c.name)).scalars()
            )
            models = list(
                c.execute(select(_T_RUN.c.model).distinct().order_by(_T_RUN.c.model)).scalars()
            )
            tiers = list(
                c.execute(select(_T_EVAL.c.tier).distinct().order_by(_T_EVAL.c.tier)).scalars()
            )
            rules = list(
                c.execute(
                    select(ref)
                    .select_from(_T_EVAL.join(_T_RULES, _T_RULES.c.id == _T_EVAL.c.rule_set_id))
                    .distinct()
                    .order_by(ref)
                ).scalars()
            )
        return FilterOptions(suite=suites, model=models, tier=tiers, rule_set=rules)

    def run_summaries(self, filters: Filters | None = None) -> list[RunSummary]:
        """Runs with their suite, model, provider, harness mode, repetitions, traces and status."""
        query = listed_runs(
            _T_RUN.c.id,
            _T_RUN.c.name,
            _T_SUITE.c.name.label("suite"),
            _T_RUN.c.model,
            _T_RUN.c.provider,
            _T_RUN.c.harness_mode,
            _T_RUN.c.config,
            _T_RUN.c.status,
            _T_RUN.c.started_at,
            _T_RUN.c.finished_at,
            _T_SUITE.c.case_count,
            _T_RUN.c.planned_cases,
        )
        query = apply_filters(query, filters, evaluations=False)
        with self._connect() as c:
            rows = c.execute(query).all()
        out = []
        for r in rows:
            repeat = int((r.config or {}).get("repeat", 1) or 1)
            out.append(
                RunSummary(
                    id=r.id,
                    run=r.name,
                    suite=r.suite,
                    model=r.model,
                    provider=r.provider,
                    harness_mode=r.harness_mode,
                    repetitions=repeat,
                    traces=int(r.traces or 0),
                    # a recording of a subset (record --case) expects only its cases
                    expected_traces=(
                        len(r.planned_cases)
                        if r.planned_cases is not None
                        else int(r.case_count or 0)
                    )
                    * repeat,
                    status=r.status,
                    started_at=aware(r.started_at),
                    finished_at=aware(r.finished_at),
                )
            )
        return out

    def trace_statuses(self) -> dict[int, TraceStatuses]:
        """Per run id, how its traces ended as stored (one query; a run without traces is
        absent)."""
        query = select(_T_TRACE.c.run_id, _T_TRACE.c.status, func.count()).group_by(
            _T_TRACE.c.run_id, _T_TRACE.c.status
        )
        counts: dict[int, dict[str, int]] = {}
        with self._connect() as c:
            for run_id, status, n in c.execute(query):
                counts.setdefault(int(run_id), {})[str(status)] = int(n)
        return {run_id: TraceStatuses.of(by) for run_id, by in counts.items()}

    def evaluation_summaries(
        self, filters: Filters | None = None, *, ids: Sequence[int] | None = None
    ) -> list[EvaluationSummary]:
        """Evaluations with run, suite, model, tier, rule set, verdict counts and accuracy."""
        agg_query = select(_T_EJ.c.evaluation_id, *verdict_columns(_T_EJ)).group_by(
            _T_EJ.c.evaluation_id
        )
        if ids is not None:
            agg_query = agg_query.where(_T_EJ.c.evaluation_id.in_(list(ids)))
        agg = agg_query.subquery()
        query = (
            select(
                _T_EVAL.c.id,
                _T_EVAL.c.run_id,
                _T_RUN.c.name.label("run"),
                _T_SUITE.c.name.label("suite"),
                _T_RUN.c.suite_hash,
                _T_RUN.c.registry_hash,
                _T_RUN.c.model,
                _T_RUN.c.provider,
                _T_RUN.c.harness_mode,
                _T_EVAL.c.tier,
                rule_ref().label("rule_set"),
                _T_EVAL.c.rule_set_id,
                _T_RULES.c.hash.label("rule_set_hash"),
                _T_EVAL.c.engine_version,
                _T_EVAL.c.status,
                _T_EVAL.c.created_at,
                *[func.coalesce(agg.c[v], 0).label(v) for v in VERDICTS],
                agg.c.avg_partial,
                func.coalesce(agg.c.total, 0).label("judgments"),
            )
            .join(_T_RUN, _T_RUN.c.id == _T_EVAL.c.run_id)
            .join(_T_SUITE, _T_SUITE.c.id == _T_RUN.c.suite_id)
            .join(_T_RULES, _T_RULES.c.id == _T_EVAL.c.rule_set_id)
            .outerjoin(agg, agg.c.evaluation_id == _T_EVAL.c.id)
            .order_by(_T_EVAL.c.id)
        )
        query = apply_filters(query, filters, evaluations=True)
        if ids is not None:
            query = query.where(_T_EVAL.c.id.in_(list(ids)))
        with self._connect() as c:
            rows = c.execute(query).mappings().all()
        out = []
        for r in rows:
            row: dict[str, Any] = dict(r)
            passed, failed = int(row["PASS"]), int(row["FAIL"])
            row.update({v: int(row[v]) for v in VERDICTS})
            row["judgments"] = int(row["judgments"])
            row["created_at"] = aware(row["created_at"])
            row["scored"] = passed + failed
            row["accuracy"] = accuracy(passed, failed)
            out.append(EvaluationSummary(**row))
        return out

    def evaluation_info(self, evaluation_id: int) -> EvaluationSummary | None:
        rows = self.evaluation_summaries(ids=[evaluation_id])
        return rows[0] if rows else None

    def baseline_summaries(self) -> list[BaselineSummary]:
        query = (
            select(
                _T_BASE.c.id,
                _T_BASE.c.name,
                _T_BASE.c.evaluation_id,
                _T_BASE.c.report_hash,
                _T_BASE.c.note,
                _T_BASE.c.created_at,
                _T_RUN.c.name.label("run"),
                _T_EVAL.c.tier,
                rule_ref().label("rule_set"),
            )
            .join(_T_EVAL, _T_EVAL.c.id == _T_BASE.c.evaluation_id)
            .join(_T_RUN, _T_RUN.c.id == _T_EVAL.c.run_id)
            .join(_T_RULES, _T_RULES.c.id == _T_EVAL.c.rule_set_id)
            .order_by(_T_BASE.c.id)
        )
        with self._connect() as c:
            return [BaselineSummary(**r) for r in c.execute(query).mappings().all()]

    def trend_points(self, filters: Filters | None = None) -> list[TrendPoint]:
        """One point per evaluation: when judged and when its run was recorded, model, suite,
        tier, rule set, accuracy."""
        with self._connect() as c:
            recorded = dict(c.execute(select(_T_RUN.c.id, _T_RUN.c.started_at)).all())
        return [
            TrendPoint(
                evaluation=r.id,
                created_at=r.created_at,
                model=r.model,
                suite=r.suite,
                tier=r.tier,
                rule_set=r.rule_set,
                accuracy=r.accuracy,
                scored=r.scored,
                avg_partial=r.avg_partial,
                recorded_at=aware(recorded.get(r.run_id)),
            )
            for r in self.evaluation_summaries(filters)
        ]

    def partial_histogram(
        self, filters: Filters | None = None, *, bins: int = 10
    ) -> list[PartialBucket]:
        """Partial scores of the filtered evaluations in ``bins`` equal buckets over [0, 1]."""
        bucket = case(
            (_T_EJ.c.partial_score >= 1.0, bins - 1),
            else_=func.floor(_T_EJ.c.partial_score * bins),
        )
        query = (
            select(bucket.label("bucket"), _T_EJ.c.verdict, func.count().label("n"))
            .select_from(
                _T_EJ.join(_T_EVAL, _T_EVAL.c.id == _T_EJ.c.evaluation_id)
                .join(_T_RUN, _T_RUN.c.id == _T_EVAL.c.run_id)
                .join(_T_SUITE, _T_SUITE.c.id == _T_RUN.c.suite_id)
                .join(_T_RULES, _T_RULES.c.id == _T_EVAL.c.rule_set_id)
            )
            .where(_T_EJ.c.partial_score.is_not(None))
            .group_by(bucket, _T_EJ.c.verdict)
        )
        query = apply_filters(query, filters, evaluations=True)
        with self._connect() as c:
            rows = c.execute(query).all()
        out = []
        for r in rows:
            index = max(0, min(bins - 1, int(r.bucket)))
            out.append(
                PartialBucket(
                    bucket=index,
                    low=index / bins,
                    high=(index + 1) / bins,
                    verdict=r.verdict,
                    n=int(r.n),
                )
            )
        return sorted(out, key=lambda h: (h.bucket, h.verdict))
