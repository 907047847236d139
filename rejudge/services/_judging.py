"""Judging over the store: judge a run into an evaluation, plan and run a re-judge of many runs,
read an evaluation back as its report.

Never touches the network and never imports the recorder: every input comes from the store, and
the judging itself is :class:`rejudge.judge._batch.BatchJudge` (pure, in worker processes when
asked). Judgments are keyed by their inputs, so a trace already judged under the same inputs is
not judged or written again (insert-or-ignore on the key), and ``shard=(i, n)`` judges only
traces whose id % n == i: n machines sharing one PostgreSQL store split a large re-judge and
converge on one evaluation per (run, tier, rules, engine version). ``engine=DaskEngine(...)``
runs the same judging as tasks on a Dask cluster (:mod:`rejudge.services._distributed`); the
steps both share (:func:`resolve_inputs`, :func:`settle_chunk`, ...) are in
:mod:`rejudge.services._judge_steps`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from rejudge.errors import InvalidInputError, NotFoundError
from rejudge.judge import (
    ENGINE_VERSION,
    BatchJudge,
    ChunkPlan,
    EvaluationReport,
    Judged,
    JudgeRunResult,
    JudgeSummary,
    RejudgedEvaluation,
    RejudgeResult,
    ReportBuilder,
)
from rejudge.judge.tiers import MODEL_GRADED, get_tier
from rejudge.model import RuleSet
from rejudge.store import KnownJudgment, ReportCounts, RunRecord, Store, StreamedTrace

from ._judge_steps import (
    _chunked,
    _find_or_create_evaluation,
    finish_judging,
    judge_chunk_here,
    judged_by,
    resolve_inputs,
    settle_chunk,
    stored_report,
)

if TYPE_CHECKING:
    from rejudge.services._distributed import DaskEngine

__all__ = [
    "judge_run",
    "judge_run_summary",
    "evaluation_report",
    "RejudgePlan",
    "plan_rejudge",
    "rejudge",
    "applicable_tiers",
    "find_current_evaluation",
]

Progress = Callable[[int], None]


#: trace rows read per query while judging a run (see ``store.traces.iter_trace_rows(page_size=)``)
ROW_PAGE = 5000
#: traces judged and written per transaction by :func:`judge_run`: a commit rewrites every page
#: of the random-keyed judgment indexes (key, trace hash) that its rows land on, and a chunk of
#: 2,500 rows shares those pages five times as often as one of 500. 100,000 distinct traces,
#: first judging (bench/README.md): system CPU 33 -> 19-20 µs a trace
CHUNK = 2500
#: chunks settled per transaction by :func:`judge_run`: a commit of SQLite's WAL writes every
#: page the chunk dirtied, nearly all of the random-keyed judgment indexes once the store holds
#: a few hundred thousand judgments, and the checkpoint copies them again; two chunks per
#: commit write those pages once for twice the rows. The chunks are judged, looked up and
#: inserted as before, in the same order (the same ids): the second chunk's lookup reads the
#: first one's uncommitted judgments through the transaction's own connection
CHUNKS_PER_COMMIT = 2


def judge_run(
    store: Store,
    run_ref: str | int,
    tier: str,
    rule_set: RuleSet,
    *,
    workers: int = 1,
    shard: tuple[int, int] | None = None,
    chunk_size: int = CHUNK,
    progress: Progress | None = None,
    suite_id: int | None = None,
    engine: DaskEngine | None = None,
    world: str | None = None,
) -> JudgeRunResult:
    """Judge every stored trace of a run (or one shard of them) into an evaluation.

    ``world`` (``name@version``) judges under another version of the registry's world than
    the one the suite names (:func:`with_world`; this machine's engine only).

    ``suite_id`` judges the traces against another snapshot of the run's suite (same name, e.g.
    after a golden call was corrected) instead of the snapshot the run recorded; cases are matched
    by id, and the judgments carry the corrected cases' hashes.

    ``engine`` runs the judging on a Dask cluster instead of this machine's processes (see
    :mod:`rejudge.services._distributed`; ``workers`` is then ignored).
    """
    if tier == MODEL_GRADED:
        # its verdicts come from a judge's replies, which only its own service fetches
        raise InvalidInputError(
            "the model-graded tier is judged with its rubric and judge model "
            "(rejudge.services.judge_run_model_graded), not under a rule set alone",
            field="tier",
        )
    if engine is not None and world is not None:
        raise InvalidInputError(
            "another world version is judged on this machine's engine only, not on the dask engine",
            field="world",
        )
    if engine is not None:
        from rejudge.services._distributed import open_cluster

        with open_cluster(engine, store) as cluster:
            return cluster.judge_run(
                run_ref, tier, rule_set, shard=shard, progress=progress, suite_id=suite_id
            )
    inputs = resolve_inputs(store, run_ref, tier, rule_set, suite_id, world)
    run, cases, registry = inputs.run, inputs.cases, inputs.registry
    evaluation_id = _find_or_create_evaluation(
        store, run.id, tier, inputs.rule_set_id, reuse=shard is not None
    )

    # None for a shard: its evaluation is shared and may already link anything
    previous = None if shard is not None else store.evaluations.previous_evaluation(evaluation_id)
    judged = written = 0
    # A new evaluation holds exactly the links this call writes, so its summary is aggregated
    # on the way; a shard's evaluation is shared with other machines and is read back instead.
    builder = ReportBuilder(include_cases=False) if shard is None else None

    # the open transaction of the chunks settled since the last commit (CHUNKS_PER_COMMIT), and
    # their traces, reported to ``progress`` once that commit holds them (a reader in another
    # process, e.g. the Live page, then reads every judgment the progress counts)
    held = ExitStack()
    uncommitted = unreported = 0

    def report() -> None:
        nonlocal unreported
        if progress and unreported:
            progress(unreported)
        unreported = 0

    def settle(
        rows: list[StreamedTrace],
        keys: list[str],
        known: dict[str, KnownJudgment],
        fresh: list[Judged],
    ) -> int:
        nonlocal uncommitted
        if not uncommitted:
            held.enter_context(store.atomic())
        n_written = settle_chunk(store, evaluation_id, inputs, rows, keys, known, fresh, builder)
        uncommitted += 1
        return n_written

    def done(rows: list[StreamedTrace], n_written: int) -> None:
        nonlocal judged, written, uncommitted, unreported
        judged += len(rows)
        written += n_written
        unreported += len(rows)
        if uncommitted >= CHUNKS_PER_COMMIT:
            held.close()  # commits
            uncommitted = 0
            report()

    # judged in this process when workers == 1 (or for nothing: a re-judge of unchanged inputs
    # judges nothing); the worker pool starts at the first batch that has something to judge
    # (held is entered last, so left first: an error rolls its transaction back, and the
    # last commit comes before the worker pool shuts down)
    with BatchJudge(registry, cases, rule_set, tier, workers=workers) as batch, held:
        # rows stream without their bodies: a trace already judged under these inputs, or
        # behaving like one judged before, is never read; a body is read (as text) only for
        # the representative of a behaviour, and decoded where it is judged (in the worker).
        # Read in keyset pages, each its own short read: one streaming read would stay open
        # across every chunk's commit and keep SQLite from restarting its WAL
        stream = (
            row
            for row in store.traces.iter_trace_rows(
                run.id, shard=shard, with_body=False, page_size=ROW_PAGE
            )
            if row.case_key in cases
        )
        Pending = tuple[
            list[StreamedTrace],
            list[str],
            dict[str, KnownJudgment],
            ChunkPlan,
            Future[list[Judged]],
        ]
        pending: list[Pending] = []

        def settle_pending(item: Pending) -> None:
            rows, rkeys, rknown, plan, fut = item
            fresh = batch.complete(plan, fut.result(), store.traces.trace_bodies)
            done(rows, settle(rows, rkeys, rknown, fresh))

        for chunk in _chunked(stream, chunk_size):
            keys = [batch.key(r.case_key, r.hash) for r in chunk]
            # the key depends on the inputs only: look them up before judging anything, first
            # among the judgments the previous evaluation of these inputs linked to the chunk's
            # traces (a re-judge of unchanged inputs finds them all there, in insertion order)
            linked = (
                None
                if previous is None
                else (previous, min(r.id for r in chunk), max(r.id for r in chunk))
            )
            known = store.judgments.lookup_judgments(keys, linked=linked)
            if previous is not None and not known:
                previous = None  # it links none of these keys: inputs changed since
            if workers == 1:
                done(
                    chunk,
                    settle(chunk, keys, known, judge_chunk_here(store, batch, chunk, keys, known)),
                )
                continue
            plan = batch.plan(chunk, keys, known)
            if not plan.reps:
                fresh = batch.complete(plan, [], store.traces.trace_bodies)
                done(chunk, settle(chunk, keys, known, fresh))
                continue
            rows_to_judge = plan.judge_rows(store.traces.trace_bodies(plan.body_ids))
            pending.append((chunk, keys, known, plan, batch.submit(rows_to_judge)))
            while len(pending) >= 2 * workers:  # bounded window: memory stays flat
                settle_pending(pending.pop(0))
        for item in pending:
            settle_pending(item)
    report()  # the last chunks, committed as held closed

    return finish_judging(
        store, evaluation_id, inputs, tier, rule_set, judged, written, builder=builder
    )


def judge_run_summary(
    store: Store,
    run_ref: str | int,
    tier: str,
    rule_set: RuleSet,
    *,
    workers: int = 1,
    suite_snapshot: str | None = None,
    engine: DaskEngine | None = None,
    progress: Progress | None = None,
    world: str | None = None,
) -> JudgeSummary:
    """``rejudge judge``: :func:`judge_run`, against the run's suite snapshot or another one
    of the same suite (``"latest"`` or a suite hash), under the world version it names or
    ``world`` (``name@version``)."""
    suite_id = None
    if suite_snapshot is not None:
        recorded = store.suites.get_suite_by_id(store.runs.get_run(run_ref).suite_id)
        chosen = store.suites.get_suite(
            recorded.name, None if suite_snapshot == "latest" else suite_snapshot
        )
        suite_id = chosen.id
    result = judge_run(
        store,
        run_ref,
        tier,
        rule_set,
        workers=workers,
        suite_id=suite_id,
        engine=engine,
        progress=progress,
        world=world,
    )
    return _named(JudgeSummary, result, store.runs.get_run(result.run_id).name)


#: what a judging's result becomes once its run is named: ``rejudge judge``'s summary, or one
#: (run, tier) of a re-judge
_Named = TypeVar("_Named", JudgeSummary, RejudgedEvaluation)


def _named(kind: type[_Named], result: JudgeRunResult, run: str) -> _Named:
    """``result`` as ``kind``, its run named ``run`` (the two differ in their JSON's order)."""
    return kind(
        evaluation=result.evaluation_id,
        run=run,
        tier=result.tier,
        rules=result.rules,
        summary=result.summary,
        judged=result.judged,
        written=result.written,
    )


def evaluation_report(
    store: Store,
    evaluation_id: int | str,
    *,
    with_calibration: bool = False,
    with_cases: bool = True,
    counts: ReportCounts | None = None,
) -> EvaluationReport:
    """The full report (DESIGN §11 ``report``) of a stored evaluation; ``with_calibration``
    adds the review figures (what ``rejudge report`` shows); without ``with_cases``, its
    summary alone (no rows: counted in the database, :func:`stored_report`, or from
    ``counts``, the evaluation's ``store.evaluations.report_counts`` read by the caller)."""
    ev = store.evaluations.get_evaluation(evaluation_id)
    try:
        run = store.runs.get_run(ev.run_id)
    except NotFoundError:
        run = None
    rule_set = store.rule_sets.get_rule_set(ev.rule_set_id)
    report = stored_report(
        store,
        ev.id,
        harness_mode=run.harness_mode if run else None,
        harness_assistance=run.config.harness_assistance.model_dump() if run else None,
        include_cases=with_cases,
        counts=counts,
    )
    calibration = None
    judge_calibration = None
    if with_calibration:
        from rejudge.services._judge_calibration import evaluation_judge_calibration
        from rejudge.services._reviews import calibration_summary

        calibration = calibration_summary(store, ev.id).to_json()
        if ev.tier == MODEL_GRADED:
            judge_calibration = evaluation_judge_calibration(store, ev.id)
    rules = rule_set.ref
    if ev.tier == MODEL_GRADED:
        rules = judged_by(store, ev.id) or rules
    return EvaluationReport(
        evaluation=ev.id,
        run=run.name if run else ev.run_id,
        tier=ev.tier,
        rules=rules,
        summary=report.summary,
        cases=report.cases or [],
        calibration=calibration,
        judge_calibration=judge_calibration,
    )


# --------------------------------------------------------------------------- re-judging


@dataclass(frozen=True)
class RejudgePlan:
    """Which (run, tier) pairs a re-judge covers and how many traces each streams."""

    jobs: list[tuple[RunRecord, str, int]]
    skipped: list[dict[str, Any]] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(n for _run, _tier, n in self.jobs)


def plan_rejudge(
    store: Store,
    runs: Sequence[str] | None,
    tiers: Sequence[str] = (),
    *,
    shard: tuple[int, int] | None = None,
) -> RejudgePlan:
    """Resolve ``runs`` (None = every run) and the tiers for each.

    Without ``tiers`` a run is re-judged under every tier it was judged under before; a run never
    judged is skipped (with a reason) unless tiers are given.
    """
    for tier in tiers:
        get_tier(tier)  # unknown tier: fail before anything else
    if runs is None:
        records = [store.runs.get_run(r.id) for r in store.runs.list_runs()]
        if not records:
            raise NotFoundError("the store holds no run to re-judge")
    else:
        if not runs:
            raise InvalidInputError("name at least one run, or ask for every run", field="all_runs")
        records = [store.runs.get_run(ref) for ref in runs]
    jobs: list[tuple[RunRecord, str, int]] = []
    skipped: list[dict[str, Any]] = []
    seen: set[int] = set()
    for run in records:
        if run.id in seen:
            continue
        seen.add(run.id)
        wanted = list(dict.fromkeys(tiers)) or sorted(
            {ev.tier for ev in store.evaluations.list_evaluations(run.id)}
        )
        graded = MODEL_GRADED in wanted
        if graded:
            # a rule set does not re-judge a model judge's verdicts (its rubric and judge do)
            wanted.remove(MODEL_GRADED)
            skipped.append(
                {
                    "run": run.name,
                    "reason": "model-graded is judged again with its rubric and judge model, "
                    "not under a rule set",
                }
            )
        if not wanted:
            if not graded:  # a run skipped for its model judge is not "never judged" too
                skipped.append({"run": run.name, "reason": "never judged; name a tier"})
            continue
        count = store.traces.count_traces(run.id)
        if shard is not None:
            index, n = shard
            count = count // n + (1 if index < count % n else 0)  # approximate for the bar
        for tier in wanted:
            jobs.append((run, tier, count))
    if not jobs and skipped:
        if all(s["reason"].startswith("never judged") for s in skipped):
            names = ", ".join(s["run"] for s in skipped)
            raise InvalidInputError(
                f"no run to re-judge: {names} never judged before; name a tier to judge under",
                field="tier",
            )
        raise InvalidInputError(
            "nothing to re-judge under a rule set: "
            + "; ".join(f"{s['run']}: {s['reason']}" for s in skipped),
            field="tier",
        )
    return RejudgePlan(jobs=jobs, skipped=skipped)


def rejudge(
    store: Store,
    plan: RejudgePlan,
    rule_set: RuleSet,
    *,
    workers: int = 1,
    shard: tuple[int, int] | None = None,
    progress: Progress | None = None,
    engine: DaskEngine | None = None,
) -> RejudgeResult:
    """Re-score every planned (run, tier) under ``rule_set``: stored traces only, no network.

    ``engine`` runs every job on one Dask cluster (opened and checked once, before anything is
    written); otherwise in this machine's ``workers`` processes."""
    if workers < 1:
        raise InvalidInputError("workers must be at least 1", field="workers")
    with ExitStack() as stack:
        if engine is not None:
            from rejudge.services._distributed import open_cluster

            cluster = stack.enter_context(open_cluster(engine, store))

            def one(run: RunRecord, tier: str) -> JudgeRunResult:
                return cluster.judge_run(run.id, tier, rule_set, shard=shard, progress=progress)
        else:

            def one(run: RunRecord, tier: str) -> JudgeRunResult:
                return judge_run(
                    store, run.id, tier, rule_set, workers=workers, shard=shard, progress=progress
                )

        evaluations = []
        for run, tier, _n in plan.jobs:
            evaluations.append(_named(RejudgedEvaluation, one(run, tier), run.name))
    return RejudgeResult(
        rules=rule_set.ref,
        evaluations=evaluations,
        skipped=plan.skipped,
        judged=sum(e.judged for e in evaluations),
        written=sum(e.written for e in evaluations),
    )


def applicable_tiers(store: Store, run_ref: str | int, names: Iterable[str]) -> list[str]:
    """The tiers of ``names`` that apply to at least one case of the run's suite."""
    run = store.runs.get_run(run_ref)
    registry = store.suites.get_registry(run.registry_id)
    cases = [case for _pk, case in store.suites.get_cases(run.suite_id).values()]
    out = []
    for name in names:
        tier = get_tier(name)
        if any(tier.applies(case, registry) for case in cases):
            out.append(name)
    return out


def find_current_evaluation(
    store: Store, run_ref: str | int, tier: str, rule_set: RuleSet
) -> int | None:
    """A finished evaluation of exactly the run's current traces under (tier, rules, engine).

    Used to make a repeated demo a lookup: the evaluation must cover the same trace hashes the
    run holds now, so a renormalized or extended run is judged again.
    """
    run = store.runs.get_run(run_ref)
    candidates = [
        ev
        for ev in store.evaluations.list_evaluations(run.id)
        if ev.tier == tier and ev.engine_version == ENGINE_VERSION and ev.status == "finished"
    ]
    if not candidates:
        return None
    current = sorted(
        (r.case_key, r.repetition, r.hash)
        for r in store.traces.iter_trace_rows(run.id, with_body=False)  # the bodies are not needed
    )
    for ev in reversed(candidates):
        if store.rule_sets.get_rule_set(ev.rule_set_id).hash != rule_set.hash:
            continue
        judged = sorted(
            (r.case_key, r.repetition, r.trace_hash)
            for r in store.judgments.iter_evaluation_rows(ev.id)
        )
        if judged == current:
            return ev.id
    return None
