"""The steps every way of judging a run shares: resolve its inputs from the store, judge a
chunk of streamed rows in this process, settle a chunk's judgments and links in one
transaction, finish the evaluation; and an evaluation's rows read back.

:mod:`rejudge.services._judging` (this machine, shards), :mod:`rejudge.services._partitions`
(a Dask worker), :mod:`rejudge.services._distributed` (the cluster's driver) and
:mod:`rejudge.services._model_graded` all judge with these, so each imports this module and
none of them imports another's (no import cycle: tests/test_architecture.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict, TypeVar

from rejudge.errors import InvalidInputError
from rejudge.judge import (
    ENGINE_VERSION,
    BatchJudge,
    Judged,
    JudgeRunResult,
    ReportBuilder,
    builtin_rule_sets,
)
from rejudge.judge.tiers import get_tier
from rejudge.model import Case, Report, RuleSet, ToolRegistry, content_hash
from rejudge.store import (
    EvaluatedTrace,
    JudgmentLink,
    KnownJudgment,
    ReportCounts,
    RunRecord,
    Store,
    StreamedTrace,
)

__all__ = ["evaluation_rows", "iter_evaluation_rows", "judged_by"]


class JudgmentInputs(TypedDict):
    """What a judgment was judged from, as an evaluation's rows show it (the report's rows and
    review's): the input hashes, the tier and the engine version."""

    trace_hash: str
    case_hash: str
    registry_hash: str
    rule_set_hash: str
    tier: str
    engine_version: str


def judgment_inputs(r: EvaluatedTrace) -> JudgmentInputs:
    """A streamed evaluation row's :class:`JudgmentInputs`, in that order."""
    return {
        "trace_hash": r.trace_hash,
        "case_hash": r.case_hash,
        "registry_hash": r.registry_hash,
        "rule_set_hash": r.rule_set_hash,
        "tier": r.tier,
        "engine_version": r.engine_version,
    }


def _find_or_create_evaluation(
    store: Store, run_id: int, tier: str, rule_set_id: int, reuse: bool
) -> int:
    """``reuse`` (a shard): the evaluation every shard of this (run, tier, rule set, engine
    version) shares, created by whichever shard comes first (atomically: see
    ``store.evaluations.find_or_create_evaluation``); otherwise a new evaluation."""
    if reuse:
        evaluation_id, _created = store.evaluations.find_or_create_evaluation(
            run_id=run_id, tier=tier, rule_set_id=rule_set_id, engine_version=ENGINE_VERSION
        )
        return evaluation_id
    return store.evaluations.create_evaluation(
        run_id=run_id, tier=tier, rule_set_id=rule_set_id, engine_version=ENGINE_VERSION
    )


_Row = TypeVar("_Row")

#: a :class:`JudgmentLink` made of its values in the fields' order
_link = tuple.__new__


def _chunked(it: Iterable[_Row], size: int) -> Iterator[list[_Row]]:
    chunk: list[_Row] = []
    for row in it:
        chunk.append(row)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


@dataclass(frozen=True)
class JudgeInputs:
    """What judging one run under (tier, rules) reads, resolved from the store once: the run,
    the suite snapshot judged against, its cases and registry, the stored rule set's id."""

    run: RunRecord
    tier: str
    rule_set: RuleSet
    rule_set_id: int
    suite_id: int
    suite_hash: str
    registry_id: int
    registry: ToolRegistry
    cases: dict[str, Case]
    #: case key -> (dimension, category): what a link to the evaluation carries
    groups: dict[str, tuple[str | None, str | None]]

    @property
    def inputs_hash(self) -> str:
        return content_hash(
            [
                self.suite_hash,
                self.registry.hash,
                self.rule_set.hash,
                self.tier,
                ENGINE_VERSION,
                self.run.harness_mode,
                sorted(c.hash for c in self.cases.values()),
            ]
        )


def with_world(store: Store, inputs: JudgeInputs, world: str) -> JudgeInputs:
    """``inputs`` judged under another version of their registry's world (``name@version``,
    e.g. ``retail@2``): the registry with that world's reference, stored, so every judgment
    is keyed by the version it was judged under. A bad key is an error naming ``--world``."""
    from dataclasses import replace

    from rejudge.registry import REGISTRY

    name, _, version = world.partition("@")
    ref = inputs.registry.world
    if not name or not version:
        raise InvalidInputError(
            f"a world is named NAME@VERSION (e.g. retail@2), got {world!r}", field="world"
        )
    if ref is None or ref.name != name:
        has = f"names world {ref.name!r}" if ref is not None else "names no world"
        raise InvalidInputError(
            f"world {world}: run {inputs.run.name!r} is judged against a registry that {has}",
            field="world",
        )
    # an unknown version is the registry's one "unknown world 'x' (known: ...)" error
    registry = inputs.registry.model_copy(update={"world": REGISTRY.get("world", world).ref})
    return replace(inputs, registry=registry, registry_id=store.suites.save_registry(registry))


def resolve_inputs(
    store: Store,
    run_ref: str | int,
    tier: str,
    rule_set: RuleSet,
    suite_id: int | None = None,
    world: str | None = None,
) -> JudgeInputs:
    """Read (and check) what :func:`judge_run` judges with; the rule set is stored.
    ``world``: another version of the registry's world (:func:`with_world`)."""
    get_tier(tier)  # unknown tier: fail before touching the store
    run = store.runs.get_run(run_ref)
    registry_id, suite_hash = run.registry_id, run.suite_hash
    if suite_id is not None and suite_id != run.suite_id:
        recorded = store.suites.get_suite_by_id(run.suite_id)
        chosen = store.suites.get_suite_by_id(suite_id)
        if chosen.name != recorded.name:
            raise InvalidInputError(
                f"run {run.name!r} recorded suite {recorded.name!r}; it can be judged against "
                f"another snapshot of that suite, not against {chosen.name!r}"
            )
        registry_id, suite_hash = chosen.registry_id, chosen.hash
    suite = suite_id or run.suite_id
    builtin = any(r.hash == rule_set.hash for r in builtin_rule_sets())
    rule_set_id = store.rule_sets.save_rule_set(rule_set, builtin=builtin)
    inputs = load_inputs(store, run, tier, rule_set, rule_set_id, suite, suite_hash, registry_id)
    return inputs if world is None else with_world(store, inputs, world)


def load_inputs(
    store: Store,
    run: RunRecord,
    tier: str,
    rule_set: RuleSet,
    rule_set_id: int,
    suite_id: int,
    suite_hash: str,
    registry_id: int,
) -> JudgeInputs:
    """:class:`JudgeInputs` from ids already resolved (what a distributed worker reads)."""
    cases = {key: case for key, (_pk, case) in store.suites.get_cases(suite_id).items()}
    return JudgeInputs(
        run=run,
        tier=tier,
        rule_set=rule_set,
        rule_set_id=rule_set_id,
        suite_id=suite_id,
        suite_hash=suite_hash,
        registry_id=registry_id,
        registry=store.suites.get_registry(registry_id),
        cases=cases,
        groups={k: (c.dimension, c.category) for k, c in cases.items()},
    )


def settle_chunk(
    store: Store,
    evaluation_id: int,
    inputs: JudgeInputs,
    rows: Sequence[StreamedTrace],
    keys: list[str],
    known: dict[str, KnownJudgment],
    fresh: list[Judged],
    builder: ReportBuilder | None = None,
) -> int:
    """Write a chunk's new judgments and link every trace of the chunk to the evaluation, in
    one transaction (insert-or-ignore on the judgment key and on (evaluation, trace): writing
    a chunk twice, e.g. a retried partition, changes nothing). Returns how many were new."""
    for p, taxonomy, tools, anomalies in fresh:
        # not known before the insert (no id): linked by key
        known[p.key] = KnownJudgment(None, p.verdict, p.partial_score, taxonomy, anomalies, tools)
    links: list[JudgmentLink] = []
    groups = inputs.groups
    add = builder.add_values if builder is not None else None
    for row, key in zip(rows, keys, strict=True):
        found = known[key]
        case_key = row.case_key
        dimension, category = groups[case_key]
        # the link's fields in order, without NamedTuple's keyword __new__ (a link per trace)
        links.append(
            _link(
                JudgmentLink,
                (
                    found.id,
                    row.id,
                    case_key,
                    row.repetition,
                    found.verdict,
                    found.partial_score,
                    dimension,
                    category,
                    key if found.id is None else None,
                ),
            )
        )
        if add is not None:
            add(
                case_key,
                row.repetition,
                found.verdict,
                found.taxonomy,
                found.partial_score,
                dimension,
                category,
                None,
                found.implicated_tools,
                found.anomalies,
            )
    store.judgments.save_and_link_rows(evaluation_id, [p for p, *_ in fresh], links)
    return len(fresh)


def judge_chunk_here(
    store: Store,
    batch: BatchJudge,
    chunk: list[StreamedTrace],
    keys: list[str],
    known: dict[str, KnownJudgment],
) -> list[Judged]:
    """The new judgments of a chunk of rows streamed without bodies, judged in this process:
    one representative per behaviour not judged before (only its body is read), copies for
    the rest (see :meth:`BatchJudge.plan`)."""
    plan = batch.plan(chunk, keys, known)
    bodies = store.traces.trace_bodies(plan.body_ids) if plan.reps else {}
    return batch.complete(plan, batch.judge_now(plan.judge_rows(bodies)), store.traces.trace_bodies)


def finish_judging(
    store: Store,
    evaluation_id: int,
    inputs: JudgeInputs,
    tier: str,
    rule_set: RuleSet,
    judged: int,
    written: int,
    *,
    builder: ReportBuilder | None = None,
) -> JudgeRunResult:
    """The evaluation's summary (aggregated while linking, or read back from the store when no
    ``builder`` saw every judgment: a shard, a distributed run), stored with the evaluation
    marked finished; the run's result. Every engine ends a judging here."""
    run = inputs.run
    if builder is not None:
        summary = builder.report(harness_mode=run.harness_mode)
    else:
        summary = stored_report(
            store, evaluation_id, harness_mode=run.harness_mode, include_cases=False
        ).summary
    store.evaluations.finish_evaluation(
        evaluation_id, summary=summary, inputs_hash=inputs.inputs_hash
    )
    return JudgeRunResult(
        evaluation_id=evaluation_id,
        run_id=run.id,
        tier=tier,
        rules=rule_set.ref,
        judged=judged,
        written=written,
        summary=summary,
    )


def stored_report(
    store: Store,
    evaluation_id: int,
    *,
    harness_mode: str | None = None,
    harness_assistance: Mapping[str, Any] | None = None,
    include_cases: bool = True,
    counts: ReportCounts | None = None,
) -> Report:
    """The judge's report of a stored evaluation's rows (:func:`rejudge.judge.build_report`'s
    aggregation), fed the few values a report counts per row (``store.evaluations.
    report_values``), not a dict of every column per row: at 50,000 rows that halved it.
    Without ``include_cases``, fed those values counted in the database
    (``store.evaluations.report_counts``, or ``counts`` when the caller read them already):
    no row per judged trace at all."""
    builder = ReportBuilder(include_cases=include_cases)
    if include_cases:
        add = builder.add_values
        for values in store.evaluations.report_values(evaluation_id):
            add(*values)
    else:  # the summary alone: its counts grouped in the database, no row read
        if counts is None:
            counts = store.evaluations.report_counts(evaluation_id)
        builder.add_counted(*counts)
    summary = builder.report(harness_mode=harness_mode, harness_assistance=harness_assistance)
    return Report(summary, builder.rows() if include_cases else None)


def evaluation_rows(
    store: Store, evaluation_id: int, body_paths: Mapping[str, Sequence[str]] | None = None
) -> list[dict[str, Any]]:
    """An evaluation's rows in the shape :func:`rejudge.judge._report.build_report` takes;
    ``body_paths`` (as the store's) adds those fields of each judgment body where present."""
    return list(iter_evaluation_rows(store, evaluation_id, body_paths))


def iter_evaluation_rows(
    store: Store, evaluation_id: int, body_paths: Mapping[str, Sequence[str]] | None = None
) -> Iterator[dict[str, Any]]:
    """:func:`evaluation_rows`, streamed (memory stays flat however large the evaluation)."""
    for r in store.judgments.iter_evaluation_rows(evaluation_id, body_paths=body_paths):
        row = {
            "case": r.case_key,
            "repetition": r.repetition,
            "verdict": r.verdict,
            "taxonomy": list(r.taxonomy or []),
            "partial_score": r.partial_score,
            "dimension": r.dimension,
            "category": r.category,
            "implicated_tools": r.implicated_tools or [],
            "anomalies": r.anomalies or [],
            **judgment_inputs(r),
        }
        for label in body_paths or ():
            value = r.paths.get(label)
            if value is not None:
                row[label] = value
        yield row


def judged_by(store: Store, evaluation_id: int) -> str | None:
    """``"task-success@1 by SmolLM2-135M-Instruct"``: what judged a model-graded evaluation,
    read from its first judgment that called the judge (None when none did); what its report
    and comparisons show where other tiers show their rule set."""
    paths = {"rubric": ("details", "judge", "rubric"), "model": ("details", "judge", "model")}
    for row in store.judgments.iter_evaluation_rows(evaluation_id, body_paths=paths):
        if row.paths.get("rubric") and row.paths.get("model"):
            return f"{row.paths['rubric']} by {row.paths['model']}"
    return None
