"""Every read the dashboard makes: SQL aggregates over the store's tables.

Functions take an engine and return plain Python data (lists of dicts, dicts of counts), so the
pages can cache them with ``st.cache_data`` and tests can call them without Streamlit. Counting,
grouping and joining happen in the database: no function loads an evaluation's judgments into
Python. Row lists that could grow with the store (flips, per-case rows) take a ``limit``.

Two evaluations are joined case by case on (case id, repetition), the pairing that
``rejudge compare`` uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from rejudge.judge.compare import CAUSES
from rejudge.store.schemas import VERDICTS
from rejudge.store.tables import (
    BaselineRow,
    CallRow,
    CaseRow,
    EvaluationJudgmentRow,
    EvaluationRow,
    JudgmentRow,
    RuleSetRow,
    RunRow,
    SuiteRow,
    TraceRow,
)
from sqlalchemy import Engine, Table, and_, case, distinct, func, literal, or_, select, text
from sqlalchemy.sql import ColumnElement, Select

__all__ = [
    "Filters",
    "filter_options",
    "list_runs",
    "list_evaluations",
    "list_baselines",
    "evaluation_info",
    "verdict_counts",
    "group_counts",
    "taxonomy_counts",
    "pair_counts",
    "coverage",
    "flips",
    "flip_count",
    "pass_histogram",
    "per_case_passes",
    "run_traces",
    "trace_detail",
    "judgment_body",
    "run_progress",
    "pending_cases",
    "recent_traces",
    "round_badges",
    "trend_points",
    "partial_histogram",
    "FLIP_CAUSES",
    "FLIP_DIRECTIONS",
]

_RUN: Table = RunRow.__table__  # type: ignore[assignment]
_SUITE: Table = SuiteRow.__table__  # type: ignore[assignment]
_CASE: Table = CaseRow.__table__  # type: ignore[assignment]
_TRACE: Table = TraceRow.__table__  # type: ignore[assignment]
_CALL: Table = CallRow.__table__  # type: ignore[assignment]
_RULES: Table = RuleSetRow.__table__  # type: ignore[assignment]
_EVAL: Table = EvaluationRow.__table__  # type: ignore[assignment]
_JUDG: Table = JudgmentRow.__table__  # type: ignore[assignment]
_EJ: Table = EvaluationJudgmentRow.__table__  # type: ignore[assignment]
_BASE: Table = BaselineRow.__table__  # type: ignore[assignment]

# why a case flipped: the first input that differs, in the judge's order (judge.compare.CAUSES)
FLIP_CAUSES: tuple[str, ...] = (*(label for _field, label in CAUSES), "unknown")
FLIP_DIRECTIONS: tuple[str, ...] = ("PASS→FAIL", "FAIL→PASS", "other")

Filters = dict[str, Sequence[str]]


def _count_if(condition: ColumnElement[bool]) -> Any:
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


def _accuracy(passed: int, failed: int) -> float | None:
    """PASS / (PASS + FAIL), rounded like the judge's reports (6 decimals)."""
    scored = passed + failed
    return round(passed / scored, 6) if scored else None


def _rule_ref() -> Any:
    return _RULES.c.name + literal("@") + _RULES.c.version


def _aware(value: datetime | None) -> datetime | None:
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


# --------------------------------------------------------------------------- overview


def filter_options(engine: Engine) -> dict[str, list[str]]:
    """Distinct suites, models, tiers and rule sets (name@version) that evaluations or runs use."""
    ref = _rule_ref()
    with engine.connect() as c:
        suites = list(c.execute(select(_SUITE.c.name).distinct().order_by(_SUITE.c.name)).scalars())
        models = list(c.execute(select(_RUN.c.model).distinct().order_by(_RUN.c.model)).scalars())
        tiers = list(c.execute(select(_EVAL.c.tier).distinct().order_by(_EVAL.c.tier)).scalars())
        rules = list(
            c.execute(
                select(ref)
                .select_from(_EVAL.join(_RULES, _RULES.c.id == _EVAL.c.rule_set_id))
                .distinct()
                .order_by(ref)
            ).scalars()
        )
    return {"suite": suites, "model": models, "tier": tiers, "rule_set": rules}


def _apply_filters(
    query: Select[Any], filters: Filters | None, *, evaluations: bool
) -> Select[Any]:
    if not filters:
        return query
    if filters.get("suite"):
        query = query.where(_SUITE.c.name.in_(list(filters["suite"])))
    if filters.get("model"):
        query = query.where(_RUN.c.model.in_(list(filters["model"])))
    if evaluations and filters.get("tier"):
        query = query.where(_EVAL.c.tier.in_(list(filters["tier"])))
    if evaluations and filters.get("rule_set"):
        query = query.where(_rule_ref().in_(list(filters["rule_set"])))
    return query


def list_runs(engine: Engine, filters: Filters | None = None) -> list[dict[str, Any]]:
    """Runs with their suite, model, provider, harness mode, repetitions, traces and status."""
    counts = (
        select(_TRACE.c.run_id, func.count().label("traces")).group_by(_TRACE.c.run_id).subquery()
    )
    query = (
        select(
            _RUN.c.id,
            _RUN.c.name,
            _SUITE.c.name.label("suite"),
            _RUN.c.model,
            _RUN.c.provider,
            _RUN.c.harness_mode,
            _RUN.c.config,
            _RUN.c.status,
            _RUN.c.started_at,
            _RUN.c.finished_at,
            _SUITE.c.case_count,
            counts.c.traces,
        )
        .join(_SUITE, _SUITE.c.id == _RUN.c.suite_id)
        .outerjoin(counts, counts.c.run_id == _RUN.c.id)
        .order_by(_RUN.c.id)
    )
    query = _apply_filters(query, filters, evaluations=False)
    with engine.connect() as c:
        rows = c.execute(query).all()
    out = []
    for r in rows:
        repeat = int((r.config or {}).get("repeat", 1) or 1)
        out.append(
            {
                "id": r.id,
                "run": r.name,
                "suite": r.suite,
                "model": r.model,
                "provider": r.provider,
                "harness_mode": r.harness_mode,
                "repetitions": repeat,
                "traces": int(r.traces or 0),
                "expected_traces": int(r.case_count or 0) * repeat,
                "status": r.status,
                "started_at": _aware(r.started_at),
                "finished_at": _aware(r.finished_at),
            }
        )
    return out


def _verdict_columns(table: Table) -> list[Any]:
    scored = table.c.verdict.in_(["PASS", "FAIL"])
    return [_count_if(table.c.verdict == v).label(v) for v in VERDICTS] + [
        # the judge averages partial scores over scored (PASS + FAIL) rows only
        func.avg(case((scored, table.c.partial_score), else_=None)).label("avg_partial"),
        func.count().label("total"),
    ]


def list_evaluations(
    engine: Engine, filters: Filters | None = None, *, ids: Sequence[int] | None = None
) -> list[dict[str, Any]]:
    """Evaluations with run, suite, model, tier, rule set, verdict counts and accuracy."""
    agg_query = select(_EJ.c.evaluation_id, *_verdict_columns(_EJ)).group_by(_EJ.c.evaluation_id)
    if ids is not None:
        agg_query = agg_query.where(_EJ.c.evaluation_id.in_(list(ids)))
    agg = agg_query.subquery()
    query = (
        select(
            _EVAL.c.id,
            _EVAL.c.run_id,
            _RUN.c.name.label("run"),
            _SUITE.c.name.label("suite"),
            _RUN.c.suite_hash,
            _RUN.c.registry_hash,
            _RUN.c.model,
            _RUN.c.provider,
            _RUN.c.harness_mode,
            _EVAL.c.tier,
            _rule_ref().label("rule_set"),
            _EVAL.c.rule_set_id,
            _RULES.c.hash.label("rule_set_hash"),
            _EVAL.c.engine_version,
            _EVAL.c.status,
            _EVAL.c.created_at,
            *[func.coalesce(agg.c[v], 0).label(v) for v in VERDICTS],
            agg.c.avg_partial,
            func.coalesce(agg.c.total, 0).label("judgments"),
        )
        .join(_RUN, _RUN.c.id == _EVAL.c.run_id)
        .join(_SUITE, _SUITE.c.id == _RUN.c.suite_id)
        .join(_RULES, _RULES.c.id == _EVAL.c.rule_set_id)
        .outerjoin(agg, agg.c.evaluation_id == _EVAL.c.id)
        .order_by(_EVAL.c.id)
    )
    filtered = _apply_filters(query, filters, evaluations=True)
    if ids is not None:
        filtered = filtered.where(_EVAL.c.id.in_(list(ids)))
    with engine.connect() as c:
        rows = c.execute(filtered).mappings().all()
    out = []
    for r in rows:
        row = dict(r)
        row["created_at"] = _aware(row["created_at"])
        row["scored"] = int(row["PASS"]) + int(row["FAIL"])
        row["accuracy"] = _accuracy(int(row["PASS"]), int(row["FAIL"]))
        out.append(row)
    return out


def list_baselines(engine: Engine) -> list[dict[str, Any]]:
    query = (
        select(
            _BASE.c.id,
            _BASE.c.name,
            _BASE.c.evaluation_id,
            _BASE.c.report_hash,
            _BASE.c.note,
            _BASE.c.created_at,
            _RUN.c.name.label("run"),
            _EVAL.c.tier,
            _rule_ref().label("rule_set"),
        )
        .join(_EVAL, _EVAL.c.id == _BASE.c.evaluation_id)
        .join(_RUN, _RUN.c.id == _EVAL.c.run_id)
        .join(_RULES, _RULES.c.id == _EVAL.c.rule_set_id)
        .order_by(_BASE.c.id)
    )
    with engine.connect() as c:
        return [dict(r) for r in c.execute(query).mappings().all()]


def evaluation_info(engine: Engine, evaluation_id: int) -> dict[str, Any] | None:
    rows = list_evaluations(engine, ids=[evaluation_id])
    return rows[0] if rows else None


# --------------------------------------------------------------------------- one evaluation


def verdict_counts(engine: Engine, evaluation_id: int) -> dict[str, int]:
    query = (
        select(_EJ.c.verdict, func.count())
        .where(_EJ.c.evaluation_id == evaluation_id)
        .group_by(_EJ.c.verdict)
    )
    counts = dict.fromkeys(VERDICTS, 0)
    with engine.connect() as c:
        for verdict, n in c.execute(query):
            counts[verdict] = counts.get(verdict, 0) + int(n)
    return counts


def group_counts(engine: Engine, evaluation_id: int, by: str) -> dict[str, dict[str, Any]]:
    """Per ``dimension`` or ``category``: verdict counts, accuracy and average partial score."""
    if by not in ("dimension", "category"):
        raise ValueError(f"group by dimension or category, not {by!r}")
    column = _EJ.c[by]
    query = (
        select(column.label("key"), *_verdict_columns(_EJ))
        .where(_EJ.c.evaluation_id == evaluation_id)
        .group_by(column)
        .order_by(column)
    )
    out: dict[str, dict[str, Any]] = {}
    with engine.connect() as c:
        for r in c.execute(query).mappings():
            counts = {v: int(r[v]) for v in VERDICTS}
            out[str(r["key"])] = {
                **counts,
                "scored": counts["PASS"] + counts["FAIL"],
                "accuracy": _accuracy(counts["PASS"], counts["FAIL"]),
                "avg_partial": r["avg_partial"],
            }
    return out


def taxonomy_counts(engine: Engine, evaluation_id: int) -> dict[str, int]:
    """How many of the evaluation's FAIL judgments name each taxonomy code (as the judge's
    report counts them: once per judgment), unnested in SQL."""
    if engine.dialect.name == "postgresql":
        sql = text(
            "SELECT t.code AS code, count(DISTINCT ej.id) AS n FROM evaluation_judgments ej "
            "JOIN judgments j ON j.id = ej.judgment_id "
            "CROSS JOIN LATERAL jsonb_array_elements_text(j.taxonomy) AS t(code) "
            "WHERE ej.evaluation_id = :e AND ej.verdict = 'FAIL' GROUP BY t.code"
        )
    else:
        sql = text(
            "SELECT t.value AS code, count(DISTINCT ej.id) AS n FROM evaluation_judgments ej "
            "JOIN judgments j ON j.id = ej.judgment_id, json_each(j.taxonomy) AS t "
            "WHERE ej.evaluation_id = :e AND ej.verdict = 'FAIL' GROUP BY t.value"
        )
    with engine.connect() as c:
        rows = c.execute(sql, {"e": evaluation_id}).all()
    return dict(sorted(((str(r.code), int(r.n)) for r in rows), key=lambda kv: (-kv[1], kv[0])))


# --------------------------------------------------------------------------- two evaluations


def _pivot(a: int, b: int) -> Any:
    """One row per (case, repetition) of A or B with both sides' columns side by side.

    A single scan of the two evaluations' link rows grouped by (case, repetition): no
    self-join, so pairing stays O(n log n) on SQLite, which would otherwise probe one side
    by evaluation id only and go quadratic.
    """

    def side(ev: int, column: Any) -> Any:
        return func.max(case((_EJ.c.evaluation_id == ev, column), else_=None))

    return (
        select(
            _EJ.c.case_key,
            _EJ.c.repetition,
            side(a, _EJ.c.verdict).label("va"),
            side(b, _EJ.c.verdict).label("vb"),
            side(a, _EJ.c.judgment_id).label("ja"),
            side(b, _EJ.c.judgment_id).label("jb"),
            side(a, _EJ.c.trace_id).label("ta"),
            side(b, _EJ.c.trace_id).label("tb"),
            side(a, _EJ.c.partial_score).label("pa"),
            side(b, _EJ.c.partial_score).label("pb"),
            func.max(_EJ.c.dimension).label("dimension"),
            func.max(_EJ.c.category).label("category"),
        )
        .where(_EJ.c.evaluation_id.in_([a, b]))
        .group_by(_EJ.c.case_key, _EJ.c.repetition)
        .subquery("pv")
    )


def _paired(pv: Any) -> Any:
    return and_(pv.c.va.is_not(None), pv.c.vb.is_not(None))


def pair_counts(engine: Engine, a: int, b: int) -> dict[tuple[str | None, str | None], int]:
    """(verdict in A, verdict in B) -> number of (case, repetition) rows; None marks a row that
    only one side has. One grouped scan."""
    pv = _pivot(a, b)
    query = select(pv.c.va, pv.c.vb, func.count().label("n")).group_by(pv.c.va, pv.c.vb)
    with engine.connect() as c:
        return {(r.va, r.vb): int(r.n) for r in c.execute(query)}


def coverage(
    engine: Engine,
    a: int,
    b: int,
    pairs: dict[tuple[str | None, str | None], int] | None = None,
) -> dict[str, int]:
    """Rows in A, in B, and paired; cases whose content or registry differs between them."""
    if pairs is None:
        pairs = pair_counts(engine, a, b)
    pv = _pivot(a, b)
    ja = _JUDG.alias("ja")
    jb = _JUDG.alias("jb")
    with engine.connect() as c:
        joined = pv.join(ja, ja.c.id == pv.c.ja).join(jb, jb.c.id == pv.c.jb)
        changed = c.execute(
            select(
                func.count(
                    distinct(case((ja.c.case_hash != jb.c.case_hash, pv.c.case_key), else_=None))
                ).label("cases"),
                _count_if(ja.c.registry_hash != jb.c.registry_hash).label("registry"),
            ).select_from(joined)
        ).one()
        changed_cases, registry_changed = changed.cases, changed.registry
    return {
        "a": sum(n for (va, _vb), n in pairs.items() if va is not None),
        "b": sum(n for (_va, vb), n in pairs.items() if vb is not None),
        "paired": sum(n for (va, vb), n in pairs.items() if va is not None and vb is not None),
        "changed_cases": int(changed_cases),
        "registry_changed_rows": int(registry_changed),
    }


def _flip_query(
    a: int,
    b: int,
    *,
    direction: str | None = None,
    case_contains: str | None = None,
    dimensions: Sequence[str] | None = None,
    causes: Sequence[str] | None = None,
) -> tuple[Select[Any], Any]:
    pv = _pivot(a, b)
    ja = _JUDG.alias("ja")
    jb = _JUDG.alias("jb")
    cause = case(
        *[(ja.c[field] != jb.c[field], literal(label)) for field, label in CAUSES],
        else_=literal("unknown"),
    ).label("cause")
    # a flip is any verdict change on the same (case, repetition), as in judge.compare
    flipped = and_(_paired(pv), pv.c.va != pv.c.vb)
    pass_fail = and_(pv.c.va == "PASS", pv.c.vb == "FAIL")
    fail_pass = and_(pv.c.va == "FAIL", pv.c.vb == "PASS")
    query = (
        select(
            pv.c.case_key.label("case"),
            pv.c.repetition,
            pv.c.va.label("from"),
            pv.c.vb.label("to"),
            cause,
            pv.c.dimension,
            pv.c.category,
            ja.c.taxonomy.label("taxonomy_a"),
            jb.c.taxonomy.label("taxonomy_b"),
            pv.c.pa.label("partial_a"),
            pv.c.pb.label("partial_b"),
            pv.c.ta.label("trace_a"),
            pv.c.tb.label("trace_b"),
        )
        .select_from(pv.join(ja, ja.c.id == pv.c.ja).join(jb, jb.c.id == pv.c.jb))
        .where(flipped)
    )
    if direction == "PASS→FAIL":
        query = query.where(pass_fail)
    elif direction == "FAIL→PASS":
        query = query.where(fail_pass)
    elif direction == "other":
        query = query.where(~or_(pass_fail, fail_pass))
    if case_contains:
        query = query.where(pv.c.case_key.contains(case_contains, autoescape=True))
    if dimensions:
        query = query.where(pv.c.dimension.in_(list(dimensions)))
    if causes:
        query = query.where(cause.in_(list(causes)))
    return query, pv


def flips(
    engine: Engine,
    a: int,
    b: int,
    *,
    direction: str | None = None,
    case_contains: str | None = None,
    dimensions: Sequence[str] | None = None,
    causes: Sequence[str] | None = None,
    limit: int | None = 1000,
) -> list[dict[str, Any]]:
    """Verdict changes between A and B (PASS→FAIL, FAIL→PASS and any other change, e.g. to
    SKIP or AGENT_ERROR), each with the first input that differs as its cause."""
    query, pv = _flip_query(
        a, b, direction=direction, case_contains=case_contains, dimensions=dimensions, causes=causes
    )
    query = query.order_by(pv.c.case_key, pv.c.repetition)
    if limit is not None:
        query = query.limit(limit)
    with engine.connect() as c:
        return [dict(r) for r in c.execute(query).mappings().all()]


def flip_count(engine: Engine, a: int, b: int, **filters: Any) -> dict[str, int]:
    """Number of flips per cause (``total`` included), with the same filters as :func:`flips`."""
    query, _ea = _flip_query(a, b, **filters)
    sub = query.subquery()
    grouped = select(sub.c.cause, func.count().label("n")).group_by(sub.c.cause)
    with engine.connect() as c:
        out = {str(r.cause): int(r.n) for r in c.execute(grouped)}
    out["total"] = sum(out.values())
    return out


# --------------------------------------------------------------------------- pass^k


def _per_case(evaluation_id: int) -> Any:
    return (
        select(
            _EJ.c.case_key,
            _count_if(_EJ.c.verdict.in_(["PASS", "FAIL"])).label("n"),
            _count_if(_EJ.c.verdict == "PASS").label("c"),
            func.count().label("runs"),
        )
        .where(_EJ.c.evaluation_id == evaluation_id)
        .group_by(_EJ.c.case_key)
    )


def pass_histogram(engine: Engine, evaluation_id: int) -> list[dict[str, int]]:
    """How many cases had ``n`` scored repetitions of which ``c`` passed: [{n, c, cases}]."""
    sub = _per_case(evaluation_id).subquery()
    query = (
        select(sub.c.n, sub.c.c, func.count().label("cases"))
        .group_by(sub.c.n, sub.c.c)
        .order_by(sub.c.n, sub.c.c)
    )
    with engine.connect() as c:
        return [{"n": int(r.n), "c": int(r.c), "cases": int(r.cases)} for r in c.execute(query)]


def per_case_passes(
    engine: Engine, evaluation_id: int, *, only_inconsistent: bool = False, limit: int = 500
) -> list[dict[str, Any]]:
    """Per case: scored repetitions, passes; inconsistent cases (some but not all pass) first."""
    sub = _per_case(evaluation_id).subquery()
    mixed = and_(sub.c.c > 0, sub.c.c < sub.c.n)
    query = select(sub.c.case_key, sub.c.n, sub.c.c, sub.c.runs).order_by(
        case((mixed, 0), else_=1), sub.c.case_key
    )
    if only_inconsistent:
        query = query.where(mixed)
    with engine.connect() as c:
        return [
            {"case": r.case_key, "scored": int(r.n), "passed": int(r.c), "repetitions": int(r.runs)}
            for r in c.execute(query.limit(limit))
        ]


# --------------------------------------------------------------------------- traces


def run_traces(
    engine: Engine, run_id: int, *, case_contains: str | None = None, limit: int = 2000
) -> list[dict[str, Any]]:
    query = (
        select(
            _TRACE.c.id,
            _TRACE.c.case_key,
            _TRACE.c.repetition,
            _TRACE.c.status,
            _TRACE.c.round_count,
            _TRACE.c.call_count,
        )
        .where(_TRACE.c.run_id == run_id)
        .order_by(_TRACE.c.case_key, _TRACE.c.repetition)
        .limit(limit)
    )
    if case_contains:
        query = query.where(_TRACE.c.case_key.contains(case_contains, autoescape=True))
    with engine.connect() as c:
        return [dict(r) for r in c.execute(query).mappings().all()]


def trace_detail(engine: Engine, trace_id: int) -> dict[str, Any] | None:
    query = (
        select(
            _TRACE.c.id,
            _TRACE.c.run_id,
            _TRACE.c.case_key,
            _TRACE.c.repetition,
            _TRACE.c.status,
            _TRACE.c.hash,
            _TRACE.c.body,
            _TRACE.c.cassette_path,
            _TRACE.c.cassette_hash,
            _CASE.c.body.label("case_body"),
        )
        .join(_CASE, _CASE.c.id == _TRACE.c.case_id)
        .where(_TRACE.c.id == trace_id)
    )
    with engine.connect() as c:
        row = c.execute(query).mappings().first()
    return dict(row) if row is not None else None


def judgment_body(engine: Engine, evaluation_id: int, trace_id: int) -> dict[str, Any] | None:
    query = (
        select(_JUDG.c.body)
        .join(_EJ, _EJ.c.judgment_id == _JUDG.c.id)
        .where(_EJ.c.evaluation_id == evaluation_id, _EJ.c.trace_id == trace_id)
    )
    with engine.connect() as c:
        body = c.execute(query).scalar()
    return dict(body) if body is not None else None


# --------------------------------------------------------------------------- live monitor


def run_progress(engine: Engine, run_id: int) -> dict[str, Any] | None:
    """Counts for a run being recorded: traces so far, statuses, calls ok/failed, times."""
    runs = [r for r in list_runs(engine) if r["id"] == run_id]
    if not runs:
        return None
    run = runs[0]
    with engine.connect() as c:
        statuses = {
            str(s): int(n)
            for s, n in c.execute(
                select(_TRACE.c.status, func.count())
                .where(_TRACE.c.run_id == run_id)
                .group_by(_TRACE.c.status)
            )
        }
        calls = c.execute(
            select(
                _count_if(_CALL.c.ok.is_(True)).label("ok"),
                _count_if(_CALL.c.ok.is_(False)).label("failed"),
                _count_if(_CALL.c.ok.is_(None)).label("unexecuted"),
            )
            .select_from(_CALL.join(_TRACE, _TRACE.c.id == _CALL.c.trace_id))
            .where(_TRACE.c.run_id == run_id)
        ).one()
        last = c.execute(
            select(func.max(_TRACE.c.created_at)).where(_TRACE.c.run_id == run_id)
        ).scalar()
    return {
        **run,
        "statuses": statuses,
        "calls_ok": int(calls.ok),
        "calls_failed": int(calls.failed),
        "calls_unexecuted": int(calls.unexecuted),
        "last_trace_at": _aware(last),
    }


def pending_cases(engine: Engine, run_id: int, *, limit: int = 5) -> list[dict[str, Any]]:
    """The next (case, repetition) pairs in suite order that the run has no trace for yet."""
    with engine.connect() as c:
        run = c.execute(select(_RUN.c.suite_id, _RUN.c.config).where(_RUN.c.id == run_id)).first()
        if run is None:
            return []
        repeat = int((run.config or {}).get("repeat", 1) or 1)
        done = (
            select(_TRACE.c.case_key, func.count().label("done"))
            .where(_TRACE.c.run_id == run_id)
            .group_by(_TRACE.c.case_key)
            .subquery()
        )
        query = (
            select(_CASE.c.case_key, _CASE.c.position, func.coalesce(done.c.done, 0).label("done"))
            .outerjoin(done, done.c.case_key == _CASE.c.case_key)
            .where(_CASE.c.suite_id == run.suite_id)
            .where(func.coalesce(done.c.done, 0) < repeat)
            .order_by(_CASE.c.position)
            .limit(limit)
        )
        return [
            {"case": r.case_key, "done": int(r.done), "repetitions": repeat}
            for r in c.execute(query)
        ]


def recent_traces(engine: Engine, run_id: int, *, limit: int = 20) -> list[dict[str, Any]]:
    """The run's newest traces with each round's calls as (name, ok) badges."""
    query = (
        select(
            _TRACE.c.id,
            _TRACE.c.case_key,
            _TRACE.c.repetition,
            _TRACE.c.status,
            _TRACE.c.round_count,
            _TRACE.c.created_at,
        )
        .where(_TRACE.c.run_id == run_id)
        .order_by(_TRACE.c.id.desc())
        .limit(limit)
    )
    with engine.connect() as c:
        traces = [dict(r) for r in c.execute(query).mappings().all()]
    badges = round_badges(engine, [t["id"] for t in traces])
    for t in traces:
        t["created_at"] = _aware(t["created_at"])
        t["rounds"] = [badges.get((t["id"], i), []) for i in range(int(t["round_count"]))]
    return traces


def round_badges(
    engine: Engine, trace_ids: Sequence[int]
) -> dict[tuple[int, int], list[tuple[str, bool | None]]]:
    """(trace id, round index) -> [(tool name, ok)] from the call rows (one query)."""
    if not trace_ids:
        return {}
    query = (
        select(_CALL.c.trace_id, _CALL.c.round_index, _CALL.c.name, _CALL.c.ok)
        .where(_CALL.c.trace_id.in_(list(trace_ids)))
        .order_by(_CALL.c.trace_id, _CALL.c.round_index, _CALL.c.call_index)
    )
    out: dict[tuple[int, int], list[tuple[str, bool | None]]] = {}
    with engine.connect() as c:
        for r in c.execute(query):
            out.setdefault((r.trace_id, r.round_index), []).append((r.name, r.ok))
    return out


# --------------------------------------------------------------------------- trends


def trend_points(engine: Engine, filters: Filters | None = None) -> list[dict[str, Any]]:
    """One point per evaluation: when, model, suite, tier, rule set, accuracy."""
    return [
        {
            "evaluation": r["id"],
            "created_at": r["created_at"],
            "model": r["model"],
            "suite": r["suite"],
            "tier": r["tier"],
            "rule_set": r["rule_set"],
            "accuracy": r["accuracy"],
            "scored": r["scored"],
            "avg_partial": r["avg_partial"],
        }
        for r in list_evaluations(engine, filters)
    ]


def partial_histogram(
    engine: Engine, filters: Filters | None = None, *, bins: int = 10
) -> list[dict[str, Any]]:
    """Partial scores of the filtered evaluations in ``bins`` equal buckets over [0, 1]."""
    bucket = case(
        (_EJ.c.partial_score >= 1.0, bins - 1),
        else_=func.floor(_EJ.c.partial_score * bins),
    )
    query = (
        select(bucket.label("bucket"), _EJ.c.verdict, func.count().label("n"))
        .select_from(
            _EJ.join(_EVAL, _EVAL.c.id == _EJ.c.evaluation_id)
            .join(_RUN, _RUN.c.id == _EVAL.c.run_id)
            .join(_SUITE, _SUITE.c.id == _RUN.c.suite_id)
            .join(_RULES, _RULES.c.id == _EVAL.c.rule_set_id)
        )
        .where(_EJ.c.partial_score.is_not(None))
        .group_by(bucket, _EJ.c.verdict)
    )
    query = _apply_filters(query, filters, evaluations=True)
    with engine.connect() as c:
        rows = c.execute(query).all()
    out = []
    for r in rows:
        index = max(0, min(bins - 1, int(r.bucket)))
        out.append(
            {
                "bucket": index,
                "low": index / bins,
                "high": (index + 1) / bins,
                "verdict": r.verdict,
                "n": int(r.n),
            }
        )
    return sorted(out, key=lambda d: (d["bucket"], d["verdict"]))
